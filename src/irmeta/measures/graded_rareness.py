"""Rareness forms of nDCG (issue 20; the paper's future work, Türkmen et al. 2023, sec. 7).

Each relevant document's gain is weighted as eq. 1 weights its relevance, g(d) (1 + alpha R(d)),
R the measure's rarity function (``rarity``: :mod:`irmeta.campaign.rarity`):

``nDCG_rareness@k``
    sum_{i<=k} g(d_i) (1 + alpha R(d_i)) / log2(i + 1), divided by the ideal DCG@k of
    ``nDCG@k``: nDCG@k + alpha (sum_{i<=k} g(d_i) R(d_i) / log2(i + 1)) / IDCG@k, so it is
    nDCG@k at alpha 0 (as P_rareness is P@k) and affine in alpha.
``nDCG_rareness_norm@k``
    the same sum divided by the ideal DCG@k of the rarity-weighted gains g(d) (1 + alpha R(d))
    of the topic's judged documents, sorted descending (a relevant document no run holds
    within the rarity depth has S_d = 0: R = 1 under every function), so in [0, 1] for any
    alpha >= 0. The numerator is affine in alpha; the ideal's order depends on alpha, so it
    is sorted once per alpha, over the qrels only.

Gains are nDCG's (:func:`irmeta.measures.graded.judgment_gains`: the grade of every judged
document with a positive grade, or the ``gains`` map). Rarity is a property of relevant
documents (grade >= the threshold): a judged document below the threshold that has a gain
keeps it unweighted (R = 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.rarity import LINEAR, check_rarity_function
from irmeta.measures.alpha import Alpha
from irmeta.measures.graded import (
    GainMap,
    _check_cutoff,
    _gain_postings,
    _last,
    _log2_denominators,
    ideal_gains,
    judgment_gains,
    ndcg,
)
from irmeta.measures.rareness import RARENESS_RANGE, RARITY_OPTION, alpha_weights, rarity_cutoff, rarity_for
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, register

if TYPE_CHECKING:
    from irmeta.campaign.rarity import Rarity


def ideal_dcg(ideal: np.ndarray, cutoff: int | None) -> np.ndarray:
    """(topics,) DCG@k of each topic's sorted gains (``ideal``, (topics, M)), cut at k (None: all)."""
    m = ideal.shape[1] if cutoff is None else min(int(cutoff), ideal.shape[1])
    return _last(np.cumsum(ideal[:, :m] / _log2_denominators(m, "trec"), axis=1))


def rarity_by_row(matrix: RelevanceMatrix, cutoff: int | None, rarity: str, rarity_counts: Rarity | None,
                  rarity_depth: int | None) -> np.ndarray:
    """(qrels rows,) R(d) of each relevant judgment under ``rarity``, 0 at the other rows."""
    found = rarity_for(matrix, rarity_cutoff(matrix, cutoff), rarity_counts, rarity_depth)
    return found.by_qrels_row(found.values(rarity))


def _rarity_dcg(matrix: RelevanceMatrix, cutoff: int | None, gain: np.ndarray, rare: np.ndarray) -> np.ndarray:
    """(runs, topics) sum_{i<=k} g(d_i) R(d_i) / log2(i + 1): the part alpha scales."""
    postings = _gain_postings(matrix, gain, cutoff)
    deepest = int(postings.rank.max(initial=0))
    weighted = gain[postings.judgment] * rare[postings.judgment]
    return matrix.grid(postings.ordered_sums(weighted / _log2_denominators(deepest, "trec")[postings.rank - 1]))


def _divide(value: np.ndarray, best: np.ndarray) -> np.ndarray:
    best = np.broadcast_to(best, value.shape)
    return np.divide(value, best, out=np.zeros_like(value), where=best > 0)


def ndcg_rareness(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
                  rarity: str = LINEAR, alphas: Sequence[Alpha] = (0.0,), rarity_counts: Rarity | None = None,
                  rarity_depth: int | None = None, **_: object) -> np.ndarray:
    """nDCG@k_rareness = nDCG@k + alpha sum g R / log2(i + 1) / IDCG@k; (A, S, Q)."""
    check_rarity_function(rarity, "nDCG_rareness")
    _check_cutoff(cutoff)
    gain = judgment_gains(matrix, gains, below_threshold=True)
    rare = rarity_by_row(matrix, cutoff, rarity, rarity_counts, rarity_depth)
    term = _divide(_rarity_dcg(matrix, cutoff, gain, rare), ideal_dcg(ideal_gains(matrix, gain), cutoff))
    a = alpha_weights(alphas, matrix.n_relevant)
    return ndcg(matrix, cutoff, gains=gains)[None] + a * term[None]


def unit_scaled(gain: np.ndarray) -> np.ndarray:
    """``gain`` times the power of 2 that brings its largest into [0.5, 1): a ratio of sums
    of gains is unchanged bit for bit (scaling by 2^e is exact), and alpha (at most 1e100)
    times a gain can no longer overflow, as it could for gains near 1e300."""
    _, exponent = np.frexp(gain.max(initial=0.0))
    return np.ldexp(gain, -int(exponent))


def ndcg_rareness_norm(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
                       rarity: str = LINEAR, alphas: Sequence[Alpha] = (0.0,), rarity_counts: Rarity | None = None,
                       rarity_depth: int | None = None, **_: object) -> np.ndarray:
    """(DCG@k + alpha sum g R / log2(i + 1)) / IDCG@k of g (1 + alpha R), in [0, 1]; (A, S, Q)."""
    check_rarity_function(rarity, "nDCG_rareness_norm")
    _check_cutoff(cutoff)
    gain = unit_scaled(judgment_gains(matrix, gains, below_threshold=True))
    rare = rarity_by_row(matrix, cutoff, rarity, rarity_counts, rarity_depth)
    a = alpha_weights(alphas, matrix.n_relevant)  # (A, 1, Q)
    plain = _rarity_dcg(matrix, cutoff, gain, np.ones_like(gain))  # DCG@k of the scaled gains, as dcg() sums it
    numerator = plain[None] + a * _rarity_dcg(matrix, cutoff, gain, rare)[None]
    # the ideal list re-sorts with alpha: one sort per alpha, over the qrels rows only
    best = np.stack([ideal_dcg(ideal_gains(matrix, gain * (1.0 + row[matrix.qrels_topic] * rare)), cutoff)
                     for row in a[:, 0, :]]) if len(a) else np.zeros((0, matrix.n_topics))
    return _divide(numerator, best[:, None, :])


_GR = ("gains",) + RARITY_OPTION


register(MeasureDefinition("nDCG_rareness", ndcg_rareness,
                           "nDCG@k with rarity-weighted gains g (1 + alpha R), over nDCG's ideal (nDCG at alpha 0)",
                           uses_alpha=True, options=_GR, value_range=RARENESS_RANGE))


register(MeasureDefinition("nDCG_rareness_norm", ndcg_rareness_norm,
                           "[0, 1] nDCG@k_rareness: over the ideal of the rarity-weighted gains",
                           uses_alpha=True, options=_GR, value_range=UNIT_RANGE))
