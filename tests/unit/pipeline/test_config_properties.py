"""Property tests of the workflow's configuration (issue 26, ask 7): a config or collection
drawn from its JSON schema, hostile values mixed in (tests/schema_strategies.py), either
passes the parse stage (what workflow/rules/common.smk does at parse time, through the
library) or is refused with one line, a ConfigError/ValueError (FileNotFoundError for a
missing path) naming the file; any other exception, a traceback or a second line is a bug.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from irmeta.pipeline import collection_config, config_checks, config_schema
from irmeta.pipeline.config_schema import COLLECTION_SCHEMA
from parse_stage import CONFIGS, PROPERTY, SOURCE, _workdir, assert_one_line_refusal, check_verdict
from schema_strategies import from_schema


@PROPERTY
@given(config=CONFIGS)
# counterexamples found, each fixed in the library:
@pytest.mark.slow
@example(config={"measure_plugins": ["no_such_plugin_module"]})  # named neither the config nor its key
@example(config={"measure_plugins": ["a\nb"]})  # the plugin's name split the message in two lines
@example(config={"test_plugins": [""]})  # "key 'test_plugins': : not a Python module"
@example(config={"collections": ["demo", "absent"]})  # a missing collection file named no config nor key
@example(config={"experiments": {"swap": {"alphas": [1e300]}}})  # "alpha 1e+300 is above ..." named no key
@example(config={"experiments": {"judgment_agreement": {"trials": 10**12}}})  # listed 4e12 names: out of memory
def test_a_drawn_config_passes_the_parse_stage_or_is_refused_in_one_line(tmp_path_factory, config):
    workdir = _workdir(tmp_path_factory.mktemp("cfg"))
    checked = check_verdict(config, SOURCE, workdir)
    if checked is not None:  # what passes is what the jobs read: checked again, it is the same
        assert config_checks.check_config(copy.deepcopy(checked), SOURCE)["measures"] == checked["measures"]


#: Hand-made hostile values, each at its key: (key path, value).
HOSTILE = [
    ("measures", ["P_10", "P@10"]), ("measures", ["P@10", "P@10"]), ("measures", []), ("measures", "P@10"),
    ("measures", ["RBP(p=1)"]), ("measures", ["P@10\t"]), ("measures", ["P@10\nAP"]), ("measures", [None]),
    ("alphas", [0.5, "0.50"]), ("alphas", [float("nan")]), ("alphas", [float("inf")]), ("alphas", [1e308]),
    ("alphas", ["1e-9"]), ("alphas", ["1e-9", 1e-9]), ("alphas", []), ("alphas", [True]), ("alphas", [-1]),
    ("experiments.seed", float("nan")), ("experiments.seed", "1e3"), ("experiments.seed", -1),
    ("experiments.seed", 10**30), ("experiments.shards", 10**6), ("experiments.shards", float("inf")),
    ("experiments.shards", "2"), ("experiments.shards", 0), ("experiments.shards", True),
    ("experiments.judgment_agreement.trials", 10**12), ("experiments.judgment_agreement.level", float("nan")),
    ("experiments.judgment_agreement.judgment_fractions", [0.1, 0.10000000000001]),
    ("experiments.judgment_agreement.pool_depths", [10, 10.0]),
    ("experiments.discriminative_power.levels", [0.05, float("nan")]),
    ("experiments.discriminative_power.methods", []), ("experiments.discriminative_power.methods", ["paired_t"] * 2),
    ("experiments.discriminative_power.corrections", ["holm", "holm"]),
    ("experiments.stability.fuzziness", [{"mode": "absolute", "value": float("inf")}]),
    ("experiments.comparisons", []), ("experiments.comparisons", [{"measure": "P@10"}]),
    ("experiments.comparisons", [{"measure": "P_10", "baseline": "AP"}, {"measure": "P@10", "baseline": "AP"}]),
    ("experiments.swap.measures", ["P_10"]), ("experiments.swap.alphas", [float("nan")]),
    ("experiments.swap.bin_width", 1e-300), ("experiments.topic_set_size.alpha_level", "1e-9"),
    ("experiments.topic_set_size.beta", 0.99), ("experiments.asl.pair", ["a", "a"]),
    ("experiments.synthetic.measure", "P_rareness@0"), ("experiments.system_subsampling.largest", 10**40),
    ("measure_options.gains", {"a": 1}), ("measure_options.gains", {1: float("nan")}),
    ("measure_options.gains", {1: float("inf")}), ("measure_options.beta", float("inf")),
    ("imported_measures", {"P": "higher"}), ("imported_measures", {"nugget": "sideways"}),
    ("collections", ["demo\t"]), ("collections", ["../demo"]), ("collections", ["absent"]),
    ("data_root", ""), ("data_root", "a\nb"), ("rarity_depth", 0), ("rarity_depth", "1e3"),
    ("averaging", ["returned"]), ("averaging", ["all", "all"]), ("threads", 1.5), ("unknown_key", 1),
    ("experiments.unknown", {}), ("measure_plugins", ["no_such_plugin_module"]), ("test_plugins", ["missing.py"]),
    ("", None), ("", []), ("", "text"),
]


def _with(key: str, value: Any) -> Any:
    if not key:
        return value
    config: dict = {}
    node = config
    *parents, last = key.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return config


@pytest.mark.parametrize("key, value", HOSTILE, ids=[f"{k}={v!r}"[:60] for k, v in HOSTILE])
def test_a_hostile_value_passes_or_is_refused_in_one_line(tmp_path, key, value):
    checked = check_verdict(_with(key, value), SOURCE, _workdir(tmp_path))
    if checked is not None and key.startswith(("measures", "alphas", "experiments.comparisons")):
        assert len(set(map(str, checked["measures"]))) == len(checked["measures"])  # no measure twice


# ----------------------------------------------------------------------------- collections

def _collection_strategy() -> st.SearchStrategy:
    """A collection file: drawn from the schema, or one of the three shapes (runs, simulated,
    scores only) with drawn keys laid over it; paths mostly to files that exist."""
    def paths(good: str) -> st.SearchStrategy:
        return st.sampled_from([good] * 6 + ["qrels.txt", "absent.txt", "runs/*.gz", "{other}/x", "", "a\tb",
                                             "a\nb", "{data_root}/absent/", "~/x", "{data_root}/runs/r1.gz"])

    hints = {"name": st.sampled_from(["coll"] * 8 + ["other", "coll\t", "", 3]),
             "qrels": paths("{data_root}/qrels.txt"),
             "runs": st.one_of(paths("{data_root}/runs"), st.lists(paths("{data_root}/runs/*.gz"), max_size=3)),
             "run_groups": paths("{data_root}/groups.tsv"), "expected_runs": paths("{data_root}/groups.tsv"),
             "scores.path": paths("{data_root}/scores.tsv"), "alternative_qrels.*": paths("{data_root}/qrels.txt"),
             "alternative_qrels": st.dictionaries(st.sampled_from(["shallow", "qrels", "QRELS", "pool_depth_10",
                                                                   "fraction_x", "a b"]),
                                                  paths("{data_root}/qrels.txt"), max_size=2)}
    drawn = from_schema(config_schema.load_schema(COLLECTION_SCHEMA), hints=hints)
    shapes = st.sampled_from([{"name": "coll", "qrels": "{data_root}/qrels.txt", "runs": "{data_root}/runs"},
                              {"name": "coll", "simulate": {"seed": 1}},
                              {"name": "coll", "scores": {"path": "{data_root}/scores.tsv"}}])
    laid = st.tuples(shapes, drawn).map(lambda pair: {**pair[0], **{k: v for k, v in pair[1].items()
                                                                     if k != "name" or v != "coll"}})
    return st.one_of(drawn, laid, laid)


def _data(root: Path) -> None:
    (root / "runs").mkdir(parents=True, exist_ok=True)
    (root / "qrels.txt").write_text("401 0 d1 1\n401 0 d2 0\n")
    for run in ("r1.gz", "r2.gz"):
        (root / "runs" / run).write_bytes(b"")
    (root / "groups.tsv").write_text("run\tgroup\nr1\tg\n")
    (root / "scores.tsv").write_text("run\tmeasure\tqid\tvalue\nr1\tP@10\t401\t0.5\n")


@pytest.mark.slow
@PROPERTY
@given(collection=_collection_strategy())
@example(collection={"name": "coll", "simulate": {}, "scores": {"path": "x"}})  # "the value {...} is not allowed
@example(collection={"name": "coll", "scores": {"path": "x"}, "run_groups": "g"})  # where it is": no key named
@example(collection={"name": "coll", "scores": {"path": "a\nb"}})  # "key 'scores.path': /w/a<newline>b: no such file"
def test_a_drawn_collection_loads_or_is_refused_in_one_line(tmp_path_factory, collection):
    """load_collection on a real file (named coll.yaml: a drawn name may differ), its paths
    resolved against a data root holding a qrels file and a run; then the path checks
    and the measure checks common.smk makes."""
    workdir = tmp_path_factory.mktemp("coll")
    _data(workdir / "data")
    folder = workdir / "config" / "collections"
    folder.mkdir(parents=True)
    path = folder / "coll.yaml"
    path.write_text(yaml.safe_dump(collection, allow_unicode=True))
    config = config_checks.validate_config({"collections": ["coll"], "data_root": "data"}, SOURCE)
    try:
        loaded = collection_config.load_collection("coll", "data", folder, base_dir=workdir)
        collection_config.check_collection_paths(loaded)
        collection_config.check_collection_measures(loaded, config)
    except (ValueError, FileNotFoundError) as exc:
        assert_one_line_refusal(exc, str(path))
        return
    assert loaded.name == "coll" and all(Path(p).is_absolute() for p in loaded.runs)
