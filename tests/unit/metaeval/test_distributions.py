"""irmeta.metaeval.stats.distributions: each function is scipy.stats' own value, to the
last bit, inside the support, at its ends, at NaN and for invalid parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from irmeta.metaeval.stats.distributions import f_quantile, f_sf, ncf_sf, nct_sf, t_quantile

POINTS = (-math.inf, -3.0, -0.5, 0.0, 1e-300, 0.01, 0.5, 1.0, 2.5, 7.0, 40.0, 1e6, math.inf, math.nan)
PROBABILITIES = (-0.1, 0.0, 1e-12, 0.01, 0.025, 0.5, 0.95, 0.975, 1 - 1e-12, 1.0, 1.1, math.nan)
DFS = (-1.0, 0.0, 0.5, 1.0, 3.0, 49.0, 6321.0, 1e9, math.inf)
NONCENTRALITIES = (-2.0, 0.0, 0.3, 4.0, 38.0)


def _same(got: float, expected) -> None:
    expected = float(expected)
    assert type(got) is float
    assert got == expected or (math.isnan(got) and math.isnan(expected)), (got, expected)


def _scipy(function, *args):
    with np.errstate(all="ignore"):
        return function(*args)


@pytest.mark.parametrize("df", DFS)
def test_t_quantile(df):
    for q in PROBABILITIES:
        _same(t_quantile(q, df), _scipy(stats.t.ppf, q, df))


@pytest.mark.parametrize("dfn", DFS)
def test_f_tail_and_quantile(dfn):
    for dfd in DFS:
        for x in POINTS:
            _same(f_sf(x, dfn, dfd), _scipy(stats.f.sf, x, dfn, dfd))
        for q in PROBABILITIES:
            _same(f_quantile(q, dfn, dfd), _scipy(stats.f.ppf, q, dfn, dfd))


def _warned(function, *args) -> tuple[float, list[str]]:
    """``function(*args)`` and the warnings it raised, as text."""
    import warnings

    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        value = function(*args)
    return value, [str(w.message) for w in caught]


@pytest.mark.parametrize("nc", NONCENTRALITIES)
def test_noncentral_tails(nc):
    # Boost's series for the noncentral F does not converge at some points (x = 1e-300,
    # dfn = dfd = 1): scipy.stats then returns NaN with a RuntimeWarning, and so must
    # these functions; the warnings are compared with scipy's, not shown.
    for df in DFS:
        for x in POINTS:
            ours, theirs = _warned(nct_sf, x, df, nc), _warned(stats.nct.sf, x, df, nc)
            _same(ours[0], theirs[0])
            assert ours[1] == theirs[1], (x, df, nc)
            for dfd in (1.0, 30.0, 5000.0):
                ours, theirs = _warned(ncf_sf, x, df, dfd, nc), _warned(stats.ncf.sf, x, df, dfd, nc)
                _same(ours[0], theirs[0])
                assert ours[1] == theirs[1], (x, df, dfd, nc)


def test_a_series_that_does_not_converge_is_nan_with_scipys_warning():
    value, said = _warned(ncf_sf, 1e-300, 1.0, 1.0, 0.3)
    assert math.isnan(value) and len(said) == 1 and "Series did not converge" in said[0]


@pytest.mark.parametrize("p", (0.5, 0.3))
def test_binomial_tails(p):
    from irmeta.metaeval.stats.distributions import binomial_cdf, binomial_sf

    n = np.concatenate([np.arange(0, 120), [999, 1000, 6272, 10**6]])
    k = np.arange(-2, 125)
    kk, nn = np.meshgrid(k, n)
    kk = np.concatenate([kk.ravel(), [500, 3136, 3135, 499_999, 500_000]])
    nn = np.concatenate([nn.ravel(), [1000, 6272, 6272, 10**6, 10**6]])
    for ours, theirs in ((binomial_cdf, stats.binom.cdf), (binomial_sf, stats.binom.sf)):
        got, expected = ours(kk, nn, p), theirs(kk, nn, p)
        assert got.dtype == np.float64
        assert np.array_equal(got, expected), np.flatnonzero(got != expected)[:5]
