"""Table 1 of the paper: pairs of runs whose difference is significant at each level,
by three methods (the authors' per-pair Tukey HSD, the two-way Tukey HSD, the
randomised Tukey HSD from sharded permutation nulls) and by the paired tests of
:mod:`.pairwise_tests`, counted from their table of every pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from irmeta.metaeval.pairwise_tests import families, paired_power_rows
from irmeta.metaeval.score_matrices import ScoreMatrix, sort_by_alpha
from irmeta.metaeval.stats.registry import attainable, registered_tests, significance_test
from irmeta.metaeval.stats.tukey_hsd import (
    count_significant,
    paper_pairwise_pvalues,
    randomised_tukey_hsd_null_many,
    randomised_tukey_hsd_pvalues,
    tukey_hsd_critical_values,
    tukey_hsd_statistics,
)
from irmeta.support.progress import Progress

#: The paper's three methods, each deciding every pair from all runs at once: the tests
#: of kind ``all_runs`` in the registry (:mod:`.stats.registry`).
DP_METHODS = tuple(registered_tests(kind="all_runs"))

#: The randomised Tukey HSD's p-value (``experiments.discriminative_power.randomised_p``):
#: ``count``, #{trials with max difference >= observed} / B (Sakai 2014, Carterette 2012;
#: the default), or ``plus_one``, (count + 1) / (B + 1), the observed data counted as one
#: more permutation (never 0).
RANDOMISED_P = ("count", "plus_one")

#: The columns of ``discriminative_power.csv``, in order (the experiment manifest names
#: this constant; the documentation's table reference is written from it). A column the
#: table gains is appended here.
COLUMNS = ("measure", "alpha", "method", "level", "significant_pairs", "total_pairs", "permutations", "randomised_p",
           "attainable")
#: Columns of :data:`COLUMNS` written only under some settings, with when: the default
#: table keeps the columns it had before the setting.
OPTIONAL_COLUMNS = {"randomised_p": "experiments.discriminative_power.randomised_p is not count, the default"}


#: Added to ``experiments.seed``: trial t of the randomised Tukey HSD draws the permutations from
#: ``default_rng([seed + SEED_OFFSET, t])``, a stream no other experiment of the same
#: seed draws from. Part of the published numbers: changing it changes every table of
#: this experiment.
SEED_OFFSET = 1


def randomised_null_shard(matrices: Sequence[ScoreMatrix], trials: Iterable[int], seed: int) -> pd.DataFrame:
    """Max-difference statistics of the given permutation trials, for every matrix."""
    trials = np.asarray(list(trials), dtype=np.int64)
    progress = Progress(len(trials), f"permutations of {len(matrices)} score matrices")
    null = np.zeros((len(matrices), len(trials)))
    for start in range(0, len(trials), 100):  # blocks of trials, for progress
        block = trials[start : start + 100]
        if matrices:
            null[:, start : start + len(block)] = randomised_tukey_hsd_null_many(
                np.stack([m.values for m in matrices]), block, seed)
        progress.advance(len(block))
    frames = [pd.DataFrame({"measure": m.measure, "alpha": m.alpha or "", "trial": trials,
                            "max_difference": row}) for m, row in zip(matrices, null)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["measure", "alpha", "trial", "max_difference"])


@dataclass
class PowerContext:
    """What the all-runs methods read beside a matrix: the permutation null, how its
    p-values are formed, and the Tukey HSD's critical values, computed once per (runs,
    degrees of freedom) (the studentized range quantile is the slow part)."""

    levels: list[float]
    null: pd.DataFrame | None = None
    randomised_p: str = "count"
    critical: dict[tuple[int, int], dict[float, float]] = field(default_factory=dict)


Counts = tuple[dict[float, int], int | None]


def paper_pairwise_counts(m: ScoreMatrix, context: PowerContext) -> Counts:
    """The authors' per-pair Tukey HSD (an unpaired two-sample test of each pair alone)."""
    return count_significant(paper_pairwise_pvalues(m.values), context.levels), None


def tukey_hsd_counts(m: ScoreMatrix, context: PowerContext) -> Counts:
    """One Tukey HSD over all runs on the two-way ANOVA residual: q above its critical value."""
    q, k, df = tukey_hsd_statistics(m.values)
    if (k, df) not in context.critical:
        context.critical[(k, df)] = tukey_hsd_critical_values(k, df, context.levels)
    return {lv: int(np.count_nonzero(q > context.critical[(k, df)][lv])) for lv in context.levels}, None


def randomised_tukey_hsd_counts(m: ScoreMatrix, context: PowerContext) -> Counts:
    """The randomised Tukey HSD: p-values from the permutation null's shards."""
    if context.null is None:
        raise ValueError("randomised_tukey_hsd needs the permutation null (its shards)")
    null = context.null
    mine = null[(null["measure"] == m.measure) & (null["alpha"] == (m.alpha or ""))].sort_values("trial")
    p = randomised_tukey_hsd_pvalues(m.values, mine["max_difference"].to_numpy(),
                                     plus_one=context.randomised_p == "plus_one")
    return {float(k): v for k, v in count_significant(p, context.levels).items()}, int(len(mine))


def attainable_rows(table: pd.DataFrame) -> pd.Series:
    """Which rows of a ``discriminative_power`` table (as written, or read back from CSV)
    have a method that can find a pair significant at their level: all but ``attainable``
    False; a table from before the column: all."""
    if "attainable" not in table.columns:
        return pd.Series(True, index=table.index)
    return ~table["attainable"].astype(str).str.lower().eq("false")


def discriminative_power_table(
    matrices: Sequence[ScoreMatrix],
    *,
    methods: Sequence[str] = DP_METHODS,
    levels: Sequence[float] = (0.05, 0.01),
    null: pd.DataFrame | None = None,
    randomised_p: str = "count",
    corrections: Sequence[str] = ("none", "holm", "bh"),
    pairwise: pd.DataFrame | Mapping[tuple[str, str, str], pd.DataFrame] | None = None,
    permutations: int | None = None,
) -> pd.DataFrame:
    """Table 1: run pairs significantly different at each level, by each method of the
    registry (:mod:`.stats.registry`), in the order given.

    - ``paper_pairwise``: each pair alone, Tukey HSD on two independent groups (the
      authors' scripts; equals an unpaired two-sample t-test, no multiplicity correction);
    - ``tukey_hsd``: one Tukey HSD over all runs on the two-way ANOVA residual;
    - ``randomised_tukey_hsd``: permutation within topics (``null`` from the shards),
      p-values as ``randomised_p`` says (:data:`RANDOMISED_P`). Any but the default
      ``count`` is written in a ``randomised_p`` column (the method's rows; empty
      elsewhere), so the default table keeps the columns it had before the setting.
    - every paired test (shipped or a plugin's), each over all pairs, read from
      ``pairwise`` (``tables/pairwise_tests.parquet``, or its families by (measure,
      alpha, method) as :func:`.pairwise_tests.families` gives them), one method name per
      entry of ``corrections`` (``paired_t``, ``paired_t+holm``, ...); ``permutations``
      is written in the randomised tests' rows.

    The last column, ``attainable``, says whether any pair could be significant by the
    row's method at its level (:func:`.stats.registry.attainable`): False where the
    smallest p the draws allow, 1 / (B + 1), is not below the level once corrected
    (Holm over m pairs needs p < level / m), so the row's count is 0 by construction.
    """
    tests = [significance_test(m, "discriminative-power method") for m in methods]
    if randomised_p not in RANDOMISED_P:
        raise ValueError(f"randomised_p must be one of {', '.join(RANDOMISED_P)}, not {randomised_p!r}")
    rows = []
    context = PowerContext([float(level) for level in levels], null, randomised_p)
    paired = families(pairwise) if isinstance(pairwise, pd.DataFrame) else pairwise
    for m in matrices:
        n_runs = m.values.shape[0]
        total = n_runs * (n_runs - 1) // 2
        for test in tests:
            if test.paired:
                if paired is None:
                    raise ValueError(f"{test.name} needs the pairwise tests (tables/pairwise_tests.parquet)")
                rows += paired_power_rows(m, paired, test.name, corrections, levels, permutations)
                continue
            counts, drawn = test.compute()(m, context)
            for level in context.levels:
                row = {"measure": m.measure, "alpha": m.alpha or "", "method": test.name,
                       "level": level, "significant_pairs": int(counts[level]),
                       "total_pairs": total, "permutations": drawn}
                if randomised_p != "count":
                    row["randomised_p"] = randomised_p if test.randomised else None
                plus_one = randomised_p == "plus_one" if test.randomised else None
                rows.append({**row, "attainable": attainable(test.name, level, drawn, total, plus_one=plus_one)})
    columns = [c for c in COLUMNS if c not in OPTIONAL_COLUMNS or randomised_p != "count"]
    return sort_by_alpha(pd.DataFrame(rows, columns=columns), ["measure", "alpha"])
