"""Bias of a judgment set towards a kind of system: do the runs of one family (``bm25``,
``neural``, ``llm_reranker``) move up or down when the runs are ranked under another
judgment set instead of the reference (the official qrels)?

For each judgment set, measure and alpha, the runs' means under both sets (on the topics
both judged, exactly as :func:`~irmeta.metaeval.judgment_agreement.judgment_agreement_table`
compares them, both oriented higher-is-better) give each run a rank under each set:

    rank(r) = 1 + #{runs s : m_s > m_r}

(competition ranking, best = 1; tied runs share the best rank of their tie, as
``reusability.csv``'s ranks). A run's rank change is ``rank_set(r) - rank_reference(r)``
(negative: it moves up under the set) and its score change ``m'_r - m_r`` in the
measure's own units (not oriented). Per family f of n_f runs: the mean of each.

p value: a permutation test of the family labels over the runs (H0: the labels are
exchangeable, i.e. the set's rank changes do not depend on the family). The statistic is
two-sided on the mean rank change, |mean_f - mean_all|, compared in exact integers as
|S * sum_f - n_f * sum_all|. B draws each permute all runs' labels at once (every family of
the draw is tested with the same permutation); b draws at least as extreme as the observed
labels give p = (b + 1) / (B + 1) (Phipson and Smyth, "Permutation p-values should never
be zero", SAGMB 2010), never 0. ``exhaustive`` enumerates the C(S, n_f) label subsets of
each family instead: the exact p, b / C(S, n_f). A family of one run has no p (empty).

Draws: ``numpy.random.default_rng(seed)`` with ``seed`` = ``experiments.seed +``
:data:`SEED_OFFSET`; the same B permutations serve every set, measure and alpha (so a
set's p values do not depend on which other sets are compared), drawn in chunks so that
memory stays within about :data:`CHUNK_CELLS` numbers whatever B.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.measures.averaging import Scores
from irmeta.metaeval.judgment_agreement import aligned_sets
from irmeta.metaeval.score_matrices import oriented, sort_by_alpha

#: The family-bias draws: ``default_rng(experiments.seed + SEED_OFFSET)``.
SEED_OFFSET = 8

FAMILY_BIAS_COLUMNS = ("judgments", "measure", "alpha", "family", "runs", "mean_rank_change",
                       "mean_score_change", "p_value")

DEFAULT_PERMUTATIONS = 10_000
#: Numbers held at once by one chunk of draws ((blocks + families) x draws x runs float64: 32 MB).
CHUNK_CELLS = 4_000_000
#: The most label subsets ``exhaustive`` enumerates for one family.
MAX_EXHAUSTIVE = 2_000_000


def competition_ranks(means: np.ndarray) -> np.ndarray:
    """(..., runs) int64: 1 + the number of runs with a strictly higher mean (best = 1,
    ties share their best rank), along the last axis."""
    means = np.asarray(means, dtype=np.float64)
    ordered = np.sort(means, axis=-1)
    n = means.shape[-1]
    flat_sorted, flat = ordered.reshape(-1, n), means.reshape(-1, n)
    higher = np.stack([n - np.searchsorted(s, m, side="right") for s, m in zip(flat_sorted, flat)])
    return (1 + higher).reshape(means.shape).astype(np.int64)


def rank_changes(reference_means: np.ndarray, set_means: np.ndarray) -> np.ndarray:
    """rank under the set - rank under the reference (means oriented higher-is-better)."""
    return competition_ranks(set_means) - competition_ranks(reference_means)


def _family_codes(runs: Sequence[str], families: Mapping[str, str]) -> tuple[list[str], np.ndarray]:
    """Families in order of their first run, and each run's family code."""
    missing = [r for r in runs if r not in families]
    if missing:
        raise ValueError(f"run_families: run {missing[0]} has no family ({len(missing)} runs have none)")
    names = list(dict.fromkeys(families[r] for r in runs))
    code = {name: i for i, name in enumerate(names)}
    return names, np.array([code[families[r]] for r in runs], dtype=np.int64)


def _deviations(sums: np.ndarray, sizes: np.ndarray, totals: np.ndarray, n_runs: int) -> np.ndarray:
    """|S * sum_f - n_f * sum_all|: the family's mean rank change away from the mean of
    all runs, scaled to exact integers (``sums`` (..., F), ``totals`` broadcast to them)."""
    return np.abs(n_runs * sums - sizes * totals)


def permutation_p_values(changes: np.ndarray, codes: np.ndarray, *, permutations: int = DEFAULT_PERMUTATIONS,
                         seed: int = 0, exhaustive: bool = False) -> np.ndarray:
    """(blocks, families) p values of the families' mean rank changes (module docstring).

    ``changes``: (blocks, runs) integer rank changes; ``codes``: (runs,) family codes
    0..F-1. Monte Carlo with ``permutations`` draws from ``default_rng(seed)`` (p =
    (b + 1) / (B + 1)), or ``exhaustive`` (every label subset, the exact p). NaN for a
    family of one run."""
    changes = np.atleast_2d(np.asarray(changes, dtype=np.int64))
    codes = np.asarray(codes, dtype=np.int64)
    n_blocks, n_runs = changes.shape
    if codes.shape != (n_runs,):
        raise ValueError(f"codes must give the family of each of the {n_runs} runs")
    n_families = int(codes.max()) + 1 if n_runs else 0
    sizes = np.bincount(codes, minlength=n_families)
    onehot = (codes[:, None] == np.arange(n_families)[None, :]).astype(np.int64)  # (S, F)
    totals = changes.sum(axis=1, keepdims=True)  # (blocks, 1)
    observed = _deviations(changes @ onehot, sizes, totals, n_runs)  # (blocks, F)
    if exhaustive:
        p = _exhaustive_p(changes, sizes, totals, observed)
    else:
        p = _monte_carlo_p(changes, onehot, sizes, totals, observed, permutations, seed)
    p[:, sizes < 2] = np.nan
    return p


def _monte_carlo_p(changes: np.ndarray, onehot: np.ndarray, sizes: np.ndarray, totals: np.ndarray,
                   observed: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    if int(permutations) < 1:
        raise ValueError(f"permutations must be at least 1, got {permutations}")
    n_blocks, n_runs = changes.shape
    rng = np.random.default_rng(seed)
    # the draws are the same whatever the chunk: random() fills its output in order
    chunk = max(1, CHUNK_CELLS // max(1, (n_blocks + onehot.shape[1]) * n_runs))
    extreme = np.zeros(observed.shape, dtype=np.int64)
    as_float, onehot_float = changes.astype(np.float64), onehot.astype(np.float64)
    observed = observed.astype(np.float64)
    done = 0
    while done < permutations:
        size = min(chunk, permutations - done)
        order = np.argsort(rng.random((size, n_runs)), axis=1)  # (draws, S): a permutation each
        # the labels permuted over the runs (run i takes the label of run order[d, i]), one
        # matrix product over every block (float64 for BLAS: integer sums below 2**53 are exact)
        labels = onehot_float[order.T].reshape(n_runs, -1)  # (S, draws * F), runs leading: no copy in the product
        sums = (as_float @ labels).reshape(n_blocks, size, -1)  # (blocks, draws, F)
        drawn = _deviations(sums, sizes, totals[:, :, None], n_runs)
        extreme += np.count_nonzero(drawn >= observed[:, None, :], axis=1)
        done += size
    return (extreme + 1) / (int(permutations) + 1)


def _exhaustive_p(changes: np.ndarray, sizes: np.ndarray, totals: np.ndarray, observed: np.ndarray) -> np.ndarray:
    n_blocks, n_runs = changes.shape
    p = np.full(observed.shape, np.nan)
    for f, size in enumerate(sizes):
        count = math.comb(n_runs, int(size))
        if size < 2:
            continue
        if count > MAX_EXHAUSTIVE:
            raise ValueError(f"exhaustive: {count} label subsets of a family of {size} among {n_runs} runs, "
                             f"more than {MAX_EXHAUSTIVE}")
        subsets = np.array(list(itertools.combinations(range(n_runs), int(size))), dtype=np.int64)
        sums = changes[:, subsets].sum(axis=2)  # (blocks, subsets)
        drawn = _deviations(sums, int(size), totals, n_runs)
        p[:, f] = np.count_nonzero(drawn >= observed[:, f:f + 1], axis=1) / count
    return p


RANK_COLUMNS = ("judgments", "measure", "alpha", "run", "family", "rank_reference", "rank_judgments")


def _set_frames(reference: Scores, alternative: Scores, name: str, names: list[str], codes: np.ndarray,
                permutations: int, seed: int, averaging: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One set's rows of the table, and every run's two ranks (:data:`RANK_COLUMNS`)."""
    aligned = aligned_sets(reference, alternative, name, "reference", averaging)
    ref, alt, pairs = aligned.reference, aligned.alternative, aligned.blocks
    measures = [reference.measures[i] for i, _ in pairs]
    alphas = [reference.alphas[i] or "" for i, _ in pairs]
    ref_ranks = competition_ranks(np.stack([oriented(ref.means[i], reference.parsed[i]) for i, _ in pairs]))
    alt_ranks = competition_ranks(np.stack([oriented(alt.means[j], reference.parsed[i]) for i, j in pairs]))
    changes = alt_ranks - ref_ranks  # (blocks, S)
    score_changes = np.stack([alt.means[j] - ref.means[i] for i, j in pairs])
    p = permutation_p_values(changes, codes, permutations=permutations, seed=seed)
    sizes = np.bincount(codes, minlength=len(names))
    rows = []
    for b in range(len(pairs)):
        for f, family in enumerate(names):
            members = codes == f
            rows.append({
                "judgments": name, "measure": measures[b], "alpha": alphas[b], "family": family,
                "runs": int(sizes[f]), "mean_rank_change": float(changes[b, members].mean()),
                "mean_score_change": float(score_changes[b, members].mean()), "p_value": float(p[b, f]),
            })
    n_blocks, n_runs = changes.shape
    ranks = pd.DataFrame({
        "judgments": name, "measure": np.repeat(measures, n_runs), "alpha": np.repeat(alphas, n_runs),
        "run": np.tile(reference.runs, n_blocks), "family": np.tile(np.asarray(names, dtype=object)[codes], n_blocks),
        "rank_reference": ref_ranks.ravel(), "rank_judgments": alt_ranks.ravel(),
    }, columns=list(RANK_COLUMNS))
    table = sort_by_alpha(pd.DataFrame(rows, columns=list(FAMILY_BIAS_COLUMNS)), ["measure", "alpha"])
    return table, sort_by_alpha(ranks, ["measure", "alpha"])


def family_bias_frames(reference: Scores, alternatives: Mapping[str, Scores], families: Mapping[str, str], *,
                       permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0,
                       averaging: str = "all_topics") -> tuple[pd.DataFrame, pd.DataFrame]:
    """``family_bias.csv`` (:func:`family_bias_table`) and every run's rank under the
    reference and under each set (:data:`RANK_COLUMNS`, what the rank figure draws)."""
    names, codes = _family_codes(reference.runs, families)
    frames = [_set_frames(reference, scores, str(name), names, codes, permutations, seed, averaging)
              for name, scores in alternatives.items()]
    if not frames:
        return pd.DataFrame(columns=list(FAMILY_BIAS_COLUMNS)), pd.DataFrame(columns=list(RANK_COLUMNS))
    return (pd.concat([t for t, _ in frames], ignore_index=True),
            pd.concat([r for _, r in frames], ignore_index=True))


def family_bias_table(reference: Scores, alternatives: Mapping[str, Scores], families: Mapping[str, str], *,
                      permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0,
                      averaging: str = "all_topics") -> pd.DataFrame:
    """``family_bias.csv``: per judgment set (``alternatives``' order), measure and alpha
    (sorted as ``judgment_agreement.csv``), one row per family (in order of its first run
    in ``reference.runs``), with columns :data:`FAMILY_BIAS_COLUMNS` (module docstring):
    ``runs`` n_f, ``mean_rank_change``, ``mean_score_change``, ``p_value`` (NaN, an empty
    cell, for a family of one run). ``families``: run -> family, naming every run."""
    return family_bias_frames(reference, alternatives, families, permutations=permutations, seed=seed,
                              averaging=averaging)[0]
