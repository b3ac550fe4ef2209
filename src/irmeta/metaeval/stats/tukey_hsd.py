"""Discriminative power's tests: the authors' per-pair Tukey HSD, the two-way
(topic-blocked) Tukey HSD over all runs, and the randomised Tukey HSD (Carterette 2012,
Sakai 2014), with the counts of significant pairs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from irmeta.measures.averaging import exact_mean
from irmeta.metaeval.stats.blocks import Trials, as_score_matrix, block_size, run_pairs, trial_indices, trial_rng


def _pair_differences(means: np.ndarray) -> np.ndarray:
    """|mean_a - mean_b| for every pair: exactly 0 for bit-identical means."""
    a, b = run_pairs(len(means))
    return np.abs(means[a] - means[b])


def _studentize(difference: np.ndarray, standard_error: float | np.ndarray) -> np.ndarray:
    """difference / standard_error, with 0/0 := 0 (no difference: no evidence, p = 1)
    and d/0 := inf (a difference with no noise at all: p = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.divide(difference, standard_error)
    return np.where(difference == 0, 0.0, out)


def count_significant(pvalues: np.ndarray, levels: Iterable[float] = (0.05, 0.01)) -> dict[float, int]:
    """Number of pairs with p < level, for each level (strict, as statsmodels'
    ``reject = q > q_crit``)."""
    p = np.asarray(pvalues, dtype=np.float64)
    return {float(level): int(np.count_nonzero(p < level)) for level in levels}


def paper_pairwise_pvalues(scores: np.ndarray) -> np.ndarray:
    """The authors' protocol: each pair alone, by Tukey's HSD on two independent groups.

    What ``statsmodels.stats.multicomp.pairwise_tukeyhsd(endog, groups)`` does for one
    pair's 2 x T per-topic scores, in closed form for all pairs at once. With two groups
    of T, MSE is the pooled within-run variance (df = 2T - 2), the studentized range is
    q = |mean_a - mean_b| / sqrt(MSE / T), and its k = 2 distribution is that of
    sqrt(2) |t| with t Student's t on df (the range of two normals is sqrt(2) |Z|):

        p = studentized_range.sf(q, 2, df) = 2 * t.sf(q / sqrt(2), df),

    exactly the unpaired two-sample (pooled-variance) t-test. No topic blocking and no
    correction for the number of pairs (docs/PROTOCOL.md, Discriminative power). Edge cases statsmodels leaves
    NaN: a pair of constant runs gets p = 1 when equal, 0 otherwise.
    """
    from scipy.special import stdtr  # t.sf(x, df) is stdtr(df, -x); scipy.stats costs a second to import

    m = as_score_matrix(scores, min_topics=2)
    n_topics = m.shape[1]
    means = exact_mean(m)
    within = ((m - means[:, None]) ** 2).sum(axis=1)  # each run's sum of squares
    a, b = run_pairs(len(m))
    df = 2 * n_topics - 2
    mse = (within[a] + within[b]) / df
    t = _studentize(_pair_differences(means), np.sqrt(2.0 * mse / n_topics))
    return np.minimum(2.0 * stdtr(df, -t), 1.0)


def tukey_hsd_statistics(scores: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Studentized ranges of one Tukey HSD over all runs, blocked by topic.

    Two-way ANOVA without replication (run x topic): residual e = x - run mean - topic
    mean + grand mean, MSE = sum e^2 / ((S - 1)(T - 1)); for each pair
    q = |mean_a - mean_b| / sqrt(MSE / T), to be read against the studentized range
    distribution with k = S means and df = (S - 1)(T - 1) (Sakai, "Statistical reform
    in information retrieval?", SIGIR Forum 2014; Carterette, TOIS 2012).

    Returns ``(q, k, df)``, q in pair order.
    """
    m = as_score_matrix(scores, min_topics=2)
    n_runs, n_topics = m.shape
    if n_runs < 2:
        raise ValueError("need at least 2 runs")
    run_means = exact_mean(m)
    residual = m - run_means[:, None] - m.mean(axis=0)[None, :] + m.mean()
    df = (n_runs - 1) * (n_topics - 1)
    mse = float((residual**2).sum()) / df
    q = _studentize(_pair_differences(run_means), math.sqrt(mse / n_topics))
    return q, n_runs, df


def tukey_hsd_pvalues(scores: np.ndarray) -> np.ndarray:
    """p-values of one Tukey HSD over all runs (see :func:`tukey_hsd_statistics`):
    ``scipy.stats.studentized_range.sf(q, S, (S - 1)(T - 1))`` per pair.

    Slow: scipy integrates numerically, ~20 ms a value at S = 129 (minutes for the
    8256 pairs of 129 runs); each distinct q is evaluated once. To count significant
    pairs use :func:`tukey_hsd_significant`, which needs only the critical values.
    """
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    q, k, df = tukey_hsd_statistics(scores)
    distinct, where = np.unique(q, return_inverse=True)
    return np.minimum(stats.studentized_range.sf(distinct, k, df), 1.0)[where]


def tukey_hsd_critical_values(n_runs: int, df: int, levels: Iterable[float] = (0.05, 0.01)) -> dict[float, float]:
    """q_crit = ``studentized_range.ppf(1 - level, n_runs, df)`` for each level
    (:func:`~irmeta.metaeval.stats.studentized_range.studentized_range_quantile`: scipy's
    to a relative 1e-10, without importing scipy.stats)."""
    from irmeta.metaeval.stats.studentized_range import studentized_range_quantile

    return {float(level): studentized_range_quantile(1.0 - level, n_runs, df) for level in levels}


def tukey_hsd_significant(scores: np.ndarray, levels: Iterable[float] = (0.05, 0.01)) -> dict[float, np.ndarray]:
    """For each level, which pairs the all-runs Tukey HSD rejects: q > q_crit.

    The same decision as p < level (up to q_crit's error, below a relative 1e-10,
    about 1e-9 in q), at a few distribution evaluations per level instead of one per pair.
    Count with ``{level: int(mask.sum())}``.
    """
    q, k, df = tukey_hsd_statistics(scores)
    return {level: q > crit for level, crit in tukey_hsd_critical_values(k, df, levels).items()}


def _permuted_keys(seed: int, trials: np.ndarray, n_topics: int, n_runs: int) -> np.ndarray:
    """Random keys (trials, topics, runs): trial t's from ``default_rng([seed, t]).random``."""
    keys = np.empty((len(trials), n_topics, n_runs))
    for row, trial in zip(keys, trials):
        trial_rng(seed, trial).random(out=row)
    return keys


def randomised_tukey_hsd_null(scores: np.ndarray, trials: Trials, seed: int) -> np.ndarray:
    """Null distribution of the randomised Tukey HSD: one max difference per trial.

    Carterette (TOIS 2012, "Multiple testing in statistical analysis of systems-based
    information retrieval experiments"), Sakai (SIGIR Forum 2014): under the null the
    runs are exchangeable within a topic, so each trial permutes every topic's scores
    across the runs independently and records max_a mean_a - min_a mean_a, the largest
    pairwise difference of the permuted matrix.

    Trial t: ``keys = default_rng([seed, t]).random((topics, runs))``; topic j's scores
    are reassigned to runs in ``argsort(keys[j])`` order. Shards of trials combine by
    concatenation, in any split.
    """
    return randomised_tukey_hsd_null_many(as_score_matrix(scores)[None], trials, seed)[0]


def randomised_tukey_hsd_null_many(stack: np.ndarray, trials: Trials, seed: int) -> np.ndarray:
    """:func:`randomised_tukey_hsd_null` of several (runs, topics) matrices at once,
    (matrices, trials): every matrix sees the same permutations (common random numbers),
    drawn and sorted once per trial; trials go in blocks of :data:`BLOCK_BYTES`."""
    stack = np.asarray(stack, dtype=np.float64)
    n_matrices, n_runs, n_topics = stack.shape
    trial_ids = trial_indices(trials)
    by_topic = np.ascontiguousarray(np.swapaxes(stack, 1, 2)).reshape(n_matrices, -1)  # topic-major
    null = np.empty((n_matrices, len(trial_ids)))
    batch = block_size(n_runs * n_topics * 8)
    row_start = (np.arange(n_topics) * n_runs)[None, :, None]
    for start in range(0, len(trial_ids), batch):
        block = trial_ids[start : start + batch]
        # flat index of the score each (trial, topic, run) cell takes: the topic's row, permuted
        flat = np.argsort(_permuted_keys(seed, block, n_topics, n_runs), axis=-1, kind="stable") + row_start
        for i in range(n_matrices):
            # (b, topics, runs) summed over topics, in topic order; the p-values' tolerance
            # absorbs the rounding a sorted sum would avoid
            means = by_topic[i].take(flat).sum(axis=1) / n_topics
            null[i, start : start + len(block)] = means.max(axis=1) - means.min(axis=1)
    return null


def randomised_tukey_hsd_pvalues(scores: np.ndarray, null_max: np.ndarray, *, plus_one: bool = False,
                                 tolerance: float = 1e-12) -> np.ndarray:
    """p_ab = #{trials: max difference >= |mean_a - mean_b|} / B.

    ``count / B`` as Sakai (2014) and Carterette (2012) state it; ``plus_one=True``
    gives (count + 1) / (B + 1), which counts the observed data as one more permutation
    and is never 0. Observed and permuted means are both sorted-sum means; a permuted
    maximum within ``tolerance`` (1e-12) below an observed difference counts as equal,
    because on a score grid (P@k) equal rationals can round apart by an ulp.
    """
    m = as_score_matrix(scores)
    null = np.sort(np.asarray(null_max, dtype=np.float64).reshape(-1))
    if len(null) == 0:
        raise ValueError("null_max is empty")
    observed = _pair_differences(exact_mean(m))
    at_least = len(null) - np.searchsorted(null, observed - tolerance, side="left")
    if plus_one:
        return (at_least + 1) / (len(null) + 1)
    return at_least / len(null)


def tukey_hsd_pair_pvalues(scores: np.ndarray, selected: np.ndarray) -> np.ndarray:
    """The two-way Tukey HSD's p-values of the pairs ``selected`` (positions in
    ``run_pairs`` order): the studentized range's sf, integrated numerically (ms a value),
    so only the pairs asked for, each distinct q once, not every pair as
    :func:`tukey_hsd_pvalues` does."""
    from scipy import stats  # here, not at the top: it adds a second to every start

    q, k, df = tukey_hsd_statistics(scores)
    distinct, back = np.unique(q[selected], return_inverse=True)
    return np.minimum(stats.studentized_range.sf(distinct, k, df), 1.0)[back.reshape(-1)]
