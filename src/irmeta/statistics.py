"""Meta-evaluation statistics over per-topic score matrices.

Every function takes ``scores`` of shape (runs, topics): the per-topic scores of one
measure (at one alpha), float64. Run pairs are always listed in ``np.triu_indices(runs,
1)`` order (see :func:`run_pairs`): pair ``(a, b)`` with ``a < b``.

* Rank correlation: Kendall's tau-b (as the authors used, via scipy) and the AP
  correlation tau_AP of Yilmaz, Aslam and Robertson (SIGIR 2008), with ties treated as
  in Urbano and Marrero (ICTIR 2017).
* Discriminative power by Tukey's HSD, three ways: the authors' protocol (each pair on
  its own, two independent groups), one Tukey HSD over all runs on the two-way ANOVA
  residual, and the randomised Tukey HSD (Carterette 2012; Sakai 2014).
* Stability (Buckley and Voorhees, SIGIR 2000) as PROTOCOL.md states it.

Numerical care: run means are exact means (a sorted sum, :func:`irmeta.metrics.exact_mean`),
so runs with the same multiset of scores get bit-identical means, identical runs get a
difference of exactly 0, and a topic sample that reproduces a run's scores reproduces
its mean bit for bit (PROTOCOL.md, numerical care). Two statistics compare means only
against thresholds padded by a tolerance (1e-12, far above rounding, far below any
real difference), and there the cheaper sums are used, the verdicts being the same:
the permutation null sums each permuted run over topics in topic order, and a
stability trial's means are one matrix product of the scores and the trial's topic
indicator.

Randomness is per trial: trial ``t`` draws from ``np.random.default_rng([seed, t])``,
so results do not depend on how the trials are split into shards. The only Python loop
over trials fills random numbers from those generators; all arithmetic is vectorised.
"""

from __future__ import annotations

import math
import warnings
from typing import Iterable, Literal, Sequence

import numpy as np

from .metrics import exact_mean

Trials = range | Sequence[int] | np.ndarray
FuzzinessMode = Literal["absolute", "relative"]

__all__ = [
    "run_pairs",
    "kendall_tau",
    "tau_ap",
    "tau_ap_symmetric",
    "count_significant",
    "paper_pairwise_pvalues",
    "tukey_hsd_statistics",
    "tukey_hsd_pvalues",
    "tukey_hsd_critical_values",
    "tukey_hsd_significant",
    "randomised_tukey_hsd_null",
    "randomised_tukey_hsd_pvalues",
    "topics_per_trial_default",
    "draw_topic_subsets",
    "stability_counts",
    "stability",
]

# Bytes one vectorised temporary may take: trials (and pairs) are processed in blocks
# of this size, so a job's memory does not grow with the number of trials, runs or
# topics beyond the (runs, trials) means it keeps (8 MB for 1,000 x 1,000).
BLOCK_BYTES = 64 * 2**20


def block_size(per_item_bytes: int, budget: int | None = None) -> int:
    """How many items of ``per_item_bytes`` fit a vectorised block (at least one);
    ``budget`` defaults to :data:`BLOCK_BYTES`, read at each call so it can be set."""
    return max(1, (BLOCK_BYTES if budget is None else budget) // max(1, per_item_bytes))


# --------------------------------------------------------------------------- inputs


def _score_matrix(scores: np.ndarray, min_topics: int = 1) -> np.ndarray:
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"scores must be (runs, topics), not of shape {m.shape}")
    if m.shape[1] < min_topics:
        raise ValueError(f"need at least {min_topics} topics, got {m.shape[1]}")
    if not np.isfinite(m).all():
        raise ValueError("scores must be finite")
    return m


def _trial_indices(trials: Trials) -> np.ndarray:
    t = np.asarray(trials, dtype=np.int64).reshape(-1)
    if (t < 0).any():
        raise ValueError("trial indices must be non-negative")
    return t


def trial_rng(seed: int, trial: int) -> np.random.Generator:
    """The generator of one trial: independent of the shard the trial runs in."""
    return np.random.default_rng([int(seed), int(trial)])


def run_pairs(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(a, b)`` of every run pair, ``a < b``, in ``np.triu_indices`` order."""
    return np.triu_indices(n_runs, 1)


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


# --------------------------------------------------------------------------- rank correlation


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b between two score vectors, as ``scipy.stats.kendalltau`` (which
    the authors used) defines it. NaN when undefined (a constant vector, fewer than two
    items). Computed by :func:`batch_kendall_tau_b`, whose single square root makes
    identical rankings give exactly 1 even with ties (scipy divides by two roots)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be vectors of the same length")
    if len(x) < 2:
        return math.nan
    return float(batch_kendall_tau_b(x[None], y[None])[0])


def batch_kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair of (trials, N) arrays (NaN where undefined).

    tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)): C - D summed over pairs of sign
    products, n0 - n1 and n0 - n2 the pairs untied in x and in y (Kendall 1945).
    """
    iu = np.triu_indices(x.shape[1], 1)
    dx = np.sign(x[:, iu[0]] - x[:, iu[1]])
    dy = np.sign(y[:, iu[0]] - y[:, iu[1]])
    concordance = (dx * dy).sum(axis=1)
    untied = np.count_nonzero(dx, axis=1).astype(np.float64) * np.count_nonzero(dy, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, concordance / np.sqrt(untied), np.nan)


def tau_ap(x: np.ndarray, y: np.ndarray, higher_is_better: bool = True) -> float:
    """AP correlation of the ranking by ``x`` (estimated) against ``y`` (reference).

    Yilmaz, Aslam and Robertson (SIGIR 2008), eq. 3: list the items by ``x``, best
    first; C(i) is the number of items above rank i that ``y`` also ranks above the
    item at rank i, and

        tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1.

    Ties (where the paper assumes none), following the one-sided term of Urbano and
    Marrero's tau_AP-b (ICTIR 2017, "The Treatment of Ties in AP Correlation"):

    * ties in ``x``: an item's "items above" are those *strictly* above it in ``x``
      (i - 1 becomes that count), pairs tied in ``x`` are not compared, and items of
      the top tie group (nothing strictly above) are left out of the sum and of the
      normaliser N - 1 (which becomes the number of items left);
    * ties in ``y``: an item above in ``x`` counts in C(i) only if ``y`` ranks it
      strictly above, so ordering a pair the reference ties is not credited.

    Without ties this is the original coefficient. ``tau_ap(x, x) == 1`` with or
    without ties; NaN when every item ties in ``x`` or N < 2. Beware the argument
    order: Urbano's ircor/pyircor ``tauap_a(x, y)`` takes the reference first.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be vectors of the same length")
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    if not higher_is_better:
        x, y = -x, -y  # negation is exact: the same orders, reversed
    above = x[:, None] > x[None, :]  # above[j, i]: j strictly above i in x's list
    agreed = above & (y[:, None] > y[None, :])  # ... and y agrees, strictly
    n_above = above.sum(axis=0)
    ranked = n_above > 0  # below the top tie group of x
    if not ranked.any():
        return math.nan
    # fsum: the same value whatever the items' order (tau_ap(x, x) is exactly 1)
    total = math.fsum(agreed.sum(axis=0)[ranked] / n_above[ranked])
    return 2.0 * total / int(ranked.sum()) - 1.0


def tau_ap_symmetric(x: np.ndarray, y: np.ndarray, higher_is_better: bool = True) -> float:
    """(tau_AP(x, y) + tau_AP(y, x)) / 2: neither ranking is the reference.

    With :func:`tau_ap`'s treatment of ties this is Urbano and Marrero's tau_AP-b
    (ICTIR 2017, the "agreement" scenario); without ties it is the mean of Yilmaz et
    al.'s two one-sided coefficients.
    """
    return 0.5 * (tau_ap(x, y, higher_is_better) + tau_ap(y, x, higher_is_better))


# --------------------------------------------------------------------------- discriminative power


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
    correction for the number of pairs (PROTOCOL.md). Edge cases statsmodels leaves
    NaN: a pair of constant runs gets p = 1 when equal, 0 otherwise.
    """
    from scipy.special import stdtr  # t.sf(x, df) is stdtr(df, -x); scipy.stats costs a second to import

    m = _score_matrix(scores, min_topics=2)
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
    m = _score_matrix(scores, min_topics=2)
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
    """q_crit = ``studentized_range.ppf(1 - level, n_runs, df)`` for each level."""
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    return {float(level): float(stats.studentized_range.ppf(1.0 - level, n_runs, df)) for level in levels}


def tukey_hsd_significant(scores: np.ndarray, levels: Iterable[float] = (0.05, 0.01)) -> dict[float, np.ndarray]:
    """For each level, which pairs the all-runs Tukey HSD rejects: q > q_crit.

    The same decision as p < level (up to scipy's root-finding tolerance on q_crit,
    ~1e-9 in q), at two distribution evaluations per level instead of one per pair.
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
    return randomised_tukey_hsd_null_many(_score_matrix(scores)[None], trials, seed)[0]


def randomised_tukey_hsd_null_many(stack: np.ndarray, trials: Trials, seed: int) -> np.ndarray:
    """:func:`randomised_tukey_hsd_null` of several (runs, topics) matrices at once,
    (matrices, trials): every matrix sees the same permutations (common random numbers),
    drawn and sorted once per trial; trials go in blocks of :data:`BLOCK_BYTES`."""
    stack = np.asarray(stack, dtype=np.float64)
    n_matrices, n_runs, n_topics = stack.shape
    trial_ids = _trial_indices(trials)
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
    m = _score_matrix(scores)
    null = np.sort(np.asarray(null_max, dtype=np.float64).reshape(-1))
    if len(null) == 0:
        raise ValueError("null_max is empty")
    observed = _pair_differences(exact_mean(m))
    at_least = len(null) - np.searchsorted(null, observed - tolerance, side="left")
    if plus_one:
        return (at_least + 1) / (len(null) + 1)
    return at_least / len(null)


# --------------------------------------------------------------------------- stability


def topics_per_trial_default(n_topics: int) -> int:
    """round(n_topics / 2) with Python's round, half to even, as the authors' scripts:
    45 -> 22, 47 -> 24, 50 -> 25."""
    return round(n_topics / 2)


def draw_topic_subsets(n_topics: int, topics_per_trial: int, trials: Trials, seed: int) -> np.ndarray:
    """(trials, topics_per_trial) topic indices: trial t's are
    ``default_rng([seed, t]).choice(n_topics, topics_per_trial, replace=False)``."""
    if not 1 <= topics_per_trial <= n_topics:
        raise ValueError(f"topics_per_trial must be in [1, {n_topics}], got {topics_per_trial}")
    trial_ids = _trial_indices(trials)
    out = np.empty((len(trial_ids), topics_per_trial), dtype=np.intp)
    for row, trial in zip(out, trial_ids):
        row[:] = trial_rng(seed, trial).choice(n_topics, size=topics_per_trial, replace=False)
    return out


def stability_counts(
    scores: np.ndarray,
    topics_per_trial: int,
    trials: Trials,
    seed: int,
    fuzziness: float = 0.05,
    mode: FuzzinessMode = "absolute",
    higher_is_better: bool = True,
    *,
    tolerance: float = 1e-12,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wins of a, wins of b and ties per pair (pair order), summed over the trials.

    Buckley and Voorhees (SIGIR 2000), as PROTOCOL.md states the paper's use: each trial
    draws ``topics_per_trial`` topics without replacement (:func:`draw_topic_subsets`),
    each run's exact mean over them, and for each pair the better run wins when the
    difference exceeds the fuzziness, otherwise the trial is a tie for the pair:

    * ``absolute``: |diff| > fuzziness, in the metric's own units (the paper's 0.05);
    * ``relative``: |diff| > fuzziness * max(|mean_a|, |mean_b|) (B&V 2000's 5%).

    ``tolerance`` is added to the threshold: on a score grid (P@k: multiples of 1/k) a
    difference can equal the fuzziness in real arithmetic, and float rounding would
    then decide win or tie at random (0.8 - 0.75 > 0.05 but 0.35 - 0.3 < 0.05 in
    float64). The default 1e-12 is far above rounding noise (~1e-16) and far below any
    real difference of means; it reads "exceeds" as in real arithmetic. Pass 0 for a
    plain float comparison.
    """
    m = _score_matrix(scores)
    means = trial_means(m, draw_topic_subsets(m.shape[1], topics_per_trial, trials, seed))
    return stability_counts_of_means(means, fuzziness, mode, higher_is_better, tolerance=tolerance)


def trial_means(scores: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """(runs, trials): each run's mean over each trial's topics (``subsets`` (trials, c)
    topic indices, distinct within a trial), as one product of the scores and the
    trials' topic indicator, in blocks of :data:`BLOCK_BYTES`. Stability compares these
    means against thresholds padded by a tolerance, so their rounding decides nothing."""
    m = _score_matrix(scores)
    means = np.zeros((len(m), len(subsets)))
    batch = block_size(m.shape[1] * 8)
    for start in range(0, len(subsets), batch):
        block = subsets[start : start + batch]
        indicator = np.zeros((len(block), m.shape[1]))
        np.put_along_axis(indicator, block, 1.0, axis=1)
        means[:, start : start + len(block)] = (m @ indicator.T) / subsets.shape[1]
    return means


def stability_counts_of_means(means: np.ndarray, fuzziness: float = 0.05, mode: FuzzinessMode = "absolute",
                              higher_is_better: bool = True, *,
                              tolerance: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`stability_counts` from the (runs, trials) means of :func:`trial_means`."""
    if mode not in ("absolute", "relative"):
        raise ValueError(f"mode must be 'absolute' or 'relative', not {mode!r}")
    n_runs, n_trials = means.shape
    if not higher_is_better:
        means = -means  # exact; relative thresholds use |mean|, unchanged
    n_pairs = n_runs * (n_runs - 1) // 2
    wins_a = np.empty(n_pairs, dtype=np.int64)
    wins_b = np.empty(n_pairs, dtype=np.int64)
    magnitude = np.abs(means) if mode == "relative" else None
    at = 0
    for a in range(n_runs - 1):  # pairs (a, a+1..): a contiguous run of run_pairs' order, no gather
        diff = means[a] - means[a + 1:]  # (runs after a, trials)
        if mode == "absolute":
            threshold = fuzziness + tolerance
        else:
            threshold = fuzziness * np.maximum(magnitude[a], magnitude[a + 1:]) + tolerance
        wins_a[at:at + len(diff)] = np.count_nonzero(diff > threshold, axis=1)
        wins_b[at:at + len(diff)] = np.count_nonzero(diff < -threshold, axis=1)
        at += len(diff)
    return wins_a, wins_b, n_trials - wins_a - wins_b


def stability(wins_a: np.ndarray, wins_b: np.ndarray, ties: np.ndarray) -> float:
    """sum over pairs of max(wins_a, wins_b) / sum over pairs of (wins_a + wins_b + ties):
    the mean majority fraction (PROTOCOL.md). Ties count against it. NaN with no trials."""
    wins_a, wins_b, ties = (np.asarray(v, dtype=np.int64) for v in (wins_a, wins_b, ties))
    total = int(wins_a.sum() + wins_b.sum() + ties.sum())
    if total == 0:
        return math.nan
    return int(np.maximum(wins_a, wins_b).sum()) / total


# --------------------------------------------------------------------- swap method

SwapSampling = Literal["bootstrap", "disjoint"]


def draw_topic_pairs(n_topics: int, trials: Trials, seed: int, sampling: SwapSampling = "bootstrap",
                     topic_set_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two topic sets per trial, (trials, c) each.

    ``bootstrap`` (Sakai 2006): two independent samples of c = n topics with replacement;
    ``disjoint`` (Voorhees and Buckley 2002): a random permutation's first c and next c
    topics, c <= n / 2 (default n // 2). Trial t draws from ``default_rng([seed, t])``.
    """
    trial_ids = _trial_indices(trials)
    if sampling == "bootstrap":
        c = n_topics if topic_set_size is None else topic_set_size
        first = np.empty((len(trial_ids), c), dtype=np.intp)
        second = np.empty_like(first)
        for i, trial in enumerate(trial_ids):
            rng = trial_rng(seed, trial)
            first[i] = rng.integers(0, n_topics, c)
            second[i] = rng.integers(0, n_topics, c)
        return first, second
    if sampling == "disjoint":
        c = n_topics // 2 if topic_set_size is None else topic_set_size
        if not 1 <= c <= n_topics // 2:
            raise ValueError(f"disjoint topic sets need 1 <= c <= {n_topics // 2}, got {c}")
        order = np.stack([trial_rng(seed, t).permutation(n_topics) for t in trial_ids]) if len(trial_ids) else \
            np.zeros((0, n_topics), dtype=np.intp)
        return order[:, :c], order[:, c:2 * c]
    raise ValueError(f"sampling must be 'bootstrap' or 'disjoint', not {sampling!r}")


def swap_counts(scores: np.ndarray, trials: Trials, seed: int, *, sampling: SwapSampling = "bootstrap",
                topic_set_size: int | None = None, bin_width: float = 0.01, higher_is_better: bool = True,
                topic_sets: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The swap method's counts (Voorhees and Buckley 2002, as Sakai 2006 uses it).

    Each trial draws two topic sets (:func:`draw_topic_pairs`); for every run pair, d1
    and d2 are the differences of the pair's means on the first and second set. The
    comparison falls in bin floor(|d1| / bin_width), or bin -1 when d1 = 0 (no verdict to
    confirm, never discriminated); it is a swap when d2 does not have d1's sign (a tie on
    the second set counts as a swap: the first set's verdict was not confirmed). Returns
    (bins, comparisons per bin, swaps per bin), the bins that occur, ascending; shards
    add up bin by bin. ``topic_sets``: the two sets already drawn by
    :func:`draw_topic_pairs` for these trials (shared by every matrix of a shard).
    """
    m = _score_matrix(scores)
    if not higher_is_better:
        m = -m
    first, second = topic_sets or draw_topic_pairs(m.shape[1], trials, seed, sampling, topic_set_size)
    a, b = run_pairs(len(m))
    comparisons = np.zeros(0, dtype=np.int64)  # by bin + 1 (bin -1 first)
    swaps = np.zeros(0, dtype=np.int64)
    batch = block_size(len(m) * first.shape[1] * 8)
    m1 = np.empty((len(first), len(m)))
    m2 = np.empty((len(first), len(m)))
    for start in range(0, len(first), batch):  # (trials, runs) means, exact: a tie stays a tie
        block = slice(start, start + batch)
        m1[block] = exact_mean(m[:, first[block]]).T
        m2[block] = exact_mean(m[:, second[block]]).T
    for a in range(len(m) - 1):  # pairs (a, a+1..): a contiguous run of run_pairs' order, no gather
        d1 = m1[:, a:a + 1] - m1[:, a + 1:]
        d2 = m2[:, a:a + 1] - m2[:, a + 1:]
        swapped = ((d1 != 0) & (np.sign(d2) != np.sign(d1))).ravel()
        # Bins of |d1|; a hair's tolerance so a difference on a bin edge is not split by rounding.
        index = np.where(d1 == 0, 0, np.floor(np.abs(d1) / bin_width + 1e-9) + 1).astype(np.int64).ravel()
        counted = np.bincount(index)
        swapped_counts = np.bincount(index[swapped], minlength=len(counted))
        if len(counted) > len(comparisons):
            comparisons = np.pad(comparisons, (0, len(counted) - len(comparisons)))
            swaps = np.pad(swaps, (0, len(counted) - len(swaps)))
        comparisons[:len(counted)] += counted
        swaps[:len(counted)] += swapped_counts
    present = np.flatnonzero(comparisons)
    return present - 1, comparisons[present], swaps[present]


def swap_sensitivity(bins: np.ndarray, comparisons: np.ndarray, swaps: np.ndarray, *, bin_width: float = 0.01,
                     confidence: float = 0.95) -> dict:
    """The absolute difference needed for a ``confidence`` sure comparison, and the share
    of comparisons that reach it (Sakai 2006's Table 1: "absolute diff. required",
    "sensitivity").

    Required difference: the lower edge of the smallest bin from which on every bin's
    swap rate is below 1 - confidence (so a non-monotone tail cannot undercut it); NaN
    when no bin qualifies. Sensitivity: comparisons with |d1| at or above it, over all.
    """
    bins, comparisons, swaps = (np.asarray(v, dtype=np.int64) for v in (bins, comparisons, swaps))
    total = int(comparisons.sum())
    if total == 0:
        return {"required_difference": math.nan, "sensitivity": math.nan, "comparisons": 0}
    decided = bins >= 0  # bin -1: d1 = 0, counted in the total only
    order = np.argsort(bins[decided])
    bins, comparisons, swaps = bins[decided][order], comparisons[decided][order], swaps[decided][order]
    rate = np.divide(swaps, comparisons, out=np.zeros(len(bins)), where=comparisons > 0)
    too_high = rate >= 1.0 - confidence
    last_bad = np.flatnonzero(too_high)
    first_good = 0 if len(last_bad) == 0 else int(last_bad[-1]) + 1
    if first_good >= len(bins):
        return {"required_difference": math.nan, "sensitivity": 0.0, "comparisons": total}
    required = float(bins[first_good]) * bin_width
    return {"required_difference": required,
            "sensitivity": float(comparisons[first_good:].sum()) / total,
            "comparisons": total}
