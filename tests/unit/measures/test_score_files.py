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
from irmeta.measures.score_files import pieces as piece_reader
from irmeta.measures.score_files import read_score_file, read_score_rows, scores_from_table

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


@pytest.mark.slow
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
    # one definition of a run's mean (run_means): the same per-topic floats, the same bits,
    # for the precision family too (its grid snaps both to the integer totals' quotient)
    assert np.array_equal(got.means["all_topics"], scored.means["all_topics"])
    assert np.array_equal(got.means["returned_topics"], returned.means["returned_topics"])  # every topic returned


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
    assert per_topic.values.tolist() == [["runA", "NumRet", "401", 1000], ["runA", "P@10", "401", 0.5],
                                         ["runA", "AP", "401", 0.25], ["runA", "NumRet", "402", 1000],
                                         ["runA", "P@10", "402", 0.1], ["runA", "AP", "402", 0.125],
                                         ["runB", "NumRet", "401", 1000], ["runB", "P@10", "401", 0.3],
                                         ["runB", "AP", "401", 0.5]]
    assert table[table.qid == "all"][["run", "measure", "value"]].values.tolist() == [
        ["runA", "NumQ", 2], ["runA", "P@10", 0.3], ["runA", "AP", 0.1875],
        ["runB", "NumQ", 1], ["runB", "P@10", 0.3], ["runB", "AP", 0.5]]
    assert table.attrs["dropped"] == {"relstring": 3, "runid": 2}


SUMMED = ("num_ret\t1\t1000\nnum_rel\t1\t7\nmap\t1\t0.5\nnum_ret\t2\t400\nnum_rel\t2\t3\n"
          "map\t2\t0.25\nrunid\tall\tr\nnum_q\tall\t3\nnum_ret\tall\t{ret}\nnum_rel\tall\t{rel}\nmap\tall\t0.375\n")


@pytest.mark.parametrize("ret, rel", [(1400, 10), (1400, 15)])  # 15: trec_eval -c adds a topic the run lacks
def test_trec_evals_summed_counts_are_sums_not_means(tmp_path, ret, rel):
    table = read_score_file(write(tmp_path / "te", SUMMED.format(ret=ret, rel=rel)))
    got = scores_from_table(table, ["NumRet", "NumRel", "AP"], [], missing="zero", source="te")
    assert got.per_topic[0].tolist() == [[1000, 400]] and got.means["all_topics"][:, 0].tolist() == [700, 5, 0.375]


@pytest.mark.parametrize("ret, rel, said", [(700, 10, "summary of NumRet for run r is 700.0, but its per-topic "
                                             "scores sum to 1400.0"), (1400, 9, "summary of NumRel")])
def test_a_summed_count_that_is_no_sum_is_refused(tmp_path, ret, rel, said):
    table = read_score_file(write(tmp_path / "te", SUMMED.format(ret=ret, rel=rel)))
    with pytest.raises(ValueError, match=said):
        scores_from_table(table, ["NumRet", "NumRel", "AP"], [], missing="zero", source="te")


def test_summary_only_outputs_one_after_another(tmp_path):
    text = "runid\tall\tx\nnum_q\tall\t2\nmap\tall\t0.2\nrunid\tall\ty\nnum_q\tall\t2\nmap\tall\t0.3\n"
    table = read_score_file(write(tmp_path / "summaries", text))
    assert table.values.tolist() == [["x", "NumQ", "all", 2], ["x", "AP", "all", 0.2],
                                      ["y", "NumQ", "all", 2], ["y", "AP", "all", 0.3]]


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
    ("auto", HEADER + "r\tP@10\t1\t0.5\n\nr\tnum_bogus\tall\t3\n", 4, "unknown measure 'num_bogus'"),
    ("auto", HEADER + "r\t\t1\t0.5\n", 2, "empty measure"),
    ("auto", HEADER + "r\tAP\t1\thigh\n", 2, "value 'high' of AP is not a finite number"),
    ("auto", HEADER + "r\tAP\t1\t0.5\nr\tP@5\t1\t1\nr\tAP\t1\t0.5\n", 4,
     r"run r scores AP on topic 1 twice \(also on line 2\)"),
    ("auto", "P_10 1 0.5\nmap 1\nrunid all r\n", 2, r"2 fields, expected 3 \(measure qid value"),
    ("trec_eval", "P_10 1 0.5\nmap 1 nan\nrunid all r\n", 2, "value 'nan' of map is not a finite number"),
    ("trec_eval", "P_10 1 0.5\nrunid all r\nmap all 1e999\n", 3, "value '1e999' overflows a double"),
    ("auto", "P_10 1 0.5\nrunid all r\nP_10 2 0.5\nmap all 0.1\n", 3,
     "a trec_eval block .* without its 'runid all <name>' line"),
    ("auto", A + B.replace("runB", "runA"), 13, r"run runA scores NumRet on topic 401 twice \(also on line 1\)"),
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
    with pytest.raises(ValueError, match=re.escape(f"{second}:1: run runA scores NumRet on topic 401 twice "
                                                   f"(also on {tmp_path / 'dir' / '1'}:1)")):
        read_score_file(tmp_path / "dir")


# ------------------------------------------------------------------ tables to Scores


def table(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["run", "measure", "qid", "value"])


def test_alpha_blocks_topic_order_and_checked_means():
    rows = [("s", f"P_rareness(alpha={a})@10", q, v + i) for i, a in enumerate(["0", "0.5"])
            for q, v in (("10", 0.1), ("9", 0.2))]
    asl = [("s", "ASL", "10", 3.0), ("s", "ASL", "9", 1.0)]
    with pytest.raises(ValueError, match=re.escape("scores, row 4: the mean of P_rareness(alpha=0)@10 for run s is "
                                                   "99.0, but its per-topic scores give 0.15 over the 2 topics")):
        scores_from_table(table(rows + [("s", "P_rareness(alpha=0)@10", "all", 99.0)] + asl), ["P_rareness@10"], [0])
    t = table(rows + [("s", "P_rareness(alpha=0)@10", "all", 0.15)] + asl)
    with pytest.raises(ValueError, match=re.escape("scores: no per-topic scores of P_rareness(alpha=1)@10 (it has "
                                                   "per-topic scores of P_rareness(alpha=0)@10, "
                                                   "P_rareness(alpha=0.5)@10, ASL)")):
        scores_from_table(t, ["P_rareness@10"], [0, 1])
    got = scores_from_table(t, ["P_rareness@10", "P_rareness(alpha=0.5)@10", "ASL"], [0, 0.5])
    assert got.measures == ["P_rareness@10"] * 3 + ["ASL"] and got.alphas == ["0", "0.5", "0.5", None]
    assert got.topics == ["9", "10"]  # irmeta's topic order (the qrels'), not the table's
    assert got.per_topic[:, 0].tolist() == [[0.2, 0.1], [1.2, 1.1], [1.2, 1.1], [1.0, 3.0]]
    assert got.means["all_topics"][:, 0].tolist() == pytest.approx([0.15, 1.15, 1.15, 2.0])


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


# ------------------------------------------------------------------ rows as codes, read in pieces


def test_rows_as_codes_are_the_table_and_lay_out_the_same(trec8):
    _, _, tsv, trec = trec8
    for path in (tsv, trec):
        rows = read_score_rows(path)
        assert rows.run.dtype == rows.measure.dtype == rows.qid.dtype == np.int32 and len(rows) == len(rows.value)
        assert len(set(rows.runs)) == len(rows.runs) and set(rows.runs) == set(RUNS)
        table = read_score_file(path)
        pd.testing.assert_frame_equal(rows.frame(), table)
        assert rows.frame().attrs == table.attrs
        from_rows = scores_from_table(rows, MEASURES, ALPHAS, source=str(path))
        from_table = scores_from_table(table, MEASURES, ALPHAS, source=str(path))
        assert (from_rows.runs, from_rows.topics) == (from_table.runs, from_table.topics)
        assert np.array_equal(from_rows.per_topic, from_table.per_topic)
        assert all(np.array_equal(from_rows.means[k], from_table.means[k]) for k in from_table.means)


def pieces(monkeypatch, piece_bytes: int, step_rows: int = 3) -> None:
    """Read files a few lines at a time and lay rows out a few at a time, so that every
    path across pieces and slices runs on small files."""
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", piece_bytes)
    monkeypatch.setattr(piece_reader, "STEP_ROWS", step_rows)


# P@100 and AP: 0.11, 0.12, ... are scores they can give (P@10 cannot: its are tenths)
TSV = HEADER + "".join(f"r{r}\t{m}\t{q}\t0.{r}{q}\n" for m in ("P@100", "AP") for r in (1, 2) for q in (1, 2, 3))
READ_IN_PIECES = {
    "tsv": TSV,
    "tsv, CRLF, blank lines": TSV.replace("\n", "\r\n").replace("r2\tAP\t1", "\r\n \t\r\nr2\tAP\t1"),
    "tsv, means first": HEADER + "r2\tAP\tall\t0.5\n" + TSV[len(HEADER):],
    "trec_eval, two blocks": A + B,
    "trec_eval, three blocks, spaces": (A + B + C).replace("\t", " "),
    "trec_eval, padded, blank lines": (A + "\n\n" + B).replace("402", "402   "),
    "summaries": "runid\tall\tx\nnum_q\tall\t2\nmap\tall\t0.2\nrunid\tall\ty\nnum_q\tall\t2\nmap\tall\t0.3\n",
}


@pytest.mark.parametrize("text", READ_IN_PIECES.values(), ids=READ_IN_PIECES.keys())
@pytest.mark.parametrize("piece_bytes", [1, 7, 64])
def test_a_file_read_in_pieces_gives_the_same_rows(tmp_path, monkeypatch, text, piece_bytes):
    path = write(tmp_path / "scores", text)
    whole = read_score_file(path)
    pieces(monkeypatch, piece_bytes)
    pd.testing.assert_frame_equal(read_score_file(path), whole)
    assert read_score_file(path).attrs == whole.attrs
    precision = next((m for m in ("P@10", "P@100") if m in set(whole["measure"])), None)
    if precision is not None and (whole["qid"] != "all").any():
        got = scores_from_table(read_score_rows(path), [precision], [], missing="zero")
        monkeypatch.undo()
        want = scores_from_table(whole, [precision], [], missing="zero")
        assert np.array_equal(got.per_topic, want.per_topic) and got.topics == want.topics


def test_a_byte_order_mark_starts_only_the_file(tmp_path, monkeypatch):
    """Arrow's reader drops a mark at the start of what it reads; one starting a later
    piece (a line) is part of the run's name, as the tokeniser reads it."""
    path = tmp_path / "scores.tsv"
    path.write_bytes(HEADER.encode() + "\ufeffr\tP@10\t1\t0.5\n".encode())
    assert read_score_file(path)["run"].tolist() == ["\ufeffr"]
    pieces(monkeypatch, 1)
    assert read_score_file(path)["run"].tolist() == ["\ufeffr"]


# every fault in a piece of its own: the one reported is the one a whole-file check finds
# first (fields, then text, then measures, then values; a trec_eval block without its
# runid before its values), whichever piece holds it
FAULTS_ACROSS_PIECES = [
    (TSV + "r3\tAP\t1\thigh\nr3\tAP\t2\n", 15, "3 fields, expected 4"),
    (TSV.replace("r1\tP@100\t2\t0.12", "r1\tP@100\t2\thigh") + "r3\t\t1\t0.5\n", 14, "empty measure"),
    (TSV.replace("r1\tP@100\t2", "r1\tnum_q\t2") + "r3\tAP\t\t0.5\n", 14, "empty qid"),
    (TSV + "r3\tAP\t1\thigh\nr3\tnum_bogus\t1\t0.5\n", 15, "unknown measure 'num_bogus'"),
    (TSV + "r3\tAP\t1\t1e999\nr3\tAP\t2\thigh\n", 15, "value 'high' of AP is not a finite number"),
    (TSV + TSV[len(HEADER):].replace("r2\tAP", "r9\tAP"), 14,
     r"run r1 scores P@100 on topic 1 twice \(also on line 2\)"),
    (A.replace("0.2500", "high") + B.replace("runid", "runix"), 13,
     "a trec_eval block .* without its 'runid all <name>' line"),
    (A + B.replace("0.3000", "0.3 x"), 14, "4 fields, expected 3"),
]


@pytest.mark.parametrize("text,line,fault", FAULTS_ACROSS_PIECES)
@pytest.mark.parametrize("piece_bytes", [1, 30, 1 << 20])
def test_faults_across_pieces_are_the_whole_files_first(tmp_path, monkeypatch, text, line, fault, piece_bytes):
    path = write(tmp_path / "scores.txt", text)
    pieces(monkeypatch, piece_bytes)
    with pytest.raises(ValueError, match=re.escape(f"{path}:{line}: ") + fault):
        read_score_file(path)


def test_a_corrupt_gzip_file_is_its_first_fault(tmp_path):
    path = tmp_path / "scores.gz"
    path.write_bytes(gzip.compress((A + B).encode() * 50)[:-200])
    with pytest.raises(ValueError, match="corrupt gzip data"):
        read_score_file(path, format="irmeta")


def test_imported_scores_beside_runs_are_laid_on_the_campaigns_runs_and_topics(tmp_path):
    from irmeta.measures.averaging import Scores
    from irmeta.pipeline.steps import imported_scores

    path = write(tmp_path / "given.tsv", TSV.replace("\t3\t", "\t9\t"))
    within = Scores(runs=["r2", "r1"], topics=["2", "1", "5"], measures=["P@10"], alphas=[None],
                    per_topic=np.zeros((1, 2, 3)), means={"all_topics": np.zeros((1, 2))})
    got = imported_scores(path, ["AP"], [], ["all", "returned"], {"missing": "zero"}, within)
    assert (got.runs, got.topics, got.measures) == (["r2", "r1"], ["2", "1", "5"], ["AP"])
    assert got.per_topic[0].tolist() == [[0.22, 0.21, 0.0], [0.12, 0.11, 0.0]]  # topic 9 is no qrels topic
    assert got.means["returned_topics"][0].tolist() == pytest.approx([0.215, 0.115])  # over qrels topics 1, 2
    assert got.means["all_topics"][0].tolist() == pytest.approx([0.43 / 3, 0.23 / 3])
    with pytest.raises(ValueError, match="no scores on qrels topic 5"):
        imported_scores(path, ["AP"], [], ["all"], {}, within)
    with pytest.raises(ValueError, match="run r1 is not among the collection's runs"):
        imported_scores(path, ["AP"], [], ["all"], {}, Scores(["r2"], ["1"], [], [], np.zeros((0, 1, 1)), {}))
    with pytest.raises(ValueError, match="run r3 has no scores"):
        imported_scores(path, ["AP"], [], ["all"], {}, Scores(["r1", "r2", "r3"], ["1"], [], [], np.zeros((0, 3, 1)),
                                                              {}))
