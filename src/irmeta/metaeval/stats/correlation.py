"""Rank correlation between two system rankings: Kendall's tau-b (scipy's
``kendalltau``, as the paper's authors used), Spearman's rho, Yilmaz, Aslam and Robertson's tau_AP,
Webber, Moffat and Zobel's rank-biased overlap, and the percentile interval of a
bootstrapped coefficient.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from irmeta.metaeval.stats.blocks import run_pairs


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
    iu = run_pairs(x.shape[1])
    dx = np.sign(x[:, iu[0]] - x[:, iu[1]])
    dy = np.sign(y[:, iu[0]] - y[:, iu[1]])
    concordance = (dx * dy).sum(axis=1)
    untied = np.count_nonzero(dx, axis=1).astype(np.float64) * np.count_nonzero(dy, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, concordance / np.sqrt(untied), np.nan)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x`` ascending, ties given the mean of the ranks they span
    (``scipy.stats.rankdata``'s 'average'; halves, so exact in float64)."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    new = np.concatenate([[True], ordered[1:] != ordered[:-1]]) if len(x) else np.zeros(0, dtype=bool)
    first = np.flatnonzero(new)
    last = np.concatenate([first[1:], [len(x)]])  # one past each tie group's end
    group = np.cumsum(new) - 1
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = ((first + 1 + last) / 2.0)[group]  # mean of first + 1 .. last
    return ranks


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho, Pearson's correlation of the average ranks, computed as
    ``scipy.stats.spearmanr(x, y).statistic`` computes it (``np.corrcoef`` of the ranked
    columns), so the same to the last bit, without scipy.stats' import; NaN when either
    vector is constant or shorter than 2."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be vectors of the same length")
    if len(x) < 2 or (x[0] == x).all() or (y[0] == y).all():
        return math.nan
    ranked = np.column_stack([average_ranks(x), average_ranks(y)])
    return float(np.corrcoef(ranked, rowvar=False)[1, 0])


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


class PairOrder(NamedTuple):
    """Every ordered pair (i, j) of each row of a (trials, N) array y: ``above[t, i, j]``
    is y_i > y_j, ``below`` its transpose (y_i < y_j), ``untied`` the pairs y orders."""

    above: np.ndarray
    below: np.ndarray
    untied: np.ndarray


def pair_order(y: np.ndarray) -> PairOrder:
    """The reference side of :func:`batch_kendall_tau_b_against`, computed once and
    compared with many rankings (booleans: N^2 bytes a row)."""
    above = y[:, :, None] > y[:, None, :]
    return PairOrder(above, np.ascontiguousarray(above.transpose(0, 2, 1)), np.count_nonzero(above, axis=(1, 2)))


def batch_kendall_tau_b_against(x: np.ndarray, reference: PairOrder) -> np.ndarray:
    """:func:`batch_kendall_tau_b` of each row of ``x`` against the row of ``y`` whose
    :func:`pair_order` is ``reference``: the same bits, without listing pairs.

    Each pair untied in x appears once among the ordered pairs with x_i > x_j: C counts
    those y also has above, D those y has below, and their number is n0 - n1 (n0 - n2,
    likewise for y; Kendall 1945). Boolean comparisons and counts, no gathers: ~3x faster
    than listing the N(N - 1)/2 pairs for N = 129.
    """
    x_above = x[:, :, None] > x[:, None, :]
    # one count per trial: count_nonzero over a whole array is a popcount, over an axis a
    # sum of integers (~3x slower at N = 500)
    both = np.empty((len(x), 3), dtype=np.int64)
    for row, mine, above, below in zip(both, x_above, reference.above, reference.below):
        row[:] = np.count_nonzero(mine & above), np.count_nonzero(mine & below), np.count_nonzero(mine)
    concordance = (both[:, 0] - both[:, 1]).astype(np.float64)
    untied = both[:, 2].astype(np.float64) * reference.untied
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, concordance / np.sqrt(untied), np.nan)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval (Efron and Tibshirani 1993, ch. 13): the
    (1 - level)/2 and (1 + level)/2 quantiles of the samples, by numpy's default
    ("linear", Hyndman and Fan's type 7) definition. Samples where the statistic is
    undefined (NaN) are left out; (NaN, NaN) when none is defined."""
    kept = np.asarray(samples, dtype=np.float64)
    kept = kept[~np.isnan(kept)]
    if not len(kept):
        return math.nan, math.nan
    percent = 100 * level  # 95.0 exactly, so the tails are 0.025 and 0.975, not 1 - 0.95 rounded
    low, high = np.quantile(kept, [(100 - percent) / 200, (100 + percent) / 200])
    return float(low), float(high)


def rbo_ext(a: Sequence, b: Sequence, p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two rankings without ties, best first, of any
    lengths s <= l (Webber, Moffat and Zobel, TOIS 2010, eq. 32):

        RBO_ext = (1 - p)/p [sum_{d=1..l} (X_d / d) p^d + sum_{d=s+1..l} X_s (d - s) / (s d) p^d]
                  + [(X_l - X_s) / l + X_s / s] p^l,

    X_d the number of items in both top-d prefixes (for d > s, the whole shorter ranking's
    items in the longer one's top d); with s = l, (X_k / k) p^k + (1 - p)/p sum_d (X_d / d) p^d.
    A shorter ranking is extrapolated, not the longer one cut: the items it lacks are
    guessed to agree as its seen part did. Computed by
    :func:`~irmeta.metaeval.stats.overlap.rbo` (ties ``w``, none here): 1 minus the
    shortfall, so identical rankings give exactly 1, in [0, 1] always. NaN when either is empty.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"rbo persistence p must be in (0, 1), not {p}")
    if len(set(a)) != len(a) or len(set(b)) != len(b):
        raise ValueError("rbo_ext needs rankings without repeated items")
    if not len(a) or not len(b):
        return math.nan
    from irmeta.metaeval.stats.overlap import rbo  # here: most jobs importing this module need no RBO

    return rbo(list(a), list(b), p, ties="w")["ext"]


def ranking(scores: np.ndarray, names: Sequence[str] | None = None, higher_is_better: bool = True) -> list:
    """Items best first by score; ties broken by name, ascending (by index without
    names): the same rule for every ranking, so identical scores give identical rankings."""
    scores = np.asarray(scores, dtype=np.float64)
    keys = np.asarray(range(len(scores)) if names is None else list(names))
    order = np.lexsort((keys, -scores if higher_is_better else scores))
    return keys[order].tolist()


def rank_biased_overlap(x: np.ndarray, y: np.ndarray, p: float = 0.9, higher_is_better: bool = True,
                        names: Sequence[str] | None = None) -> float:
    """:func:`rbo_ext` of the rankings of the same items by ``x`` and by ``y`` (each item
    ranked in both: k = N). Webber et al. assume no ties; here ties in a ranking are broken
    by ``names`` (ascending; item index without names), a convention, the same in both
    rankings (Corsi and Urbano, SIGIR 2024, review tie-aware variants). NaN when a score
    is NaN or there are no items."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be vectors of the same length")
    if names is not None and len(names) != len(x):
        raise ValueError("names must name every item")
    if not len(x) or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    return rbo_ext(ranking(x, names, higher_is_better), ranking(y, names, higher_is_better), p)
