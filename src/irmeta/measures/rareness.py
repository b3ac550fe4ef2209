"""The rareness measures of Turkmen, Lease and Kutlu (ECIR 2023): P@k and AP
re-weighted by the rarity R(d) = 1 - S_d/S of each relevant document (eq. 1-3), and
their [0, 1] forms with R'(d) (eq. 4). Both are affine in alpha: the rarity terms are
computed once and every alpha is a broadcast.

Every rareness family takes a ``rarity`` parameter, the rarity function R is read with
(:mod:`irmeta.campaign.rarity`: ``linear``, eq. 2, the default; ``log``; ``inverse``): the
[0, 1] forms then read its [0, 1] form f' where eq. 4 reads R'. The measures stay affine
in alpha whatever the function.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.campaign.rarity import LINEAR, check_rarity_function
from irmeta.measures.alpha import PER_TOPIC_ALPHA, Alpha, check_unit_alphas, parse_alpha
from irmeta.measures.cutoffs import cut_at, divide_by_relevant
from irmeta.measures.names import Measure, as_measure
from irmeta.measures.precision import average_precision, precision
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, RangeDeclaration, register, register_option_check

if TYPE_CHECKING:
    from irmeta.campaign.rarity import Rarity


def alpha_weights(alphas: Sequence[Alpha], n_relevant: np.ndarray) -> np.ndarray:
    """(A, 1, Q) weights: each alpha broadcast over topics (1/N_R per topic for ``1/R``)."""
    rows = []
    for a in map(parse_alpha, alphas):
        if a == PER_TOPIC_ALPHA:
            rows.append(divide_by_relevant(np.ones(len(n_relevant)), n_relevant))
        else:
            rows.append(np.full(len(n_relevant), a))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), 1, len(n_relevant))


def precision_rarity_term(matrix: RelevanceMatrix, hits: Postings, weight: np.ndarray, k: int) -> np.ndarray:
    """(1/k) sum_{i<=k} rel(d_i) w(d_i): the part of eq. 1 (or eq. 4) that alpha scales;
    ``weight`` per posting of ``hits``."""
    return matrix.grid(hits.ordered_sums(weight)) / k


def average_precision_rarity_term(matrix: RelevanceMatrix, hits: Postings, weight: np.ndarray) -> np.ndarray:
    """The part of eq. 3 that alpha scales.

    AP_rareness = AP + alpha (1/N_R) sum_i rel_i (1/i) sum_{j<=i} rel_j R_j
                = AP + alpha (1/N_R) sum_j rel_j R_j W_j,   W_j = sum_{i=j..k} rel_i / i,
    so the weights W do not depend on rarity (and subsampling trials are dot products).
    ``weight`` is overwritten (with R_j W_j): one array of the postings' size fewer.
    """
    total = matrix.grid(hits.ordered_sums(np.multiply(weight, tail_weights(hits), out=weight)))
    return divide_by_relevant(total, matrix.n_relevant)


def tail_weights(hits: Postings) -> np.ndarray:
    """W_j = sum_{i >= j} rel_i / i at each relevant posting j, summed from the deepest up."""
    def weights() -> np.ndarray:
        inverse = hits.rank.astype(np.float64)
        np.divide(1.0, inverse, out=inverse)  # 1 / i, then summed in place: no other (n,) array
        return hits.running_sums(inverse, reverse=True, in_place=True)

    return hits.memo("tail_weights", weights)


def rarity_cutoff(matrix: RelevanceMatrix, cutoff: int | None) -> int:
    """The depth a measure reads, which its rarity is counted at by default: k, else the
    depth the runs were cut to, else all they returned (RBP without @k reads whole lists;
    P@k without @k is refused by :func:`irmeta.measures.cutoffs.measure_depth` itself)."""
    if cutoff is not None:
        return int(cutoff)
    return matrix.run_depth or matrix.depth


def rarity_for(matrix: RelevanceMatrix, k: int, rarity: Rarity | None, rarity_depth: int | None,
                cache: dict[int, Rarity] | None = None) -> Rarity:
    """The rarity a measure cut at ``k`` is scored with: ``rarity`` when given, else S_d
    over all runs at ``rarity_depth`` (default: k), counted once per depth in ``cache``."""
    from irmeta.campaign.rarity import document_rarity

    if rarity is not None:
        return rarity
    depth = k if rarity_depth is None else rarity_depth
    if depth < k:
        raise ValueError(
            f"rarity_depth {depth} is shallower than the scoring cutoff {k}: documents ranked "
            f"below it would count as found by no run"
        )
    cache = {} if cache is None else cache
    if depth not in cache:  # no run holds a document below the depth it was cut to
        cache[depth] = document_rarity(matrix, depth=min(depth, matrix.run_depth or matrix.depth))
    return cache[depth]


def _rareness(matrix: RelevanceMatrix, cutoff: int | None, *, kind: str, normalised: bool,
              alphas: Sequence[Alpha] = (0.0,), rarity_counts: Rarity | None = None,
              rarity_depth: int | None = None, rarity: str = LINEAR, **_: object) -> np.ndarray:
    family = f"{kind}_rareness" + ("_norm" if normalised else "")
    check_rarity_function(rarity, family)
    if normalised:
        check_unit_alphas(alphas, family)
    hits, k = cut_at(matrix, cutoff)
    found = rarity_for(matrix, k, rarity_counts, rarity_depth)
    weight = found.per_posting(hits, found.values(rarity, normalised))
    if kind == "P":
        base = precision(matrix, cutoff)
        term = precision_rarity_term(matrix, hits, weight, k)
    else:
        base = average_precision(matrix, cutoff)
        term = average_precision_rarity_term(matrix, hits, weight)
    a = alpha_weights(alphas, matrix.n_relevant)
    if normalised:  # eq. 4: (1 - alpha) Rel + alpha Rel R'
        return (1.0 - a) * base[None] + a * term[None]
    return base[None] + a * term[None]  # eq. 1 and 3: Rel (1 + alpha R)


def precision_rareness(matrix: RelevanceMatrix, cutoff: int | None, *, rarity: str = LINEAR,
                       **options) -> np.ndarray:
    """P@k_rareness = (1/k) sum_{i<=k} Rel(d_i) (1 + alpha R(d_i)) (eq. 1); (A, S, Q)."""
    return _rareness(matrix, cutoff, kind="P", normalised=False, rarity=rarity, **options)


def average_precision_rareness(matrix: RelevanceMatrix, cutoff: int | None, *, rarity: str = LINEAR,
                               **options) -> np.ndarray:
    """AP_rareness = (1/N_R) sum_{i<=k} Rel(d_i) P@i_rareness (eq. 3); (A, S, Q)."""
    return _rareness(matrix, cutoff, kind="AP", normalised=False, rarity=rarity, **options)


def precision_rareness_norm(matrix: RelevanceMatrix, cutoff: int | None, *, rarity: str = LINEAR,
                            **options) -> np.ndarray:
    """P'@k_rareness = (1/k) sum [(1 - alpha) Rel(d_i) + alpha Rel(d_i) R'(d_i)] (eq. 4), in [0, 1]."""
    return _rareness(matrix, cutoff, kind="P", normalised=True, rarity=rarity, **options)


def average_precision_rareness_norm(matrix: RelevanceMatrix, cutoff: int | None, *, rarity: str = LINEAR,
                                    **options) -> np.ndarray:
    """AP'_rareness = (1/N_R) sum Rel(d_i) P'@i_rareness (eq. 4 inside eq. 3), in [0, 1]."""
    return _rareness(matrix, cutoff, kind="AP", normalised=True, rarity=rarity, **options)


RARITY_OPTION = ("rarity",)  # every rareness family declares it
# Rel (1 + alpha R) with every rarity function's R <= 1 for a retrieved document (eq. 1, 3):
# at most 1 + alpha; the [0, 1] forms (eq. 4) are convex combinations.
RARENESS_RANGE = RangeDeclaration(per_alpha=1.0)
register_option_check("rarity", check_rarity_function)


class RarityWarning(UserWarning):
    """A rareness measure scored where rarity has nothing to count (a single run)."""


def warn_rarity_over_one_run(n_runs: int, measures: Iterable[Measure], stacklevel: int = 2) -> None:
    """Warn, naming each measure that weighs rarity, when the runs scored are one: rarity
    counts how many of the campaign's runs find a document (eq. 2), and a lone run finds
    each of its documents as often as there are runs (S_d = S = 1), so R(d) = 0 and
    P_rareness@k is P@k at every alpha (the [0, 1] forms refuse one run outright)."""
    if n_runs != 1:
        return
    for m in measures:
        if not m.uses_alpha or m.family.endswith("_norm"):  # the [0, 1] forms refuse one run themselves
            continue
        same = ""
        if str(m.options().get("rarity", LINEAR)) == LINEAR:  # R(d) = 1 - S_d / S = 0
            base = Measure(m.family.removesuffix("_rareness"), m.cutoff,
                           tuple(p for p in m.params if p[0] not in ("alpha", "rarity")))
            same = f" (it is {base} at every alpha)"
        warnings.warn(RarityWarning(
            f"{m} is scored over one run: rarity counts the runs that find each document, and a lone run finds "
            f"all of its own (S_d = S = 1), so {m} weighs no rarity{same}; score it with the campaign's other runs"),
            stacklevel=stacklevel + 1)


def configured_rarity_functions(measures: Iterable[str | Measure]) -> list[str]:
    """The rarity functions ``measures`` name, linear (eq. 2) first and always, then the
    others in the order first named: those the rarity listing and its figure show (in the
    listing's fixed order, :data:`irmeta.campaign.rarity.LISTING_COLUMNS`)."""
    named = [LINEAR]
    for m in map(as_measure, measures):
        if "rarity" in m.definition.options:
            function = str(m.options().get("rarity", LINEAR))
            if function not in named:
                named.append(function)
    return named


register(MeasureDefinition("P_rareness", precision_rareness,
                           "rareness-weighted precision at k (Turkmen et al. 2023, eq. 1)", uses_alpha=True,
                           options=RARITY_OPTION, value_range=RARENESS_RANGE))


register(MeasureDefinition("AP_rareness", average_precision_rareness,
                           "rareness-weighted average precision (eq. 3)", uses_alpha=True,
                           options=RARITY_OPTION, value_range=RARENESS_RANGE))


register(MeasureDefinition("P_rareness_norm", precision_rareness_norm,
                           "[0, 1] rareness-weighted precision with R' (eq. 4)", uses_alpha=True,
                           options=RARITY_OPTION, value_range=UNIT_RANGE))


register(MeasureDefinition("AP_rareness_norm", average_precision_rareness_norm,
                           "[0, 1] rareness-weighted average precision with R' (eq. 4)", uses_alpha=True,
                           options=RARITY_OPTION, value_range=UNIT_RANGE))
