"""irmeta.measures.score_files: scores computed elsewhere (irmeta's TSV, trec_eval -q's
output) read back, checked line by line, and laid out as the pipeline's Scores."""

from __future__ import annotations

import gzip
import io
import re
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import irmeta
from campaigns import write
from irmeta.cli import main
from irmeta.measures.names import parse_measure, trec_eval_name
from irmeta.measures.score_files import read_score_file, scores_from_table

RUNS = ["INQ601", "ok8alx", "CL99SD", "Flab8as", "UT800"]
MEASURES = ["P@10", "P@100", "AP", "nDCG@10", "RR", "P_rareness@100"]
ALPHAS = ["0", "0.5", "1/R"]


def cli(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def trec8(shared_data, tmp_path_factory):
    """Five TREC-8 runs scored by irmeta, and the CLI's per-topic output in both formats."""
    folder = shared_data / "trec8_adhoc"
    paths = [str(folder / "runs" / f"{name}.gz") for name in RUNS]
    args = ["score", "--qrels", str(folder / "qrels.txt"), "--runs", *paths, "--per-topic",
            *[arg for m in MEASURES for arg in ("--measure", m)], *[arg for a in ALPHAS for arg in ("--alpha", a)]]
    out = tmp_path_factory.mktemp("scores")
    tsv = write(out / "scores.tsv", cli(*args))
    trec = write(out / "scores.trec_eval", cli(*args, "--format", "trec_eval"))
    scored = irmeta.score(folder / "qrels.txt", paths, MEASURES, alphas=ALPHAS).scores
    returned = irmeta.score(folder / "qrels.txt", paths, MEASURES, alphas=ALPHAS, average="returned").scores
    return scored, returned, tsv, trec


# ------------------------------------------------------------------ TREC-8 round trips


def test_the_clis_tsv_round_trips_exactly(trec8):
    scored, _, tsv, _ = trec8
    table = read_score_file(tsv)
    assert table.attrs["dropped"] == {}
    assert list(table.columns) == ["run", "measure", "qid", "value"] and table["value"].dtype == np.float64
    pd.testing.assert_frame_equal(table, irmeta.scores_frame(scored), check_exact=True, check_dtype=False)


def test_scores_from_the_table_are_irmetas_own(trec8):
    scored, returned, tsv, _ = trec8
    got = scores_from_table(read_score_file(tsv), MEASURES, ALPHAS, source=str(tsv))
    assert (got.runs, got.topics, got.measures, got.alphas) == (scored.runs, scored.topics, scored.measures,
                                                                 scored.alphas)
    assert np.array_equal(got.per_topic, scored.per_topic)
    # irmeta's means of the precision family divide integer totals, these sum sorted
    # quotients: the same number up to the last bit or so, hence 1e-12 rather than equality
    assert np.abs(got.means["all_topics"] - scored.means["all_topics"]).max() <= 1e-12
    assert np.abs(got.means["returned_topics"] - returned.means["returned_topics"]).max() <= 1e-12
    ap = scored.measures.index("AP")
    assert np.array_equal(got.means["all_topics"][ap], scored.means["all_topics"][ap])  # both sorted sums


def test_trec_eval_output_reads_back_to_four_decimals(trec8):
    _, _, tsv, trec = trec8
    exact, rounded = read_score_file(tsv), read_score_file(trec)
    assert rounded.attrs["dropped"] == {"runid": len(RUNS)}
    assert set(rounded["measure"]) == set(exact["measure"])  # P_10, map, ... read as P@10, AP, ...
    key = ["run", "measure", "qid"]
    both = exact.merge(rounded, on=key, how="outer", suffixes=("", "_read"), validate="one_to_one")
    assert len(both) == len(exact) == len(rounded)
    assert (both["value"].map("{:.4f}".format) == both["value_read"].map("{:.4f}".format)).all()
    text = trec.read_text()
    assert text.startswith("P_10                  \t401\t0.") and f"runid                 \tall\t{RUNS[0]}\n" in text


def test_trec_eval_names_read_back_as_the_same_measure():
    names = {"P@10": "P_10", "AP": "map", "AP@100": "map_cut_100", "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10",
             "RR": "recip_rank", "Recall@100": "recall_100", "Rprec": "Rprec", "Bpref": "bpref", "SetP": "set_P",
             "SetR": "set_recall", "SetF": "set_F", "Success@10": "success_10",
             # no trec_eval spelling: irmeta's own name
             "RR@10": "RR@10", "Q@100": "Q@100", "nDCG(gains={1:1,2:3})@10": "nDCG(gains={1:1,2:3})@10",
             "P_rareness(alpha=0.5)@100": "P_rareness(alpha=0.5)@100", "P": "P"}
    for measure, spelled in names.items():
        assert trec_eval_name(measure) == spelled
        assert parse_measure(spelled) == parse_measure(measure)


# ------------------------------------------------------------------ trec_eval files


def trec_eval_block(run: str, scores: dict[str, dict[str, float]]) -> str:
    """trec_eval -q's output for one run: per topic its lines (with counts irmeta leaves
    out), then the summary, padded as trec_eval pads names."""
    lines = []
    for qid, by_measure in scores.items():
        lines += [f"{'num_ret':<22}\t{qid}\t1000"] + [f"{m:<22}\t{qid}\t{v:.4f}" for m, v in by_measure.items()]
        lines += [f"{'relstring':<22}\t{qid}\tRRN-R"]
    means = {m: np.mean([s[m] for s in scores.values()]) for m in next(iter(scores.values()))}
    lines += [f"{'runid':<22}\tall\t{run}", f"{'num_q':<22}\tall\t{len(scores)}"]
    lines += [f"{m:<22}\tall\t{v:.4f}" for m, v in means.items()]
    return "\n".join(lines) + "\n"


A = trec_eval_block("runA", {"401": {"P_10": 0.5, "map": 0.25}, "402": {"P_10": 0.1, "map": 0.125}})
B = trec_eval_block("runB", {"401": {"P_10": 0.3, "map": 0.5}})
C = trec_eval_block("runC", {"402": {"P_10": 0.2, "map": 0.75}})


def test_concatenated_trec_eval_blocks_are_named_by_their_runid(tmp_path):
    table = read_score_file(write(tmp_path / "two", A + B))
    per_topic = table[table.qid != "all"]
    assert per_topic.values.tolist() == [["runA", "P@10", "401", 0.5], ["runA", "AP", "401", 0.25],
                                         ["runA", "P@10", "402", 0.1], ["runA", "AP", "402", 0.125],
                                         ["runB", "P@10", "401", 0.3], ["runB", "AP", "401", 0.5]]
    assert table[table.qid == "all"][["run", "measure", "value"]].values.tolist() == [
        ["runA", "P@10", 0.3], ["runA", "AP", 0.1875], ["runB", "P@10", 0.3], ["runB", "AP", 0.5]]
    assert table.attrs["dropped"] == {"num_ret": 3, "relstring": 3, "runid": 2, "num_q": 2}


def test_summary_only_outputs_one_after_another(tmp_path):
    text = "runid\tall\tx\nnum_q\tall\t2\nmap\tall\t0.2\nrunid\tall\ty\nnum_q\tall\t2\nmap\tall\t0.3\n"
    table = read_score_file(write(tmp_path / "summaries", text))
    assert table.values.tolist() == [["x", "AP", "all", 0.2], ["y", "AP", "all", 0.3]]


def test_a_directory_of_files_gzip_and_all(tmp_path):
    folder = tmp_path / "scores"
    write(folder / "a.txt", A + B)
    (folder / "c.txt.gz").write_bytes(gzip.compress(C.encode()))
    write(folder / ".hidden", "not scores\n")
    table = read_score_file(folder, format="trec_eval")
    assert list(dict.fromkeys(table["run"])) == ["runA", "runB", "runC"]
    assert table.attrs["dropped"]["runid"] == 3 and table.attrs["source"] == str(folder)
    got = scores_from_table(table, ["P@10", "AP"], [], missing="zero", source=str(folder))
    assert got.topics == ["401", "402"]
    assert got.per_topic[1].tolist() == [[0.25, 0.125], [0.5, 0.0], [0.0, 0.75]]
    assert got.means["all_topics"][1].tolist() == [0.1875, 0.25, 0.375]  # trec_eval -c
    assert got.means["returned_topics"][1].tolist() == [0.1875, 0.5, 0.75]  # trec_eval's default


def test_auto_tells_the_formats_apart(tmp_path):
    tsv = write(tmp_path / "s.tsv", "run\tmeasure\tqid\tvalue\nmy run\tP_10\t1\t0.5\nmy run\tP@10\tall\t0.5\n")
    assert read_score_file(tsv).values.tolist() == [["my run", "P@10", "1", 0.5], ["my run", "P@10", "all", 0.5]]
    assert read_score_file(write(tmp_path / "t", "P_10 1 0.5\r\nrunid all r\r\n")).values.tolist() == [
        ["r", "P@10", "1", 0.5]]


# ------------------------------------------------------------------ faults, with their line

HEADER = "run\tmeasure\tqid\tvalue\n"


@pytest.mark.parametrize("format,text,line,fault", [
    ("auto", "", None, "empty file"),
    ("auto", "\n  \n", None, "empty file"),
    ("irmeta", HEADER, None, "no scores, only the header"),
    ("irmeta", "r\tP@10\t1\t0.5\n", 1, "expected the header run<TAB>measure<TAB>qid<TAB>value"),
    ("auto", HEADER + "r\tP@10\t1\t0.5\nr\tP@10\t2\n", 3, r"3 fields, expected 4 \(run, measure, qid, value"),
    ("auto", HEADER + "r\tP@10\t1\t0.5\n\nr\tnum_q\tall\t3\n", 4, "unknown measure 'num_q'"),
    ("auto", HEADER + "r\t\t1\t0.5\n", 2, "empty measure"),
    ("auto", HEADER + "r\tAP\t1\thigh\n", 2, "value 'high' of AP is not a finite number"),
    ("auto", HEADER + "r\tAP\t1\t0.5\nr\tP@5\t1\t1\nr\tAP\t1\t0.5\n", 4,
     r"run r scores AP on topic 1 twice \(also on line 2\)"),
    ("auto", "P_10 1 0.5\nmap 1\nrunid all r\n", 2, r"2 fields, expected 3 \(measure qid value"),
    ("trec_eval", "P_10 1 0.5\nmap 1 nan\nrunid all r\n", 2, "value 'nan' of map is not a finite number"),
    ("trec_eval", "P_10 1 0.5\nrunid all r\nmap all 1e999\n", 3, "value '1e999' overflows a double"),
    ("auto", "P_10 1 0.5\nrunid all r\nP_10 2 0.5\nmap all 0.1\n", 3,
     "a trec_eval block .* without its 'runid all <name>' line"),
    ("auto", A + B.replace("runB", "runA"), 14, r"run runA scores P@10 on topic 401 twice \(also on line 2\)"),
    ("auto", "P_10 1 0.5\nruns all r\n", 1, "a trec_eval block .* without its 'runid all <name>' line"),
])
def test_faults_name_file_and_line(tmp_path, format, text, line, fault):
    path = write(tmp_path / "scores.txt", text)
    where = re.escape(f"{path}:{line}: " if line else f"{path}: ")
    with pytest.raises(ValueError, match=where + fault):
        read_score_file(path, format=format)


def test_faults_across_files_and_paths(tmp_path):
    with pytest.raises(FileNotFoundError, match=re.escape(f"{tmp_path / 'nope'}: no such file or directory")):
        read_score_file(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="the directory holds no scores file"):
        read_score_file(tmp_path / "empty")
    with pytest.raises(ValueError, match="format must be auto, irmeta or trec_eval, not 'csv'"):
        read_score_file(write(tmp_path / "x", A), format="csv")  # type: ignore[arg-type]
    write(tmp_path / "dir" / "1", A)
    second = write(tmp_path / "dir" / "2", A)
    with pytest.raises(ValueError, match=re.escape(f"{second}:2: run runA scores P@10 on topic 401 twice "
                                                   f"(also on {tmp_path / 'dir' / '1'}:2)")):
        read_score_file(tmp_path / "dir")


# ------------------------------------------------------------------ tables to Scores


def table(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["run", "measure", "qid", "value"])


def test_alpha_blocks_topic_order_and_ignored_means():
    rows = [("s", f"P_rareness(alpha={a})@10", q, v + i) for i, a in enumerate(["0", "0.5"])
            for q, v in (("10", 0.1), ("9", 0.2))]
    t = table(rows + [("s", "P_rareness(alpha=0)@10", "all", 99.0), ("s", "ASL", "10", 3.0),
                      ("s", "ASL", "9", 1.0)])
    with pytest.raises(ValueError, match=re.escape("scores: no per-topic scores of P_rareness(alpha=1)@10 (it has "
                                                   "per-topic scores of P_rareness(alpha=0)@10, "
                                                   "P_rareness(alpha=0.5)@10, ASL)")):
        scores_from_table(t, ["P_rareness@10"], [0, 1])
    got = scores_from_table(t, ["P_rareness@10", "P_rareness(alpha=0.5)@10", "ASL"], [0, 0.5])
    assert got.measures == ["P_rareness@10"] * 3 + ["ASL"] and got.alphas == ["0", "0.5", "0.5", None]
    assert got.topics == ["9", "10"]  # irmeta's topic order (the qrels'), not the table's
    assert got.per_topic[:, 0].tolist() == [[0.2, 0.1], [1.2, 1.1], [1.2, 1.1], [1.0, 3.0]]
    assert got.means["all_topics"][:, 0].tolist() == pytest.approx([0.15, 1.15, 1.15, 2.0])  # not the 99 row


@pytest.mark.parametrize("drop,missing,fault", [
    (1, "error", "src: AP: no score of run s on topic 2 (every run needs a score on every topic: trec_eval -c "
                 "gives one; missing='zero' scores a missing topic 0)"),
    (5, "zero", "src: ASL: no score of run s on topic 2, and missing='zero' cannot score it 0: lower is better "
                "for ASL, so 0 would be its best score"),
    ([0, 1], "zero", "src: AP: no score of run s on any topic"),
])
def test_missing_scores(drop, missing, fault):
    rows = [(r, m, q, 0.5) for m in ("AP", "ASL") for r in ("s", "t") for q in ("1", "2")]
    t = table(rows).drop(index=drop)
    with pytest.raises(ValueError, match=re.escape(fault)):
        scores_from_table(t, ["AP", "ASL"], [], missing=missing, source="src")


def test_bad_tables_and_settings():
    with pytest.raises(ValueError, match="missing must be 'error' or 'zero', not 'fill'"):
        scores_from_table(table([("s", "AP", "1", 0.5)]), ["AP"], [], missing="fill")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="src: no column qid"):
        scores_from_table(table([("s", "AP", "1", 0.5)]).drop(columns="qid"), ["AP"], [], source="src")
