"""Copulas of simulated collections (irmeta.metaeval.simulation.copulas): pseudo-observations
with random tie breaking, AIC selection over pyvinecopulib's parametric families with
rotations (Tawn included), vines, and draws that are the same for the same seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from irmeta.metaeval.simulation.copulas import (
    PAIR_FAMILIES,
    PairCopula,
    fit_pair_copula,
    fit_pair_copulas,
    fit_vine,
    pseudo_observations,
)


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    n = len(x)
    return float((sx * sy).sum() / (n * (n - 1)))


def test_pseudo_observations_are_ranks_over_n_plus_one_with_ties_broken_from_the_seed():
    m = np.array([[0.1, 5], [0.3, 5], [0.1, 2], [0.2, 5], [0.1, 1]], dtype=float)
    u = pseudo_observations(m, seed=3)
    n = len(m)
    for j in range(2):
        assert sorted(u[:, j] * (n + 1)) == pytest.approx(range(1, n + 1))
    assert u[1, 0] == 5 / 6 and u[3, 0] == 4 / 6  # untied values keep their order
    assert set(np.round(u[[0, 2, 4], 0] * 6)) == {1, 2, 3}
    assert np.array_equal(u, pseudo_observations(m, seed=3))
    orders = {tuple(np.argsort(pseudo_observations(m, seed=s)[:, 0])) for s in range(30)}
    assert len(orders) > 1  # ties are broken at random
    with pytest.raises(ValueError, match="NaN"):
        pseudo_observations(np.array([[0.1, np.nan], [0.2, 0.3]]), 0)


def test_a_copula_fitted_to_gaussian_draws_is_gaussian_or_close_kin_with_its_tau():
    rho = 0.7
    tau = 2 / math.pi * math.asin(rho)
    z = np.random.default_rng(0).multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=1000)
    copula = fit_pair_copula(z[:, 0], z[:, 1], seed=1)
    assert copula.family in ("gaussian", "student")
    assert abs(copula.tau - tau) < 0.05
    assert copula.aic == pytest.approx(2 * len(copula.parameters) - 2 * copula.loglik)


def test_an_asymmetric_tawn_copula_is_selected_when_the_data_are_tawn():
    import pyvinecopulib as pv

    true = pv.Bicop(family=pv.BicopFamily.tawn, rotation=0, parameters=np.array([[0.3], [1.0], [4.0]]))
    w = np.random.default_rng(1).random((800, 2))
    u = np.column_stack([w[:, 0], true.hinv1(np.asfortranarray(w))])
    copula = fit_pair_copula(u[:, 0], u[:, 1], seed=2)
    assert "tawn" in PAIR_FAMILIES and copula.family == "tawn"
    assert abs(copula.tau - true.tau) < 0.05


def test_draws_have_the_copulas_tau_and_are_the_same_for_the_same_seeds():
    copula = PairCopula("gumbel", 180, (2.0,), 0.0, 0.0, 0.5)
    draws = copula.simulate(3000, seeds=[4, 2])
    assert np.array_equal(draws, copula.simulate(3000, seeds=[4, 2]))
    assert not np.array_equal(draws, copula.simulate(3000, seeds=[4, 3]))
    assert np.all((draws > 0) & (draws < 1))
    assert abs(_kendall(draws[:, 0], draws[:, 1]) - 0.5) < 4 * math.sqrt(2 * (2 * 3000 + 5) / (9 * 3000 * 2999))
    # the first column is the first uniform, unchanged
    w = np.random.default_rng([4, 2]).random((3000, 2))
    assert np.array_equal(draws[:, 0], w[:, 0])
    indep = PairCopula("indep", 0, (), 0.0, 0.0, 0.0)
    assert np.array_equal(indep.transform(w), w)


def test_pair_fits_do_not_depend_on_the_number_of_workers():
    rng = np.random.default_rng(5)
    z = rng.normal(size=(40, 1)) + 0.7 * rng.normal(size=(40, 4))
    pobs = pseudo_observations(z, seed=1)
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3), (0, 3)]
    one = fit_pair_copulas(pobs, pairs, workers=1)
    two = fit_pair_copulas(pobs, pairs, workers=2, block=2)
    assert one == two
    assert one[0] == fit_pair_copula(z[:, 0], z[:, 1], seed=1)


def test_a_vine_of_runs_reproduces_their_dependence():
    rng = np.random.default_rng(6)
    z = rng.normal(size=(300, 1)) + 0.6 * rng.normal(size=(300, 4))
    vine = fit_vine(z, seed=2)
    assert vine.dim == 4 and len(vine.families) == 6
    draws = vine.simulate(4000, seeds=[1])
    assert np.array_equal(draws, vine.simulate(4000, seeds=[1]))
    assert draws.shape == (4000, 4) and np.all((draws > 0) & (draws < 1))
    for i, j in ((0, 1), (2, 3)):
        assert abs(_kendall(draws[:1500, i], draws[:1500, j]) - _kendall(z[:, i], z[:, j])) < 0.12
    with pytest.raises(ValueError, match="transforms"):
        vine.transform(np.zeros((3, 5)))
