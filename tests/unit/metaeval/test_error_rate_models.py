"""The error-rate experiment's models from score matrices (irmeta.metaeval.error_rate_models):
every refusal before any fitting, one line naming the matrix and the run; the models'
table; an unreachable delta named; shards of a real fitted model summing to the same
bytes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from irmeta.measures.ranges import measure_range
from irmeta.metaeval import error_rate_models as erm
from irmeta.metaeval import test_error_rates as ter
from irmeta.metaeval.simulation.margins import Support, support_of_measure
from irmeta.metaeval.simulation.models import SimulationProtocol

SMALL = ter.ErrorRateSettings(tests=("paired_t", "sign", "randomisation"), n_topics=(10,), trials=40,
                              alphas=(0.05, 0.1), deltas=(0.05,), runs_at_once=(3,), permutations=50, chunk=15)


def ap_like(n_runs: int, n_topics: int, seed: int = 0) -> np.ndarray:
    """AP-like scores in (0, 1), runs correlated through the topics."""
    rng = np.random.default_rng(seed)
    run = rng.normal(-0.6, 0.35, (n_runs, 1))
    topic = rng.normal(0, 0.8, (1, n_topics))
    return special.ndtr(run + topic + rng.normal(0, 0.5, (n_runs, n_topics)))


def matrix(values: np.ndarray, source: str = "m.csv") -> erm.ScoreMatrix:
    return erm.ScoreMatrix(source, tuple(f"r{i}" for i in range(len(values))),
                           tuple(str(t) for t in range(values.shape[1])), values)


@pytest.fixture(scope="module")
def models() -> erm.MeasureModels:
    return erm.fit_models([matrix(ap_like(7, 20, seed=1), "a.csv"), matrix(ap_like(5, 15, seed=2), "b.csv")],
                          Support.continuous(), SimulationProtocol(), seed=11, measure="AP", workers=1)


def test_the_support_is_the_measures_declared_range_and_grid():
    assert support_of_measure("P@10").upper == support_of_measure("AP_rareness_norm(alpha=1)@100").upper == 1.0
    assert support_of_measure("AP_rareness(alpha=0.5)@100").upper == 1.5
    assert support_of_measure("P_rareness(alpha=1/R)@100").upper == 2.0
    with pytest.raises(ValueError, match=r"P_rareness@100: name the rarity weight"):
        support_of_measure("P_rareness@100")
    with pytest.raises(ValueError, match=r"DCG@10: its scores lie in \[0, inf\)"):
        support_of_measure("DCG@10")
    support = support_of_measure("P@10")
    assert support.discrete and len(support.grid) == 11 and support.declared
    for name in ("P@10", "RR@5", "Success@10", "AP@1000", "AP_rareness(alpha=1)@100", "nDCG@10"):
        declared = measure_range(name)
        assert support_of_measure(name).upper == declared.high, name
        assert support_of_measure(name).discrete == (declared.grid is not None), name


@pytest.fixture
def measures_restored():
    """Measures a test registers are gone after it."""
    from irmeta.measures.registry import MEASURES

    before = dict(MEASURES)
    yield
    MEASURES.clear()
    MEASURES.update(before)


def test_a_measure_without_a_declared_range_leaving_the_unit_interval_is_refused_naming_it(measures_restored):
    from irmeta.measures.plugins import register_measure

    name = "MySum"
    register_measure(name, lambda grades, n_relevant: float(sum(grades)), per_list=True)
    support = support_of_measure(name)
    assert not support.declared and support.upper == 1.0
    values = ap_like(6, 10, seed=4)
    assert not erm.checked_matrices([matrix(values)], support, SimulationProtocol(), name)
    values[3, 2] = 2.5
    with pytest.raises(ValueError, match=rf"m\.csv: {name}: run r3: score 2\.5 lies outside \[0, 1\] and the "
                                         r"measure declares no range"):
        erm.checked_matrices([matrix(values)], support, SimulationProtocol(), name)
    register_measure("MyBoundedSum", lambda grades, n_relevant: 0.0, per_list=True, value_range=(0, 3))
    assert support_of_measure("MyBoundedSum").upper == 3.0 and support_of_measure("MyBoundedSum").declared


@pytest.mark.parametrize("change, message", [
    (lambda v: v.__setitem__((2, 3), np.nan), r"a\.csv: AP: run r2 has no number on topic 3"),
    (lambda v: v.__setitem__((4, 0), 1.5), r"a\.csv: AP: run r4: score 1\.5 lies outside the measure's range"),
    (lambda v: v.__setitem__(5, 0.5), r"a\.csv: AP: run r5 scores 0\.5 on every topic: there is no margin to fit "
                                      r"\(drop such runs with --degenerate-runs drop\)"),
])
def test_a_matrix_is_refused_before_any_fitting_on_one_line_naming_it(change, message, monkeypatch):
    values = ap_like(8, 12, seed=3)
    change(values)
    monkeypatch.setattr(erm.FittedCollection, "fit", lambda *a, **k: pytest.fail("fitted"))
    with pytest.raises(ValueError, match=message) as caught:
        erm.fit_models([matrix(ap_like(6, 12), "ok.csv"), matrix(values, "a.csv")], Support.continuous(),
                       SimulationProtocol(), 1, "AP", drop_hint="--degenerate-runs drop")
    assert "\n" not in str(caught.value)


def test_fewer_than_two_runs_after_the_drops_and_single_scores_dropped_and_said():
    values = ap_like(6, 12, seed=4)
    values[1] = values[0]  # a duplicate
    values[2:] = values[0] + 1e-6  # and more, within the tolerance
    with pytest.raises(ValueError, match=r"one\.csv: AP: 1 of its 6 runs left after the protocol's drops"):
        erm.checked_matrices([matrix(values, "one.csv")], Support.continuous(), SimulationProtocol(), "AP")
    values = ap_like(8, 12, seed=5)
    values[3] = 0.0
    notes = erm.checked_matrices([matrix(values, "z.csv")], Support.continuous(),
                                 SimulationProtocol(degenerate_runs="drop", drop_bottom=0.0), "AP")
    assert notes == ["z.csv: AP: run r3 dropped: it scores 0 on every topic"]


def test_the_models_table_lists_margins_copulas_and_dropped_runs(models):
    table = erm.models_table([models])
    assert tuple(table.columns) == erm.MODEL_COLUMNS
    for fitted, names in zip(models.collections, models.input_runs):
        mine = table[table["collection"] == fitted.name]
        k = len(fitted)
        assert (mine["model"] == "margin").sum() == k and (mine["model"] == "copula").sum() == k * (k - 1) // 2
        dropped = mine[mine["model"] == "dropped"]
        assert sorted(dropped["run"]) == sorted(set(names) - set(fitted.runs))
        assert dropped["note"].str.contains("bottom 10%").all()
    assert (table["measure"] == "AP").all()
    margins = table[table["model"] == "margin"]
    assert margins["family"].isin(["norm", "beta", "nks", "bks"]).all() and margins["mean"].between(0, 1).all()
    assert table.loc[table["model"] == "copula", "rotation"].notna().all()


def test_saved_models_load_and_a_foreign_file_is_refused(models, tmp_path):
    path = tmp_path / "AP.models"
    models.save(path)
    back = erm.MeasureModels.load(path)
    assert back.measure == "AP" and back.input_runs == models.input_runs
    pd.testing.assert_frame_equal(erm.models_table([back]), erm.models_table([models]))
    (tmp_path / "bad.models").write_bytes(b"not a pickle")
    with pytest.raises(ValueError, match=r"bad\.models: not a file of simulation models .*delete it and run again"):
        erm.MeasureModels.load(tmp_path / "bad.models")


def test_an_unreachable_delta_is_one_line_naming_the_setting(models):
    erm.checked_deltas(models, (0.01, 0.05), "deltas")
    with pytest.raises(ValueError, match=r"^experiments\.test_error_rates\.deltas: delta 0\.99 is out of reach for AP"):
        erm.checked_deltas(models, (0.05, 0.99), "experiments.test_error_rates.deltas")


def test_a_delta_some_baselines_do_not_reach_is_one_line_naming_them(models):
    """A delta below the range's width that some baselines' margins cannot be moved to
    (the fitted margins decide it): one line per delta naming them, and the power trials
    at that delta never start from them."""
    assert erm.checked_deltas(models, (0.05,), "deltas") == []
    notes = erm.checked_deltas(models, (0.05, 0.7), "experiments.test_error_rates.deltas")
    assert len(notes) == 1 and "\n" not in notes[0]
    source = models.source()
    unreached = source.unreached_baselines(0.7)
    total = source.baseline_count()
    assert 0 < len(unreached) < total
    named = ", ".join(f"{c}: {r}" for c, r in unreached[:5])
    assert notes[0].startswith(f"AP: delta 0.7 (experiments.test_error_rates.deltas): {len(unreached)} of {total} "
                               f"baseline runs ({named}")
    assert notes[0].endswith(f"start from the other {total - len(unreached)}")
    trials = source.pair_trials_detailed(5, 300, np.random.default_rng(0), 0.7)
    started = {(models.collections[c].name, models.collections[c].runs[f]) for c, f in zip(trials.collection,
                                                                                          trials.first)}
    assert started and not started & set(unreached)


def test_any_split_into_shards_gives_the_same_bytes_and_the_seed_decides(models):
    whole = ter.error_rate_table([erm.rate_counts([models], SMALL, seed=7)], SMALL.trials)
    shards = [erm.rate_counts([models], SMALL, 7, shard, 3) for shard in range(3)]
    assert whole.to_csv(index=False) == ter.error_rate_table(shards, SMALL.trials).to_csv(index=False)
    assert tuple(whole.columns) == ter.COLUMNS
    assert set(whole["kind"]) == {"type_1", "power", "type_3", "familywise_type_1"}
    other = ter.error_rate_table([erm.rate_counts([models], SMALL, seed=8)], SMALL.trials)
    assert not whole["rate"].equals(other["rate"])


def test_the_same_matrices_and_seed_fit_the_same_models():
    given = [matrix(ap_like(6, 14, seed=9))]
    given[0].values[:, :3] = 0.25  # ties, broken from the seed
    one = erm.fit_models(given, Support.continuous(), SimulationProtocol(), 3, "AP", workers=1)
    two = erm.fit_models(given, Support.continuous(), SimulationProtocol(), 3, "AP", workers=1)
    assert erm.models_table([one]).to_csv(index=False) == erm.models_table([two]).to_csv(index=False)
    np.testing.assert_array_equal(one.collections[0].pobs, two.collections[0].pobs)
