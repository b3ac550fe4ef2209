"""The workflow's parse stage as the property tests drive it: what
workflow/rules/common.smk does with a config at parse time, through the library, and
configs drawn from config.schema.yaml with realistic and hostile values
(tests/unit/pipeline/test_config_properties.py, tests/integration/test_config_verdicts.py)."""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from campaigns import REPO
from irmeta.metaeval.generated_set_names import check_set_names, generated_set_names
from irmeta.pipeline import collection_config, config_checks, config_schema, manifest
from irmeta.pipeline.config_schema import CONFIG_SCHEMA
from irmeta.pipeline.experiment_settings import comparison_measures, paired_tests, properties_rarity_depth
from irmeta.pipeline.scripts import shard_trials
from schema_strategies import from_schema

#: Reproducible in CI: the same examples every run, no example database.
PROPERTY = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

#: The config's name in every message: a path with a space, as a user's may be.
SOURCE = "configs/my config.yaml"

#: The default measures (what the default comparisons name), others irmeta computes, and
#: names that are wrong or only aliases (P_10 is P@10, so [P_10, P@10] names one twice).
DEFAULT_MEASURES = config_schema.load_schema(CONFIG_SCHEMA)["properties"]["measures"]["default"]
OTHER_MEASURES = ["P@10", "AP", "nDCG@10", "RBP(p=0.8)", "ERR@20", "P_rareness(rarity=log)@100", "Recall@1000"]
WRONG_MEASURES = ["P_10", "P_100", "nDCG_cut_10", "RBP(p=1)", "Foo@10", "P@0", "Q(beta=-1)", "p@10", "P@10.5",
                  "AP_rareness(x=1)@5", "P(rel=2)@10"]
MEASURE = st.sampled_from(DEFAULT_MEASURES + OTHER_MEASURES + WRONG_MEASURES)
MEASURE_LISTS = st.one_of(
    st.lists(st.sampled_from(OTHER_MEASURES), max_size=2).map(lambda extra: DEFAULT_MEASURES + extra),
    st.lists(st.sampled_from(OTHER_MEASURES + WRONG_MEASURES), max_size=1).map(lambda extra: DEFAULT_MEASURES + extra),
    st.lists(MEASURE, max_size=4))
COMPARISON = st.fixed_dictionaries({"measure": MEASURE, "baseline": MEASURE})
ALPHA = st.sampled_from([0, 0.5, 1, "1/R", "0.50", "1e-9", 1e-9, 2, 1e300, -0.1, "R", "0.5.0"])
NO_PLUGINS = [[]] * 12

#: Realistic values where the schema's own would almost never mean anything (a random
#: measure name), and plugins that are safe to import (a drawn name could be any module).
CONFIG_HINTS = {
    "measures": MEASURE_LISTS,
    "experiments.comparisons.*": COMPARISON,
    "experiments.swap.measures.*": MEASURE,
    "experiments.system_subsampling.measures.*": st.sampled_from(["P_rareness@100", "AP_rareness", "P_rareness@0"]),
    "alphas.*": ALPHA,
    "experiments.swap.alphas.*": ALPHA,
    "measure_plugins": st.sampled_from(NO_PLUGINS + [["no_such_plugin_module"], ["missing_plugin.py"], ["a\tb"],
                                                     [""], ["os.path"]]),
    "test_plugins": st.sampled_from(NO_PLUGINS + [["no_such_test_module"], ["missing_tests.py"], ["a/b"]]),
    "averaging": st.sampled_from([["all"], ["all", "returned"], ["all", "geometric"], ["returned"], []]),
    "collections": st.sampled_from([["demo"]] * 4 + [["demo", "demo"], ["absent"], [], ["demo", "absent"]]),
    "experiments.discriminative_power.methods.*": st.sampled_from(
        ["paired_t", "wilcoxon", "randomised_tukey_hsd", "tukey_hsd", "no_such_test", "paired_t+holm"]),
    "experiments.discriminative_power.corrections.*": st.sampled_from(["none", "holm", "bh", "bonferroni", "bad"]),
    "imported_measures": st.sampled_from([{}] * 4 + [{"nugget_recall": "higher"}, {"P": "higher"}, {"x": "up"}]),
}


def _workdir(tmp_path: Path) -> Path:
    """A working directory with the shipped collections (the demo is simulated: no data
    needed) and whatever files they name beside them."""
    shutil.copytree(REPO / "config" / "collections", tmp_path / "config" / "collections", dirs_exist_ok=True)
    return tmp_path


def parse_stage(config: Any, source: str, workdir: Path) -> dict:
    """What workflow/rules/common.smk does with a config at parse time, through the library:
    exponent numbers read, the schema (defaults filled in), the cross-checks, the
    collections, then every list and setting it derives (generated judgment sets, skips,
    comparison measures, paired tests, shards, the properties' rarity depth)."""
    config_schema.read_exponent_numbers(config, config_schema.load_schema(CONFIG_SCHEMA))
    config = config_checks.check_config(config_schema.validate(config, CONFIG_SCHEMA, source=source), source)
    collections, _ = collection_config.available_collections(config, workdir / "config" / "collections",
                                                              base_dir=workdir, source=source)
    judgments = config["experiments"]["judgment_agreement"]
    try:
        generated = generated_set_names(judgments["pool_depths"], judgments["judgment_fractions"], judgments["trials"])
    except ValueError as exc:
        raise ValueError(f"{source}: experiments.judgment_agreement.{exc}") from None
    paired = paired_tests(config)
    for collection in collections.values():
        check_set_names(collection.alternative_qrels, generated, f"{collection.source}: alternative_qrels")
        facts = manifest.Facts(has_runs=collection.has_runs, alternative_judgments=bool(collection.alternative_qrels),
                               generated_judgments=bool(generated), paired_tests=bool(paired),
                               name=collection.name)
        manifest.skipped(config["experiments"], facts)
        manifest.collection_tables(config["experiments"], facts)
        manifest.collection_figures(config["experiments"], facts)
    comparison_measures(config)
    properties_rarity_depth(config["measures"], config["rarity_depth"])
    shards = config["experiments"]["shards"]
    for total in (config["experiments"]["stability"]["trials"], len(generated)):
        assert sum(len(shard_trials(total, shards, i)) for i in range(shards)) == total
    return config


def assert_one_line_refusal(exc: BaseException, source: str) -> None:
    """A refusal a user can read: a ValueError (ConfigError) or, for a missing file, a
    FileNotFoundError, whose message is one line naming the file."""
    message = str(exc)
    assert isinstance(exc, (ValueError, FileNotFoundError)), f"{type(exc).__name__}: {message}"
    assert "\n" not in message and "\r" not in message, f"not one line: {message!r}"
    assert message.startswith(source) or f"{source}:" in message, f"names no file: {message!r}"
    assert re.search(r"\bkeys? '|mapping of keys|not valid YAML", message), f"names no key: {message!r}"
    assert "Traceback" not in message


def check_verdict(config: Any, source: str, workdir: Path) -> dict | None:
    """The config passed (returned) or was refused in one line naming the file (None)."""
    try:
        return parse_stage(copy.deepcopy(config), source, workdir)
    except (ValueError, FileNotFoundError) as exc:
        assert_one_line_refusal(exc, source)
        return None




CONFIGS = from_schema(config_schema.load_schema(CONFIG_SCHEMA), hints=CONFIG_HINTS)
