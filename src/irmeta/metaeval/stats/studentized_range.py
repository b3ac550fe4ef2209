"""The studentized range distribution's CDF and quantile without scipy.stats, whose import
(half a second) and quantile (a third of a second: an adaptive double integral inside a
root search) each job needing a Tukey HSD critical value paid again.

The CDF is the double integral scipy.stats.studentized_range evaluates (Lund and Lund,
1983, eq. 2): with S = sqrt(chi2_nu / nu) of density g and W the CDF of the range of k
standard normals,

    F(q; k, nu) = integral_0^inf g(s) W(q s) ds,
    W(w) = k integral phi(z) [Phi(z) - Phi(z - w)]^(k - 1) dz,

and, as scipy does, F = W(q) from nu = 100,000 on. Here both integrals are fixed
composite Gauss-Legendre rules over the ranges holding all but 1e-18 of the mass: z in
[-8.5, 8.5], s within 13 of S's standard deviations of its mode; the differences of Phi
taken between upper tails where both are near 1. The quantile is Newton's method on F
(its derivative from the same nodes), started from the range's own quantile. Tested
against scipy.stats to a relative 1e-10 in the quantile (scipy finds its own to
brentq's 1e-14 on a CDF integrated to 1e-11).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

ASYMPTOTIC_DF = 100_000  # scipy's switch to the infinite-df form
_Z_PANELS, _S_PANELS, _NODES = 34, 13, 16
_RANGE_TOP = 12.0  # W(w) rises below it (1 - W(12): 2e-13 at k = 129, 1e-9 at k = 10^4)
_Z_BOUND = 8.5  # phi(8.5) ~ 2e-16: what lies beyond adds below 1e-17
_S_SDS = 13.0


@lru_cache(maxsize=1)
def _legendre() -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(_NODES)


def _composite(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of a Gauss-Legendre rule on each panel between ``edges``."""
    x, w = _legendre()
    half = np.diff(edges)[:, None] / 2
    nodes = (edges[:-1, None] + half) + half * x[None, :]
    return nodes.reshape(-1), (half * w[None, :]).reshape(-1)


@lru_cache(maxsize=1)
def _z_rule() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from scipy.special import ndtr

    z, weight = _composite(np.linspace(-_Z_BOUND, _Z_BOUND, _Z_PANELS + 1))
    return z, weight * np.exp(-z * z / 2) / math.sqrt(2 * math.pi), ndtr(z), ndtr(-z)


def _range_cdf_and_density(w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """W(w) and W'(w) for each w (the range of k standard normals)."""
    from scipy.special import ndtr

    z, weight, below, above = _z_rule()
    shifted = z[None, :] - w[:, None]
    # Phi(z) - Phi(z - w): as the difference of upper tails where z - w/2 > 0 (both near 1)
    tail = z[None, :] - w[:, None] / 2 > 0
    direct = below[None, :] - ndtr(shifted)
    complement = ndtr(-shifted) - above[None, :]
    inside = np.clip(np.where(tail, complement, direct), 0.0, 1.0)
    power = inside ** (k - 2)
    cdf = k * (power * inside) @ weight
    density = k * (k - 1) * (power * np.exp(-shifted * shifted / 2) / math.sqrt(2 * math.pi)) @ weight
    return cdf, density


def _s_rule(df: float, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights (density included) for S = sqrt(chi2_df / df): panels over S's
    mass, and over where W(q s) rises when that is narrower than half of it (few degrees
    of freedom, a large q)."""
    from scipy.special import gammaln

    mode = math.sqrt((df - 1) / df) if df > 1 else 0.0
    spread = _S_SDS / math.sqrt(2 * df)
    lo, hi = max(mode - spread, 0.0), mode + spread
    edges = np.linspace(lo, hi, _S_PANELS + 1)
    rises = min(_RANGE_TOP / q, hi)
    if rises - lo < (hi - lo) / 2:
        edges = np.union1d(edges, np.linspace(lo, rises, _S_PANELS + 1))
    s, weight = _composite(edges)
    log_density = (df / 2 * math.log(df) - gammaln(df / 2) - (df / 2 - 1) * math.log(2)
                   + (df - 1) * np.log(s) - df * s * s / 2)
    return s, weight * np.exp(log_density)


def _cdf_and_density(q: float, k: int, df: float) -> tuple[float, float]:
    if df >= ASYMPTOTIC_DF:
        cdf, density = _range_cdf_and_density(np.array([q]), k)
        return float(cdf[0]), float(density[0])
    s, weight = _s_rule(df, q)
    cdf, density = _range_cdf_and_density(q * s, k)
    return float(cdf @ weight), float((density * s) @ weight)


def studentized_range_cdf(q: float, k: int, df: float) -> float:
    """P(Q <= q) for the studentized range of ``k`` means on ``df`` degrees of freedom."""
    if q <= 0:
        return 0.0
    return min(max(_cdf_and_density(q, k, df)[0], 0.0), 1.0)


def studentized_range_quantile(p: float, k: int, df: float) -> float:
    """The q with P(Q <= q) = ``p`` (``scipy.stats.studentized_range.ppf(p, k, df)``)."""
    if k < 2 or df < 1 or not 0.5 <= p < 1:  # df >= 1: S's density is finite at 0
        raise ValueError(f"need k >= 2, df >= 1 and 1/2 <= p < 1, not k={k}, df={df}, p={p}")
    q = _range_quantile(p, k)
    for _ in range(100):
        cdf, density = _cdf_and_density(q, k, df)
        step = (cdf - p) / density
        q = max(q - step, q / 2)  # the CDF is concave past its mode; far below it, halve
        if abs(step) <= 1e-14 * q + 1e-15 / density:  # the CDF's own rounding, in q
            return q
    raise ArithmeticError(f"studentized range quantile did not converge (p={p}, k={k}, df={df})")


def _range_quantile(p: float, k: int) -> float:
    """The quantile of the range itself (df infinite), below the studentized range's for
    any df, where the CDF is concave for p of 1/2 and above, so Newton's steps from it
    approach from below: found on a grid, then refined by Newton's method."""
    grid = np.linspace(0.05, 12.0, 240)
    cdf, _ = _range_cdf_and_density(grid, k)
    q = float(grid[max(int(np.searchsorted(cdf, p)) - 1, 0)])
    for _ in range(100):
        value, density = _range_cdf_and_density(np.array([q]), k)
        step = (float(value[0]) - p) / float(density[0])
        q = max(q - step, q / 2)
        if abs(step) <= 1e-14 * q:
            break
    return q
