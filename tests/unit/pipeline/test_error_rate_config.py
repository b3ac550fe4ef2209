"""The error-rate experiment in the workflow: its config section (defaults the library's,
the measures it simulates, one-line refusals naming the key before any job), and its
three steps on a small scores.npz: the tables with exactly their columns, the same bytes
whatever the shards, and a test registered by a user in every table and figure."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import special

from irmeta.artefacts.figures import error_rates as figures
from irmeta.measures.averaging import Scores
from irmeta.measures.registry import MEASURES
from irmeta.metaeval import test_error_rates as ter
from irmeta.metaeval.error_rate_models import MODEL_COLUMNS
from irmeta.metaeval.simulation.models import SimulationProtocol
from irmeta.metaeval.stats.own_tests import register_test
from irmeta.metaeval.stats.registry import TESTS
from irmeta.pipeline import error_rate_config as erc
from irmeta.pipeline.config_checks import load_config
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.error_rate_steps import fit_step, shard_step, tabulate_step
from irmeta.pipeline.stored_scores import read_table, write_scores


def _config(tmp_path: Path, section: dict, experiments_extra: dict | None = None, **top) -> dict:
    path = tmp_path / "config.yaml"
    experiments = {**(experiments_extra or {}), "test_error_rates": {"enabled": True, **section}}
    path.write_text(yaml.safe_dump({**top, "experiments": experiments}))
    return load_config(path)


def test_the_schemas_defaults_are_the_librarys(tmp_path):
    section = _config(tmp_path, {})["experiments"]["test_error_rates"]
    settings = erc.error_rate_settings(section)
    assert settings == ter.ErrorRateSettings()
    assert erc.simulation_protocol(section) == SimulationProtocol()
    assert section["chunk"] == ter.DEFAULT_CHUNK and section["shards"] is None
    assert load_config(Path("config/paper.yaml"))["experiments"]["test_error_rates"]["enabled"] is False


def test_the_measures_default_to_the_comparisons_at_the_largest_alpha(tmp_path):
    config = _config(tmp_path, {})
    assert erc.error_rate_measures(config) == [
        "P@100", "P_rareness(alpha=1)@100", "AP@100", "AP_rareness(alpha=1)@100", "P_rareness_norm(alpha=1)@100",
        "AP_rareness_norm(alpha=1)@100"]
    config = _config(tmp_path, {"measures": ["AP@100", "AP_rareness(alpha=0.5)@100", "AP_rareness@100"]})
    assert erc.measure_files(config) == {"AP_100": "AP@100", "AP_rareness_alpha_0.5_100": "AP_rareness(alpha=0.5)@100",
                                         "AP_rareness_alpha_1_100": "AP_rareness(alpha=1)@100"}
    assert erc.scored_block("AP_rareness(alpha=0.5)@100") == ("AP_rareness@100", "0.5")
    assert erc.shards(config) == 2 and erc.chunk_count(config["experiments"]["test_error_rates"]) == 3 * 13 * 50


MEASURES_YAML = ["P@100", "AP@100", "ASL", "DCG@10"]


def _only(comparisons: list[dict]) -> dict:
    """Experiments that read these comparisons' measures alone."""
    return {"comparisons": comparisons, "swap": {"measures": []}}


def test_the_default_measures_leave_out_those_that_cannot_be_simulated_and_say_so(tmp_path):
    comparisons = [{"measure": "ASL", "baseline": "AP@100"}, {"measure": "DCG@10", "baseline": "P@100"}]
    config = _config(tmp_path, {}, measures=MEASURES_YAML, experiments_extra=_only(comparisons))
    assert erc.error_rate_measures(config) == ["AP@100", "P@100"]
    assert [line.split(":")[0] for line in erc.unsimulated_measures(config)] == ["ASL", "DCG@10"]
    assert "[0, inf)" in erc.unsimulated_measures(config)[0]
    with pytest.raises(ConfigError, match=r"key 'experiments\.test_error_rates\.measures': ASL's scores lie in "
                                          r"\[0, inf\)"):
        _config(tmp_path, {"measures": ["ASL"]}, measures=MEASURES_YAML, experiments_extra=_only(comparisons))
    with pytest.raises(ConfigError, match="no measure of experiments.comparisons can be simulated"):
        _config(tmp_path, {}, measures=MEASURES_YAML,
                experiments_extra=_only([{"measure": "ASL", "baseline": "DCG@10"}]))


def test_the_experiment_runs_on_the_sections_collections_and_checks_only_where_it_runs(tmp_path):
    section = {"enabled": True, "collections": ["demo"]}
    assert erc.simulates(section, "demo") and not erc.simulates(section, "trec8")
    assert erc.simulates({"enabled": True, "collections": None}, "trec8")
    assert not erc.simulates({"enabled": False, "collections": None}, "demo")
    # a measure this config does not score: refused where the experiment runs, not elsewhere
    with pytest.raises(ConfigError, match="'nDCG@10' is not in measures"):
        _config(tmp_path, {"collections": ["demo"], "measures": ["nDCG@10"]}, collections=["demo"])
    config = _config(tmp_path, {"collections": ["demo"], "measures": ["nDCG@10"]}, collections=["trec8"])
    assert not erc.active(config)
    with pytest.raises(ConfigError, match="unknown test 'nope'"):  # the tests are checked everywhere
        _config(tmp_path, {"collections": ["demo"], "tests": ["nope"]}, collections=["trec8"])


@pytest.mark.parametrize("section, top, message", [
    ({"measures": ["nDCG@10"]}, {}, r"key 'experiments\.test_error_rates\.measures\.0': 'nDCG@10' is not in measures"),
    ({"measures": ["AP_rareness(alpha=0.3)@100"]}, {},
     r"key 'experiments\.test_error_rates\.measures\.0': alpha 0\.3 is not in alphas"),
    ({"measures": ["DCG@10"]}, {"measures": ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100",
                                             "P_rareness_norm@100", "AP_rareness_norm@100", "DCG@10"]},
     r"key 'experiments\.test_error_rates\.measures': DCG@10's scores lie in \[0, inf\); simulation needs a range"),
    ({"tests": ["nope"]}, {}, r"key 'experiments\.test_error_rates\.tests\.0': unknown test 'nope'"),
    ({"tests": ["tukey_hsd"]}, {}, r"tests\.0': tukey_hsd is not a paired test"),
    ({"tests": []}, {}, r"key 'experiments\.test_error_rates\.tests': no test"),
    ({"trials": 10, "chunk": 10, "n_topics": [25], "deltas": [], "runs_at_once": [], "shards": 2}, {},
     r"key 'experiments\.test_error_rates\.shards': 2 shards of 1 chunks"),
    ({"alphas": [0.05, 1.5]}, {}, r"experiments\.test_error_rates\.alphas"),
    ({"deltas": [0]}, {}, r"experiments\.test_error_rates\.deltas"),
    ({"deltas": [0.05, 1.0]}, {}, r"/config\.yaml: key 'experiments\.test_error_rates\.deltas\.1': delta 1 is out of "
                                  r"reach of every margin of P@100: its scores lie in \[0, 1\], so a run's mean \+ "
                                  r"delta stays below 1$"),
    ({"measures": ["AP_rareness(alpha=0.5)@100"], "deltas": [1.5]}, {},
     r"deltas\.0': delta 1\.5 is out of reach of every margin of AP_rareness\(alpha=0\.5\)@100: its scores lie in "
     r"\[0, 1\.5\]"),
    ({"protocol": {"degenerate_runs": "keep"}}, {}, r"experiments\.test_error_rates\.protocol\.degenerate_runs"),
])
def test_a_bad_setting_is_one_line_naming_its_key_before_any_job(tmp_path, section, top, message):
    with pytest.raises(ConfigError, match=message) as caught:
        _config(tmp_path, section, **top)
    assert "\n" not in str(caught.value)


def test_a_delta_within_every_measures_range_passes_the_checks(tmp_path):
    """A delta's bound is the measure's range width, not 1: the rareness forms' [0, 1 +
    alpha] admits a delta of 1.2 (whether a fitted margin reaches it, the fit says)."""
    config = _config(tmp_path, {"measures": ["AP_rareness(alpha=0.5)@100", "P_rareness(alpha=1)@100"],
                                "deltas": [0.05, 1.2]})
    assert config["experiments"]["test_error_rates"]["deltas"] == [0.05, 1.2]
    with pytest.raises(ConfigError, match=r"deltas\.1': delta 1\.2 is out of reach of every margin of AP@100"):
        _config(tmp_path, {"measures": ["AP_rareness(alpha=0.5)@100", "AP@100"], "deltas": [0.05, 1.2]})


# ------------------------------------------------------------------ the steps


@pytest.fixture
def registry():
    """Tests a test registers are gone after it."""
    tests, measures, modules = dict(TESTS), dict(MEASURES), set(sys.modules)
    yield
    TESTS.clear()
    TESTS.update(tests)
    MEASURES.clear()
    MEASURES.update(measures)
    for name in set(sys.modules) - modules:
        if name.startswith("irmeta_plugin_"):
            del sys.modules[name]


SECTION = {"enabled": True, "measures": None, "tests": None, "n_topics": [10, 20], "trials": 30, "chunk": 10,
           "alphas": [0.05, 0.1], "deltas": [0.05], "runs_at_once": [3], "permutations": 40, "shards": None,
           "protocol": {"duplicate_tolerance": 1e-5, "drop_bottom": 0.1, "degenerate_runs": "refuse",
                        "baseline_drop_top": 0.25, "power_margin": "nearest_runs", "nearest_runs": 10,
                        "trials_per_group": 500, "margin_families": None, "copula_families": None}}


@pytest.fixture
def scores_npz(tmp_path) -> Path:
    rng = np.random.default_rng(4)
    runs, topics = [f"run{i}" for i in range(7)], [str(401 + t) for t in range(16)]
    base = special.ndtr(rng.normal(-0.6, 0.35, (7, 1)) + rng.normal(0, 0.8, (1, 16)) + rng.normal(0, 0.5, (7, 16)))
    per_topic = np.stack([base, base * (1 + rng.uniform(0, 1, base.shape))])
    path = tmp_path / "scores.npz"
    write_scores(Scores(runs, topics, ["AP@100", "AP_rareness@100"], [None, "1"], per_topic,
                        {"all_topics": per_topic.mean(axis=2)}), path, {})
    return path


def _experiment(tmp_path: Path, scores: Path, shards: int, section: dict = SECTION) -> dict[str, Path]:
    models = []
    for measure in ("AP@100", "AP_rareness(alpha=1)@100"):
        models.append(tmp_path / f"{erc.measure_file(measure)}.models")
        fit_step(scores, measure, "demo", section, 5, models[-1])
    counts = [tmp_path / f"{shards}.{shard}.parquet" for shard in range(shards)]
    for shard, path in enumerate(counts):
        shard_step(models, section, 5, shard, shards, path)
    out = tmp_path / f"out{shards}"
    out.mkdir()
    outputs = {"table": out / "test_error_rates.csv", "models": out / "simulation_models.csv"}
    outputs |= {key: out / f"{key}.png" for key in ("type_1", "power", "familywise")}
    tabulate_step(counts, models, section, outputs, "Demo")
    return outputs


@pytest.mark.slow
def test_the_steps_write_the_tables_and_figures_the_same_whatever_the_shards(tmp_path, scores_npz):
    one, three = _experiment(tmp_path, scores_npz, 1), _experiment(tmp_path, scores_npz, 3)
    for key in ("table", "models"):
        assert one[key].read_bytes() == three[key].read_bytes()
    rates = read_table(one["table"], "test_error_rates")
    assert tuple(rates.columns) == ter.COLUMNS
    assert list(rates["measure"].drop_duplicates()) == ["AP@100", "AP_rareness(alpha=1)@100"]
    assert (rates["trials"] == 30).all() and rates["alpha"].dtype == np.float64
    models = read_table(one["models"], "simulation_models")
    assert tuple(models.columns) == MODEL_COLUMNS and set(models["collection"]) == {"demo"}
    for key in ("type_1", "power", "familywise"):
        assert one[key].with_suffix(".pdf").is_file()
        assert one[key].read_bytes() == three[key].read_bytes()


def test_a_single_score_run_and_an_unreachable_delta_are_named_by_key(tmp_path, scores_npz):
    data = np.load(scores_npz)
    per_topic = np.stack([data["per_topic_0"], data["per_topic_1"]])
    per_topic[0, 4] = 0.3
    path = tmp_path / "flat.npz"
    write_scores(Scores([f"run{i}" for i in range(7)], [str(t) for t in range(16)], ["AP@100", "AP_rareness@100"],
                        [None, "1"], per_topic, {"all_topics": per_topic.mean(axis=2)}), path, {})
    with pytest.raises(ValueError, match=r"demo \(.*flat\.npz\): AP@100: run run4 scores 0\.3 on every topic.*"
                                         r"experiments\.test_error_rates\.protocol\.degenerate_runs: drop"):
        fit_step(path, "AP@100", "demo", SECTION, 5, tmp_path / "x.models")
    far = {**SECTION, "deltas": [0.9]}
    with pytest.raises(ValueError, match=r"experiments\.test_error_rates\.deltas: delta 0\.9 is out of reach"):
        fit_step(scores_npz, "AP@100", "demo", far, 5, tmp_path / "y.models")
    assert not (tmp_path / "y.models").exists()


@pytest.mark.slow
def test_a_test_registered_by_a_user_is_in_every_table_and_figure(tmp_path, scores_npz, registry, monkeypatch):
    def never(scores):
        """Never significant."""
        pairs = len(scores) * (len(scores) - 1) // 2
        return np.zeros(pairs), np.ones(pairs)

    register_test("never", never, title="a test that never rejects", claims=None)
    drawn = []
    original = figures.save_figure

    def keep(fig, stem):
        drawn.append(fig)
        return original(fig, stem)

    monkeypatch.setattr(figures, "save_figure", keep)
    outputs = _experiment(tmp_path, scores_npz, 2)
    rates = read_table(outputs["table"], "test_error_rates")
    own = rates[rates["test"] == "never"]
    assert set(own["kind"]) == set(ter.KINDS) and (own["rate"] == 0).all()
    assert len(drawn) == 3
    for fig in drawn:
        width, height = fig.get_size_inches()
        assert width <= 7.5 and height <= 10
        labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        assert "a test that never rejects" in labels and "paired t-test" in labels
        texts = [t for ax in fig.axes for t in (ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels())]
        assert min(t.get_fontsize() for t in texts + [t for lg in fig.legends for t in lg.get_texts()]) >= 7
        assert not any("never" == t.get_text() for t in texts)  # titles in words, not the id
