"""Paired significance tests over every run pair of a (runs, topics) score matrix at
once: the paired t-test, Wilcoxon's signed-rank test, the sign test, Fisher's paired
randomisation test and Sakai's paired bootstrap test, with effect sizes, confidence
intervals and the multiple-comparison corrections (:mod:`.multiple_testing`).

Pairs are ``run_pairs`` order (a < b); the per-topic differences d = x_a - x_b are formed
in blocks of pairs (:func:`.blocks.block_size`), so memory is bounded whatever the number
of runs. The two randomised tests draw one matrix of sign flips or of resampled topics
per call, shared by every pair (common random numbers), and count against thresholds
padded by :data:`TIE_TOLERANCE`, so their p-values do not depend on the block size.

Degenerate pairs get numbers, never NaN: when every difference is 0 a test has no
evidence (p = 1; statistic 0, or 0.5 for the sign test's proportion), where scipy returns
NaN or raises; when every difference is the same non-zero value, the studentised
statistics (paired t, bootstrap) are +-inf with p = 0, as scipy's ``ttest_rel`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from irmeta.metaeval.stats.anova import residual_variance
from irmeta.metaeval.stats.blocks import as_score_matrix, block_size, run_pairs
from irmeta.metaeval.stats.multiple_testing import CORRECTIONS, adjusted_column, adjusted_pvalue_columns

METHODS = ("paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap")
TABLE_COLUMNS = ("method", "run_a", "run_b", "mean_difference", "statistic", "p_value", "p_adjusted_holm",
                 "p_adjusted_bh", "p_adjusted_bonferroni", "effect_size_dz", "effect_size_e", "ci_low", "ci_high")

# Relative slack of the randomised tests' ">=": a permuted statistic that falls short of
# the observed one by less than this share of its scale counts as a tie. Sums of the
# same differences in another order round apart by ~topics x 1e-16 of that scale; real
# gaps between distinct flip or resample statistics are far larger.
TIE_TOLERANCE = 1e-9


class PairTest(NamedTuple):
    """One test's results, one entry per pair in ``run_pairs`` order."""

    statistic: np.ndarray
    p_value: np.ndarray


def _checked(scores: np.ndarray) -> np.ndarray:
    m = as_score_matrix(scores, min_topics=2)
    if m.shape[0] < 2:
        raise ValueError(f"need at least 2 runs, got {m.shape[0]}")
    return m


def pair_blocks(n_runs: int, per_pair_bytes: int,
                budget: int | None = None) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """``(where, a, b)`` for consecutive blocks of run pairs: ``where`` their positions in
    ``run_pairs`` order, ``a < b`` their rows; as many pairs a block as fit ``budget``."""
    a, b = run_pairs(n_runs)
    size = block_size(per_pair_bytes, budget)
    for start in range(0, len(a), size):
        where = slice(start, min(start + size, len(a)))
        yield where, a[where], b[where]


def _studentize(numerator: np.ndarray, denominator: np.ndarray | float) -> np.ndarray:
    """numerator / denominator with 0/0 := 0 (no difference: no evidence) and d/0 := +-inf
    (a difference with no noise at all), as :mod:`.tukey_hsd` treats them."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.divide(numerator, denominator)
    return np.where(numerator == 0, 0.0, out)


def _mean_and_variance(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row means and unbiased variances (ddof 1), with scipy's ``ttest_1samp`` operations:
    mean((d - mean)^2) * n / (n - 1)."""
    n = d.shape[1]
    mean = d.mean(axis=1)
    return mean, ((d - mean[:, None]) ** 2).mean(axis=1) * (n / (n - 1))


def paired_t(scores: np.ndarray, budget: int | None = None) -> PairTest:
    """Two-sided paired t-test of every pair: t = mean(d) / (sd(d) / sqrt(n)) on n - 1 df,
    p = 2 P(T > |t|) (Student 1908), equal to ``scipy.stats.ttest_rel(x_a, x_b)`` and
    computed as it is (``scipy.special.stdtr``). All-zero differences: t = 0, p = 1
    (scipy: NaN); constant non-zero differences: t = +-inf, p = 0 (as scipy)."""
    from scipy.special import stdtr  # scipy.stats costs a second to import

    m = _checked(scores)
    n_runs, n = m.shape
    statistic, p = np.empty(n_runs * (n_runs - 1) // 2), np.empty(n_runs * (n_runs - 1) // 2)
    for where, a, b in pair_blocks(n_runs, 3 * n * 8, budget):
        mean, variance = _mean_and_variance(m[a] - m[b])
        t = _studentize(mean, np.sqrt(variance / n))
        statistic[where], p[where] = t, 2.0 * stdtr(n - 1, -np.abs(t))
    return PairTest(statistic, p)


def _wilcoxon_groups(d: np.ndarray) -> dict[str, np.ndarray]:
    """Which rows get which method, as ``scipy.stats.wilcoxon(d_row)`` (method 'auto')
    would choose for each row alone: 'exact' for n <= 50 without zeros or ties in |d|;
    otherwise 'asymptotic', or for n <= 13 'enumerate' (scipy's permutation test over all
    2^n sign flips). A 2-D scipy call decides once for all its rows, so rows are grouped
    first. All-zero rows are left out."""
    n = d.shape[1]
    informative = (d != 0).any(axis=1)
    if n > 50:
        return {"asymptotic": informative}
    tied = (np.diff(np.sort(np.abs(d), axis=1), axis=1) == 0).any(axis=1)
    clean = informative & ~tied & (d != 0).all(axis=1)
    return {"exact": clean, ("enumerate" if n <= 13 else "asymptotic"): informative & ~clean}


def _wilcoxon_enumerated(d: np.ndarray) -> PairTest:
    """What scipy's wilcoxon does for n <= 13 with zeros or ties: ``permutation_test`` on
    R+ over all 2^n sign flips, p = min(1, 2 min(#{R+* <= R+ + g}, #{R+* >= R+ - g}) / 2^n)
    with g = 100 eps R+. scipy evaluates R+ once per flip (seconds a pair); here R+* for
    every flip is one product of the midranks with the (n, 2^n) matrix of 0/1 patterns,
    exact as the ranks are halves. Zero differences have rank 0: their flips change nothing."""
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    n = d.shape[1]
    ranks = np.nan_to_num(stats.rankdata(np.where(d == 0, np.nan, np.abs(d)), axis=1, nan_policy="omit"))
    r_plus, r_minus = np.where(d > 0, ranks, 0.0).sum(axis=1), np.where(d < 0, ranks, 0.0).sum(axis=1)
    patterns = (np.arange(2**n)[None, :] >> np.arange(n)[:, None]) & 1  # (n, 2^n): every flip
    null = ranks @ patterns.astype(np.float64)
    slack = (np.finfo(np.float64).eps * 100 * np.abs(r_plus))[:, None]
    less = (null <= r_plus[:, None] + slack).sum(axis=1)
    greater = (null >= r_plus[:, None] - slack).sum(axis=1)
    return PairTest(np.minimum(r_plus, r_minus), np.minimum(2.0 * np.minimum(less, greater) / 2**n, 1.0))


def wilcoxon(scores: np.ndarray, budget: int | None = None) -> PairTest:
    """Two-sided Wilcoxon signed-rank test of every pair (Wilcoxon 1945): zero differences
    dropped ('wilcox'), method 'auto', continuity-corrected normal approximation where
    scipy uses it; statistic min(R+, R-). Equal to ``scipy.stats.wilcoxon(x_a, x_b)``,
    run on 2-D blocks of pairs grouped by the method scipy picks for each pair alone
    (:func:`_wilcoxon_enumerated` for scipy's permutation case). All-zero differences:
    statistic 0, p = 1 (scipy: NaN)."""
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    m = _checked(scores)
    n_runs, n = m.shape
    statistic, p = np.zeros(n_runs * (n_runs - 1) // 2), np.ones(n_runs * (n_runs - 1) // 2)
    # scipy ranks with several (pairs, topics) temporaries; enumeration holds (pairs, 2^n)
    per_pair = 8 * (16 * n + (3 * 2**n if n <= 13 else 0))
    for where, a, b in pair_blocks(n_runs, per_pair, budget):
        d = m[a] - m[b]
        positions = np.arange(where.start, where.stop)
        for method, rows in _wilcoxon_groups(d).items():
            if not rows.any():
                continue
            if method == "enumerate":
                result = _wilcoxon_enumerated(d[rows])
            else:
                found = stats.wilcoxon(d[rows], axis=1, method=method)
                result = PairTest(found.statistic, found.pvalue)
            statistic[positions[rows]], p[positions[rows]] = result
    return PairTest(statistic, p)


def sign_test_pvalues(positive: np.ndarray, nonzero: np.ndarray) -> np.ndarray:
    """Two-sided sign test p-values, ``scipy.stats.binomtest(k, n, 0.5).pvalue`` for each
    (k, n), n = 0 giving 1. For p = 1/2 binomtest sums the tail at k and the mirror tail
    at n - k: with k' = min(k, n - k), p = min(1, cdf(k') + sf(n - k' - 1)), and 1 when
    2k = n; evaluated once per distinct (k, n)."""
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    k, n = np.asarray(positive, dtype=np.int64), np.asarray(nonzero, dtype=np.int64)
    combos, where = np.unique(np.stack([k, n]), axis=1, return_inverse=True)
    kk, nn = np.minimum(combos[0], combos[1] - combos[0]), combos[1]
    tails = stats.binom.cdf(kk, nn, 0.5) + stats.binom.sf(nn - kk - 1, nn, 0.5)
    return np.where(2 * combos[0] == nn, 1.0, np.minimum(tails, 1.0))[where.reshape(-1)]


def sign(scores: np.ndarray, budget: int | None = None) -> PairTest:
    """Two-sided sign test of every pair: k topics with d > 0 out of the n with d != 0,
    against Binomial(n, 1/2) (Conover, Practical Nonparametric Statistics, 3rd ed., section 3.4).
    Statistic k / n, as binomtest's; all-zero differences: statistic 0.5, p = 1
    (binomtest raises for n = 0)."""
    m = _checked(scores)
    n_runs, n = m.shape
    positive = np.empty(n_runs * (n_runs - 1) // 2, dtype=np.int64)
    nonzero = np.empty_like(positive)
    for where, a, b in pair_blocks(n_runs, 3 * n * 8, budget):
        d = m[a] - m[b]
        positive[where], nonzero[where] = (d > 0).sum(axis=1), (d != 0).sum(axis=1)
    statistic = np.divide(positive, nonzero, out=np.full(len(positive), 0.5), where=nonzero > 0)
    return PairTest(statistic, sign_test_pvalues(positive, nonzero))


def random_signs(permutations: int, n_topics: int, seed: int) -> np.ndarray:
    """(permutations, topics) of +-1, each flip independent with probability 1/2, from
    ``numpy.random.Generator(PCG64(seed))``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return 1.0 - 2.0 * rng.integers(0, 2, size=(permutations, n_topics))


def _checked_draws(draws: np.ndarray, n_topics: int, name: str) -> np.ndarray:
    out = np.asarray(draws)
    if out.ndim != 2 or out.shape[1] != n_topics or out.shape[0] < 1:
        raise ValueError(f"{name} must be (draws >= 1, {n_topics} topics), not of shape {out.shape}")
    return out


def randomisation(scores: np.ndarray, permutations: int = 1000, seed: int = 0, *,
                  signs: np.ndarray | None = None, budget: int | None = None) -> PairTest:
    """Fisher's paired randomisation test of every pair on the mean difference (Fisher,
    The Design of Experiments, 1935, section 21; Smucker, Allan and Carterette, CIKM 2007): under
    the null each topic's difference is as likely negated, so

        p = #{b : |sum_j s_bj d_j| >= |sum_j d_j|} / B

    over B sign vectors s_b, the rows of ``signs`` or :func:`random_signs` (B =
    ``permutations``), shared by all pairs. A permuted sum short of the observed by at
    most :data:`TIE_TOLERANCE` x sum |d_j| counts as a tie. Statistic: mean(d). Passing
    all 2^n sign vectors gives the exact permutation p-value. All-zero differences give
    p = 1 with no special case (every flip ties)."""
    m = _checked(scores)
    n_runs, n = m.shape
    flips = _checked_draws(random_signs(permutations, n, seed) if signs is None else signs, n, "signs")
    flips_t = np.ascontiguousarray(flips.T, dtype=np.float64)  # (topics, B): one matrix product a block
    statistic, p = np.empty(n_runs * (n_runs - 1) // 2), np.empty(n_runs * (n_runs - 1) // 2)
    for where, a, b in pair_blocks(n_runs, (3 * n + 2 * len(flips)) * 8, budget):
        d = m[a] - m[b]
        observed = d.sum(axis=1)
        threshold = np.abs(observed) - TIE_TOLERANCE * np.abs(d).sum(axis=1)
        at_least = (np.abs(d @ flips_t) >= threshold[:, None]).sum(axis=1)
        statistic[where], p[where] = observed / n, at_least / len(flips)
    return PairTest(statistic, p)


def bootstrap_resamples(permutations: int, n_topics: int, seed: int) -> np.ndarray:
    """(permutations, topics) of topic indices drawn uniformly with replacement, from
    ``numpy.random.Generator(PCG64(seed))``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, n_topics, size=(permutations, n_topics))


def resample_counts(resamples: np.ndarray, n_topics: int) -> np.ndarray:
    """(B, topics) float64: how often each topic is drawn in each resample."""
    r = np.asarray(resamples, dtype=np.int64)
    if r.size and (r.min() < 0 or r.max() >= n_topics):
        raise ValueError(f"resampled topic indices must lie in [0, {n_topics})")
    offsets = (np.arange(len(r)) * n_topics)[:, None]
    return np.bincount((r + offsets).reshape(-1), minlength=len(r) * n_topics).reshape(len(r), n_topics).astype(
        np.float64)


def paired_bootstrap(scores: np.ndarray, permutations: int = 1000, seed: int = 0, *,
                     resamples: np.ndarray | None = None, budget: int | None = None) -> PairTest:
    """Sakai's paired bootstrap test of every pair (Sakai, "Evaluating evaluation metrics
    based on the bootstrap", SIGIR 2006), studentised and two-sided:

        t = mean(d) / (sd(d) / sqrt(n)),   t*_b = (mean(d*_b) - mean(d)) / (sd(d*_b) / sqrt(n)),
        p = #{b : |t*_b| >= |t|} / B,

    d*_b the differences of resample b of the topics (rows of ``resamples`` or
    :func:`bootstrap_resamples`, shared by all pairs). Shifting by mean(d) is Sakai's
    null-hypothesis bootstrap (z_i = d_i - mean(d)). Sums over a resample are one
    matrix product with the (topics, B) draw counts: with c = d - mean(d) and w_b the
    counts, mean(d*_b) - mean(d) = w_b.c / n and (n - 1) var(d*_b) = w_b.c^2 - (w_b.c)^2 / n.

    Zero variances: 0/0 := 0 and x/0 := +-inf, in t and in every t*. So all-zero
    differences give t = 0 and p = 1; constant non-zero differences (all equal, c := 0
    exactly) give t = +-inf and p = 0, as the paired t-test. A |t*| short of |t| by at
    most :data:`TIE_TOLERANCE` x (|t| + 1) counts as a tie, and a shift within
    :data:`TIE_TOLERANCE` x max |c| of 0 is 0 (rounding, not a difference). Passing all
    n^n index vectors gives the exact bootstrap p-value."""
    m = _checked(scores)
    n_runs, n = m.shape
    draws = _checked_draws(bootstrap_resamples(permutations, n, seed) if resamples is None else resamples, n,
                           "resamples")
    counts_t = np.ascontiguousarray(resample_counts(draws, n).T)  # (topics, B)
    statistic, p = np.empty(n_runs * (n_runs - 1) // 2), np.empty(n_runs * (n_runs - 1) // 2)
    for where, a, b in pair_blocks(n_runs, (4 * n + 5 * len(draws)) * 8, budget):
        d = m[a] - m[b]
        mean = d.mean(axis=1)
        # all-equal differences are centred to exact zeros, so rounding in their mean
        # cannot pose as variation
        centred = np.where((d == d[:, :1]).all(axis=1)[:, None], 0.0, d - mean[:, None])
        t = _studentize(mean, np.sqrt((centred**2).sum(axis=1) / (n - 1) / n))
        shift = (centred @ counts_t) / n  # (pairs, B): mean(d*) - mean(d)
        # a resample of topics whose d all equal mean(d) has shift 0 and variance 0 (t* = 0),
        # but rounding leaves a shift of ~1e-17, which would read as x/0 = inf: snap it
        noise = TIE_TOLERANCE * np.abs(centred).max(axis=1)
        shift = np.where(np.abs(shift) <= noise[:, None], 0.0, shift)
        variance = np.maximum((centred**2) @ counts_t - n * shift**2, 0.0) / (n - 1)
        t_star = np.abs(_studentize(shift, np.sqrt(variance / n)))
        threshold = np.abs(t) * (1.0 - TIE_TOLERANCE) - TIE_TOLERANCE  # inf stays inf
        statistic[where], p[where] = t, (t_star >= threshold[:, None]).sum(axis=1) / len(draws)
    return PairTest(statistic, p)


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
      paired t-test's interval (a point when sd = 0).
    """
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    m = _checked(scores)
    n_runs, n = m.shape
    mean, sd = np.empty(n_runs * (n_runs - 1) // 2), np.empty(n_runs * (n_runs - 1) // 2)
    for where, a, b in pair_blocks(n_runs, 3 * n * 8, budget):
        block_mean, variance = _mean_and_variance(m[a] - m[b])
        mean[where], sd[where] = block_mean, np.sqrt(variance)
    half_width = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / np.sqrt(n)
    return PairSummary(mean, _studentize(mean, sd), _studentize(mean, np.sqrt(residual_variance(m))),
                       mean - half_width, mean + half_width)


def _run_method(method: str) -> Callable[..., PairTest]:
    tests: dict[str, Callable[..., PairTest]] = {"paired_t": paired_t, "wilcoxon": wilcoxon, "sign": sign,
                                                 "randomisation": randomisation,
                                                 "paired_bootstrap": paired_bootstrap}
    if method not in tests:
        raise ValueError(f"unknown test {method!r}; expected one of {', '.join(METHODS)}")
    return tests[method]


def run_test(method: str, scores: np.ndarray, permutations: int = 1000, seed: int = 0,
             budget: int | None = None) -> PairTest:
    """One of :data:`METHODS` on every pair; ``permutations`` and ``seed`` go to the two
    randomised tests only."""
    test = _run_method(method)
    if method in ("randomisation", "paired_bootstrap"):
        if permutations < 1:
            raise ValueError(f"permutations must be at least 1, not {permutations}")
        return test(scores, permutations, seed, budget=budget)
    return test(scores, budget=budget)


def runs_in_byte_order(scores: np.ndarray, runs: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """The matrix's rows and the run names sorted by the names' UTF-8 bytes, so that every
    pair (a, b) of ``run_pairs`` has name a < name b and differences read a - b."""
    m = _checked(scores)
    names = [str(r) for r in runs]
    if len(names) != len(m):
        raise ValueError(f"{len(names)} run names for {len(m)} rows of scores")
    if len(set(names)) != len(names):
        raise ValueError("run names must be distinct")
    order = sorted(range(len(names)), key=lambda i: names[i].encode("utf-8"))
    return m[order], [names[i] for i in order]


def pairwise_tests(scores: np.ndarray, runs: Sequence[str], methods: Iterable[str] = METHODS,
                   permutations: int = 1000, seed: int = 0, *, confidence: float = 0.95,
                   budget: int | None = None) -> pd.DataFrame:
    """Every test of ``methods`` on every pair of runs of one measure's (runs, topics)
    matrix: one row per (method, pair) with :data:`TABLE_COLUMNS`, methods in the order
    given, pairs in ``run_pairs`` order of the byte-sorted names (run_a < run_b,
    mean_difference = a - b). Each method's pairs are one family for the corrections.
    The caller adds the measure (and alpha). Same inputs and seed: identical bytes."""
    m, names = runs_in_byte_order(scores, runs)
    a, b = run_pairs(len(names))
    run_a, run_b = np.asarray(names, dtype=object)[a], np.asarray(names, dtype=object)[b]
    summary = pair_summary(m, confidence, budget)
    frames = []
    for method in dict.fromkeys(methods):  # each method once, in the order given
        test = run_test(method, m, permutations, seed, budget)
        frames.append(pd.DataFrame({
            "method": method, "run_a": run_a, "run_b": run_b, "mean_difference": summary.mean_difference,
            "statistic": test.statistic, "p_value": test.p_value, **adjusted_pvalue_columns(test.p_value),
            "effect_size_dz": summary.effect_size_dz, "effect_size_e": summary.effect_size_e,
            "ci_low": summary.ci_low, "ci_high": summary.ci_high}, columns=list(TABLE_COLUMNS)))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("method", "run_a", "run_b") else np.float64)
                             for c in TABLE_COLUMNS})
    return pd.concat(frames, ignore_index=True)


def parse_test_name(name: str) -> tuple[str, str | None]:
    """``"<method>[+<correction>]"`` -> (method, correction or None): ``paired_t``,
    ``wilcoxon+holm``, ``sign+bh``, ``randomisation+bonferroni``... The one place the
    grammar is read."""
    method, plus, correction = str(name).partition("+")
    if method not in METHODS:
        raise ValueError(f"unknown test {method!r} in {name!r}; expected one of {', '.join(METHODS)}")
    if not plus:
        return method, None
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r} in {name!r}; expected one of {', '.join(CORRECTIONS)}")
    return method, correction


def pvalue_column(name: str) -> str:
    """The :func:`pairwise_tests` column a test name reads: p_value or an adjusted one."""
    _, correction = parse_test_name(name)
    return "p_value" if correction is None else adjusted_column(correction)


def count_significant_pairs(table: pd.DataFrame, names: Iterable[str],
                            levels: Iterable[float] = (0.05, 0.01)) -> pd.DataFrame:
    """Significant pairs (p < level, strictly, as :func:`.tukey_hsd.count_significant`)
    of each test name at each level, from one family's :func:`pairwise_tests` table:
    columns ``test, level, significant, pairs``, in the order of the names and levels."""
    rows = []
    level_list = [float(level) for level in levels]
    for name in names:
        method, _ = parse_test_name(name)
        p = table.loc[table["method"] == method, pvalue_column(name)].to_numpy(dtype=np.float64)
        rows += [(name, level, int(np.count_nonzero(p < level)), len(p)) for level in level_list]
    return pd.DataFrame(rows, columns=["test", "level", "significant", "pairs"])
