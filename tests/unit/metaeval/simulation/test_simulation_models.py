"""A collection's fitted models and pooled collections (irmeta.metaeval.simulation.models):
the protocol's drops, the refusals, simulated topics that reproduce each run's mean and each
pair's rank correlation, trials at equal or shifted true means, pooling by runs, and trials
that are the same bit for bit for the same Generator state."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import special

from irmeta.metaeval.simulation.copulas import PairCopula
from irmeta.metaeval.simulation.margins import DegenerateScores, Support, UnreachableMean
from irmeta.metaeval.simulation.models import (
    FittedCollection,
    PooledCollections,
    SimulationProtocol,
    _transform_by_topic,
    select_runs,
)
from irmeta.metaeval.simulation.trials import TrialSource

NO_DROPS = SimulationProtocol(drop_bottom=0.0)


def synthetic_scores(n_runs: int, n_topics: int, seed: int = 0, grid: int | None = None) -> np.ndarray:
    """AP-like scores: Phi(run effect + topic difficulty + noise), so runs are correlated
    through the topics; on {0, 1/grid, ..., 1} when ``grid`` is given."""
    rng = np.random.default_rng(seed)
    run = rng.normal(-0.6, 0.35, (n_runs, 1))
    topic = rng.normal(0, 0.8, (1, n_topics))
    scores = special.ndtr(run + topic + rng.normal(0, 0.5, (n_runs, n_topics)))
    return scores if grid is None else np.round(scores * grid) / grid


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    return float((sx * sy).sum() / (len(x) * (len(x) - 1)))


@pytest.fixture(scope="module")
def collection() -> FittedCollection:
    scores = synthetic_scores(6, 40, seed=1)
    return FittedCollection.fit(scores, [f"run{i}" for i in range(6)], Support.continuous(), seed=3, protocol=NO_DROPS,
                                name="synthetic", workers=1)


@pytest.fixture(scope="module")
def discrete_collection() -> FittedCollection:
    scores = synthetic_scores(5, 40, seed=2, grid=10)
    return FittedCollection.fit(scores, [f"p{i}" for i in range(5)], Support.equispaced(10), seed=4,
                                protocol=NO_DROPS, name="p10", workers=1)


def test_select_runs_drops_duplicates_then_the_bottom_tenth_by_mean():
    scores = synthetic_scores(20, 30, seed=5)
    scores[7] = scores[3] + 5e-6  # equal within 1e-5
    scores[9] = scores[3] + 5e-5  # not
    names = [f"r{i}" for i in range(20)]
    selection = select_runs(scores, names)
    reasons = dict(selection.dropped)
    assert reasons[7] == "duplicate of r3" and 9 not in reasons
    rest = [i for i in range(20) if i != 7]
    means = scores[rest].mean(axis=1)
    cut = np.quantile(means, 0.1)  # R's type 7
    bottom = {r for r, m in zip(rest, means) if m < cut}
    assert {r for r, why in selection.dropped if why.startswith("bottom 10%")} == bottom and len(bottom) == 2
    assert selection.kept == tuple(r for r in rest if r not in bottom)
    assert select_runs(scores, names, SimulationProtocol(duplicate_tolerance=1e-4, drop_bottom=0)).dropped == (
        (7, "duplicate of r3"), (9, "duplicate of r3"))


def test_a_fitted_collection_holds_every_kept_runs_margin_and_every_pairs_copula(collection):
    assert collection.runs == tuple(f"run{i}" for i in range(6))
    assert len(collection.margins) == 6 and len(collection.copulas) == 15
    copula, swapped = collection.copula(4, 1)
    assert swapped and copula is collection.copulas[7]  # pair (1, 4): after (0, 1..5) and (1, 2), (1, 3)
    records = collection.margin_records()
    assert [r["run"] for r in records] == list(collection.runs) and records[0]["collection"] == "synthetic"
    pairs = collection.copula_records()
    assert len(pairs) == 15 and (pairs[0]["run"], pairs[0]["other_run"]) == ("run0", "run1")


def test_simulated_topics_reproduce_each_runs_mean_and_each_pairs_rank_correlation(collection):
    rng = np.random.default_rng(7)
    n = 6000
    for i, j in ((0, 1), (2, 5), (4, 3)):
        draws = collection.simulate_pair(i, j, n, rng)
        for col, run in ((0, i), (1, j)):
            margin = collection.margins[run]
            assert draws[:, col].mean() == pytest.approx(margin.mean, abs=4 * draws[:, col].std() / math.sqrt(n))
        copula, _ = collection.copula(i, j)
        sample = draws[:2000]
        se = math.sqrt(2 * (2 * 2000 + 5) / (9 * 2000 * 1999))
        assert abs(_kendall(sample[:, 0], sample[:, 1]) - copula.tau) < 4 * se


def test_type_1_trials_pass_both_runs_through_the_first_runs_margin(collection):
    pool = PooledCollections([collection])
    assert isinstance(pool, TrialSource)
    trials = pool.pair_trials_detailed(30, 3000, np.random.default_rng(8), None)
    assert trials.a.shape == trials.b.shape == (3000, 30)
    assert np.all(trials.first != trials.second)
    diff = (trials.b - trials.a).mean(axis=1)
    assert abs(diff.mean()) < 4 * diff.std() / math.sqrt(3000)
    # every ordered pair is drawn about equally often
    counts = np.bincount(trials.first * 6 + trials.second, minlength=36).reshape(6, 6)
    assert np.all(np.diag(counts) == 0)
    off = counts[~np.eye(6, dtype=bool)]
    assert off.min() > 3000 / 30 - 4 * math.sqrt(3000 / 30)
    # a trial's A column has its first run's expected value
    means = collection.means[trials.first]
    resid = trials.a.mean(axis=1) - means
    assert abs(resid.mean()) < 4 * resid.std() / math.sqrt(3000)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["first_run", "nearest_runs"])
def test_power_trials_move_the_second_runs_margin_to_the_first_runs_mean_plus_delta(collection, mode):
    protocol = SimulationProtocol(drop_bottom=0.0, power_margin=mode, nearest_runs=3)
    fitted = FittedCollection(collection.name, collection.runs, collection.support, collection.margins,
                              collection.copulas, collection.pobs, collection.selection, protocol, collection.seed)
    pool = PooledCollections([fitted])
    trials = pool.pair_trials_detailed(30, 3000, np.random.default_rng(9), 0.05)
    baselines = set(np.argsort(-collection.means)[round(6 * 0.25):].tolist())
    assert set(trials.first.tolist()) <= baselines
    diff = (trials.b - trials.a).mean(axis=1)
    assert diff.mean() == pytest.approx(0.05, abs=4 * diff.std() / math.sqrt(3000))
    own = FittedCollection(collection.name, collection.runs, collection.support, collection.margins,
                           collection.copulas, collection.pobs, collection.selection,
                           replace(collection.protocol, power_margin="first_run"), collection.seed)
    a, bs = PooledCollections([own]).pair_trials_by_delta(30, 2000, np.random.default_rng(9), [0.02, 0.08])
    for delta, b in bs.items():
        d = (b - a).mean(axis=1)
        assert d.mean() == pytest.approx(delta, abs=4 * d.std() / math.sqrt(2000))


def test_discrete_collections_simulate_on_their_grid(discrete_collection):
    pool = PooledCollections([discrete_collection])
    a, b = pool.pair_trials(20, 500, np.random.default_rng(10), 0.05)
    for values in (a, b):
        assert np.allclose(values * 10, np.round(values * 10))
    group = pool.group_trials(3, 20, 40, np.random.default_rng(11))
    assert group.shape == (40, 20, 3) and np.allclose(group * 10, np.round(group * 10))


def test_group_trials_draw_k_runs_at_equal_true_means(collection):
    protocol = SimulationProtocol(drop_bottom=0.0, trials_per_group=50)
    fitted = FittedCollection(collection.name, collection.runs, collection.support, collection.margins,
                              collection.copulas, collection.pobs, collection.selection, protocol, collection.seed)
    pool = PooledCollections([fitted])
    trials = pool.group_trials(4, 25, 200, np.random.default_rng(12))
    assert trials.shape == (200, 25, 4)
    means = trials.mean(axis=1)  # (trials, k)
    spread = means - means.mean(axis=1, keepdims=True)
    assert np.abs(spread.mean(axis=0)).max() < 4 * spread.std() / math.sqrt(200)
    again = PooledCollections([fitted]).group_trials(4, 25, 200, np.random.default_rng(12))
    assert np.array_equal(trials, again)
    with pytest.raises(ValueError, match="no collection keeps 7 runs"):
        pool.group_trials(7, 25, 10, np.random.default_rng(0))


def test_the_same_generator_state_gives_the_same_trials_whatever_ran_before(collection):
    fresh = PooledCollections([collection])
    a1, b1 = fresh.pair_trials(20, 400, np.random.default_rng([1, 2]), 0.03)
    warmed = PooledCollections([collection])
    warmed.pair_trials(20, 100, np.random.default_rng(99), 0.07)  # caches other reshaped margins
    warmed.group_trials(3, 20, 10, np.random.default_rng(98))  # and a vine
    a2, b2 = warmed.pair_trials(20, 400, np.random.default_rng([1, 2]), 0.03)
    assert a1.tobytes() == a2.tobytes() and b1.tobytes() == b2.tobytes()
    t1 = fresh.pair_trials(20, 400, np.random.default_rng([1, 3]), None)
    assert not np.array_equal(t1[0], a1)


def test_trials_of_fewer_topics_are_the_first_topics_of_trials_of_more(collection):
    """Topics are drawn topic by topic, so the same Generator state gives a trial whose
    first t topics are the same whatever the number of topics asked."""
    pool = PooledCollections([collection])
    for delta in (None, 0.04):
        short = pool.pair_trials(7, 50, np.random.default_rng(21), delta)
        long = pool.pair_trials(19, 50, np.random.default_rng(21), delta)
        assert all(np.array_equal(s, x[:, :7]) for s, x in zip(short, long))
    own = PooledCollections([FittedCollection(  # common deltas move the first run's own margin
        collection.name, collection.runs, collection.support, collection.margins, collection.copulas, collection.pobs,
        collection.selection, replace(collection.protocol, power_margin="first_run"), collection.seed)])
    a, bs = own.pair_trials_by_delta(7, 50, np.random.default_rng(22), [0.02, 0.06])
    a2, bs2 = own.pair_trials_by_delta(19, 50, np.random.default_rng(22), [0.02, 0.06])
    assert np.array_equal(a, a2[:, :7]) and all(np.array_equal(bs[d], bs2[d][:, :7]) for d in bs)
    group = pool.group_trials(3, 7, 60, np.random.default_rng(23))
    assert np.array_equal(group, pool.group_trials(3, 19, 60, np.random.default_rng(23))[:, :7])
    groups = [pool.group_trials(3, 7, 60, np.random.default_rng(24), groups=np.random.default_rng(s))
              for s in (1, 1, 2)]
    assert np.array_equal(groups[0], groups[1]) and not np.array_equal(groups[0], groups[2])


def test_a_clayton_copulas_draws_do_not_depend_on_the_number_of_topics():
    """pyvinecopulib's Clayton h-inverse differs in the last bit between its SIMD lanes and
    its one-by-one remainder; drawn topic by topic and padded, a uniform's draw is the same
    whatever the number of topics."""
    clayton = PairCopula("clayton", 0, (5.3,), 0.0, 0.0, 0.73)
    w = np.random.default_rng(5).random((37, 101, 2))
    full = _transform_by_topic(clayton.transform, w)
    plain = clayton.transform(w.reshape(-1, 2)).reshape(w.shape)
    assert np.array_equal(full[..., 0], w[..., 0]) and np.allclose(full, plain, rtol=1e-12, atol=0)
    for topics in (1, 2, 3, 5, 7, 13, 50, 99):
        assert np.array_equal(_transform_by_topic(clayton.transform, w[:, :topics]), full[:, :topics])


def test_pooled_collections_are_drawn_in_proportion_to_their_kept_runs(collection, discrete_collection):
    small = FittedCollection.fit(synthetic_scores(3, 40, seed=6), ["x", "y", "z"], Support.continuous(), seed=1,
                                 protocol=NO_DROPS, workers=1)
    pool = PooledCollections([collection, small])
    trials = pool.pair_trials_detailed(10, 6000, np.random.default_rng(13), None)
    share = np.mean(trials.collection == 1)
    assert share == pytest.approx(3 / 9, abs=4 * math.sqrt(3 / 9 * 6 / 9 / 6000))
    assert trials.first[trials.collection == 1].max() == 2


def test_refusals(collection):
    scores = synthetic_scores(4, 30, seed=3)
    names = ["a", "b", "c", "d"]
    bad = scores.copy()
    bad[2, 5] = np.nan
    with pytest.raises(ValueError, match="coll: run c has a NaN"):
        FittedCollection.fit(bad, names, Support.continuous(), seed=0, protocol=NO_DROPS, name="coll")
    flat = scores.copy()
    flat[1] = 0.25
    with pytest.raises(DegenerateScores, match="coll: b"):
        FittedCollection.fit(flat, names, Support.continuous(), seed=0, protocol=NO_DROPS, name="coll")
    dropping = SimulationProtocol(drop_bottom=0.0, degenerate_runs="drop")
    kept = FittedCollection.fit(flat, names, Support.continuous(), seed=0, protocol=dropping, workers=1)
    assert kept.runs == ("a", "c", "d") and (1, "a single distinct score") in kept.selection.dropped
    with pytest.raises(ValueError, match="1 run\\(s\\) left"):
        FittedCollection.fit(np.vstack([scores[:1], scores[:1]]), ["a", "b"], Support.continuous(), seed=0)
    with pytest.raises(ValueError, match="outside the measure's range"):
        FittedCollection.fit(scores * 2, names, Support.continuous(), seed=0, protocol=NO_DROPS)
    with pytest.raises(UnreachableMean, match="delta 2"):
        PooledCollections([collection]).pair_trials(10, 10, np.random.default_rng(0), 2.0)
    with pytest.raises(ValueError, match="drop_bottom"):
        SimulationProtocol(drop_bottom=1.5)


def test_saved_models_load_and_simulate_the_same(collection, tmp_path):
    path = tmp_path / "models.pkl"
    collection.copulas[0].transform(np.full((2, 2), 0.5))  # a cached pyvinecopulib object is not saved
    collection.save(path)
    loaded = FittedCollection.load(path)
    assert loaded.runs == collection.runs and loaded.copulas == collection.copulas
    rng = [np.random.default_rng(5), np.random.default_rng(5)]
    first = PooledCollections([collection]).pair_trials(15, 200, rng[0], 0.04)
    second = PooledCollections([loaded]).pair_trials(15, 200, rng[1], 0.04)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(first, second))
    (tmp_path / "other.pkl").write_bytes(b"not a pickle")
    with pytest.raises(ValueError, match="other.pkl: not a file of fitted simulation models"):
        FittedCollection.load(tmp_path / "other.pkl")
