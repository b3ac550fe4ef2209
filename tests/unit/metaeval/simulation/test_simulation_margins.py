"""Margins of simulated collections (irmeta.metaeval.simulation.margins): fitted families
recover known distributions, AIC selects, supports are found, reshaped margins reach their
target means, and bad input is refused with the run named."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from irmeta.metaeval.simulation.margins import (
    CONTINUOUS_FAMILIES,
    DISCRETE_FAMILIES,
    DegenerateScores,
    MarginStack,
    Support,
    UnreachableMean,
    candidate_margins,
    fit_margin,
    plug_in_bandwidth,
    support_from_kind,
    support_of_measure,
)


def _beta_draws(n: int, a: float = 2.0, b: float = 5.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).beta(a, b, n)


def _p10_draws(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).binomial(10, np.random.default_rng(seed + 1).beta(2, 3, n)) / 10


def test_a_margin_fitted_to_beta_draws_recovers_the_beta():
    draws = _beta_draws(1000)
    margin = fit_margin(draws, Support.continuous(), run="b")
    assert abs(margin.mean - 2 / 7) < 0.01
    fitted = candidate_margins(draws, Support.continuous())["beta"]
    shapes = dict(fitted.params)
    assert shapes["shape1"] == pytest.approx(2.0, rel=0.15) and shapes["shape2"] == pytest.approx(5.0, rel=0.15)
    assert abs(fitted.mean - 2 / 7) < 0.01


def test_the_selected_margin_is_the_candidate_of_lowest_aic():
    for draws, support in ((_beta_draws(200, 0.6, 3.0, seed=3), Support.continuous()),
                           (_p10_draws(200, seed=4), Support.equispaced(10))):
        candidates = candidate_margins(draws, support)
        assert set(candidates) == set(DISCRETE_FAMILIES if support.discrete else CONTINUOUS_FAMILIES)
        best = min(candidates.values(), key=lambda m: m.aic)
        chosen = fit_margin(draws, support)
        assert chosen.family == best.family and chosen.aic == pytest.approx(best.aic)
        for m in candidates.values():
            assert m.aic == pytest.approx(2 * m.df - 2 * m.loglik)


@pytest.mark.parametrize("family", CONTINUOUS_FAMILIES)
def test_continuous_margins_are_distributions_on_the_measure_scale(family):
    upper = 1.5  # a range [0, 1 + alpha], as P_rareness's
    draws = _beta_draws(150, 1.5, 3.0, seed=7) * upper
    margin = fit_margin(draws, Support.continuous(upper), families=[family])
    assert margin.family == family
    x = np.linspace(0, upper, 20001)
    density = margin.pdf(x)
    assert np.all(density >= 0)
    assert np.trapezoid(density, x) == pytest.approx(1.0, abs=2e-3)
    u = np.linspace(0, 1, 1001)
    q = margin.ppf(u)
    assert np.all(np.diff(q) >= 0) and q[0] >= 0 and q[-1] <= upper
    assert margin.cdf(q[1:-1]) == pytest.approx(u[1:-1], abs=2e-3)
    assert margin.cdf(-1.0) == 0 and margin.cdf(upper + 1) == 1
    # the mean is the draws' expectation, and the integral of x f(x)
    draws_back = margin.ppf(np.random.default_rng(1).random(400_000))
    assert draws_back.mean() == pytest.approx(margin.mean, abs=4 * draws_back.std() / math.sqrt(400_000))
    assert np.trapezoid(x * density, x) == pytest.approx(margin.mean, abs=5e-3)


def test_the_truncated_normal_fit_is_the_maximum_likelihood():
    draws = np.clip(np.random.default_rng(5).normal(0.3, 0.2, 300), 0, 1)
    margin = fit_margin(draws, Support.continuous(), families=["norm"])
    mu, sigma = (v for _, v in margin.params)

    def loglik(m: float, s: float) -> float:
        mass = special.ndtr((1 - m) / s) - special.ndtr(-m / s)
        return float(np.sum(-0.5 * ((draws - m) / s) ** 2 - np.log(s * math.sqrt(2 * math.pi) * mass)))

    assert margin.loglik == pytest.approx(loglik(mu, sigma))
    for dm, ds in ((1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)):
        assert loglik(mu + dm, sigma + ds) < margin.loglik


def test_the_plug_in_bandwidth_of_normal_data_is_near_the_normal_reference():
    x = np.random.default_rng(2).normal(0, 1, 2000)
    reference = (4 / (3 * len(x))) ** 0.2 * x.std(ddof=1)
    assert plug_in_bandwidth(x) == pytest.approx(reference, rel=0.15)


def test_kernel_degrees_of_freedom_are_the_smoothers_trace():
    draws = _beta_draws(100, seed=9)
    nks = candidate_margins(draws, Support.continuous())["nks"]
    h = dict(nks.params)["bandwidth"]
    d = (draws[:, None] - draws[None, :]) / h
    fhat = np.exp(-0.5 * d * d).sum(axis=1) / (len(draws) * h * math.sqrt(2 * math.pi))
    assert nks.df == pytest.approx(np.mean(1 / (h * math.sqrt(2 * math.pi)) / fhat))
    assert 2 < nks.df < len(draws)


def test_grid_supports_are_found_from_the_measure_and_from_the_data():
    p10 = _p10_draws(50)
    support = support_of_measure("P@10", p10)
    assert support.grid == pytest.approx(tuple(np.arange(11) / 10))
    assert support_from_kind("discrete", p10).grid == pytest.approx(support.grid)
    assert support_from_kind("discrete:10").grid == pytest.approx(support.grid)
    assert support_from_kind("discrete", np.array([0, 0.25, 0.5, 1.0])).grid == pytest.approx((0, .25, .5, .75, 1))
    assert not support_of_measure("AP@1000").discrete and not support_from_kind("continuous").discrete
    rr = support_of_measure("RR@5")
    assert rr.grid == pytest.approx((0, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1))
    assert support_of_measure("Success@10").grid == (0.0, 1.0)
    with pytest.raises(ValueError, match="not on the measure's grid"):
        support_of_measure("P@10", np.array([0.1, 0.35]))
    with pytest.raises(ValueError, match="no grid"):
        support_from_kind("discrete", np.array([0.1, 1 / math.pi]), max_steps=50)
    with pytest.raises(ValueError, match="expected continuous"):
        support_from_kind("ordinal")


def test_discrete_margins_live_on_the_grid():
    draws = _p10_draws(300, seed=11)
    support = Support.equispaced(10)
    for family in DISCRETE_FAMILIES:
        margin = fit_margin(draws, support, families=[family])
        grid = np.arange(11) / 10
        probs = margin.pdf(grid)
        assert probs.sum() == pytest.approx(1.0) and np.all(probs >= 0)
        assert margin.mean == pytest.approx(float(grid @ probs))
        values = margin.ppf(np.random.default_rng(0).random(200_000))
        assert np.all(np.isin(np.round(values * 10), np.arange(11)))
        assert values.mean() == pytest.approx(margin.mean, abs=4 * values.std() / math.sqrt(200_000))
        assert margin.pdf(0.35) == 0
    assert abs(fit_margin(draws, support).mean - draws.mean()) < 0.02


def test_the_discrete_kernel_bandwidth_minimises_least_squares_cross_validation():
    draws = _p10_draws(120, seed=12)
    margin = fit_margin(draws, Support.equispaced(10), families=["dks"])
    lam = dict(margin.params)["bandwidth"]
    counts = np.bincount(np.round(draws * 10).astype(int), minlength=11).astype(float)
    n, levels = len(draws), np.arange(11)

    def cv(t: float) -> float:
        dist = np.abs(levels[:, None] - levels[None, :])
        kern = np.where(dist == 0, 1 - t, 0.5 * (1 - t) * t ** dist)
        f = kern @ counts / n
        loo = (kern @ counts - (1 - t)) / (n - 1)
        return float((f * f).sum() - 2 / n * (counts * loo).sum())

    assert all(cv(lam) <= cv(t) + 1e-12 for t in np.linspace(0, 0.99, 397))


@pytest.mark.parametrize("delta", [0.05, -0.05, 0.2])
def test_shifted_margins_reach_mean_plus_delta(delta):
    for draws, support in ((_beta_draws(80, seed=13), Support.continuous()),
                           (_p10_draws(80, seed=14), Support.equispaced(10))):
        margin = fit_margin(draws, support, run="r")
        moved = margin.shifted(delta)
        assert moved.mean == pytest.approx(margin.mean + delta, abs=1e-6)
        assert (moved.shape[0] > 1) == (delta > 0) and (moved.shape[1] > 1) == (delta < 0)
        values = moved.ppf(np.random.default_rng(3).random(300_000))
        assert values.mean() == pytest.approx(margin.mean + delta, abs=4 * values.std() / math.sqrt(300_000))
        assert values.min() >= 0 and values.max() <= support.upper
        # the reshaped distribution function is B(F): stochastically larger when moved up
        x = np.linspace(0.05, 0.95, 19)
        assert np.all((moved.cdf(x) <= margin.cdf(x) + 1e-12) if delta > 0 else (moved.cdf(x) >= margin.cdf(x) - 1e-12))
    assert margin.shifted(0.0) is margin


def test_a_shifted_continuous_density_is_the_reshaped_one():
    margin = fit_margin(_beta_draws(100, seed=15), Support.continuous())
    moved = margin.shifted(0.1)
    x = np.linspace(0, 1, 20001)
    assert np.trapezoid(moved.pdf(x), x) == pytest.approx(1.0, abs=2e-3)
    assert np.trapezoid(x * moved.pdf(x), x) == pytest.approx(moved.mean, abs=2e-3)


def test_refusals_name_the_run():
    support = Support.continuous()
    with pytest.raises(DegenerateScores, match="run7.*same score"):
        fit_margin(np.full(50, 0.3), support, run="run7")
    assert issubclass(DegenerateScores, ValueError)
    with pytest.raises(DegenerateScores, match="run8"):
        fit_margin(np.full(10, 0.2), Support.equispaced(10), run="run8")
    with pytest.raises(ValueError, match="run9: score 1.2 lies outside the measure's range"):
        fit_margin(np.array([0.2, 1.2, 0.4]), support, run="run9")
    with pytest.raises(ValueError, match="NaN"):
        fit_margin(np.array([0.2, np.nan, 0.4]), support, run="r")
    with pytest.raises(ValueError, match="unknown"):
        fit_margin(_beta_draws(20), support, families=["bbinom"])
    margin = fit_margin(_beta_draws(50), support, run="run10")
    with pytest.raises(UnreachableMean, match="run10.*cannot be reshaped to mean 1.1"):
        margin.shifted(1.1 - margin.mean)
    with pytest.raises(UnreachableMean, match="run10"):
        margin.shifted(-margin.mean - 0.01)
    assert issubclass(UnreachableMean, ValueError) and margin.can_reach(0.9) and not margin.can_reach(1.0)
    with pytest.raises(ValueError, match="positive"):
        Support(upper=0.0)


def test_a_stack_passes_each_value_through_its_own_margin():
    rng = np.random.default_rng(4)
    for support, draws in ((Support.continuous(), [_beta_draws(60, 1 + i, 3, seed=i) for i in range(4)]),
                           (Support.equispaced(10), [_p10_draws(60, seed=20 + i) for i in range(4)])):
        margins = [fit_margin(d, support) for d in draws]
        stack = MarginStack.of(margins)
        u = rng.random((500, 7))
        which = rng.integers(0, 4, (500, 7))
        got = stack.ppf(u, which)
        for i, m in enumerate(margins):
            assert np.array_equal(got[which == i], m.ppf(u[which == i]))
