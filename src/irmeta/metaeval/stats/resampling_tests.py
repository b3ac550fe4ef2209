"""The two randomised paired tests over every run pair: Fisher's randomisation test and
Sakai's paired bootstrap test. Each draws one matrix of sign flips or of resampled
topics per call, shared by every pair (common random numbers), and counts against
thresholds padded by :data:`TIE_TOLERANCE`, so p-values do not depend on the block size.

Of b draws at least as extreme as the observed data among B, each reports
p = (b + 1) / (B + 1) by default (Phipson and Smyth, "Permutation p-values should never
be zero", Stat. Appl. Genet. Mol. Biol. 9(1), 2010: the observed data counted as one
more draw, so p >= 1 / (B + 1), never 0), or the count form b / B with
``plus_one=False`` (the registered tests ``randomisation_count`` and
``paired_bootstrap_count``), from the same draws (:func:`randomised_pvalues`).

Both need, for every pair and draw, a weighted sum sum_j w_j d_j of the differences.
As d = x_a - x_b, that is (X W)_a - (X W)_b: one (runs, topics) x (topics, draws) product
for all pairs instead of one a pair (124,750 pairs at 500 runs). The two sums round apart
by at most ~2 n eps (sum|x_a| + sum|x_b|); a pair is summed directly where that could
reach the tie band (differences small beside the scores), so the counts are those of
the direct sums.
"""

from __future__ import annotations

import numpy as np

from irmeta.metaeval.stats.pair_differences import (
    PairTest,
    checked_scores,
    n_pairs,
    pair_blocks,
    studentize,
)

# Relative slack of the randomised tests' ">=": a permuted statistic that falls short of
# the observed one by less than this share of its scale counts as a tie. Sums of the
# same differences in another order round apart by ~topics x 1e-16 of that scale; real
# gaps between distinct flip or resample statistics are far larger.
TIE_TOLERANCE = 1e-9
# How far below the tie band the rounding of a shared product must stay for a pair to
# use it (otherwise its sums are formed from its own differences).
_MARGIN = 64.0
_EPS = float(np.finfo(np.float64).eps)


def random_signs(permutations: int, n_topics: int, seed: int) -> np.ndarray:
    """(permutations, topics) of +-1, each flip independent with probability 1/2, from
    ``numpy.random.Generator(PCG64(seed))``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return 1.0 - 2.0 * rng.integers(0, 2, size=(permutations, n_topics))


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


def randomised_pvalues(at_least: np.ndarray, draws: int, plus_one: bool = True) -> np.ndarray:
    """p of ``at_least`` = b draws of B = ``draws`` reaching the observed statistic:
    (b + 1) / (B + 1) (Phipson and Smyth 2010), or b / B when ``plus_one`` is False."""
    b = np.asarray(at_least, dtype=np.float64)
    return (b + 1.0) / (draws + 1.0) if plus_one else b / float(draws)


def _checked_draws(draws: np.ndarray, n_topics: int, name: str) -> np.ndarray:
    out = np.asarray(draws)
    if out.ndim != 2 or out.shape[1] != n_topics or out.shape[0] < 1:
        raise ValueError(f"{name} must be (draws >= 1, {n_topics} topics), not of shape {out.shape}")
    return out


class _SharedSums:
    """sum_j w_bj (x_aj - x_bj) for pairs (a, b) and every draw b as (X W)_a - (X W)_b,
    with a bound on how far that rounds from the pair's own sum."""

    def __init__(self, m: np.ndarray, weights_t: np.ndarray):
        self.weights_t = weights_t  # (topics, B)
        self.weights_single = weights_t.astype(np.float32)  # counts below 2^24: exact
        self.projected = m @ weights_t  # (runs, B)
        # a product's rounding is at most ~n eps sum_j |w_bj x_rj| (Higham, Accuracy and
        # Stability of Numerical Algorithms, 2nd ed., eq. 3.5); twice that, for every draw
        self.rounding = 2.0 * m.shape[1] * _EPS * (np.abs(m) @ np.abs(weights_t)).max(axis=1)

    def sums(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(pairs, B): the pairs' weighted sums from the shared product."""
        return self.projected[a] - self.projected[b]

    def error(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair: a bound on |shared sum - the pair's own sum|, both rounded."""
        return 2.0 * (self.rounding[a] + self.rounding[b])


def randomisation(scores: np.ndarray, permutations: int = 1000, seed: int = 0, *,
                  signs: np.ndarray | None = None, budget: int | None = None, plus_one: bool = True) -> PairTest:
    """Fisher's paired randomisation test of every pair on the mean difference (Fisher,
    The Design of Experiments, 1935, section 21; Smucker, Allan and Carterette, CIKM 2007): under
    the null each topic's difference is as likely negated, so with

        b = #{b : |sum_j s_bj d_j| >= |sum_j d_j|}

    over B sign vectors s_b, the rows of ``signs`` or :func:`random_signs` (B =
    ``permutations``), shared by all pairs, p = (b + 1) / (B + 1) (Phipson and Smyth
    2010), or b / B with ``plus_one=False`` (Smucker et al.'s form). A permuted sum short
    of the observed by at most :data:`TIE_TOLERANCE` x sum |d_j| counts as a tie.
    Statistic: mean(d). Passing all 2^n sign vectors, b / B (``plus_one=False``) is the
    exact permutation p-value (the identity is among them). All-zero differences give
    p = 1 in both forms with no special case (every flip ties, b = B)."""
    m = checked_scores(scores)
    n_runs, n = m.shape
    flips = _checked_draws(random_signs(permutations, n, seed) if signs is None else signs, n, "signs")
    shared = _SharedSums(m, np.ascontiguousarray(flips.T, dtype=np.float64))
    statistic, p = np.empty(n_pairs(n_runs)), np.empty(n_pairs(n_runs))
    for where, a, b in pair_blocks(n_runs, (3 * n + 3 * len(flips)) * 8, budget):
        d = m[a] - m[b]
        observed = d.sum(axis=1)
        band = TIE_TOLERANCE * np.abs(d).sum(axis=1)
        flipped = shared.sums(a, b)
        direct = shared.error(a, b) > band / _MARGIN  # differences small beside the scores
        if direct.any():
            flipped[direct] = d[direct] @ shared.weights_t
        at_least = (np.abs(flipped) >= (np.abs(observed) - band)[:, None]).sum(axis=1)
        statistic[where], p[where] = observed / n, randomised_pvalues(at_least, len(flips), plus_one)
    return PairTest(statistic, p)


def paired_bootstrap(scores: np.ndarray, permutations: int = 1000, seed: int = 0, *,
                     resamples: np.ndarray | None = None, budget: int | None = None,
                     plus_one: bool = True) -> PairTest:
    """Sakai's paired bootstrap test of every pair (Sakai, "Evaluating evaluation metrics
    based on the bootstrap", SIGIR 2006), studentised and two-sided:

        t = mean(d) / (sd(d) / sqrt(n)),   t*_b = (mean(d*_b) - mean(d)) / (sd(d*_b) / sqrt(n)),
        b = #{b : |t*_b| >= |t|},   p = (b + 1) / (B + 1)   (b / B with ``plus_one=False``),

    d*_b the differences of resample b of the topics (rows of ``resamples`` or
    :func:`bootstrap_resamples`, shared by all pairs). Shifting by mean(d) is Sakai's
    null-hypothesis bootstrap (z_i = d_i - mean(d)). With c = d - mean(d), w_b the draw
    counts, s_b = w_b.c = n (mean(d*_b) - mean(d)) and Q_b = w_b.c^2, (n - 1) var(d*_b) =
    Q_b - s_b^2 / n, so |t*_b| >= T (T > 0) is s_b^2 >= n T^2 / (n - 1 + T^2) Q_b: no root or
    division per draw. Q_b is one single-precision product a block (:func:`_single_squares`),
    s_b comes from the runs' shared product (:class:`_SharedSums`, s_b = w_b.d - n mean(d));
    a pair with a draw whose decision their rounding could change is decided again from
    its own c in double precision.

    Zero variances: 0/0 := 0 and x/0 := +-inf, in t and in every t*. So all-zero
    differences give t = 0 and b = B (p = 1); constant non-zero differences (all equal,
    c := 0 exactly) give t = +-inf and b = 0: p = 1 / (B + 1), the smallest there is (0 in
    the count form, as the paired t-test's). A |t*| short of |t| by at
    most :data:`TIE_TOLERANCE` x (|t| + 1) counts as a tie, and a shift within
    :data:`TIE_TOLERANCE` x max |c| of 0 is 0 (rounding, not a difference). Passing all
    n^n index vectors gives the exact bootstrap p-value."""
    m = checked_scores(scores)
    n_runs, n = m.shape
    draws = _checked_draws(bootstrap_resamples(permutations, n, seed) if resamples is None else resamples, n,
                           "resamples")
    shared = _SharedSums(m, np.ascontiguousarray(resample_counts(draws, n).T))  # counts: (topics, B)
    statistic, at_least = np.empty(n_pairs(n_runs)), np.empty(n_pairs(n_runs), dtype=np.int64)
    for where, a, b in pair_blocks(n_runs, (4 * n + 6 * len(draws)) * 8, budget):
        d = m[a] - m[b]
        mean = d.mean(axis=1)
        # all-equal differences are centred to exact zeros, so rounding in their mean
        # cannot pose as variation
        centred = np.where((d == d[:, :1]).all(axis=1)[:, None], 0.0, d - mean[:, None])
        t = studentize(mean, np.sqrt((centred**2).sum(axis=1) / (n - 1) / n))
        threshold = np.abs(t) * (1.0 - TIE_TOLERANCE) - TIE_TOLERANCE  # inf stays inf
        statistic[where] = t
        # t = 0: every |t*| ties (b = B); t = +-inf: none reaches it (b = 0)
        at_least[where] = np.where(threshold <= 0, len(draws), 0)
        open_ = np.flatnonzero((threshold > 0) & np.isfinite(threshold))
        if len(open_):
            counted = _bootstrap_counts(shared, centred[open_], mean[open_], a[open_], b[open_], threshold[open_])
            at_least[where][open_] = counted
    return PairTest(statistic, randomised_pvalues(at_least, len(draws), plus_one))


def randomisation_count(scores: np.ndarray, permutations: int = 1000, seed: int = 0, *,
                        signs: np.ndarray | None = None, budget: int | None = None) -> PairTest:
    """:func:`randomisation` in its count form, p = b / B (Smucker, Allan and Carterette
    2007), from the same sign vectors: the registered test ``randomisation_count``."""
    return randomisation(scores, permutations, seed, signs=signs, budget=budget, plus_one=False)


def paired_bootstrap_count(scores: np.ndarray, permutations: int = 1000, seed: int = 0, *,
                           resamples: np.ndarray | None = None, budget: int | None = None) -> PairTest:
    """:func:`paired_bootstrap` in its count form, p = b / B (Sakai 2006), from the same
    resamples: the registered test ``paired_bootstrap_count``."""
    return paired_bootstrap(scores, permutations, seed, resamples=resamples, budget=budget, plus_one=False)


def _bootstrap_counts(shared: _SharedSums, centred: np.ndarray, mean: np.ndarray, a: np.ndarray, b: np.ndarray,
                      threshold: np.ndarray) -> np.ndarray:
    """#{b : |t*_b| >= threshold} of each pair (0 < threshold < inf), as
    :func:`paired_bootstrap` states it: first from Q_b in single precision
    (:func:`_single_squares`) and s_b from the shared product; a pair with a draw whose
    decision their rounding could change is decided again from its own sums in double
    precision, so the counts are those of the pair's own sums."""
    n = centred.shape[1]
    squares = centred**2
    approximate, relative, absolute = _single_squares(squares, shared.weights_single)
    # a shift within TIE_TOLERANCE x max |c| of 0 is 0; in units of s_b, n times that
    floor = (n * TIE_TOLERANCE * np.abs(centred).max(axis=1))[:, None]
    scale = n / ((n - 1) / threshold**2 + 1.0)  # n T^2 / (n - 1 + T^2), without overflow
    critical = np.sqrt(scale[:, None] * approximate)  # |s_b| >= critical: |t*_b| >= T
    # |Q - Q'| <= r Q + A gives |sqrt(k Q) - sqrt(k Q')| <= r sqrt(k Q) + (1 + r) sqrt(k A)
    error = shared.error(a, b) + 4.0 * _EPS * n * np.abs(mean)  # of |s_b|
    margin = (error + (1.0 + relative) * np.sqrt(scale * absolute))[:, None]
    size = np.abs(shared.sums(a, b) - n * mean[:, None])  # |s_b| = |w_b.d - n mean(d)|
    gap = size - critical
    counted = ((gap >= 0) & (size > floor)).sum(axis=1)
    unsure = ((np.abs(gap) <= margin + (relative + 4.0 * _EPS) * critical)
              | (np.abs(size - floor) <= error[:, None])).any(axis=1)
    if unsure.any():
        own = np.abs(centred[unsure] @ shared.weights_t)
        exact = np.sqrt(scale[unsure, None] * (squares[unsure] @ shared.weights_t))
        counted[unsure] = ((own >= exact) & (own > floor[unsure])).sum(axis=1)
    return counted


def _single_squares(squares: np.ndarray, weights_single: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """(Q, r, A): Q_b = w_b.c^2 of each row of ``squares`` (c^2, float64) by a product in
    single precision (twice as fast), within r Q + A (A per row) of the double product.

    Each row is scaled by a power of two (exact) so its largest term is below 1. Its terms
    are >= 0, so the single-precision sum is within (n + 1) u_32 Q of the exact one
    whatever the order of summation (Higham, Accuracy and Stability of Numerical
    Algorithms, 2nd ed., section 3.1), plus n^2 2^-149 for terms below float32's normal
    range; the double product is within (n + 1) u_64 Q."""
    n = squares.shape[1]
    exponent = np.clip(np.frexp(squares.max(axis=1))[1], -1000, 1000)
    unscale = np.ldexp(1.0, exponent)
    approximate = ((squares / unscale[:, None]).astype(np.float32) @ weights_single).astype(np.float64)
    approximate *= unscale[:, None]
    return approximate, 1.01 * (n + 2) * (2.0**-24 + 2.0**-53), n * n * 2.0**-149 * unscale
