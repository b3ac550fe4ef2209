"""irmeta.pipeline.config: the shipped configs pass, bad ones fail on one line naming the key or path."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from campaigns import REPO
from irmeta.measures.names import parse_measure as parse
from irmeta.pipeline.collection_config import (
    available_collections,
    load_collection,
    load_collections,
    resolve_data_root,
)
from irmeta.pipeline.collection_paths import check_collection_paths
from irmeta.pipeline.config_checks import load_config, validate_config
from irmeta.pipeline.config_schema import CONFIG_SCHEMA, ConfigError, schema_path
from irmeta.pipeline.experiment_settings import comparison_measures, experiment_seed, paired_tests, paper_settings

ROOT = REPO
CONFIG = ROOT / "config" / "config.yaml"
COLLECTIONS = ROOT / "config" / "collections"
SHIPPED = ["demo", "trec8", "clef_tar2017"]


def _write(path: Path, data: dict | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def _one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message, message
    return message


# ------------------------------------------------------------------------ shipped


def test_the_schemas_are_the_librarys_package_data():
    # one owner: the library ships them, the workflow reads them through it
    import irmeta

    assert schema_path().parent == Path(irmeta.__file__).parent / "pipeline" / "schemas"
    assert not (ROOT / "workflow" / "schemas").exists()


def test_shipped_config_is_valid():
    config = load_config(CONFIG)
    assert config["data_root"] == "../shared/data"
    assert config["collections"] == ["demo"]
    assert config["measures"][:2] == ["P@100", "AP@100"]
    assert "P_rareness@100" in config["measures"] and config["rarity_depth"] is None
    assert config["alphas"] == [0, 0.25, 0.5, 0.75, 1]
    assert config["averaging"] == ["all", "returned"]
    assert config["threads"] >= 1


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_collections_are_valid(name, shared_data):
    collection = load_collection(name, shared_data, COLLECTIONS, base_dir=ROOT)
    assert collection.name == name
    assert collection.source == COLLECTIONS / f"{name}.yaml"
    files = check_collection_paths(collection)
    if name == "demo":
        assert collection.simulated and collection.simulate["seed"] == 42
        assert collection.qrels is None and collection.runs == () and files == []
    else:
        assert not collection.simulated
        assert collection.qrels.is_file() and collection.qrels.is_relative_to(shared_data)


def test_trec8_and_clef_settings(shared_data):
    trec8 = load_collection("trec8", shared_data, COLLECTIONS, base_dir=ROOT)
    assert trec8.qrels == shared_data / "trec8_adhoc" / "qrels.txt"
    assert trec8.runs == (str(shared_data / "trec8_adhoc" / "runs"),)
    assert trec8.ingest_options() == {"depth": 1000, "duplicates": "error", "run_name": "file",
                                      "score_precision": "double"}
    assert trec8.threshold == 1
    assert len(check_collection_paths(trec8)) == 129

    clef = load_collection("clef_tar2017", shared_data, COLLECTIONS, base_dir=ROOT)
    assert clef.runs == (str(shared_data / "clef_tar2017" / "runs"), str(shared_data / "clef_tar2017" / "runs_extra"))
    assert clef.ingest_options() == {"depth": None, "duplicates": "first", "run_name": "file",
                                     "score_precision": "double"}
    assert len(check_collection_paths(clef)) == 19


def test_load_collections_checks_paths(shared_data, tmp_path):
    config = validate_config({"collections": SHIPPED, "data_root": str(shared_data)})
    collections = load_collections(config, COLLECTIONS, base_dir=ROOT)
    assert list(collections) == SHIPPED
    config["data_root"] = str(tmp_path)  # trec8 is not there
    # Its qrels have an official address (the workflow downloads them); its runs do not.
    with pytest.raises(FileNotFoundError, match=r"trec8\.yaml: key 'runs': .*trec8_adhoc/runs: no such file"):
        load_collections(config, COLLECTIONS, base_dir=ROOT)
    # With missing_data: skip, it is left out with a warning that says where runs come from.
    kept, warnings = available_collections(dict(config, missing_data="skip"), COLLECTIONS, base_dir=ROOT)
    assert "trec8" not in kept and "password from NIST" in " ".join(warnings)
    assert load_collections(config, COLLECTIONS, base_dir=ROOT, check_paths=False)["trec8"].qrels == (
        tmp_path / "trec8_adhoc" / "qrels.txt")


@pytest.mark.parametrize("data", [
    {},
    {"collections": ["trec8"], "threads": 4},
    {"experiments": {"stability": {"trials": 10}, "swap": {"sampling": "disjoint"}}},
    *(yaml.safe_load((ROOT / "config" / name).read_text()) for name in ("config.yaml", "paper.yaml", "measures.yaml")),
], ids=["empty", "top-level", "nested", "config.yaml", "paper.yaml", "measures.yaml"])
def test_library_and_snakemake_agree_on_defaults(data):
    """The workflow validates once, with irmeta.pipeline.config, and relies on it filling in
    exactly what snakemake.utils.validate would; then the test registry's default methods."""
    from snakemake.utils import validate

    from irmeta.pipeline.config_schema import validate as schema_validate

    ours = schema_validate(data, CONFIG_SCHEMA, source="config")
    theirs = copy.deepcopy(data)
    validate(theirs, str(schema_path(CONFIG_SCHEMA)))
    assert ours == theirs
    assert ours["experiments"]["stability"]["fuzziness"]  # nested defaults are filled in too
    checked = validate_config(data)
    given = ((data.get("experiments") or {}).get("discriminative_power") or {}).get("methods")
    assert checked["experiments"]["discriminative_power"]["methods"] == given or [
        "paper_pairwise", "tukey_hsd", "randomised_tukey_hsd", "paired_t", "wilcoxon", "sign", "randomisation",
        "paired_bootstrap"]


# ----------------------------------------------------------------------- defaults


def test_config_defaults(tmp_path):
    config = load_config(_write(tmp_path / "config.yaml", "# nothing set\n"))
    experiments = config.pop("experiments")
    # The paper's settings: 1000 trials each, fuzziness 0.05, three discriminative-power methods.
    assert experiments["stability"]["trials"] == experiments["system_subsampling"]["trials"] == 1000
    assert experiments["discriminative_power"]["permutations"] == 1000
    assert experiments["stability"]["fuzziness"][0] == {"mode": "absolute", "value": 0.05}
    assert experiments["discriminative_power"]["methods"] == ["paper_pairwise", "tukey_hsd", "randomised_tukey_hsd",
                                                              "paired_t", "wilcoxon", "sign", "randomisation",
                                                              "paired_bootstrap"]
    assert experiments["discriminative_power"]["corrections"] == ["none", "holm", "bh"]
    assert experiments["discriminative_power"]["randomised_p"] == "count"  # count / B, as Sakai and Carterette
    assert experiments["kendall_tau"] == {"tau_ap": ["reference"],  # the baseline as the reference ranking
                                          "bootstrap_samples": 1000, "rbo_p": 0.9,
                                          "ties": []}  # no tie-aware variant beside tau-b, tau_AP, RBO
    assert experiments["asl"] == {"enabled": True, "unretrieved": "plus_one", "pair": None}
    assert experiments["swap"]["measures"] == ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100"]
    assert experiments["synthetic"] == {"measure": "P_rareness@100", "alphas": [0, 0.5, 1], "max_relevant": 45,
                                        "rare_systems": ["protocol", "paper_script"]}
    assert config == {
        "data_root": "../shared/data",
        "collections": ["demo"],
        "measures": ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100",
                     "P_rareness_norm@100", "AP_rareness_norm@100"],
        "alphas": [0, 0.25, 0.5, 0.75, 1],
        "rarity_depth": None,
        "missing_data": "error",
        "measure_options": {"gains": None, "beta": 1, "asl_unretrieved": "paper"},
        "measure_plugins": [],
        "test_plugins": [],
        "imported_measures": {},
        "averaging": ["all", "returned"],
        "threads": 2,
        "ingest_shards": 1,
    }
    assert experiments["judgment_agreement"] == {
        "level": 0.05, "pool_depths": [10, 20, 50], "judgment_fractions": [0.1, 0.2, 0.3, 0.5], "trials": 20,
        "assessor_errors": [0.1, 0.2, 0.3], "family_permutations": 10000, "ties": []}
    assert experiments["claims"] == {"tau_threshold": 0.9}


def test_collection_defaults_and_paths(tmp_path):
    (tmp_path / "data" / "c" / "runs").mkdir(parents=True)
    _write(tmp_path / "data" / "c" / "qrels.txt", "1 0 d1 1\n")
    _write(tmp_path / "data" / "c" / "runs" / "r1", "1 Q0 d1 1 1.0 r1\n")
    _write(tmp_path / "data" / "c" / "runs" / "r2", "1 Q0 d1 1 1.0 r2\n")
    _write(tmp_path / "local.qrels", "1 0 d1 1\n")
    _write(tmp_path / "conf" / "c.yaml",
           {"name": "c", "qrels": "{data_root}/c/qrels.txt", "runs": "{data_root}/c/runs"})
    _write(tmp_path / "conf" / "d.yaml", {"name": "d", "qrels": "local.qrels", "runs": ["data/c/runs/r*"]})

    c = load_collection("c", "data", tmp_path / "conf", base_dir=tmp_path)  # relative data_root
    assert c.qrels == tmp_path / "data" / "c" / "qrels.txt"
    assert c.runs == (str(tmp_path / "data" / "c" / "runs"),)
    assert (c.depth, c.threshold, c.duplicates, c.run_name) == (None, 1, "error", "file")
    assert (c.run_groups, c.simulate, c.description) == (None, None, "")
    assert check_collection_paths(c) == [tmp_path / "data" / "c" / "runs" / n for n in ("r1", "r2")]

    d = load_collection(tmp_path / "conf" / "d.yaml", "/nowhere", base_dir=tmp_path)
    assert d.qrels == tmp_path / "local.qrels"  # no {data_root}: relative to base_dir
    assert check_collection_paths(d) == [tmp_path / "data" / "c" / "runs" / n for n in ("r1", "r2")]


def test_resolve_data_root(tmp_path):
    assert resolve_data_root("../shared/data", tmp_path / "repo") == tmp_path / "shared" / "data"
    assert resolve_data_root(tmp_path / "x", "/elsewhere") == tmp_path / "x"


# ------------------------------------------------------------------------- errors


def test_unknown_collection_key_is_named(tmp_path):
    path = _write(tmp_path / "c.yaml", {"name": "c", "qrels": "q", "runs": "r", "depht": 100})
    with pytest.raises(ConfigError) as exc:
        load_collection(path, tmp_path)
    message = _one_line(exc)
    assert "'depht'" in message and str(path) in message


def test_unknown_simulate_key_is_named(tmp_path):
    path = _write(tmp_path / "c.yaml", {"name": "c", "simulate": {"seed": 1, "n_run": 5}})
    with pytest.raises(ConfigError, match=r"unknown key 'n_run' in 'simulate'"):
        load_collection(path, tmp_path)


def test_unknown_config_key_is_named(tmp_path):
    path = _write(tmp_path / "config.yaml", {"colections": ["demo"]})
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    message = _one_line(exc)
    assert "'colections'" in message and str(path) in message


@pytest.mark.parametrize("data, key", [
    ({"name": "c", "qrels": "q"}, "missing key 'runs'"),
    ({"name": "c", "qrels": "q", "runs": "r", "duplicates": "last"}, "key 'duplicates'"),
    ({"name": "c", "qrels": "q", "runs": "r", "depth": 0}, "key 'depth'"),
    ({"name": "c", "qrels": "q", "runs": 3}, "key 'runs'"),
    ({"name": "c", "qrels": "q", "runs": "r", "run_name": "title"}, "key 'run_name'"),
    ({"name": "other", "qrels": "q", "runs": "r"}, "key 'name'"),
    ({"name": "c", "simulate": {"seed": 1}, "qrels": "q"}, "key 'qrels' is not allowed with 'simulate'"),
    ({"name": "c", "qrels": "{root}/q", "runs": "r"}, "unknown placeholder {root}"),
    ({"name": "c", "scores": {"path": "s.tsv", "format": "csv"}}, "key 'scores.format'"),
    ({"name": "c", "scores": {"path": "s.tsv", "missing": "nan"}}, "key 'scores.missing'"),
    ({"name": "c", "scores": {"format": "irmeta"}}, "missing key 'path' in 'scores'"),
    ({"name": "c", "scores": "s.tsv"}, "key 'scores'"),
    ({"name": "c", "runs": "r", "scores": {"path": "s.tsv"}}, "missing key 'qrels'"),
    ({"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {"bad name": "x"}}, "alternative_qrels"),
    ({"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {}}, "alternative_qrels"),
    ({"name": "c", "scores": {"path": "s.tsv"}, "alternative_qrels": {"x": "x"}}, "not allowed"),
    ({"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {"a/b": "x"}}, "'a/b'"),
    ({"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {"..": "x"}}, "'..'"),
    ({"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {"": "x"}}, "''"),
])
def test_bad_collection_values_are_named(tmp_path, data, key):
    path = _write(tmp_path / "c.yaml", data)
    with pytest.raises(ConfigError) as exc:
        load_collection(path, tmp_path)
    message = _one_line(exc)
    assert key in message and str(path) in message


@pytest.mark.parametrize("data, key", [
    ({"measures": ["nDCG@x"]}, "key 'measures.0'"),
    ({"measures": ["XYZ@10"]}, "unknown measure 'XYZ@10'"),
    ({"averaging": ["mean"]}, "key 'averaging.0'"),
    ({"threads": 0}, "key 'threads'"),
    ({"alphas": ["much"]}, "key 'alphas.0'"),
    ({"experiments": {"discriminative_power": {"methods": ["t_test"]}}},
     "key 'experiments.discriminative_power.methods.0'"),
    ({"experiments": {"discriminative_power": {"corrections": ["sidak"]}}},
     "key 'experiments.discriminative_power.corrections.0'"),
    ({"experiments": {"discriminative_power": {"corrections": []}}},
     "key 'experiments.discriminative_power.corrections'"),
])
def test_bad_config_values_are_named(tmp_path, data, key):
    with pytest.raises(ConfigError) as exc:
        load_config(_write(tmp_path / "config.yaml", data))
    assert key in _one_line(exc)


@pytest.mark.parametrize("data, key", [
    ({"measures": ["P@100", "AP@100"]}, "key 'experiments.comparisons.0.measure': 'P_rareness@100' is not in measures"),
    ({"experiments": {"comparisons": [{"measure": "P_rareness@100", "baseline": "RR"}]}},
     "key 'experiments.comparisons.0.baseline': 'RR' is not in measures"),
    ({"experiments": {"swap": {"measures": ["P@100", "nDCG@10"]}}}, "key 'experiments.swap.measures.1': 'nDCG@10'"),
])
def test_experiments_on_unscored_measures_are_named(tmp_path, data, key):
    """The experiments read scores.npz, which holds the configured measures only: a
    comparison or swap measure outside them stops the workflow at parse time."""
    path = _write(tmp_path / "config.yaml", data)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    message = _one_line(exc)
    assert key in message and message.startswith(f"{path}: ")


def test_what_the_rules_derive_from_the_config(shared_data):
    config = load_config(ROOT / "config" / "measures.yaml")
    assert comparison_measures(config)[:4] == ["P@100", "P_rareness@100", "AP@100", "AP_rareness@100"]
    assert len(comparison_measures(config)) == len(set(comparison_measures(config)))
    # The offsets the published tables were drawn with (docs/statistics.md, Randomness).
    seed = config["experiments"]["seed"]
    assert [experiment_seed(config, e) - seed for e in
            ("stability", "discriminative_power", "system_subsampling", "swap_sensitivity",
             "kendall_tau", "pairwise_tests", "judgment_reduction")] == [0, 1, 2, 3, 4, 5, 6]
    assert paired_tests(config) == ["paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap"]
    with pytest.raises(ValueError, match="no randomised experiment 'synthetic_rare_common'"):
        experiment_seed(config, "synthetic_rare_common")

    trec8 = load_collection("trec8", shared_data, COLLECTIONS, base_dir=ROOT)
    settings = paper_settings(config, {"trec8": trec8})
    assert list(settings) == ["TREC-8"]
    assert settings["TREC-8"]["collection"] == "trec8" and settings["TREC-8"]["depth"] == 1000
    assert settings["TREC-8"]["seed"] == seed and settings["TREC-8"]["rarity_depth"] == "the cutoff"
    assert settings["TREC-8"]["stability_fuzziness"] == config["experiments"]["stability"]["fuzziness"]


def test_missing_qrels_path_is_named(tmp_path):
    (tmp_path / "runs").mkdir()
    _write(tmp_path / "runs" / "r1", "1 Q0 d1 1 1.0 r1\n")
    path = _write(tmp_path / "c.yaml",
                  {"name": "c", "qrels": "{data_root}/missing/qrels.txt", "runs": "{data_root}/runs"})
    collection = load_collection(path, tmp_path)
    with pytest.raises(FileNotFoundError) as exc:
        check_collection_paths(collection)
    message = _one_line(exc)
    assert str(tmp_path / "missing" / "qrels.txt") in message
    assert "'qrels'" in message and str(path) in message


@pytest.mark.parametrize("runs", ["{data_root}/nope", "{data_root}/empty", "{data_root}/x*.gz"])
def test_missing_runs_are_named(tmp_path, runs):
    (tmp_path / "empty").mkdir()
    _write(tmp_path / "qrels.txt", "1 0 d1 1\n")
    path = _write(tmp_path / "c.yaml", {"name": "c", "qrels": "{data_root}/qrels.txt", "runs": [runs]})
    with pytest.raises(FileNotFoundError) as exc:
        check_collection_paths(load_collection(path, tmp_path))
    message = _one_line(exc)
    assert runs.replace("{data_root}", str(tmp_path)) in message and "'runs'" in message and str(path) in message


def test_missing_run_groups_and_collection_file(tmp_path):
    _write(tmp_path / "qrels.txt", "1 0 d1 1\n")
    _write(tmp_path / "r1", "1 Q0 d1 1 1.0 r1\n")
    _write(tmp_path / "r2", "1 Q0 d1 1 1.0 r2\n")
    path = _write(tmp_path / "c.yaml", {"name": "c", "qrels": "{data_root}/qrels.txt", "runs": "{data_root}/r[12]",
                                        "run_groups": "{data_root}/groups.tsv"})
    with pytest.raises(FileNotFoundError, match=r"key 'run_groups': .*groups\.tsv: no such file"):
        check_collection_paths(load_collection(path, tmp_path))
    with pytest.raises(FileNotFoundError, match=r"collection 'absent': .*absent\.yaml: no such file"):
        load_collection("absent", tmp_path, tmp_path)


def test_invalid_yaml_is_one_line(tmp_path):
    path = _write(tmp_path / "c.yaml", "name: [unclosed\n")
    with pytest.raises(ConfigError) as exc:
        load_collection(path, tmp_path)
    assert "not valid YAML" in _one_line(exc)


def test_measure_options_become_parameters_of_the_names():
    from irmeta.pipeline.config_checks import with_measure_options

    config = {
        "measures": ["nDCG@10", "P_100", "Q@100", "nDCG(gains={1:5})@5", "ASL"],
        "measure_options": {"gains": {1: 1, 2: 3}, "beta": 1, "asl_unretrieved": "depth"},
        "experiments": {"comparisons": [{"measure": "nDCG@10", "baseline": "P_100"}], "swap": {"measures": ["Q@100"]}},
    }
    named = with_measure_options(config)
    assert named["measures"] == ["nDCG(gains={1:1,2:3})@10", "P@100", "Q(gains={1:1,2:3})@100",
                                 "nDCG(gains={1:5})@5", "ASL(asl_unretrieved=depth)"]
    assert named["experiments"]["comparisons"] == [{"measure": "nDCG(gains={1:1,2:3})@10", "baseline": "P@100"}]
    assert named["experiments"]["swap"]["measures"] == ["Q(gains={1:1,2:3})@100"]
    assert config["measures"][0] == "nDCG@10"  # a copy
    # the shipped defaults (gain = grade, beta 1, eq. 3 as printed) leave every name as written
    defaults = dict(config, measure_options={"gains": None, "beta": 1, "asl_unretrieved": "paper"})
    assert with_measure_options(defaults)["measures"][2:] == ["Q@100", "nDCG(gains={1:5})@5", "ASL"]


def test_averaging_without_all_is_refused_before_any_job():
    # The experiments read means over every qrels topic; without them a job would fail
    # with a KeyError deep in a script.
    from irmeta.pipeline.config_checks import check_config

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    checked = validate_config(config, "config.yaml")
    with pytest.raises(ConfigError, match=r"config.yaml: key 'averaging': \['returned'\] lacks 'all'"):
        check_config(dict(checked, averaging=["returned"]), "config.yaml")


# ------------------------------------------------- bring your own scores and judgments


def test_a_collection_of_scores_only_and_one_with_other_judgments(tmp_path):
    _write(tmp_path / "data" / "scores.tsv", "run\tmeasure\tqid\tvalue\n")
    _write(tmp_path / "data" / "shallow.txt", "1 0 d1 1\n")
    _write(tmp_path / "data" / "q.txt", "1 0 d1 1\n")
    for run in ("r1", "r2"):
        _write(tmp_path / "data" / "runs" / run, f"1 Q0 d1 1 1.0 {run}\n")
    _write(tmp_path / "conf" / "s.yaml", {"name": "s", "scores": {"path": "{data_root}/scores.tsv"}})
    _write(tmp_path / "conf" / "j.yaml", {"name": "j", "qrels": "{data_root}/q.txt", "runs": "{data_root}/runs",
                                          "alternative_qrels": {"shallow": "{data_root}/shallow.txt"}})
    s = load_collection("s", "data", tmp_path / "conf", base_dir=tmp_path)
    assert (s.scores, s.scores_format, s.scores_missing) == (tmp_path / "data" / "scores.tsv", "auto", "error")
    assert not s.has_runs and s.qrels is None and check_collection_paths(s) == []
    j = load_collection("j", "data", tmp_path / "conf", base_dir=tmp_path)
    assert j.has_runs and j.alternative_qrels == {"shallow": tmp_path / "data" / "shallow.txt"}
    assert len(check_collection_paths(j)) == 2

    (tmp_path / "data" / "shallow.txt").unlink()
    with pytest.raises(FileNotFoundError) as exc:
        check_collection_paths(j)
    assert "key 'alternative_qrels.shallow'" in _one_line(exc) and "no such file" in str(exc.value)
    (tmp_path / "data" / "scores.tsv").unlink()
    with pytest.raises(FileNotFoundError) as exc:
        check_collection_paths(s)
    assert "key 'scores.path'" in _one_line(exc)


@pytest.mark.parametrize("data, key", [
    ({"imported_measures": {"nugget": "better"}}, "key 'imported_measures.nugget'"),
    ({"imported_measures": {"9lives": "higher"}}, "imported_measures"),
    ({"experiments": {"claims": {"tau_threshold": 2}}}, "key 'experiments.claims.tau_threshold'"),
    ({"experiments": {"judgment_agreement": {"level": 0}}}, "key 'experiments.judgment_agreement.level'"),
])
def test_bad_new_config_values_are_named(tmp_path, data, key):
    with pytest.raises(ConfigError) as exc:
        load_config(_write(tmp_path / "config.yaml", data))
    assert key in _one_line(exc)


def test_imported_measures_need_a_scores_file_and_a_name_of_their_own(tmp_path):
    from irmeta.pipeline.collection_config import check_collection_measures
    from irmeta.pipeline.config_checks import imported_only

    config = validate_config({"imported_measures": {"nugget_recall": "lower"},
                              "measures": ["P@100", "nugget_recall"],
                              "experiments": {"comparisons": [{"measure": "nugget_recall", "baseline": "P@100"}],
                                              "swap": {"measures": []}}}, "c.yaml")
    assert imported_only("nugget_recall") and not imported_only("P@100")
    assert not parse("nugget_recall").higher_is_better  # every experiment reads its direction
    _write(tmp_path / "s.tsv", "run\tmeasure\tqid\tvalue\n")
    for run in ("r1", "r2"):
        _write(tmp_path / "runs" / run, f"1 Q0 d1 1 1.0 {run}\n")
    _write(tmp_path / "q.txt", "1 0 d1 1\n")
    runs_only = load_collection(_write(tmp_path / "a.yaml", {"name": "a", "qrels": "q.txt", "runs": "runs"}),
                                tmp_path, base_dir=tmp_path)
    with pytest.raises(ConfigError) as exc:
        check_collection_measures(runs_only, config)
    assert "measure nugget_recall comes only from a scores file" in _one_line(exc)
    beside = load_collection(_write(tmp_path / "b.yaml", {"name": "b", "qrels": "q.txt", "runs": "runs",
                                                          "scores": {"path": "s.tsv"}}), tmp_path, base_dir=tmp_path)
    check_collection_measures(beside, config)
    with pytest.raises(ConfigError) as exc:  # beside runs, a scores file without imported measures gives nothing
        check_collection_measures(beside, validate_config({}, "c.yaml"))
    assert "key 'scores'" in _one_line(exc)
    with pytest.raises(ConfigError) as exc:
        validate_config({"imported_measures": {"AP": "higher"}}, "c.yaml")
    assert "irmeta computes AP itself" in _one_line(exc)


@pytest.mark.parametrize(("experiments", "key"), [
    ({"discriminative_power": {"randomised_p": "plus-one"}}, "randomised_p"),
    ({"kendall_tau": {"tau_ap": []}}, "tau_ap"),
    ({"kendall_tau": {"tau_ap": ["reference", "reverse"]}}, "tau_ap"),
    ({"kendall_tau": {"tau_ap": ["symmetric", "symmetric"]}}, "tau_ap"),
    ({"kendall_tau": {"tau_ap": ["symmetric"]}}, "tau_ap"),  # the figures, summary and claims read tau_ap
    ({"kendall_tau": {"tau_AP": ["symmetric"]}}, "tau_AP"),
])
def test_protocol_choice_keys_refuse_other_values(experiments, key):
    with pytest.raises(ConfigError) as exc:
        validate_config({"experiments": experiments}, "c.yaml")
    assert key in _one_line(exc)


def test_protocol_choice_keys_take_their_values():
    config = validate_config({"rarity_depth": 1000,
                              "experiments": {"discriminative_power": {"randomised_p": "plus_one"},
                                              "kendall_tau": {"tau_ap": ["reference", "symmetric"]}}}, "c.yaml")
    assert config["rarity_depth"] == 1000
    assert config["experiments"]["discriminative_power"]["randomised_p"] == "plus_one"
    assert config["experiments"]["discriminative_power"]["permutations"] == 1000  # the others keep their defaults
    assert config["experiments"]["kendall_tau"]["tau_ap"] == ["reference", "symmetric"]


def test_paired_tests_and_corrections_are_configured(tmp_path):
    """experiments.discriminative_power takes the paired tests beside the paper's three,
    and the corrections they are combined with; without a paired test there is none."""
    config = load_config(_write(tmp_path / "config.yaml", {"experiments": {"discriminative_power": {
        "methods": ["tukey_hsd", "sign", "paired_bootstrap"], "corrections": ["bonferroni", "none"]}}}))
    assert paired_tests(config) == ["sign", "paired_bootstrap"]
    assert config["experiments"]["discriminative_power"]["corrections"] == ["bonferroni", "none"]
    paper_only = load_config(_write(tmp_path / "paper.yaml", {"experiments": {"discriminative_power": {
        "methods": ["paper_pairwise"]}}}))
    assert paired_tests(paper_only) == []


@pytest.mark.parametrize("name", ["qrels", "QRELS", "pool_depth_10", "pool_depth_7", "fraction_0.5_trial_0",
                                  "fraction_0.5"])
def test_alternative_judgments_may_not_take_a_name_the_results_use(tmp_path, name):
    data = {"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {"other": "o", name: "x"}}
    path = _write(tmp_path / "c.yaml", data)
    with pytest.raises(ConfigError) as exc:
        load_collection(path, tmp_path)
    message = _one_line(exc)
    assert f"{path}: key 'alternative_qrels.{name}': {name!r}" in message and "rename it" in message


def test_alternative_judgments_of_other_names_are_read(tmp_path):
    data = {"name": "c", "qrels": "q", "runs": "r", "alternative_qrels": {"qrels2": "x", "depth_10": "y"}}
    collection = load_collection(_write(tmp_path / "c.yaml", data), tmp_path, base_dir=tmp_path)
    assert collection.alternative_qrels == {"qrels2": tmp_path / "x", "depth_10": tmp_path / "y"}


def test_peer_measure_names_are_read_as_irmetas(tmp_path):
    """trec_eval's, ir_measures' and ranx's names pass the schema and are read as irmeta's (issue 29)."""
    data = {"measures": ["ndcg_cut.10", "NDCG@20", "r-precision", "P.100", "map@100", "P_rareness@100"],
            "experiments": {"comparisons": [{"measure": "P_rareness@100", "baseline": "P.100"}],
                            "swap": {"measures": ["mrr@10"]}}}
    data["measures"].append("mrr@10")
    config = load_config(_write(tmp_path / "config.yaml", data))
    assert config["measures"] == ["nDCG@10", "nDCG@20", "Rprec", "P@100", "AP@100", "P_rareness@100", "RR@10"]
    assert config["experiments"]["swap"]["measures"] == ["RR@10"]
    assert config["experiments"]["comparisons"] == [{"measure": "P_rareness@100", "baseline": "P@100"}]
    with pytest.raises(ConfigError, match=r"key 'measures.1': 'NDCG@10' is nDCG@10, given already as measures.0"):
        load_config(_write(tmp_path / "twice.yaml", dict(data, measures=["ndcg_cut.10", "NDCG@10"])))


def test_score_precision_is_a_collection_setting_of_the_ingestion(tmp_path):
    """score_precision (issue 29): double by default, float32 read into the ingestion's
    options (the ingest rules' params, so changing it ingests again) and the paper's settings."""
    from irmeta.pipeline.experiment_settings import paper_settings

    (tmp_path / "runs").mkdir()
    _write(tmp_path / "qrels.txt", "1 0 d1 1\n")
    _write(tmp_path / "runs" / "r1", "1 Q0 d1 1 1.0 r1\n")
    _write(tmp_path / "conf" / "c.yaml", {"name": "c", "qrels": "qrels.txt", "runs": "runs"})
    _write(tmp_path / "conf" / "e.yaml", {"name": "e", "qrels": "qrels.txt", "runs": "runs",
                                          "score_precision": "float32"})
    c = load_collection("c", tmp_path, tmp_path / "conf", base_dir=tmp_path)
    e = load_collection("e", tmp_path, tmp_path / "conf", base_dir=tmp_path)
    assert (c.score_precision, e.ingest_options()["score_precision"]) == ("double", "float32")
    config = load_config(_write(tmp_path / "config.yaml", {}))
    assert [s["score_precision"] for s in paper_settings(config, {"c": c, "e": e}).values()] == ["double", "float32"]
    _write(tmp_path / "conf" / "f.yaml", {"name": "f", "qrels": "qrels.txt", "runs": "runs", "score_precision": "half"})
    with pytest.raises(ConfigError) as exc:
        load_collection("f", tmp_path, tmp_path / "conf", base_dir=tmp_path)
    assert "score_precision" in _one_line(exc) and "half" in _one_line(exc)
