"""The registry of significance tests: one home for each test's name, title, place and
draws, read by the schema, the API, the figures, ``compare`` and the claims; and a test
of one's own (``irmeta.register_test``, ``test_plugins``, ``--plugin``) runs wherever the
shipped ones do, with the numbers its function gives."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml

import irmeta
from campaigns import write
from irmeta.artefacts.claims import claims_table, power_protocols
from irmeta.artefacts.figures.style import method_order, method_title
from irmeta.cli import main
from irmeta.comparison import compare_tests
from irmeta.measures.registry import MEASURES
from irmeta.metaeval import pairwise_tests as pt
from irmeta.metaeval.discriminative_power import DP_METHODS, discriminative_power_table
from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.metaeval.stats.own_tests import load_plugins, register_test
from irmeta.metaeval.stats.paired_tests import paired_t, run_test
from irmeta.metaeval.stats.registry import SHIPPED, TESTS, parse_test_name, registered_tests
from irmeta.pipeline.config_schema import schema_path
from irmeta.support.plugin_import import PluginWarning

SCHEMA = schema_path("config.schema.yaml")


@pytest.fixture
def registry():
    """Tests and measures a test registers are gone after it, and so are its plugin modules."""
    tests, measures, modules = dict(TESTS), dict(MEASURES), set(sys.modules)
    yield
    TESTS.clear()
    TESTS.update(tests)
    MEASURES.clear()
    MEASURES.update(measures)
    for name in set(sys.modules) - modules:
        if name.startswith("irmeta_plugin_") or name.startswith("own_test_"):
            del sys.modules[name]


def _matrices(seed: int = 3) -> list[ScoreMatrix]:
    rng = np.random.default_rng(seed)
    runs, topics = [f"r{i}" for i in range(6)], [str(t) for t in range(12)]
    base = rng.random((6, 12))
    return [ScoreMatrix("AP@10", "", runs, topics, base),
            ScoreMatrix("P@10", "", runs, topics, np.clip(base + rng.normal(0, 0.1, base.shape), 0, 1))]


def my_t(scores):
    """A copy of the paired t-test."""
    result = paired_t(scores)
    return result.statistic, result.p_value


# ------------------------------------------------------------------ one home


def test_the_schema_names_no_test_and_the_config_takes_the_registrys(tmp_path):
    from irmeta.pipeline.config_checks import load_config
    from irmeta.pipeline.config_schema import ConfigError

    power = yaml.safe_load(SCHEMA.read_text())["properties"]["experiments"]["properties"]["discriminative_power"]
    for key in ("methods", "corrections"):
        assert "enum" not in power["properties"][key]["items"]
    assert "default" not in power["properties"]["methods"]
    config = tmp_path / "config.yaml"
    config.write_text("collections: [demo]\n")
    # every shipped test but the count forms of the randomised ones, which run only when named
    default = [t.name for t in SHIPPED if t.default]
    assert load_config(config)["experiments"]["discriminative_power"]["methods"] == default
    assert set(t.name for t in SHIPPED) - set(default) == {"randomisation_count", "paired_bootstrap_count"}
    config.write_text("experiments: {discriminative_power: {methods: [paired_t, student]}}\n")
    with pytest.raises(ConfigError, match=r"key 'experiments.discriminative_power.methods.1': unknown test 'student'"):
        load_config(config)
    config.write_text("experiments: {discriminative_power: {corrections: [none, sidak]}}\n")
    with pytest.raises(ConfigError, match=r"key 'experiments.discriminative_power.corrections.1': unknown correction"):
        load_config(config)


def test_every_reader_takes_names_and_titles_from_the_registry(registry):
    assert DP_METHODS == tuple(registered_tests(kind="all_runs"))
    assert method_title("paired_t+holm") == "paired t-test, Holm"
    assert method_title("randomisation") == TESTS["randomisation"].title
    register_test("my_t", my_t, title="my t-test")
    assert "my_t" in compare_tests() and "my_t+holm" in power_protocols()
    assert method_title("my_t+bh") == "my t-test, BH"
    names = ["my_t", "paired_t+holm", "tukey_hsd", "paired_t", "sign+bh", "unknown_thing"]
    assert sorted(names, key=method_order) == ["tukey_hsd", "paired_t", "paired_t+holm", "sign+bh", "my_t",
                                               "unknown_thing"]


def test_a_correction_only_follows_a_paired_test():
    with pytest.raises(ValueError, match="tukey_hsd accounts for every pair itself"):
        parse_test_name("tukey_hsd+holm")
    with pytest.raises(ValueError, match="unknown test 'student'"):
        parse_test_name("student+holm")


# ------------------------------------------------------------------ a test of one's own


def test_a_plugin_copy_of_the_paired_t_test_gives_its_numbers_everywhere(registry):
    register_test("my_t", my_t)
    matrices = _matrices()
    table = pt.pairwise_tests_table(matrices, ["paired_t", "my_t"], 50, 1)
    mine, theirs = (table[table["method"] == m].drop(columns="method").reset_index(drop=True)
                    for m in ("my_t", "paired_t"))
    pd.testing.assert_frame_equal(mine, theirs)
    power = discriminative_power_table(matrices, methods=["paired_t", "my_t"], pairwise=table,
                                       corrections=["none", "holm"])
    a = power[power["method"].str.startswith("my_t")].reset_index(drop=True)
    b = power[power["method"].str.startswith("paired_t")].reset_index(drop=True)
    assert a["method"].tolist() == [m.replace("paired_t", "my_t") for m in b["method"]]
    assert a["significant_pairs"].tolist() == b["significant_pairs"].tolist()
    assert a["permutations"].isna().all()


def test_a_per_pair_prototype_runs_once_per_pair(registry):
    from scipy import stats

    register_test("scipy_t", lambda x, y: stats.ttest_rel(x, y), per_pair=True)
    m = _matrices()[0].values
    assert np.allclose(run_test("scipy_t", m).p_value, run_test("paired_t", m).p_value, rtol=1e-12, atol=0)


def test_a_randomised_plugin_gets_the_experiments_seed_plus_its_own_offset(registry):
    seen = []

    def drawn(scores, permutations, seed):
        seen.append((permutations, seed))
        n = len(scores) * (len(scores) - 1) // 2
        return np.zeros(n), np.full(n, 0.5)

    register_test("drawn", drawn, randomised=True, seed_offset=7)
    table = pt.pairwise_tests_table(_matrices()[:1], ["drawn"], 40, 100)
    assert seen == [(40, 107)] and (table["p_value"] == 0.5).all()
    power = discriminative_power_table(_matrices()[:1], methods=["drawn"], pairwise=table, permutations=40)
    assert (power["permutations"] == 40).all()


@pytest.mark.parametrize("function,kwargs,message", [
    (my_t, {"name": "paired_t"}, "test paired_t is one irmeta ships"),
    (my_t, {"name": "my+t"}, "letters, digits and _"),
    (my_t, {"name": "holm"}, "a correction's name"),
    ("not callable", {"name": "x"}, "takes the function that computes it"),
    (lambda a, b, c: 0, {"name": "x"}, r"the function takes \(scores\)"),
    (my_t, {"name": "x", "randomised": "yes"}, "randomised is True or False"),
    (my_t, {"name": "x", "title": "two\nlines"}, "title is one line of text"),
])
def test_a_bad_registration_is_one_line(registry, function, kwargs, message):
    with pytest.raises(ValueError, match=message):
        register_test(function=function, **kwargs)


@pytest.mark.parametrize("body,message", [
    ("return np.zeros(3), np.full(3, 0.5)", r"returned statistic of shape \(3,\) where \(15,\)"),
    ("return np.zeros(15), np.full(15, np.nan)", "returned p-value nan for runs 0 and 1 .and 14 other pairs."),
    ("return np.zeros(15), np.full(15, 1.5)", "returned p-value 1.5"),
    ("return np.full(15, np.nan), np.full(15, 0.5)", "returned statistic nan"),
    ("raise RuntimeError('no luck')", r"test faulty \(plugin faulty_plugin.py:6\): RuntimeError: no luck"),
    ("return 'nothing'", "returned str where .statistic, p_value. was expected"),
])
def test_a_faulty_plugin_test_is_one_line_naming_it_and_its_file(registry, tmp_path, body, message):
    plugin = write(tmp_path / "faulty_plugin.py", "import numpy as np\nimport irmeta\n\n\ndef faulty(scores):\n"
                                                  f"    {body}\n\n\nirmeta.register_test('faulty', faulty)\n")
    load_plugins([str(plugin)])
    with pytest.raises(ValueError, match=message) as caught:
        run_test("faulty", np.random.default_rng(0).random((6, 4)))
    assert len(str(caught.value).splitlines()) == 1


def test_a_plugin_that_prints_cannot_corrupt_standard_output(registry, tmp_path, capsys):
    plugin = write(tmp_path / "chatty.py", "import irmeta\nfrom irmeta.metaeval.stats.paired_tests import paired_t\n"
                                           "print('hello from a plugin')\nirmeta.register_test('chatty', paired_t)\n")
    load_plugins([str(plugin)])
    out, err = capsys.readouterr()
    assert out == "" and "hello from a plugin" in err


def test_a_plugin_that_registers_nothing_is_warned_about(registry, tmp_path):
    plugin = write(tmp_path / "empty_plugin.py", "x = 1\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_plugins([str(plugin)], key="test_plugins")
    assert [str(w.message) for w in caught if w.category is PluginWarning] == [
        f"test_plugins: {plugin} registered no measure and no test"]


@pytest.mark.parametrize("entry,what", [("notes.txt", "a file"), ("folder/", "a folder"), ("a/b", "neither")])
def test_a_plugin_path_that_is_no_module_names_the_path(registry, tmp_path, entry, what):
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "folder").mkdir()
    with pytest.raises(ValueError) as caught:
        load_plugins([entry], tmp_path, "--plugin")
    assert str(caught.value) == (f"--plugin: {entry}: not a Python module: give a .py file or a dotted module "
                                 f"name (this is {what})")


# ------------------------------------------------------------------ compare and the claims


def test_compare_runs_a_plugin_test_given_with_plugin(registry, tmp_path, capsys, shared_data):
    plugin = write(tmp_path / "own_test_mine.py", "import irmeta\nfrom irmeta.metaeval.stats.paired_tests import "
                                                  "paired_t\n\n\ndef my_t(scores):\n    r = paired_t(scores)\n"
                                                  "    return r.statistic, r.p_value\n\n\n"
                                                  "irmeta.register_test('my_t', my_t)\n")
    runs = sorted((shared_data / "trec8_adhoc" / "runs").iterdir())[:4]
    common = ["compare", "--qrels", str(shared_data / "trec8_adhoc" / "qrels.txt"), "--runs", *map(str, runs),
              "--measure", "AP@100", "--format", "tsv", "--plugin", str(plugin)]
    tables = []
    for test in ("my_t", "paired_t"):
        assert main([*common, "--test", test]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        tables.append(out)
    assert tables[0] == tables[1]


def test_the_claims_judge_by_a_plugin_test(registry):
    register_test("my_t", my_t)
    tau = pd.DataFrame({"measure": ["P_rareness@10"], "baseline": ["P@10"], "alpha": ["1"], "tau": [0.95],
                        "tau_ap": [0.93]})
    power = pd.DataFrame({"measure": ["P@10", "P_rareness@10"] * 2, "alpha": ["", "1"] * 2,
                          "method": ["my_t+holm"] * 2 + ["paired_t+holm"] * 2, "level": [0.05] * 4,
                          "significant_pairs": [10, 12, 10, 12]})
    stability = pd.DataFrame({"measure": ["P@10", "P_rareness@10"], "alpha": ["", "1"],
                              "fuzziness_mode": ["absolute"] * 2, "fuzziness": [0.05] * 2, "stability": [0.9, 0.92]})
    table = claims_table({"C": {"kendall_tau": tau, "discriminative_power": power, "stability": stability}},
                         [{"measure": "P_rareness@10", "baseline": "P@10"}])
    rows = table[table["claim"] == "discriminative_power"].set_index("protocol")
    assert rows.loc["my_t+holm", "value"] == rows.loc["paired_t+holm", "value"] == 2


def test_register_test_is_part_of_the_api(registry):
    assert irmeta.register_test is register_test


@pytest.mark.parametrize("text,message", [
    ("test_plugins: [missing_plugin.py]\n", r"config.yaml: key 'test_plugins': missing_plugin.py: no such file"),
    ("experiments: {discriminative_power: {methods: [paired_t+holm]}}\n",
     r"key 'experiments.discriminative_power.methods.0': 'paired_t\+holm': name the test \(paired_t\) here and "
     r"its correction \(holm\) in experiments.discriminative_power.corrections"),
])
def test_a_config_naming_a_test_wrongly_is_one_line(registry, tmp_path, monkeypatch, text, message):
    from irmeta.pipeline.config_checks import load_config
    from irmeta.pipeline.config_schema import ConfigError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(tmp_path / "config.yaml")
    assert "\n" not in str(caught.value)


def test_compare_says_why_it_cannot_use_an_all_runs_test():
    from irmeta.comparison import compare_plan

    with pytest.raises(ValueError, match="paper_pairwise gives no p-value per pair of runs, so compare cannot use it"):
        compare_plan("paper_pairwise")
