"""score_precision (issue 29, item 5): trec_eval's two eras.

trec_eval held scores as ``float sim`` until 9.0.8 (usnistgov/trec_eval issue 34, pull
request 38), and pytrec_eval-terrier still does: each score is rounded to single precision
before the order (score descending, docid descending), so two scores the rounding makes
equal are ordered by docid. ``score_precision="float32"`` does that rounding once, when a
run is read (files and runs in memory alike); the ranks the ingestion stores are that
order. Checked: pytrec_eval-terrier fed the runs as it reads them (their scores, as
Python floats) gives irmeta's per-topic AP, nDCG and P exactly (0 difference) on all 129
TREC-8 runs and the 59 TREC 2020 DL passage runs; ``double`` stays trec_eval >= 9.0.8's
order (tests/unit/measures/test_exactness.py, unchanged).
"""

from __future__ import annotations

import gzip
from collections import defaultdict

import numpy as np
import pytest

import irmeta
from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure

pytrec_eval = pytest.importorskip("pytrec_eval")

# irmeta's name -> pytrec_eval's, per topic
MEASURES = {"AP": "map", "nDCG": "ndcg", "P@10": "P_10", "P@100": "P_100", "AP@100": "map_cut_100",
            "nDCG@10": "ndcg_cut_10"}
REQUEST = {"map", "ndcg", "P.10,100", "map_cut.100", "ndcg_cut.10"}


def _qrels_dict(qrels) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        out[q][d] = int(g)
    return dict(out)


def _differences(shared_data, collection: str, precision: str) -> tuple[int, list]:
    """pytrec_eval fed every run's scores as read (double: the file's text as Python floats)
    against irmeta reading the same files at ``precision``: (values compared, differing)."""
    qrels = read_qrels(shared_data / collection / "qrels.txt")
    as_read = read_runs(shared_data / collection / "runs")
    matrix = relevance_matrix(read_runs(shared_data / collection / "runs", score_precision=precision), qrels)
    ours = evaluate(matrix, list(MEASURES))
    judged = _qrels_dict(qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, REQUEST)
    docids = np.asarray(as_read.docids.to_pylist(), dtype=object)
    compared, differ = 0, []
    for r, name in enumerate(as_read.names):
        rows = as_read.run == r
        run: dict[str, dict[str, float]] = defaultdict(dict)
        for q, d, s in zip(as_read.qid[rows].tolist(), docids[as_read.docid[rows]].tolist(),
                           as_read.score[rows].tolist()):
            run[as_read.topics[q]][d] = s
        s_ = matrix.runs.index(name)
        for topic, values in evaluator.evaluate({q: v for q, v in run.items() if q in judged}).items():
            t = matrix.topics.index(topic)
            for measure, theirs in MEASURES.items():
                compared += 1
                if values[theirs] != ours[parse_measure(measure)][s_, t]:
                    differ.append((name, topic, measure, values[theirs], ours[parse_measure(measure)][s_, t]))
    return compared, differ


@pytest.mark.slow
@pytest.mark.parametrize("collection, runs, topics", [("trec8_adhoc", 129, 50), ("dl2020_passage", 59, 54)])
def test_float32_gives_pytrec_eval_terriers_values_bit_for_bit(shared_data, collection, runs, topics):
    compared, differ = _differences(shared_data, collection, "float32")
    assert compared >= runs * (topics - 5) * len(MEASURES)  # every run and (returned) topic
    assert not differ, f"{len(differ)} values differ, e.g. {differ[:3]}"


@pytest.mark.slow
def test_double_is_not_pytrec_eval_on_trec8(shared_data):
    """Why the setting exists: at double precision the rounding's ties are not ties, and
    pytrec_eval's values differ (trec_eval 9.0.8's are irmeta's: test_exactness.py)."""
    _, differ = _differences(shared_data, "trec8_adhoc", "double")
    assert len(differ) > 0
    assert {name for name, *_ in differ} >= {"Dm8Nbn"}


def test_the_issues_example_dm8nbn_topic_446(shared_data):
    """TREC-8 Dm8Nbn topic 446: AP 0.013213588897914819 in pytrec_eval, 0.013217712583093658
    in irmeta at double precision (issue 29); float32 gives pytrec_eval's."""
    trec8 = shared_data / "trec8_adhoc"
    per_topic = {p: irmeta.evaluate(trec8 / "qrels.txt", trec8 / "runs" / "Dm8Nbn.gz", ["AP"], depth=1000,
                                    score_precision=p).set_index("qid")["value"]["446"]
                 for p in ("double", "float32")}
    run = read_runs(trec8 / "runs" / "Dm8Nbn.gz")
    docids = run.docids.to_pylist()
    given = {docids[d]: s for q, d, s in zip(run.qid.tolist(), run.docid.tolist(), run.score.tolist())
             if run.topics[q] == "446"}
    theirs = pytrec_eval.RelevanceEvaluator(_qrels_dict(read_qrels(trec8 / "qrels.txt")), {"map"}).evaluate(
        {"446": given})["446"]["map"]
    assert per_topic["float32"] == theirs == 0.013213588897914819
    assert per_topic["double"] == 0.013217712583093658


@pytest.mark.slow
def test_nists_1999_summary_is_float32_and_the_per_topic_file_double(shared_data, trec8_matrix):
    """Which era each official TREC-8 file is: NIST's summary (trec-browser, computed in 1999)
    equals irmeta's float32 means on all 129 runs, uwmt8a0 included (P_100 0.1972, map
    0.2143; double gives 0.1982 and 0.2142); the per-topic file (isoboroff/trec8-scores)
    equals the double order (test_exactness.py) and differs from float32 on uwmt8a0 only."""
    import csv

    from irmeta.measures.precision import average_precision

    trec8 = shared_data / "trec8_adhoc"
    with open(trec8 / "official_summary.csv", newline="") as fh:
        summary = {row["run"]: (row["P_100"], row["map"]) for row in csv.DictReader(fh)}
    means = irmeta.evaluate(trec8 / "qrels.txt", trec8 / "runs", ["P@100", "AP"], depth=1000,
                            score_precision="float32", per_topic=False)
    got: dict[str, dict[str, str]] = defaultdict(dict)
    for row in means.itertuples():
        got[row.run][row.measure] = f"{row.value:.4f}"
    assert {run: (v["P@100"], v["AP"]) for run, v in got.items()} == summary
    assert summary["uwmt8a0"] == ("0.1972", "0.2143")

    with open(trec8 / "official_per_topic.tsv", newline="") as fh:
        official = {(r["run"], r["topic"]): r["map"] for r in csv.DictReader(fh, delimiter="\t") if r["topic"] != "all"}
    qrels = read_qrels(trec8 / "qrels.txt")
    single = relevance_matrix(read_runs(trec8 / "runs", depth=1000, score_precision="float32"), qrels, depth=1000)
    differ = {}
    for matrix in (trec8_matrix, single):
        ap = average_precision(matrix, None)
        differ[matrix is single] = {run for s, run in enumerate(matrix.runs) for q, t in enumerate(matrix.topics)
                                    if f"{ap[s, q]:.4f}" != official[(run, t)]}
    assert differ == {False: set(), True: {"uwmt8a0"}}


# ----------------------------------------------------------- the order and the record


def _run_file(path, lines: list[str]) -> str:
    with gzip.open(path, "wt") as fh:
        fh.write("".join(line + "\n" for line in lines))
    return str(path)


def test_float32_ties_are_broken_by_docid_descending(tmp_path):
    # 1.00000001 and 1.00000002 differ as doubles, not as floats (spacing 2^-23 near 1)
    assert np.float32(1.00000001) == np.float32(1.00000002)
    path = _run_file(tmp_path / "r.gz", ["1 Q0 a 1 1.00000002 r", "1 Q0 b 2 1.00000001 r", "1 Q0 c 3 0.5 r"])
    double, single = (read_runs(path, score_precision=p) for p in ("double", "float32"))
    docids = [double.docids.to_pylist()[d] for d in double.docid]
    assert docids == ["a", "b", "c"]  # score descending
    assert [single.docids.to_pylist()[d] for d in single.docid] == ["b", "a", "c"]  # tie: docid descending
    assert single.score.tolist() == [float(np.float32(1.00000001))] * 2 + [0.5]  # the rounded scores are kept
    assert (double.score_precision, single.score_precision) == ("double", "float32")
    table = irmeta.evaluate({"1": {"a": 1}}, path, ["RR"], score_precision="float32")
    assert table.set_index("qid")["value"]["1"] == 0.5  # a ranked second


def test_runs_in_memory_are_rounded_as_files_are(tmp_path):
    path = _run_file(tmp_path / "r.gz", ["1 Q0 a 1 1.00000002 r", "1 Q0 b 2 1.00000001 r"])
    given = {"r": {"1": {"a": 1.00000002, "b": 1.00000001}}}
    for p in ("double", "float32"):
        from_file = irmeta.evaluate({"1": {"a": 1}}, path, ["RR"], score_precision=p)
        assert from_file.equals(irmeta.evaluate({"1": {"a": 1}}, given, ["RR"], score_precision=p))


def test_a_score_beyond_single_precision_is_refused_with_its_line(tmp_path):
    path = _run_file(tmp_path / "r.gz", ["1 Q0 a 1 1.5 r", "1 Q0 b 2 1e39 r"])
    read_runs(path)  # a double holds it
    with pytest.raises(TrecFormatError, match=r"r.gz:2: score 1e\+39 is beyond a single-precision float "
                                              r"\(score_precision float32"):
        read_runs(path, score_precision="float32")


@pytest.mark.parametrize("value", ["single", "float64", None, 32])
def test_a_bad_precision_is_refused_in_one_line(tmp_path, value):
    path = _run_file(tmp_path / "r.gz", ["1 Q0 a 1 1.5 r"])
    with pytest.raises(ValueError, match="score_precision must be .*'double'.*'float32'") as info:
        irmeta.evaluate({"1": {"a": 1}}, path, ["P@1"], score_precision=value)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="score_precision must be 'double' or 'float32'"):
        read_runs(path, score_precision=value)


def test_the_ingestion_rounds_once_and_records_the_precision(tmp_path):
    """judged.npz's ranks are the float32 order, and it says so beside the other reading settings."""
    from irmeta.campaign.store import load_matrix, matrix_settings
    from irmeta.pipeline.steps import ingest_collection

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    _run_file(runs / "r.gz", ["1 Q0 a 1 1.00000002 r", "1 Q0 b 2 1.00000001 r"])
    for p, rank_of_a in (("double", 1), ("float32", 2)):
        out = tmp_path / p / "judged.npz"
        ingest_collection(qrels=qrels, runs=runs, out=out, score_precision=p)
        assert matrix_settings(out)["settings"]["score_precision"] == p
        assert load_matrix(out).hits.rank.tolist() == [rank_of_a]
