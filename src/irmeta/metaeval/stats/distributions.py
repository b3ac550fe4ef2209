"""Tails and quantiles of Student's t, the F, the noncentral F and the noncentral t
distributions, the very floats scipy.stats returns, without importing scipy.stats (half
a second in each job that needs one, and about 0.1 ms of argument handling a call, which
a topic set size search makes thousands of).

scipy.stats' continuous distributions evaluate a point inside their support through the
scipy.special function each docstring names (``loc`` 0 and ``scale`` 1 change nothing),
and settle invalid parameters, NaN and the support's ends themselves; these functions do
the same for one point. ``test_distributions`` checks each against scipy.stats for
equality on a grid that includes the ends.
"""

from __future__ import annotations

import math

import numpy as np


def _sf(x: float, valid: bool, low: float, inside) -> float:
    """scipy's ``rv_continuous.sf`` at one point of a support (low, inf): NaN for invalid
    parameters or x, 1 at or below the support, 0 at infinity, else ``inside()``."""
    if not valid or math.isnan(x):
        return math.nan
    if x <= low:
        return 1.0
    if x == math.inf:
        return 0.0
    return float(inside())


def _ppf(q: float, valid: bool, low: float, inside) -> float:
    """scipy's ``rv_continuous.ppf`` at one q of a support (low, inf): NaN for invalid
    parameters or q outside [0, 1], the support's ends at 0 and 1, else ``inside()``."""
    if not valid or not 0 <= q <= 1:
        return math.nan
    if q == 0:
        return float(low)
    if q == 1:
        return math.inf
    return float(inside())


def _positive(*values: float) -> bool:
    """Degrees of freedom as scipy checks them (its default ``_argcheck``): above 0,
    infinity included."""
    return all(v > 0 for v in values)


def t_quantile(q: float, df: float) -> float:
    """``scipy.stats.t.ppf(q, df)``: ``scipy.special.stdtrit(df, q)``."""
    from scipy.special import stdtrit

    return _ppf(q, _positive(df), -math.inf, lambda: stdtrit(df, q))


def f_sf(x: float, dfn: float, dfd: float) -> float:
    """``scipy.stats.f.sf(x, dfn, dfd)``: ``scipy.special.fdtrc(dfn, dfd, x)``."""
    from scipy.special import fdtrc

    return _sf(x, _positive(dfn, dfd), 0.0, lambda: fdtrc(dfn, dfd, x))


def f_quantile(q: float, dfn: float, dfd: float) -> float:
    """``scipy.stats.f.ppf(q, dfn, dfd)``: ``scipy.special.fdtri(dfn, dfd, q)``."""
    from scipy.special import fdtri

    return _ppf(q, _positive(dfn, dfd), 0.0, lambda: fdtri(dfn, dfd, q))


def ncf_sf(x: float, dfn: float, dfd: float, nc: float) -> float:
    """``scipy.stats.ncf.sf(x, dfn, dfd, nc)``: Boost's noncentral F tail, the ufunc
    scipy.stats calls (``scipy.special._ufuncs._ncf_sf``)."""
    from scipy.special import _ufuncs

    return _sf(x, dfn > 0 and dfd > 0 and nc >= 0, 0.0, lambda: _ufuncs._ncf_sf(x, dfn, dfd, nc))


def nct_sf(x: float, df: float, nc: float) -> float:
    """``scipy.stats.nct.sf(x, df, nc)``: Boost's noncentral t tail (``scipy.special.
    _ufuncs._nct_sf``), clipped to [0, 1] as scipy.stats clips it."""
    from scipy.special import _ufuncs

    def inside():
        with np.errstate(over="ignore"):
            return np.clip(_ufuncs._nct_sf(x, df, nc), 0, 1)

    return _sf(x, df > 0 and nc == nc, -math.inf, inside)


def binomial_cdf(k: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """``scipy.stats.binom.cdf(k, n, p)`` for integer arrays k and n >= 0: Boost's
    binomial CDF (``scipy.special._ufuncs._binom_cdf``) inside the support 0 <= k < n,
    clipped to [0, 1]; 0 below it, 1 from n on."""
    from scipy.special import _ufuncs

    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    inside = (k >= 0) & (k < n)
    with np.errstate(all="ignore"):
        tail = np.clip(_ufuncs._binom_cdf(np.where(inside, k, 0), np.where(inside, n, 1), p), 0, 1)
    return np.where(inside, tail, np.where(k >= n, 1.0, 0.0))


def binomial_sf(k: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """``scipy.stats.binom.sf(k, n, p)`` for integer arrays k and n >= 0: Boost's binomial
    tail (``scipy.special._ufuncs._binom_sf``) inside 0 <= k < n, clipped to [0, 1]; 1
    below the support, 0 from n on."""
    from scipy.special import _ufuncs

    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    inside = (k >= 0) & (k < n)
    with np.errstate(all="ignore"):
        tail = np.clip(_ufuncs._binom_sf(np.where(inside, k, 0), np.where(inside, n, 1), p), 0, 1)
    return np.where(inside, tail, np.where(k < 0, 1.0, 0.0))
