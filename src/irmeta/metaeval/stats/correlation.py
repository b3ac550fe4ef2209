"""Rank correlation between two system rankings: Kendall's tau-b (scipy's
``kendalltau``, as the paper's authors used) and Yilmaz, Aslam and Robertson's tau_AP.
"""

from __future__ import annotations

import math

import numpy as np


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
