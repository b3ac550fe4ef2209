"""Reusability: each run scored as if its unit (group, or the run alone) had not built the pool.

Leave-one-group-out (Zobel 1998; Voorhees and Harman 2005; Sakai 2007). The pool of a run
is, per topic, the documents in its top ``pool_depth`` after the collection's own reading.
For unit u the reduced qrels Q_u are the qrels minus every judged (topic, document) that a
run of u pooled and no run outside u pooled (relevant and non-relevant alike: nobody would
have judged them). Each run of u is scored with Q_u under trec_eval's rules: unjudged is
non-relevant, N_R is counted in Q_u.

Rareness measures count S_d, the runs that retrieve each relevant document (Türkmen, Lease
and Kutlu, ECIR 2023, eq. 2), over the campaign; for a system that joins later two rules:

- ``frozen``: S and S_d over the runs outside u (the campaign as it stood);
- ``joined``: over the runs outside u plus the one run scored (S + 1).

Relevance is Q_u's throughout, at the collection's rarity depth. Cost follows the data:
per unit only its runs' postings are rescored, the reduced qrels are a mask over the qrels
rows, and S_d outside u is the campaign's count minus the unit's own (one unit at a time).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from irmeta.campaign.pools import sole_pooling_unit
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.rarity import Rarity, document_rarity
from irmeta.campaign.run_groups import Units
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import Scores, mean_grid, run_means, score_arrays
from irmeta.measures.cutoffs import measure_depth
from irmeta.measures.names import Measure, as_measure

Rule = Literal["frozen", "joined"]
RULES: tuple[Rule, ...] = ("frozen", "joined")
NO_RARITY = "none"  # the rarity column of measures without rarity


@dataclass(frozen=True)
class Variant:
    """One scored variant: block ``block`` of the full scores (a measure at an alpha) under
    a rarity rule (``none`` for measures without rarity)."""

    measure: str
    alpha: str | None
    rarity: str
    higher_is_better: bool


@dataclass(frozen=True, eq=False)
class LeftOut:
    """Full and left-out means over topics (averaging ``all``) of every run.

    ``full`` and ``left_out`` are (variants, runs); ``removed_judged`` and
    ``removed_relevant`` (units,): the qrels rows each unit's removal drops, summed over
    topics.
    """

    runs: list[str]
    units: Units
    variants: list[Variant]
    full: np.ndarray
    left_out: np.ndarray
    removed_judged: np.ndarray
    removed_relevant: np.ndarray


def check_pool_depth(pool_depth: int, matrix: RelevanceMatrix, source: str = "the collection") -> int:
    """``pool_depth`` as an int; larger than the depth the runs were read to (the pool would
    reach documents no longer held) is a ValueError naming the key."""
    if isinstance(pool_depth, bool) or int(pool_depth) != pool_depth or pool_depth < 1:
        raise ValueError(f"{source}: key 'pool_depth': must be an integer >= 1, not {pool_depth!r}")
    kept = matrix.run_depth
    if kept is not None and pool_depth > kept:
        raise ValueError(f"{source}: key 'pool_depth': {pool_depth} is larger than the depth the runs are read "
                         f"to ({kept})")
    return int(pool_depth)


def removed_counts(matrix: RelevanceMatrix, sole: np.ndarray, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """(units,) judged and relevant qrels rows each unit alone pooled (``sole``:
    :func:`~irmeta.campaign.pools.sole_pooling_unit`)."""
    pooled = sole >= 0
    relevant = pooled & (matrix.qrels_grade >= matrix.threshold)
    return (np.bincount(sole[pooled], minlength=n_units).astype(np.int64),
            np.bincount(sole[relevant], minlength=n_units).astype(np.int64))


def rarity_depth_of(matrix: RelevanceMatrix, measure: Measure, rarity_depth: int | None) -> int:
    """The depth S_d is counted at for ``measure``, as :func:`irmeta.measures.rareness.rarity_for`
    chooses it: ``rarity_depth``, else the measure's cutoff, at most the runs' depth."""
    k = measure_depth(matrix, measure.cutoff)
    depth = k if rarity_depth is None else rarity_depth
    if depth < k:
        raise ValueError(f"rarity depth {depth} is shallower than the scoring cutoff {k} of {measure}")
    return min(depth, matrix.run_depth or matrix.depth)


def _relevant_index_counts(matrix: RelevanceMatrix, runs: np.ndarray, depth: int, index_of: np.ndarray,
                           n_relevant_rows: int) -> np.ndarray:
    """(relevant rows,) how many of ``runs`` hold each relevant judgment in their top ``depth``."""
    cells = (runs[:, None] * matrix.n_topics + np.arange(matrix.n_topics)).reshape(-1)
    hits = matrix.hits.cells(cells).top(depth)
    return np.bincount(index_of[hits.judgment], minlength=n_relevant_rows).astype(np.int64)


def reduced_rarity(campaign: Rarity, keep: np.ndarray, n_retrieving: np.ndarray, n_systems: int) -> Rarity:
    """A :class:`Rarity` of the campaign's relevant judgments indexed by the rows of the
    reduced qrels (``keep`` over the old rows, :meth:`RelevanceMatrix.with_judgments`'s
    numbering), with counts ``n_retrieving`` (one per old relevant judgment) over
    ``n_systems`` runs."""
    if n_systems < 1:
        raise ValueError("rarity needs at least one run: leave-one-out needs two units or more")
    new_row = np.cumsum(keep, dtype=np.int64) - 1
    kept = keep[campaign.judgment]
    rows = new_row[campaign.judgment[kept]]
    index_of = np.full(int(keep.sum()), -1, dtype=np.int64)
    index_of[rows] = np.arange(len(rows))
    return Rarity(judgment=rows, topic=campaign.topic[kept], doc=rows, grade=campaign.grade[kept],
                  n_retrieving=n_retrieving[kept], n_systems=n_systems, depth=campaign.depth,
                  index_of_judgment=index_of)


def _pinned(matrix: RelevanceMatrix) -> RelevanceMatrix:
    """The matrix with its misses held in memory, so subsets do not read them again per unit."""
    misses = matrix.misses
    return dataclasses.replace(matrix, misses_loader=lambda: misses)


def full_means(full: Scores, variants: Sequence[Variant], n_systems: int) -> np.ndarray:
    """(variants, runs): the pipeline's own means over every topic (``all_topics``), else
    :func:`run_means` of its per-topic scores on the measure's grid."""
    out = np.empty((len(variants), len(full.runs)))
    for v, variant in enumerate(variants):
        i = full.block(variant.measure, variant.alpha)
        if "all_topics" in full.means:
            out[v] = full.means["all_topics"][i]
        else:
            out[v] = run_means(full.per_topic[i], grid=mean_grid(full.parsed[i], variant.alpha, n_systems))
    return out


def plan_variants(measures: Sequence[Measure], alphas: Sequence[Alpha], rules: Sequence[str],
                  options: Mapping[str, Any] | None = None) -> list[Variant]:
    """Every (measure, alpha, rule) scored, named as :func:`score_arrays` names its blocks
    (the name as given; ``options`` fill in what it leaves, as they do in scoring)."""
    out = []
    for given in measures:
        name = str(given.without_alpha())
        m = given.with_defaults(options)
        if not m.uses_alpha:
            out.append(Variant(name, None, NO_RARITY, m.higher_is_better))
            continue
        own = [m.alpha] if m.alpha is not None else list(alphas)
        out += [Variant(name, alpha_label(a), rule, m.higher_is_better) for a in own for rule in rules]
    return out


def leave_one_unit_out(matrix: RelevanceMatrix, measures: Sequence[str | Measure], units: Units, *,
                       pool_depth: int, alphas: Sequence[Alpha] = (0.0,), rarity_depth: int | None = None,
                       rules: Sequence[str] = RULES, full: Scores | None = None,
                       measure_options: Mapping[str, Any] | None = None) -> LeftOut:
    """Every run's mean score with its unit's solely pooled judgments removed (module docstring).

    ``full``: the campaign's own scores (the pipeline's ``scores.npz``; default: scored here
    with the same settings). Measures with rarity get one variant per rule in ``rules``.
    """
    bad = [r for r in rules if r not in RULES]
    if bad or not rules:
        raise ValueError(f"rules must be among {list(RULES)}, got {list(rules)}")
    if units.of_run.shape != (matrix.n_runs,):
        raise ValueError(f"units give {len(units.of_run)} runs, the campaign has {matrix.n_runs}")
    if units.n_units < 2:
        raise ValueError("leave-one-out needs at least two units (groups or runs)")
    options = {k: v for k, v in (measure_options or {}).items() if v is not None}
    named = [as_measure(m) for m in measures]  # the pipeline's arrive read; a caller's names are read here
    variants = plan_variants(named, alphas, rules, options)
    matrix = _pinned(matrix)
    if full is None:
        full = score_arrays(matrix, named, averaging=("all",), alphas=alphas, rarity_depth=rarity_depth, **options)
    if list(full.runs) != list(matrix.runs):
        raise ValueError("the full scores and the campaign have different runs")
    sole = sole_pooling_unit(matrix, check_pool_depth(pool_depth, matrix), units.of_run)
    judged, relevant = removed_counts(matrix, sole, units.n_units)
    left = np.full((len(variants), matrix.n_runs), np.nan)
    at = {(v.measure, v.alpha, v.rarity): i for i, v in enumerate(variants)}
    by_depth: dict[int, list[Measure]] = {}
    for m in named:
        if m.with_defaults(options).uses_alpha:
            by_depth.setdefault(rarity_depth_of(matrix, m, rarity_depth), []).append(m)
    plain = [m for m in named if not m.with_defaults(options).uses_alpha]
    campaign = {d: document_rarity(matrix, depth=d) for d in by_depth}
    for u in range(units.n_units):  # one unit at a time: memory follows its runs' postings
        runs = units.runs_of(u)
        keep = sole != u
        reduced = matrix.subset(runs).with_judgments(keep)
        if plain:
            _store(left, at, runs, score_arrays(reduced, plain, averaging=("all",), **options), NO_RARITY)
        for d, group in by_depth.items():
            scored = _score_rareness(matrix, reduced, runs, keep, campaign[d], group, rules, alphas, options)
            for rule, part, scores in scored:
                _store(left, at, part, scores, rule)
    return LeftOut(runs=list(matrix.runs), units=units, variants=variants,
                   full=full_means(full, variants, matrix.n_runs), left_out=left,
                   removed_judged=judged, removed_relevant=relevant)


def _score_rareness(matrix: RelevanceMatrix, reduced: RelevanceMatrix, runs: np.ndarray, keep: np.ndarray,
                    campaign: Rarity, measures: Sequence[Measure], rules: Sequence[str], alphas: Sequence[Alpha],
                    options: Mapping[str, Any]) -> list[tuple[str, np.ndarray, Scores]]:
    """The unit's runs (``reduced``: them, judged by Q_u) scored by rareness ``measures``
    under each rule: (rule, runs, scores). S_d outside the unit is the campaign's count
    minus the unit's own; ``joined`` adds back the one run scored, one run at a time."""
    def score(one: RelevanceMatrix, found: Rarity) -> Scores:
        return score_arrays(one, measures, averaging=("all",), alphas=alphas, rarity_counts=found, **options)

    n_rows = len(campaign.judgment)
    outside = campaign.n_retrieving - _relevant_index_counts(matrix, runs, campaign.depth,
                                                             campaign.index_of_judgment, n_rows)
    n_outside = matrix.n_runs - len(runs)
    out = []
    if "frozen" in rules:
        out.append(("frozen", runs, score(reduced, reduced_rarity(campaign, keep, outside, n_outside))))
    if "joined" in rules:
        for j in range(len(runs)):
            mine = _relevant_index_counts(matrix, runs[j:j + 1], campaign.depth, campaign.index_of_judgment, n_rows)
            one = reduced if len(runs) == 1 else reduced.subset([j])
            out.append(("joined", runs[j:j + 1], score(one, reduced_rarity(campaign, keep, outside + mine,
                                                                           n_outside + 1))))
    return out


def _store(left: np.ndarray, at: Mapping[tuple[str, str | None, str], int], runs: np.ndarray, scores: Scores,
           rarity: str) -> None:
    """Put the means of ``scores`` (the runs ``runs``) into their variants' rows."""
    means = scores.means["all_topics"]
    for i, (measure, alpha) in enumerate(zip(scores.measures, scores.alphas)):
        left[at[(measure, alpha, rarity if alpha is not None else NO_RARITY)], runs] = means[i]
