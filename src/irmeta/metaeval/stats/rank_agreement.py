"""Kendall's tau and the AP correlation tau_AP when rankings tie, in the two scenarios
of Urbano and Marrero, "The Treatment of Ties in AP Correlation" (ICTIR 2017), with the
names and argument order of Urbano's R package ``ircor``: ``x`` the reference's scores,
``y`` the other's, higher is better.

* **a, accuracy**: ``x`` is a true ranking, without ties, and ``y`` an observer's, who
  may tie. tau_a = (C - D) / (n(n - 1)/2) (Kendall's tau-a: a pair ``y`` ties counts
  neither way), and tau_AP-a is the expected tau_AP over the orders ``y``'s ties could be
  broken in, uniformly (Urbano and Marrero, eq. 7-8). A tie in ``x`` is refused, as
  ``ircor`` refuses it: use the b variants.
* **b, agreement**: both are observers who may tie. tau_b = (C - D) / sqrt((n0 - n1)(n0 -
  n2)) (Kendall 1945) and tau_AP-b the mean of the two one-sided coefficients, each
  ranking's ties excluded from its own sum (eq. 11).

Without ties each equals the untied coefficient. :func:`tau_b` and :func:`tau_ap_b` are
:func:`~irmeta.metaeval.stats.correlation.kendall_tau` and
:func:`~irmeta.metaeval.stats.correlation.tau_ap_symmetric`, the coefficients every
table computed before, bit for bit. NaN when fewer than two items or a score is NaN.
"""

from __future__ import annotations

import math

import numpy as np

from irmeta.metaeval.stats.correlation import kendall_tau, tau_ap_symmetric

#: The scenarios of tie treatment (the variants' suffixes).
TAU_VARIANTS = ("a", "b")


def _vectors(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be vectors of the same length")
    return x, y


def _undefined(x: np.ndarray, y: np.ndarray) -> bool:
    return len(x) < 2 or bool(np.isnan(x).any() or np.isnan(y).any())


def _refuse_reference_ties(x: np.ndarray, name: str) -> None:
    if len(np.unique(x)) != len(x):
        raise ValueError(f"{name}: x, the reference, ties items; the a variants take a true ranking without ties "
                         f"(as ircor's check_a): use the b variants")


def tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b (``ircor::tau_b``): both rankings may tie. Symmetric."""
    x, y = _vectors(x, y)
    return kendall_tau(x, y)


def tau_a(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-a of ``y`` against the true ranking ``x`` (``ircor::tau_a``):
    (C - D) / (n(n - 1)/2), a pair ``y`` ties counting neither concordant nor discordant,
    so an observer is not credited for the pairs it cannot tell apart. ``x`` must not tie."""
    x, y = _vectors(x, y)
    if _undefined(x, y):
        return math.nan
    _refuse_reference_ties(x, "tau_a")
    upper = np.triu_indices(len(x), 1)
    concordance = int(np.sum(np.sign(x[upper[0]] - x[upper[1]]) * np.sign(y[upper[0]] - y[upper[1]])))
    return concordance / (len(x) * (len(x) - 1) // 2)


def tau_ap_b(x: np.ndarray, y: np.ndarray, higher_is_better: bool = True) -> float:
    """tau_AP-b (``ircor::tauAP_b``): the mean of tau_AP with each ranking as the list
    and the other as the reference, each one's ties left out of its own sum. Symmetric."""
    x, y = _vectors(x, y)
    return tau_ap_symmetric(x, y, higher_is_better)


def tau_ap_a(x: np.ndarray, y: np.ndarray, higher_is_better: bool = True) -> float:
    """tau_AP-a of ``y`` against the true ranking ``x`` (``ircor::tauAP_a``): the
    expected tau_AP of ``y``'s list, its ties broken uniformly at random, against ``x``.

    ``y``'s list has tie groups; an item of a group of t items whose first position is
    p (1-based) sits at each of p..p + t - 1 with chance 1/t. With C(i) the items of the
    groups above i's that ``x`` also ranks above i,

        tau_AP-a = 2 / (n - 1) sum_i [C(i) (1/t) sum_{k=1..t} 1/(p + k - 2)
                                       + (1/(2t)) sum_{k=1..t-1} k / (p + k - 1)] - 1,

    the first term for items below the top group, the second the pairs within the
    group, concordant half the time. Without ties, Yilmaz et al.'s tau_AP. ``x`` must
    not tie."""
    x, y = _vectors(x, y)
    if _undefined(x, y):
        return math.nan
    _refuse_reference_ties(x, "tau_ap_a")
    if not higher_is_better:
        x, y = -x, -y  # negation is exact: the same orders, reversed
    n = len(x)
    strictly_above = y[:, None] > y[None, :]  # [j, i]: j in a group above i's in y
    first = 1 + strictly_above.sum(axis=0)  # p: the group's first position
    size = (y[:, None] == y[None, :]).sum(axis=0)  # t
    agreed = (strictly_above & (x[:, None] > x[None, :])).sum(axis=0)  # C(i)
    groups: dict[tuple[int, int], tuple[float, float]] = {}
    total = []
    for c, p, t in zip(agreed.tolist(), first.tolist(), size.tolist()):
        if (p, t) not in groups:  # the same for every item of a group: summed once
            # positions p..p+t-1 have p-1..p+t-2 items above; position p + k has k of its
            # own group's items above, each agreeing with x half the time
            above = math.fsum(1.0 / (p + k - 2) for k in range(1, t + 1)) / t if p > 1 else 0.0
            within = math.fsum(k / (p + k - 1) for k in range(1, t)) / (2 * t)
            groups[p, t] = above, within
        above, within = groups[p, t]
        # untied, c / (p - 1): tau_ap's own term, so the two agree to the last bit
        total.append((c / (p - 1) if t == 1 else c * above) if p > 1 else 0.0)
        total.append(within)
    return 2.0 * math.fsum(total) / (n - 1) - 1.0
