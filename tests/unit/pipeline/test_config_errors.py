"""Misleading errors of the config made clear: one line naming the file, the key and the
value (measure_options.gains, experiments.swap.topic_set_size), and the warning about
run topics the qrels lack starting 'irmeta: warning:' and naming the file, in the CLI
and in the workflow's ingest log."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from irmeta.cli import main
from irmeta.metaeval.stats.swap_trials import draw_topic_pairs
from irmeta.pipeline.config_checks import load_config
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.experiments import check_swap_topic_set_size
from irmeta.pipeline.steps import ingest_collection

GRADED = {"measures": ["nDCG@10"], "experiments": {"comparisons": [{"measure": "nDCG@10", "baseline": "nDCG@10"}],
                                                   "swap": {"measures": []}}}


def _config(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("base", [{}, GRADED], ids=["no graded measure", "nDCG"])
@pytest.mark.parametrize("gains, said", [({"a": 1}, "grade 'a' is not an integer"),
                                         ({"1.5": 1}, "grade '1.5' is not an integer"),
                                         ({1.5: 1}, "grade 1.5 is not an integer")])
def test_a_gain_map_with_a_grade_that_is_no_integer_names_file_and_key(tmp_path, base, gains, said):
    path = _config(tmp_path, {**base, "measure_options": {"gains": gains}})
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    message = str(exc.value)
    assert message == f"{path}: key 'measure_options.gains': {said}"


def test_a_gain_map_of_integer_grades_is_read(tmp_path):
    config = load_config(_config(tmp_path, {**GRADED, "measure_options": {"gains": {1: 1, "2": 3}}}))
    assert config["measures"] == ["nDCG(gains={1:1,2:3})@10"]


@pytest.mark.parametrize("sampling, size, limit, why", [
    ("disjoint", 26, 25, "half of the 50 topics: two sets that share no topic of trec8"),
    ("bootstrap", 51, 50, "the 50 topics of trec8"),
])
def test_a_swap_topic_set_size_out_of_range_names_key_and_range(sampling, size, limit, why):
    with pytest.raises(ValueError) as exc:
        check_swap_topic_set_size({"topic_set_size": size, "sampling": sampling}, 50, "trec8")
    message = str(exc.value)
    assert message.startswith(f"experiments.swap.topic_set_size must be at most {limit} ({why}) "
                              f"with sampling {sampling}, not {size}")
    assert "\n" not in message
    check_swap_topic_set_size({"topic_set_size": limit, "sampling": sampling}, 50, "trec8")
    check_swap_topic_set_size({"topic_set_size": None, "sampling": sampling}, 50, "trec8")


@pytest.mark.parametrize("sampling, size", [("bootstrap", 0), ("bootstrap", 11), ("disjoint", 6), ("disjoint", 0)])
def test_the_library_refuses_the_same_sizes(sampling, size):
    with pytest.raises(ValueError, match=rf"topic_set_size must be between 1 and \d+ .* with sampling {sampling}"):
        draw_topic_pairs(10, range(2), 4, sampling, topic_set_size=size)
    first, second = draw_topic_pairs(10, range(2), 4, sampling, topic_set_size=5)
    assert first.shape == second.shape == (2, 5)


QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"


def _campaign(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "r1").write_text("1 Q0 a 1 2.5 r1\n7 Q0 x 1 1.5 r1\n9 Q0 y 1 1 r1\n")  # 7, 9: not in the qrels
    (runs / "r2").write_text("1 Q0 b 1 2.5 r2\n2 Q0 c 1 1 r2\n")
    return qrels, runs


def test_the_cli_warns_of_ignored_topics_naming_the_file(tmp_path):
    qrels, runs = _campaign(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--runs", str(runs), "--measure", "P@1"])
    assert code == 0
    lines = [line for line in err.getvalue().splitlines() if "not in the qrels" in line]
    assert lines == [f"irmeta: warning: {runs / 'r1'}: run r1: 2 topic(s) not in the qrels ({qrels}) ignored: 7 9"]


def test_the_ingest_log_warns_of_ignored_topics_naming_the_file(tmp_path, capfd):
    qrels, runs = _campaign(tmp_path)
    summary = ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "judged.npz", threads=1)
    assert summary["run_topics_not_in_qrels"] == ["7", "9"]
    lines = [line for line in capfd.readouterr().err.splitlines() if "not in the qrels" in line]
    assert lines == [f"irmeta: warning: {runs / 'r1'}: run r1: 2 topic(s) not in the qrels ({qrels}) ignored: 7 9"]


@pytest.mark.parametrize("budget, said", [(64, "64 is less than the minimum of 128"),
                                          ("3 GB", "'3 GB' is not of type 'integer'")])
def test_a_memory_budget_out_of_range_names_file_and_key(tmp_path, budget, said):
    path = _config(tmp_path, {"memory_budget": budget})
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    message = str(exc.value)
    assert message.startswith(f"{path}: key 'memory_budget': ") and said in message and "\n" not in message
    assert load_config(_config(tmp_path, {"memory_budget": 128}))["memory_budget"] == 128
