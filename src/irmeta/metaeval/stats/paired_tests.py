"""Paired significance tests over every run pair of a (runs, topics) score matrix at
once: the paired t-test, Wilcoxon's signed-rank test, the sign test, Fisher's paired
randomisation test and Sakai's paired bootstrap test, with effect sizes, confidence
intervals and the multiple-comparison corrections (:mod:`.multiple_testing`).

Pairs are ``run_pairs`` order (a < b); the per-topic differences d = x_a - x_b are formed
in blocks of pairs (:func:`.blocks.block_size`), so memory is bounded whatever the number
of runs (:mod:`.pair_differences`). Wilcoxon's test lives in :mod:`.signed_rank`, the
two randomised tests in :mod:`.resampling_tests`.

Degenerate pairs get numbers, never NaN: when every difference is 0 a test has no
evidence (p = 1; statistic 0, or 0.5 for the sign test's proportion), where scipy returns
NaN or raises; when every difference is the same non-zero value, the studentised
statistics (paired t, bootstrap) are +-inf with p = 0, as scipy's ``ttest_rel`` gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from irmeta.metaeval.stats.anova import residual_variance
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.distributions import binomial_cdf, binomial_sf, t_quantile
from irmeta.metaeval.stats.multiple_testing import adjusted_pvalue_columns
from irmeta.metaeval.stats.pair_differences import (
    PairFault,
    PairTest,
    checked_scores,
    finite_or_missing,
    mean_and_variance,
    n_pairs,
    pair_blocks,
    studentize,
)
from irmeta.metaeval.stats.registry import CORRECTIONS, parse_test_name, registered_tests, significance_test

if TYPE_CHECKING:  # pandas in the functions that build its tables: irmeta compare's tests need none
    import pandas as pd

TABLE_COLUMNS = ("method", "run_a", "run_b", "mean_difference", "statistic", "p_value", "p_adjusted_holm",
                 "p_adjusted_bh", "p_adjusted_bonferroni", "effect_size_dz", "effect_size_e", "ci_low", "ci_high")


def paired_t(scores: np.ndarray, budget: int | None = None) -> PairTest:
    """Two-sided paired t-test of every pair: t = mean(d) / (sd(d) / sqrt(n)) on n - 1 df,
    p = 2 P(T > |t|) (Student 1908), equal to ``scipy.stats.ttest_rel(x_a, x_b)`` and
    computed as it is (``scipy.special.stdtr``). All-zero differences: t = 0, p = 1
    (scipy: NaN); constant non-zero differences: t = +-inf, p = 0 (as scipy)."""
    from scipy.special import stdtr  # scipy.stats costs a second to import

    m = checked_scores(scores)
    n_runs, n = m.shape
    statistic, p = np.empty(n_pairs(n_runs)), np.empty(n_pairs(n_runs))
    for where, a, b in pair_blocks(n_runs, 3 * n * 8, budget):
        mean, variance = mean_and_variance(m[a] - m[b])
        t = studentize(mean, np.sqrt(variance / n))
        statistic[where], p[where] = t, 2.0 * stdtr(n - 1, -np.abs(t))
    return PairTest(statistic, p)


def sign_test_pvalues(positive: np.ndarray, nonzero: np.ndarray) -> np.ndarray:
    """Two-sided sign test p-values, ``scipy.stats.binomtest(k, n, 0.5).pvalue`` for each
    (k, n), n = 0 giving 1. For p = 1/2 binomtest sums the tail at k and the mirror tail
    at n - k: with k' = min(k, n - k), p = min(1, cdf(k') + sf(n - k' - 1)), and 1 when
    2k = n; evaluated once per distinct (k, n)."""
    k, n = np.asarray(positive, dtype=np.int64), np.asarray(nonzero, dtype=np.int64)
    combos, where = np.unique(np.stack([k, n]), axis=1, return_inverse=True)
    kk, nn = np.minimum(combos[0], combos[1] - combos[0]), combos[1]
    tails = binomial_cdf(kk, nn, 0.5) + binomial_sf(nn - kk - 1, nn, 0.5)  # scipy.stats.binom's
    return np.where(2 * combos[0] == nn, 1.0, np.minimum(tails, 1.0))[where.reshape(-1)]


def sign(scores: np.ndarray, budget: int | None = None) -> PairTest:
    """Two-sided sign test of every pair: k topics with d > 0 out of the n with d != 0,
    against Binomial(n, 1/2) (Conover, Practical Nonparametric Statistics, 3rd ed., section 3.4).
    Statistic k / n, as binomtest's; all-zero differences: statistic 0.5, p = 1
    (binomtest raises for n = 0)."""
    m = checked_scores(scores)
    n_runs, n = m.shape
    positive = np.empty(n_pairs(n_runs), dtype=np.int64)
    nonzero = np.empty_like(positive)
    for where, a, b in pair_blocks(n_runs, 3 * n * 8, budget):
        d = m[a] - m[b]
        positive[where], nonzero[where] = (d > 0).sum(axis=1), (d != 0).sum(axis=1)
    statistic = np.divide(positive, nonzero, out=np.full(len(positive), 0.5), where=nonzero > 0)
    return PairTest(statistic, sign_test_pvalues(positive, nonzero))


class PairSummary(NamedTuple):
    """Per pair, in ``run_pairs`` order: mean difference, effect sizes and interval."""

    mean_difference: np.ndarray
    effect_size_dz: np.ndarray
    effect_size_e: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


def pair_summary(scores: np.ndarray, confidence: float = 0.95, budget: int | None = None) -> PairSummary:
    """Mean difference a - b of every pair with

    * effect_size_dz = mean(d) / sd(d) (ddof 1; Cohen's d_z for paired data), 0 when all
      differences are 0 and +-inf when they are equal and non-zero;
    * effect_size_e = mean(d) / sqrt(V_E), Sakai's ES_E (Sakai, Laboratory Experiments
      in Information Retrieval, Springer 2018), V_E the residual variance of
      the two-way ANOVA over all runs and topics of the matrix
      (:func:`.anova.residual_variance`), with the same 0/0 and x/0 rules;
    * ci_low, ci_high = mean(d) -+ t.ppf((1 + confidence) / 2, n - 1) sd(d) / sqrt(n), the
      paired t-test's interval (a point when sd = 0; t's quantile: :func:`t_quantile`).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    m = checked_scores(scores)
    n_runs, n = m.shape
    mean, sd = np.empty(n_pairs(n_runs)), np.empty(n_pairs(n_runs))
    for where, a, b in pair_blocks(n_runs, 3 * n * 8, budget):
        block_mean, variance = mean_and_variance(m[a] - m[b])
        mean[where], sd[where] = block_mean, np.sqrt(variance)
    half_width = t_quantile(0.5 + confidence / 2.0, n - 1) * sd / np.sqrt(n)
    return PairSummary(mean, studentize(mean, sd), studentize(mean, np.sqrt(residual_variance(m))),
                       mean - half_width, mean + half_width)


def run_test(method: str, scores: np.ndarray, permutations: int = 1000, seed: int = 0,
             budget: int | None = None, runs: Sequence[str] | None = None) -> PairTest:
    """The registered paired test ``method`` (:mod:`.registry`) on every pair;
    ``permutations`` and ``seed`` go to the randomised tests only, the seed plus the
    test's own ``seed_offset``. ``runs``: the rows' run names, which a plugin's fault
    with a pair (:class:`.pair_differences.PairFault`) names instead of row numbers."""
    test = significance_test(method, "paired test")
    if not test.paired:
        raise ValueError(f"{method} is not a paired test: it decides every pair from all runs at once")
    if test.randomised and permutations < 1:
        raise ValueError(f"permutations must be at least 1, not {permutations}")
    try:
        if test.randomised:
            return test.compute()(scores, permutations, seed + test.seed_offset, budget=budget)
        return test.compute()(scores, budget=budget)
    except PairFault as fault:
        if runs is None:
            raise
        raise fault.naming([str(r) for r in runs]) from None


def runs_in_byte_order(scores: np.ndarray, runs: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """The matrix's rows and the run names sorted by the names' UTF-8 bytes, so that every
    pair (a, b) of ``run_pairs`` has name a < name b and differences read a - b."""
    m = checked_scores(scores)
    names = [str(r) for r in runs]
    if len(names) != len(m):
        raise ValueError(f"{len(names)} run names for {len(m)} rows of scores")
    if len(set(names)) != len(names):
        raise ValueError("run names must be distinct")
    order = sorted(range(len(names)), key=lambda i: names[i].encode("utf-8"))
    return m[order], [names[i] for i in order]


def pairwise_tests(scores: np.ndarray, runs: Sequence[str], methods: Iterable[str] | None = None,
                   permutations: int = 1000, seed: int = 0, *, confidence: float = 0.95,
                   budget: int | None = None) -> pd.DataFrame:
    """Every test of ``methods`` on every pair of runs of one measure's (runs, topics)
    matrix: one row per (method, pair) with :data:`TABLE_COLUMNS`, methods in the order
    given, pairs in ``run_pairs`` order of the byte-sorted names (run_a < run_b,
    mean_difference = a - b). Each method's pairs are one family for the corrections. A
    statistic or effect size that is +-inf (every difference the same non-zero value) is
    missing (NaN, null in Parquet): the table holds no infinity; its p-value says 0.
    The caller adds the measure (and alpha). Same inputs and seed: identical bytes.
    ``methods`` None: every registered paired test."""
    import pandas as pd

    m, names = runs_in_byte_order(scores, runs)
    a, b = run_pairs(len(names))
    run_a, run_b = np.asarray(names, dtype=object)[a], np.asarray(names, dtype=object)[b]
    summary = pair_summary(m, confidence, budget)
    frames = []
    if methods is None:
        methods = registered_tests(kind="paired")
    for method in dict.fromkeys(methods):  # each method once, in the order given
        test = run_test(method, m, permutations, seed, budget, runs=names)
        frames.append(pd.DataFrame({
            "method": method, "run_a": run_a, "run_b": run_b, "mean_difference": summary.mean_difference,
            "statistic": finite_or_missing(test.statistic), "p_value": test.p_value,
            **adjusted_pvalue_columns(test.p_value), "effect_size_dz": finite_or_missing(summary.effect_size_dz),
            "effect_size_e": finite_or_missing(summary.effect_size_e),
            "ci_low": summary.ci_low, "ci_high": summary.ci_high}, columns=list(TABLE_COLUMNS)))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("method", "run_a", "run_b") else np.float64)
                             for c in TABLE_COLUMNS})
    return pd.concat(frames, ignore_index=True)


def pvalue_column(name: str) -> str:
    """The :func:`pairwise_tests` column a test name reads: p_value or an adjusted one."""
    _, correction = parse_test_name(name)
    return "p_value" if correction is None else CORRECTIONS[correction].column


def count_significant_pairs(table: pd.DataFrame, names: Iterable[str],
                            levels: Iterable[float] = (0.05, 0.01)) -> pd.DataFrame:
    """Significant pairs (p < level, strictly, as :func:`.tukey_hsd.count_significant`)
    of each test name at each level, from one family's :func:`pairwise_tests` table:
    columns ``test, level, significant, pairs``, in the order of the names and levels."""
    import pandas as pd

    rows = []
    level_list = [float(level) for level in levels]
    for name in names:
        method = parse_test_name(name)[0].name
        p = table.loc[table["method"] == method, pvalue_column(name)].to_numpy(dtype=np.float64)
        rows += [(name, level, int(np.count_nonzero(p < level)), len(p)) for level in level_list]
    return pd.DataFrame(rows, columns=["test", "level", "significant", "pairs"])
