"""``irmeta test-errors`` and ``irmeta.test_errors``: score matrices (a CSV of runs by
topics, irmeta score --per-topic's output, DataFrames) in, exactly the error-rate table's
columns out, the same bytes for the same inputs and seed; a --plugin's test in the table;
every refusal one line with exit status 2, before any fitting."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

import irmeta
from irmeta.cli import main
from irmeta.error_rates import render
from irmeta.measures.registry import MEASURES
from irmeta.metaeval.error_rate_models import MODEL_COLUMNS
from irmeta.metaeval.simulation.models import FittedCollection
from irmeta.metaeval.stats.registry import TESTS
from irmeta.metaeval.test_error_rates import COLUMNS

QUICK = ["--topics", "10", "--trials", "30", "--alpha", "0.05,0.1", "--delta", "0.05", "--runs-at-once", "3",
         "--permutations", "30"]
SETTINGS = dict(n_topics=[10], trials=30, alphas=[0.05, 0.1], deltas=[0.05], runs_at_once=[3], permutations=30)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def scores_frame(n_runs: int = 7, n_topics: int = 15, seed: int = 0) -> pd.DataFrame:
    """A runs-by-topics matrix as the paper's data lays it out: a column per run."""
    rng = np.random.default_rng(seed)
    values = special.ndtr(rng.normal(-0.6, 0.35, (n_runs, 1)) + rng.normal(0, 0.8, (1, n_topics))
                          + rng.normal(0, 0.5, (n_runs, n_topics)))
    return pd.DataFrame(values.T, columns=[f"run{i}" for i in range(n_runs)])


@pytest.fixture
def matrix_csv(tmp_path) -> Path:
    path = tmp_path / "adhoc_ap.csv"
    scores_frame().to_csv(path, index=False)
    return path


@pytest.fixture
def registry():
    tests, measures, modules = dict(TESTS), dict(MEASURES), set(sys.modules)
    yield
    TESTS.clear()
    TESTS.update(tests)
    MEASURES.clear()
    MEASURES.update(measures)
    for name in set(sys.modules) - modules:
        if name.startswith("irmeta_plugin_"):
            del sys.modules[name]


@pytest.mark.slow
def test_the_tsv_is_exactly_the_tables_columns_and_the_same_bytes_every_time(capsys, matrix_csv, tmp_path):
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous",
                             *QUICK)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split("\t") == list(COLUMNS)
    rows = [line.split("\t") for line in lines[1:]]
    assert {r[0] for r in rows} == {"adhoc_ap"} and {r[3] for r in rows} == {"1", "2"}
    assert {r[9] for r in rows} == {"type_1", "power", "type_3", "familywise_type_1"}
    out_file = tmp_path / "rates.tsv"
    code, again, _ = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous",
                             *QUICK, "--output", str(out_file))
    assert code == 0 and again == "" and out_file.read_text() == out
    code, seeded, _ = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous",
                              *QUICK, "--seed", "7")
    assert code == 0 and seeded != out


@pytest.mark.slow
def test_irmetas_own_per_topic_output_is_read_and_names_the_measure(capsys, shared_data, tmp_path):
    root = shared_data / "trec8_adhoc"
    runs = [str(root / "runs" / f"{r}.gz") for r in ("INQ601", "ok8alx", "CL99XT", "Dm8Nbn", "AntHoc1", "Sab8A1")]
    scores = tmp_path / "trec8.tsv"
    assert main(["score", "--qrels", str(root / "qrels.txt"), "--runs", *runs, "--measure", "P@10", "--measure",
                 "AP@100", "--per-topic", "--output", str(scores)]) == 0
    code, _, err = run_cli(capsys, "test-errors", "--scores", str(scores), *QUICK)
    assert code == 2 and "per-topic scores of 2 measures (P@10, AP@100); name the one to simulate (--measure)" in err
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(scores), "--measure", "P_10", *QUICK,
                             "--test", "sign", "--test", "paired_t")
    assert code == 0, err
    rates = pd.read_csv(io.StringIO(out), sep="\t")
    assert set(rates["measure"]) == {"P@10"}
    assert list(rates["test"].drop_duplicates()) == ["paired_t", "sign"]  # the registry's order
    found = irmeta.test_errors(str(scores), measure="P@10", tests=["sign", "paired_t"], **SETTINGS)
    margins = found.models[found.models["model"] == "margin"]
    assert set(margins["family"]) <= {"bbinom", "dks"}  # P@10's grid, from its name
    assert render(found.rates) == out


@pytest.mark.parametrize("content, extra, said", [
    ("a,b,c\n0.1,0.2,NA\n0.3,0.2,0.1\n", [], r"bad\.csv:2: run c: 'NA' is not a finite number"),
    ("a,b,a\n0.1,0.2,0.3\n", [], r"bad\.csv:1: run a named twice"),
    ("a,b\n0.1,0.2\n0.3\n", [], r"bad\.csv:3: 1 fields, the header has 2"),
    ("a,b,c\n0.15,0.2,0.3\n0.3,0.2,0.1\n", ["--measure", "P@10"],
     r"bad\.csv: P@10: run a: score 0\.15 \(on the unit scale\) is not on the measure's grid of 11 values"),
    ("a,b,c\n0.1,0.2,1.3\n0.3,0.2,0.1\n", [],
     r"bad\.csv: bad: run c: score 1\.3 lies outside \[0, 1\] and the measure declares no range"),
    ("a,b,c\n0.1,0.2,1.3\n0.3,0.2,0.1\n", ["--measure", "AP@100"],
     r"bad\.csv: AP@100: run c: score 1\.3 lies outside the measure's range \[0, 1\]"),
    ("a,b,c\n0.1,0.2,1.3\n0.3,0.2,0.1\n", ["--measure", "DCG@10"],
     r"DCG@10: its scores lie in \[0, inf\); simulation needs a range \[0, high\]"),
    ("a,b,c\n0.1,0.2,0.3\n0.3,0.25,0.3\n0.2,0.1,0.3\n", [],
     r"bad\.csv: bad: run c scores 0\.3 on every topic: there is no margin to fit \(drop such runs with "
     r"--degenerate-runs drop\)"),
    ("a,b,c\n0.1,0.1,0.3\n0.2,0.2,0.3\n0.5,0.5,0.3\n", ["--degenerate-runs", "drop"],
     r"bad\.csv: bad: 0 of its 3 runs left after the protocol's drops"),
])
def test_a_bad_matrix_is_one_line_and_exit_2_before_any_fitting(capsys, tmp_path, monkeypatch, content, extra, said):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    monkeypatch.setattr(FittedCollection, "fit", lambda *a, **k: pytest.fail("fitted"))
    kind = [] if "--measure" in extra else ["--measure-kind", "continuous"]
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(path), *kind, *extra, *QUICK)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("irmeta: error: ")
    import re

    assert re.search(said, err), err


@pytest.mark.parametrize("argv, said", [
    (["--alpha", "0.05,1.5"], "--alpha: 1.5: outside (0, 1): a significance level"),
    (["--alpha", "0.05,0.05"], "--alpha: 0.05 given twice"),
    (["--delta", "0"], "--delta: 0: outside (0, inf): a gain in mean score"),
    (["--delta", "0.05,1", "--measure-kind", "continuous"],
     "--delta: delta 1 is out of reach of every margin of adhoc_ap: its scores lie in [0, 1], so a run's mean + "
     "delta stays below 1"),
    (["--delta", "1.5", "--measure", "AP_rareness(alpha=0.5)@100"], "of AP_rareness(alpha=0.5)@100: its scores lie "
                                                                    "in [0, 1.5]"),
    (["--topics", "1"], "--topics: 1: must be >= 2"),
    (["--runs-at-once", "5,x"], "--runs-at-once: x: not an integer"),
    (["--test", "nope"], "--test: unknown test 'nope'"),
    (["--test", "tukey_hsd"], "--test: tukey_hsd is not a paired test"),
    (["--trials", "10", "--trials", "20"], "--trials given twice"),
    (["--measure-kind", "grid"], "measure kind 'grid': expected continuous, discrete or discrete:K"),
    ([], "say where the scores lie: --measure-kind continuous, discrete or discrete:K"),
])
def test_a_bad_setting_is_one_line_and_exit_2_before_any_reading(capsys, matrix_csv, monkeypatch, argv, said):
    monkeypatch.setattr(FittedCollection, "fit", lambda *a, **k: pytest.fail("fitted"))
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert said in err, err


def test_an_output_that_is_an_input_is_refused(capsys, matrix_csv):
    code, _, err = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous",
                           "--output", str(matrix_csv))
    assert code == 2 and "is one of the inputs" in err


def test_the_trials_in_several_processes_give_the_same_bytes(matrix_csv):
    """The trials run as shards of chunks in ``workers`` processes, as the pipeline's jobs:
    the table does not depend on their number."""
    settings = {**SETTINGS, "trials": 70, "deltas": [0.05, 0.1]}
    one = irmeta.test_errors(str(matrix_csv), measure="AP", measure_kind="continuous", workers=1, **settings)
    three = irmeta.test_errors(str(matrix_csv), measure="AP", measure_kind="continuous", workers=3, **settings)
    assert render(one.rates) == render(three.rates)
    assert set(one.rates["kind"]) == {"type_1", "power", "type_3", "familywise_type_1"}


def test_a_delta_some_baselines_do_not_reach_is_one_warning_line_naming_them(capsys, matrix_csv):
    """Below the range's width, reached by some fitted margins only: the rates come, with
    one line saying which baselines the power trials at that delta leave out."""
    argv = ["--topics", "10", "--trials", "30", "--alpha", "0.05", "--delta", "0.05,0.7", "--no-familywise",
            "--permutations", "30"]
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous", *argv)
    assert code == 0 and out.startswith("measure\t")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irmeta: warning: adhoc_ap: delta 0.7 (--delta): "), err
    assert "baseline runs (run" in lines[0] and "power and type III trials at this delta start from the other" in err
    # below the range's width, reached by no fitted margin: refused once fitted, before any trial
    argv[argv.index("0.05,0.7")] = "0.05,0.9"
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("irmeta: error: --delta: delta 0.9 is out of reach for adhoc_ap: "), err


def test_single_score_runs_dropped_on_request_are_said(capsys, tmp_path):
    frame = scores_frame(8, 12, seed=3)
    frame["run5"] = 0.5  # above the bottom tenth: kept, then dropped for its single score
    path = tmp_path / "flat.csv"
    frame.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(path), "--measure-kind", "continuous",
                             "--degenerate-runs", "drop", *QUICK)
    assert code == 0 and out.startswith("measure\t")
    assert "flat.csv: run run5 dropped: a single distinct score (--degenerate-runs drop)" in err


def test_a_plugins_test_is_in_the_table(capsys, matrix_csv, tmp_path, registry):
    plugin = tmp_path / "my_tests.py"
    plugin.write_text(
        "import numpy as np\nimport irmeta\n\n"
        "def never(scores):\n    pairs = len(scores) * (len(scores) - 1) // 2\n"
        "    return np.zeros(pairs), np.ones(pairs)\n\n"
        "irmeta.register_test('never', never, title='never significant')\n")
    code, out, err = run_cli(capsys, "test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous",
                             "--plugin", str(plugin), *QUICK)
    assert code == 0, err
    rates = pd.read_csv(io.StringIO(out), sep="\t")
    never = rates[rates["test"] == "never"]
    assert set(never["kind"]) == {"type_1", "power", "type_3", "familywise_type_1"} and (never["rate"] == 0).all()
    assert "paired_t" in set(rates["test"])


@pytest.mark.slow
def test_the_api_gives_dataframes_and_pools_matrices(matrix_csv):
    frame = scores_frame(6, 12, seed=5)
    found = irmeta.test_errors([str(matrix_csv), frame], measure="AP", measure_kind="continuous", **SETTINGS,
                               tests=["paired_t"])
    rates, models = found
    assert tuple(rates.columns) == COLUMNS and tuple(models.columns) == MODEL_COLUMNS
    assert set(rates["measure"]) == {"AP"}
    assert list(models["collection"].drop_duplicates()) == [str(matrix_csv), "scores[1]"]
    same = irmeta.test_errors([str(matrix_csv), frame], measure="AP", measure_kind="continuous", **SETTINGS,
                              tests=["paired_t"])
    assert render(same.rates) == render(rates)
    assert render(rates, "markdown").startswith("| measure | n_topics | test |")
    assert "\\begin{tabular}" in render(rates, "latex")
    long = pd.DataFrame({"run": np.repeat(frame.columns, len(frame)), "measure": "AP",
                         "qid": np.tile([str(q) for q in range(1, len(frame) + 1)], frame.shape[1]),
                         "value": frame.to_numpy().T.ravel()})
    from_long = irmeta.test_errors(long, **SETTINGS, tests=["paired_t"], measure_kind="continuous")
    from_wide = irmeta.test_errors(frame, measure="AP", **SETTINGS, tests=["paired_t"], measure_kind="continuous")
    assert render(from_long.rates) == render(from_wide.rates.assign(measure="AP"))
    with pytest.raises(ValueError, match="alphas: 2 is outside"):
        irmeta.test_errors(frame, measure_kind="continuous", alphas=[2])


def test_power_pairs_are_the_papers_by_default_and_first_run_on_request(capsys, matrix_csv):
    from typing import get_args, get_type_hints

    from irmeta.cli_test_errors import POWER_MARGINS
    from irmeta.metaeval.simulation.models import SimulationProtocol

    assert set(POWER_MARGINS) == set(get_args(get_type_hints(SimulationProtocol)["power_margin"]))
    assert POWER_MARGINS[0] == SimulationProtocol().power_margin == "nearest_runs"
    argv = ["test-errors", "--scores", str(matrix_csv), "--measure-kind", "continuous", "--topics", "10", "--trials",
            "200", "--alpha", "0.05,0.1", "--delta", "0.05", "--test", "paired_t", "--no-familywise"]
    runs = {margin: run_cli(capsys, *argv, *([] if margin is None else ["--power-margin", margin]))
            for margin in (None, "nearest_runs", "first_run")}
    assert all(code == 0 for code, _, _ in runs.values()), runs
    tables = {margin: pd.read_csv(io.StringIO(out), sep="\t") for margin, (_, out, _) in runs.items()}
    assert runs[None][1] == runs["nearest_runs"][1]  # the default, byte for byte
    type_1 = {margin: t[t["kind"] == "type_1"].reset_index(drop=True) for margin, t in tables.items()}
    pd.testing.assert_frame_equal(type_1["nearest_runs"], type_1["first_run"])  # type I does not move
    power = {margin: t[t["kind"] == "power"]["rate"].tolist() for margin, t in tables.items()}
    assert power["nearest_runs"] != power["first_run"]
    code, _, err = run_cli(capsys, *argv, "--power-margin", "own")
    assert code == 2 and "--power-margin" in err and "invalid choice" in err
