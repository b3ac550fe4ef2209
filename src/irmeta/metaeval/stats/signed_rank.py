"""Wilcoxon's signed-rank test over every run pair of a (runs, topics) matrix, equal to
``scipy.stats.wilcoxon`` with its defaults, pair by pair.

scipy ranks each pair's |d| with a general-purpose ``rankdata`` (an argsort and several
temporaries a row); at 124,750 pairs x 500 topics that was 8 s a matrix. Here the normal
approximation's sums come from one in-place sort a block: |d| and the sign of d packed
into one integer key, since the bits of a non-negative double order as the double does.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from irmeta.metaeval.stats.pair_differences import PairTest, checked_scores, n_pairs, pair_blocks


def wilcoxon_groups(d: np.ndarray) -> dict[str, np.ndarray]:
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


def signed_rank_sums(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R+, n', sum of t^3 - t) of each row: R+ the sum of the average ranks of |d| over
    the positive d, zeros dropped (Wilcoxon's 'wilcox' rule), n' the non-zero count, and
    the tie term over the groups of equal non-zero |d| (t members each).

    Sorting the key 2 bits(|d|) + [d > 0] lists each row by |d| (zeros first), so group
    boundaries are where bits(|d|) changes; an element at 0-based sorted position k in a
    group spanning [f, l] has average rank (f + l) / 2 + 1 - z, z the zeros. Halves and
    integers throughout: the sums are exact, whatever the order of addition."""
    rows, n = d.shape
    key = np.abs(d).view(np.uint64) << np.uint64(1)
    key |= d > 0
    key.sort(axis=1)
    positive = (key & np.uint64(1)).astype(np.float64)
    key >>= np.uint64(1)
    starts = np.empty((rows, n), dtype=bool)
    starts[:, 0] = True
    np.not_equal(key[:, 1:], key[:, :-1], out=starts[:, 1:])
    del key
    position = np.arange(n, dtype=np.int32)
    first = np.where(starts, position, np.int32(0))
    np.maximum.accumulate(first, axis=1, out=first)
    last = np.full((rows, n), n - 1, dtype=np.int32)  # a group ends where the next starts
    last[:, :-1] = np.where(starts[:, 1:], position[:-1], np.int32(n))
    np.minimum.accumulate(last[:, ::-1], axis=1, out=last[:, ::-1])
    zeros = n - np.count_nonzero(d, axis=1)
    twice_ranks = np.einsum("ij,ij->i", positive, (first + last).astype(np.float64))
    r_plus = (twice_ranks + (2.0 - 2.0 * zeros) * positive.sum(axis=1)) / 2.0
    size = (last - first + 1).astype(np.int64)
    # each of a group's t members adds t^2 - 1, t(t^2 - 1) in all; the zeros' group is not a tie
    ties = (size * size - 1).sum(axis=1) - zeros * (zeros * zeros - 1)
    return r_plus, (n - zeros).astype(np.float64), ties.astype(np.float64)


def wilcoxon_asymptotic(d: np.ndarray) -> PairTest:
    """scipy's method 'asymptotic' (no continuity correction, its default): with
    n' non-zero differences, z = (R+ - n'(n' + 1)/4) / se,
    se = sqrt((n'(n' + 1)(2n' + 1) - sum(t^3 - t) / 2) / 24), p = 2 Phi(-|z|); statistic
    min(R+, R-), R- = n'(n' + 1)/2 - R+. scipy's operations in scipy's order, so p is
    scipy's to the last bit. Rows need a non-zero difference."""
    from scipy.special import ndtr  # scipy.stats costs a second to import

    r_plus, count, ties = signed_rank_sums(d)
    mean = count * (count + 1.0) * 0.25
    se = np.sqrt((count * (count + 1.0) * (2.0 * count + 1.0) - ties / 2) / 24)
    z = (r_plus - mean) / se
    return PairTest(np.minimum(r_plus, count * (count + 1.0) / 2.0 - r_plus), 2 * ndtr(-np.abs(z)))


def wilcoxon_enumerated(d: np.ndarray) -> PairTest:
    """What scipy's wilcoxon does for n <= 13 with zeros or ties: ``permutation_test`` on
    R+ over all 2^n sign flips, p = min(1, 2 min(#{R+* <= R+ + g}, #{R+* >= R+ - g}) / 2^n)
    with g = 100 eps R+. scipy evaluates R+ once per flip (seconds a pair); here R+* for
    every flip is one product of the midranks with the (n, 2^n) matrix of 0/1 patterns,
    exact as the ranks are halves. Zero differences have rank 0: their flips change nothing."""
    n = d.shape[1]
    r_plus, r_minus, less, greater = enumerated_counts(d)
    return PairTest(np.minimum(r_plus, r_minus), np.minimum(2.0 * np.minimum(less, greater) / 2**n, 1.0))


def enumerated_counts(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(R+, R-, #{R+* <= R+ + g}, #{R+* >= R+ - g}) of each row over all 2^n sign flips,
    g = 100 eps R+, as :func:`wilcoxon_enumerated` counts them (its one-tailed form,
    scipy's ``alternative='greater'``, is the last over 2^n)."""
    from scipy import stats  # here, not at the top: it adds a second to every job's start

    n = d.shape[1]
    ranks = np.nan_to_num(stats.rankdata(np.where(d == 0, np.nan, np.abs(d)), axis=1, nan_policy="omit"))
    r_plus, r_minus = np.where(d > 0, ranks, 0.0).sum(axis=1), np.where(d < 0, ranks, 0.0).sum(axis=1)
    patterns = (np.arange(2**n)[None, :] >> np.arange(n)[:, None]) & 1  # (n, 2^n): every flip
    null = ranks @ patterns.astype(np.float64)
    slack = (np.finfo(np.float64).eps * 100 * np.abs(r_plus))[:, None]
    less = (null <= r_plus[:, None] + slack).sum(axis=1)
    greater = (null >= r_plus[:, None] - slack).sum(axis=1)
    return r_plus, r_minus, less, greater


@lru_cache(maxsize=64)
def _exact_tails(n: int) -> tuple[np.ndarray, np.ndarray]:
    """For every k, scipy's ``WilcoxonDistribution(n).sf(k)`` and ``.cdf(k)`` (k from 0 to
    n(n + 1)/2): the null distribution of R+ built as scipy builds it (each rank halves
    the probabilities and adds them shifted), each tail summed over the same slice scipy
    sums (below the mean: the tail itself; above: 1 less the other side), so each value
    is scipy's to the last bit."""
    pmf = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        previous = pmf
        pmf = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        pmf[:len(previous)] = previous * 0.5
        pmf[-len(previous):] += previous * 0.5
    mean = n * (n + 1) / 4
    ks = range(len(pmf))
    sf = np.array([pmf[k:].sum() if k <= mean else 1 - pmf[:k].sum() for k in ks])
    cdf = np.array([pmf[:k + 1].sum() if k <= mean else 1 - pmf[k + 1:].sum() for k in ks])
    return sf, cdf


def wilcoxon_exact(d: np.ndarray) -> PairTest:
    """scipy's method 'exact' (n <= 50, no zeros, no ties): R+ an integer,
    p = min(1, 2 min(P(R+ >= r), P(R+ <= r))) under R+'s exact null distribution
    (:func:`_exact_tails`), statistic min(R+, R-)."""
    r_plus, _, _ = signed_rank_sums(d)
    n = d.shape[1]
    sf, cdf = _exact_tails(n)
    k = r_plus.astype(np.int64)  # integral: the ranks of distinct |d| are 1..n
    p = np.clip(2 * np.minimum(sf[k], cdf[k]), 0, 1)
    return PairTest(np.minimum(r_plus, n * (n + 1) / 2 - r_plus), p)


_BY_METHOD = {"asymptotic": wilcoxon_asymptotic, "exact": wilcoxon_exact, "enumerate": wilcoxon_enumerated}


def wilcoxon(scores: np.ndarray, budget: int | None = None) -> PairTest:
    """Two-sided Wilcoxon signed-rank test of every pair (Wilcoxon 1945): zero differences
    dropped ('wilcox'), method 'auto', the normal approximation without continuity
    correction where scipy uses it; statistic min(R+, R-). Equal to
    ``scipy.stats.wilcoxon(x_a, x_b)``, pairs grouped by the method scipy picks for each
    pair alone (:func:`wilcoxon_groups`). All-zero differences: statistic 0, p = 1
    (scipy: NaN)."""
    m = checked_scores(scores)
    n_runs, n = m.shape
    statistic, p = np.zeros(n_pairs(n_runs)), np.ones(n_pairs(n_runs))
    # the sort's key and ~6 (pairs, topics) temporaries; enumeration holds (pairs, 2^n)
    per_pair = 8 * (8 * n + (3 * 2**n if n <= 13 else 0))
    for where, a, b in pair_blocks(n_runs, per_pair, budget):
        d = m[a] - m[b]
        positions = np.arange(where.start, where.stop)
        for method, rows in wilcoxon_groups(d).items():
            if rows.any():
                statistic[positions[rows]], p[positions[rows]] = _BY_METHOD[method](d[rows])
    return PairTest(statistic, p)
