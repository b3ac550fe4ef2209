"""The irmeta command line: score and simulate."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

from irmeta.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_score_prints_official_trec8_means(shared_data):
    runs = shared_data / "trec8_adhoc" / "runs"
    code, out, _ = run_cli("score", "--qrels", str(shared_data / "trec8_adhoc" / "qrels.txt"),
                           "--runs", str(runs / "INQ601.gz"), str(runs / "ok8alx.gz"),
                           "--measure", "P@100", "--measure", "AP@1000", "--digits", "4")
    assert code == 0
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"qid": str})
    assert list(table.columns) == ["run", "measure", "qid", "value"]
    official = pd.read_csv(shared_data / "trec8_adhoc" / "official_per_topic.tsv", sep="\t", dtype={"topic": str})
    official = official[official.topic == "all"].set_index("run")
    for run in ("INQ601", "ok8alx"):
        got = table[(table.run == run)].set_index("measure")["value"]
        assert got["P@100"] == pytest.approx(official.loc[run, "P_100"], abs=1e-9)
        assert got["AP@1000"] == pytest.approx(official.loc[run, "map"], abs=1e-9)


def test_score_per_topic_to_file(tmp_path):
    main(["simulate", "--out", str(tmp_path / "c"), "--runs", "4", "--topics", "5", "--depth", "20"])
    out = tmp_path / "scores.tsv"
    code, stdout, _ = run_cli("score", "--qrels", str(tmp_path / "c" / "qrels.txt"), "--runs",
                              str(tmp_path / "c" / "runs"), "--measure", "P@10", "--per-topic",
                              "--output", str(out))
    assert code == 0 and stdout == ""
    table = pd.read_csv(out, sep="\t", dtype={"qid": str})
    per_topic = table[table.qid != "all"]
    assert len(per_topic) == 4 * 5 and (table.qid == "all").sum() == 4
    means = per_topic.groupby("run")["value"].mean()
    alls = table[table.qid == "all"].set_index("run")["value"]
    assert (means - alls.loc[means.index]).abs().max() < 1e-12


def test_score_bad_input_names_file_and_line(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "bad.run"
    run.write_text("1 Q0 d1 1 0.5 tag\n1 Q0 d2 2 zero tag\n")
    out = tmp_path / "out.tsv"
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P@5",
                           "--output", str(out))
    assert code == 2
    assert f"{run}:2:" in err and "score" in err
    assert not out.exists()


def test_unknown_measure_is_refused(tmp_path):
    code, _, err = run_cli("score", "--qrels", "x", "--runs", "y", "--measure", "Q@10x")
    assert code == 2 and "measure" in err


def test_simulate_is_deterministic(tmp_path):
    for name in ("a", "b"):
        assert run_cli("simulate", "--out", str(tmp_path / name), "--seed", "7", "--runs", "5")[0] == 0
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files_a
    for rel in files_a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


def test_score_the_seeds_measures_with_their_options(shared_data):
    runs = shared_data / "trec8_adhoc" / "runs"
    qrels = str(shared_data / "trec8_adhoc" / "qrels.txt")
    args = ["score", "--qrels", qrels, "--runs", str(runs / "INQ601.gz"), "--measure", "ndcg_cut_10",
            "--measure", "ASL@g1-10", "--measure", "Q@1000"]
    code, out, _ = run_cli(*args)
    assert code == 0
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index("measure")["value"]
    assert set(table.index) == {"nDCG@10", "ASL_g1@10", "Q@1000"}
    # A gain map changes the graded measures (binary TREC-8: gain 2 for grade 1 leaves nDCG
    # unchanged, being a ratio, but moves Q, whose blended ratio adds ranks to gains).
    code, out2, _ = run_cli(*args, "--gains", "1:2")
    scaled = pd.read_csv(io.StringIO(out2), sep="\t").set_index("measure")["value"]
    assert scaled["nDCG@10"] == pytest.approx(table["nDCG@10"], abs=1e-12)
    assert scaled["Q@1000"] != table["Q@1000"]
    code, _, err = run_cli(*args, "--gains", "one:two")
    assert code == 2 and "grade:gain" in err


def test_score_prints_trec_evals_format(tmp_path):
    from campaigns import write

    qrels = write(tmp_path / "q", "1 0 a 1\n2 0 b 1\n")
    run = write(tmp_path / "r", "1 Q0 a 1 2 r\n2 Q0 c 1 2 r\n2 Q0 b 2 1 r\n")
    args = ["score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P@1", "--measure", "AP",
            "--measure", "RR@5", "--format", "trec_eval"]
    code, out, _ = run_cli(*args, "--per-topic")
    assert code == 0
    lines = [("P_1", "1", "1.0000"), ("map", "1", "1.0000"), ("RR@5", "1", "1.0000"), ("P_1", "2", "0.0000"),
             ("map", "2", "0.5000"), ("RR@5", "2", "0.5000"), ("runid", "all", "r"), ("P_1", "all", "0.5000"),
             ("map", "all", "0.7500"), ("RR@5", "all", "0.7500")]  # trec_eval -q's order, names padded to 22
    assert out == "".join(f"{name:<22}\t{qid}\t{value}\n" for name, qid, value in lines)
    code, out, _ = run_cli(*args, "--digits", "1", "--output", str(tmp_path / "out"))
    assert code == 0 and out == ""
    assert (tmp_path / "out").read_text().split() == ["runid", "all", "r", "P_1", "all", "0.5", "map", "all", "0.8",
                                                      "RR@5", "all", "0.8"]
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as exit:
        main([*args, "--format", "csv"])
    assert exit.value.code == 2 and "invalid choice: 'csv'" in err.getvalue()


@pytest.mark.slow
def test_score_precision_on_every_subcommand_that_reads_runs(shared_data):
    """--score-precision (issue 29): irmeta score orders on float32 scores as pytrec_eval
    does (Dm8Nbn topic 446: the issue's example); compare and repro take it too."""
    trec8 = shared_data / "trec8_adhoc"
    args = ["score", "--qrels", str(trec8 / "qrels.txt"), "--runs", str(trec8 / "runs" / "Dm8Nbn.gz"),
            "--measure", "AP", "--per-topic"]
    values = {}
    for precision in ("double", "float32"):
        code, out, err = run_cli(*args, "--score-precision", precision)
        assert code == 0, err
        values[precision] = next(line.split("\t")[3] for line in out.splitlines() if line.split("\t")[2] == "446")
    assert values == {"double": "0.013217712583093658", "float32": "0.013213588897914819"}
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as exit:
        main([*args, "--score-precision", "half"])
    assert exit.value.code == 2 and "--score-precision: invalid choice: 'half'" in err.getvalue()
    run = str(trec8 / "runs" / "Dm8Nbn.gz")
    code, out, err = run_cli("compare", "--qrels", str(trec8 / "qrels.txt"), "--runs", run,
                             str(trec8 / "runs" / "INQ601.gz"), "--score-precision", "float32")
    assert code == 0, err
    code, out, err = run_cli("repro", "--qrels", str(trec8 / "qrels.txt"), "--original-baseline", run,
                             "--original-advanced", run, "--reproduced-baseline", run, "--reproduced-advanced", run,
                             "--score-precision", "float32")
    assert code == 0, err
