"""Graded-relevance and one-document measures, vectorised over runs and topics.

Every measure maps a :class:`~irmeta.ranking.RelevanceMatrix` to per-topic scores of
shape (runs, topics), cut at rank k (``@k``; no ``@k``: the full depth of the matrix),
with numpy reductions over whole (runs, topics, ranks) arrays. Registered names:

``RR``
    1 / r_1, r_1 the rank of the first relevant document in the top k; 0 if there is
    none (trec_eval ``recip_rank``; relevant = judged with grade >= the threshold).
``DCG``, ``nDCG``
    trec_eval's ``ndcg_cut``: DCG@k = sum_{r<=k} g(r) / log2(r + 1), normalised by the
    DCG@k of the ideal list (every judged document with a positive gain, by gain
    descending, cut at k); 0 when the ideal is 0. Current trec_eval and
    pytrec_eval-terrier discount by log2(r + 1); some older trec_eval sources of
    ``m_ndcg_cut.c`` used the JK discount below instead (rank 1 undiscounted). Without
    ``@k``, trec_eval's ``ndcg``: the whole run against the ideal over every positive
    judged gain of the topic (not cut at any depth). Gains, as trec_eval's, ignore the
    relevance threshold: a judged document graded 1 gains 1 even at threshold 2
    (trec_eval -l 2 changes no ndcg).
``DCG_jk``, ``nDCG_jk``
    Järvelin and Kekäläinen's original discount with base 2, as the IR lecture
    (seed 003) writes it: DCG_p = rel_1 + sum_{i=2..p} rel_i / log2(i).
``Q``, ``O``, ``Pmeasure``, ``Pplus``
    Sakai's measures (Sakai, "Give me just one highly relevant document: P-measure",
    SIGIR 2006, section 2; seed 004). With cg(r) = sum_{i<=r} g(i), cg*(r) the same for
    the ideal list, count(r) the relevant documents in the top r and the blended ratio

        BR(r) = (beta cg(r) + count(r)) / (beta cg*(r) + r)      (beta = 1 in the paper)

    - Q-measure  = (1/R) sum_{r<=k} isrel(r) BR(r), R = relevant documents of the topic
      (divided by R even at a cutoff, like irmeta's AP@k and trec_eval's map cut);
    - O-measure  = BR(r_1), r_1 the rank of the first relevant document;
    - P-measure  = BR(r_p), the "preferred rank" r_p the first record when the output
      is sorted by relevance level (the qrels grade, highest first) then rank;
    - P+-measure = sum_{r<=r_p} isrel(r) BR(r) / count(r_p).

    Each is 0 when the top k holds no relevant document. ``P`` is irmeta's precision,
    so Sakai's P-measure is registered as ``Pmeasure`` and the P+-measure as ``Pplus``.
    beta = 0 turns BR(r) into precision count(r)/r: Q becomes AP, O becomes RR.

Gains (option ``gains``): by default the DCG family gives a judged document its
grade when positive, whatever the relevance threshold (trec_eval's ``ndcg`` and
``ndcg_cut``: -l changes no gain), and Sakai's measures the grade of relevant
documents (grade >= the threshold) only, as their relevance flags count them. Negative
grades (spam) and unjudged documents gain nothing. A mapping ``{grade: gain}`` (e.g.
``{1: 1, 2: 3}``) sets the gain of judged documents by grade instead, 0 for grades it
does not name (trec_eval's ``ndcg.1=1,2=3`` keeps gain = grade for levels it does not
name); gains must be finite and >= 0. The relevance flags that Q, O, P, RR and the R
of Q use stay ``grade >= threshold`` whatever the gains.
"""

from __future__ import annotations

import re
from typing import Mapping

import numpy as np

from .metrics import MeasureDefinition, divide_by_relevant, register
from .ranking import RelevanceMatrix

GainMap = Mapping[int, float]

__all__ = [
    "gain_of", "normalise_gains", "reciprocal_rank", "dcg", "ndcg", "dcg_jk", "ndcg_jk",
    "q_measure", "o_measure", "p_measure", "p_plus_measure",
]


# --------------------------------------------------------------------------- gains


def normalise_gains(gains: GainMap | None) -> dict[int, float] | None:
    """A gain map with int grades and float gains, checked; None stays None.

    Keys may be ints or integer strings (as a YAML config gives them); values must be
    finite and non-negative (every measure here is bounded by its ideal only then).
    """
    if gains is None:
        return None
    if not isinstance(gains, Mapping):
        raise ValueError(f"gains must be a mapping grade -> gain, not {type(gains).__name__}")
    out: dict[int, float] = {}
    for key, value in gains.items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            grade = int(key)
        elif isinstance(key, str) and re.fullmatch(r"\s*[+-]?\d+\s*", key):
            grade = int(key)
        else:
            raise ValueError(f"gains: grade {key!r} is not an integer")
        try:
            gain = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"gains: the gain of grade {key!r} is not a number: {value!r}") from None
        if not np.isfinite(gain) or gain < 0:
            raise ValueError(f"gains: the gain of grade {key!r} must be finite and >= 0, not {value!r}")
        if grade in out and out[grade] != gain:
            raise ValueError(f"gains: grade {grade} is given twice with different gains")
        out[grade] = gain
    return out


def _mapped(grades: np.ndarray, table: dict[int, float]) -> np.ndarray:
    """gain of each grade under ``table`` (0 for grades it does not name), as float64."""
    if not table:
        return np.zeros(grades.shape, dtype=np.float64)
    keys = np.asarray(sorted(table), dtype=np.int64)
    values = np.asarray([table[k] for k in keys.tolist()], dtype=np.float64)
    if grades.size:
        lo = min(int(keys[0]), int(grades.min()))
        hi = max(int(keys[-1]), int(grades.max()))
        if hi - lo < 1 << 16:  # grades are small integers: one dense lookup table
            lut = np.zeros(hi - lo + 1, dtype=np.float64)
            lut[keys - lo] = values
            return lut[grades - lo]
    pos = np.minimum(np.searchsorted(keys, grades), len(keys) - 1)
    return np.where(keys[pos] == grades, values[pos], 0.0)


def gain_of(matrix: RelevanceMatrix, gains: GainMap | None = None, *,
            depth: int | None = None, below_threshold: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Gains of the ranked cells and the topics' ideal gain lists.

    Returns ``(cell, ideal)``: ``cell`` (runs, topics, depth) float64, the gain of the
    document at each rank (0 past the end of a list and for unjudged documents);
    ``ideal`` (topics, M) float64, each topic's positive judged gains sorted
    descending and padded with 0, M the most any topic has (from the qrels, so
    relevant documents no run found count). ``depth`` cuts the cells (default: all).
    Default gains are the grade of relevant documents (grade >= the threshold), or with
    ``below_threshold`` of every judged document with a positive grade (trec_eval's
    ndcg, whose gains -l does not change).
    """
    table = normalise_gains(gains)
    d = matrix.depth if depth is None else max(0, min(depth, matrix.depth))
    grade = matrix.grade[:, :, :d]
    if table is None:
        floor = 1 if below_threshold else max(matrix.threshold, 1)
        cell = np.where((matrix.judgment[:, :, :d] >= 0) & (grade >= floor), grade, 0).astype(np.float64)
        judged_gain = np.where(matrix.qrels_grade >= floor, matrix.qrels_grade, 0).astype(np.float64)
    else:
        cell = np.where(matrix.judgment[:, :, :d] >= 0, _mapped(grade, table), 0.0)
        judged_gain = _mapped(matrix.qrels_grade, table)
    n_topics = len(matrix.topics)
    keep = judged_gain > 0
    topic, value = matrix.qrels_topic[keep], judged_gain[keep]
    order = np.lexsort((-value, topic))  # by topic, then gain descending
    topic, value = topic[order], value[order]
    counts = np.bincount(topic, minlength=n_topics)
    starts = np.cumsum(counts) - counts
    ideal = np.zeros((n_topics, int(counts.max(initial=0))), dtype=np.float64)
    ideal[topic, np.arange(len(topic)) - starts[topic]] = value
    return cell, ideal


def _ideal_cut(ideal: np.ndarray, k: int) -> np.ndarray:
    """The ideal gain lists as exactly k columns (cut, or padded with 0)."""
    if ideal.shape[1] >= k:
        return ideal[:, :k]
    return np.pad(ideal, ((0, 0), (0, k - ideal.shape[1])))


def _cutoff(matrix: RelevanceMatrix, cutoff: int | None) -> tuple[int, int]:
    """(k, d): the cutoff and the ranks of the matrix it covers (d = min(k, depth))."""
    k = matrix.depth if cutoff is None else int(cutoff)
    if k < 1:
        raise ValueError(f"the cutoff must be at least 1, not {cutoff!r}")
    return k, min(k, matrix.depth)


def _last(cumulative: np.ndarray) -> np.ndarray:
    return cumulative[..., -1] if cumulative.shape[-1] else np.zeros(cumulative.shape[:-1])


# ---------------------------------------------------------------------- reciprocal rank


def reciprocal_rank(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None) -> np.ndarray:
    """RR@k = 1 / r_1 (first relevant rank within k), 0 if none (trec_eval ``recip_rank``).

    Gains play no part (``gains`` is accepted and ignored, for a uniform signature).
    """
    _, d = _cutoff(matrix, cutoff)
    rel = matrix.relevant[:, :, :d]
    first = np.argmax(rel, axis=2)
    return np.where(rel.any(axis=2), 1.0 / (first + 1.0), 0.0)


# ------------------------------------------------------------------------------ DCG


def _log2_denominators(n: int, convention: str) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype=np.float64)
    if convention == "trec":
        return np.log2(ranks + 1.0)  # rank r: log2(r + 1)
    return np.log2(np.maximum(ranks, 2.0))  # JK: rank 1 undiscounted, rank r >= 2: log2(r)


def _dcg(matrix: RelevanceMatrix, cutoff: int | None, gains: GainMap | None, convention: str,
         normalised: bool) -> np.ndarray:
    k, d = _cutoff(matrix, cutoff)
    cell, ideal = gain_of(matrix, gains, depth=d, below_threshold=True)
    # Summed in rank order, gain / log2(.), as trec_eval's loop does.
    value = _last(np.cumsum(cell / _log2_denominators(d, convention), axis=2))
    if not normalised:
        return value
    # ndcg_cut_k cuts the ideal list at k; uncut ndcg takes every positive judged gain,
    # however short the runs are.
    m = ideal.shape[1] if cutoff is None else min(k, ideal.shape[1])
    best = _last(np.cumsum(ideal[:, :m] / _log2_denominators(m, convention), axis=1))
    best = np.broadcast_to(best, value.shape)
    return np.divide(value, best, out=np.zeros_like(value), where=best > 0)


def dcg(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None) -> np.ndarray:
    """DCG@k = sum_{r<=k} g(r) / log2(r + 1) (trec_eval's ``ndcg_cut`` numerator)."""
    return _dcg(matrix, cutoff, gains, "trec", normalised=False)


def ndcg(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None) -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k (trec_eval ``ndcg_cut_k``); 0 when the ideal is 0."""
    return _dcg(matrix, cutoff, gains, "trec", normalised=True)


def dcg_jk(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None) -> np.ndarray:
    """DCG_p = rel_1 + sum_{i=2..p} rel_i / log2(i) (Järvelin & Kekäläinen; seed 003)."""
    return _dcg(matrix, cutoff, gains, "jk", normalised=False)


def ndcg_jk(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None) -> np.ndarray:
    """NDCG_p = DCG_p / DCG_p of the ideal ranking, JK discount (seed 003)."""
    return _dcg(matrix, cutoff, gains, "jk", normalised=True)


# --------------------------------------------------------------- Sakai's measures


def _check_beta(beta: float) -> float:
    b = float(beta)
    if not np.isfinite(b) or b < 0:
        raise ValueError(f"beta must be finite and >= 0, not {beta!r}")
    return b


def _blended(matrix: RelevanceMatrix, cutoff: int | None, gains: GainMap | None, beta: float):
    """(rel, count, BR) over the top min(k, depth) ranks: BR(r) of every rank."""
    b = _check_beta(beta)
    _, d = _cutoff(matrix, cutoff)
    rel = matrix.relevant[:, :, :d]
    cell, ideal = gain_of(matrix, gains, depth=d)
    cg = np.cumsum(cell, axis=2)
    count = np.cumsum(rel, axis=2, dtype=np.int64)
    ideal_cg = np.cumsum(_ideal_cut(ideal, d), axis=1)  # cg*(r), flat past the last gain
    ranks = np.arange(1, d + 1, dtype=np.float64)
    br = (b * cg + count) / (b * ideal_cg[None] + ranks)
    return rel, count, br


def _at(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    return np.take_along_axis(values, index[..., None], axis=2)[..., 0]


def q_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
              beta: float = 1.0) -> np.ndarray:
    """Q@k = (1/R) sum_{r<=k} isrel(r) BR(r) (Sakai 2006, section 2); 0 when R = 0."""
    rel, _, br = _blended(matrix, cutoff, gains, beta)
    total = _last(np.cumsum(np.where(rel, br, 0.0), axis=2))  # rank order, as AP
    return divide_by_relevant(total, matrix.n_relevant)


def o_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
              beta: float = 1.0) -> np.ndarray:
    """O@k = BR(r_1), r_1 the first relevant rank within k; 0 if none (Sakai 2006, section 2)."""
    rel, _, br = _blended(matrix, cutoff, gains, beta)
    return np.where(rel.any(axis=2), _at(br, np.argmax(rel, axis=2)), 0.0)


def _preferred_rank(matrix: RelevanceMatrix, rel: np.ndarray) -> np.ndarray:
    """0-based r_p: the highest relevance level in the top ranks, the nearest the top."""
    level = np.where(rel, matrix.grade[:, :, :rel.shape[2]], np.iinfo(np.int32).min)
    return np.argmax(level, axis=2)  # argmax returns the first of equal maxima


def p_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
              beta: float = 1.0) -> np.ndarray:
    """Sakai's P-measure @k = BR(r_p); 0 with no relevant document in the top k."""
    rel, _, br = _blended(matrix, cutoff, gains, beta)
    return np.where(rel.any(axis=2), _at(br, _preferred_rank(matrix, rel)), 0.0)


def p_plus_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
                   beta: float = 1.0) -> np.ndarray:
    """Sakai's P+-measure @k = sum_{r<=r_p} isrel(r) BR(r) / count(r_p); 0 with none."""
    rel, count, br = _blended(matrix, cutoff, gains, beta)
    has = rel.any(axis=2)
    rp = _preferred_rank(matrix, rel)
    total = _at(np.cumsum(np.where(rel, br, 0.0), axis=2), rp)
    n = _at(count, rp).astype(np.float64)
    return np.divide(total, n, out=np.zeros_like(total), where=has & (n > 0))


# ------------------------------------------------------------------------- registry

_G = ("gains",)
_GB = ("gains", "beta")

register(MeasureDefinition("RR", reciprocal_rank,
                           "reciprocal rank of the first relevant document in the top k (trec_eval recip_rank)"))
register(MeasureDefinition("DCG", dcg, "discounted cumulative gain, gain / log2(r + 1) (trec_eval ndcg_cut's DCG)",
                           options=_G))
register(MeasureDefinition("nDCG", ndcg, "normalised DCG at k (trec_eval ndcg_cut_k)", options=_G))
register(MeasureDefinition("DCG_jk", dcg_jk, "DCG with Jarvelin-Kekalainen's discount: rel_1 + sum rel_i / log2(i)",
                           options=_G))
register(MeasureDefinition("nDCG_jk", ndcg_jk, "normalised DCG_jk (Jarvelin-Kekalainen discount)", options=_G))
register(MeasureDefinition("Q", q_measure, "Sakai's Q-measure at k (blended ratio, beta = 1 by default)",
                           options=_GB))
register(MeasureDefinition("O", o_measure, "Sakai's O-measure: blended ratio at the first relevant rank",
                           options=_GB))
register(MeasureDefinition("Pmeasure", p_measure, "Sakai's P-measure: blended ratio at the preferred rank",
                           options=_GB))
register(MeasureDefinition("Pplus", p_plus_measure, "Sakai's P+-measure: mean blended ratio down to the preferred rank",
                           options=_GB))
