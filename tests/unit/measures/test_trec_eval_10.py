"""trec_eval's measures added for issue 42, per topic against trec_eval itself.

- rbp, rbp_resid, rbp.p=x and unj_k, which no pytrec_eval computes: against golden output of
  trec_eval 10.0-rc2 (data/trec_eval_10_rbp_unj.tsv, its provenance in its header) on real
  TREC-8 and DL 2020 runs read from ../shared/data; the live comparison on every run of
  both collections is ``benchmarks/bench_trec_eval_measures.py --trec-eval BINARY``.
- iprec_at_recall, 11pt_avg, num_*, set_map, set_relative_P, relative_P, Rprec_mult,
  utility, G, binG, ndcg_rel, Rndcg and set_F.x: against pytrec-eval-terrier (trec_eval
  9.0.8's code), fed trec_eval's order as scores (pytrec_eval reads scores as float32).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.campaign.runs import Runs, read_runs
from irmeta.measures.averaging import evaluate, exact_mean
from irmeta.measures.names import parse_measure, trec_eval_name

GOLDEN = Path(__file__).parent / "data" / "trec_eval_10_rbp_unj.tsv"
TOLERANCE = 1e-12


def read_golden() -> dict[str, dict[tuple[str, str, str], float]]:
    """{collection: {(run, measure, qid): value}} from the golden file."""
    out: dict[str, dict[tuple[str, str, str], float]] = defaultdict(dict)
    with GOLDEN.open() as handle:
        rows = csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
        for row in rows:
            out[row["collection"]][(row["run"], row["measure"], row["qid"])] = float(row["value"])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("collection", ["trec8_adhoc", "dl2020_passage"])
def test_rbp_and_unj_equal_trec_eval_10(shared_data, collection):
    golden = read_golden()[collection]
    runs_named = sorted({run for run, _, _ in golden})
    names = sorted({name for _, name, _ in golden})
    root = shared_data / collection
    runs = read_runs([root / "runs" / f"{run}.gz" for run in runs_named])
    matrix = relevance_matrix(runs, read_qrels(root / "qrels.txt"), threshold=1)
    scores = evaluate(matrix, names)
    compared = 0
    for (run, name, qid), value in golden.items():
        s = matrix.runs.index(run)
        per_topic = scores[parse_measure(name)][s]
        if qid == "all":  # trec_eval's mean over the topics the run returned
            ours = float(exact_mean(per_topic, matrix.returned[s]))
        else:
            ours = float(per_topic[matrix.topics.index(qid)])
        assert abs(ours - value) <= TOLERANCE * max(1.0, abs(value)), (collection, run, name, qid, ours, value)
        compared += 1
    assert compared == len(golden) > 1000


def test_trec_eval_rbp_names_read_as_trec_eval_computes_them():
    assert str(parse_measure("rbp")) == "RBP(gain_scale=topic_max,p=0.9)"
    assert str(parse_measure("rbp.p=0.95")) == str(parse_measure("rbp_p=0.95")) == "RBP(gain_scale=topic_max,p=0.95)"
    assert str(parse_measure("rbp_resid")) == "RBP_residual(p=0.9,when=any_unjudged)"
    assert trec_eval_name("rbp") == "rbp" and trec_eval_name("rbp.p=0.5") == "rbp_p=0.5"
    # trec_eval refuses rbp.95 (a malformed pair): ranx's name, p = 0.95 with its unscaled grades
    assert str(parse_measure("rbp.95")) == "RBP(gain_scale=none,p=0.95)"


def test_inq601_rbp_is_trec_evals_not_rbp_08(trec8_matrix):
    """The issue's example: trec_eval prints 0.3914 for INQ601's rbp; RBP(p=0.8) is 0.4386."""
    s = trec8_matrix.runs.index("INQ601")
    got = evaluate(trec8_matrix, ["rbp", "RBP"])
    assert round(float(exact_mean(got[parse_measure("rbp")][s])), 4) == 0.3914
    assert round(float(exact_mean(got[parse_measure("RBP")][s])), 4) == 0.4386


def test_topic_max_scales_by_each_topics_largest_grade(shared_data):
    """DL 2020: on a topic whose largest grade is 2, trec_eval's rbp is 1.5 times
    RBP(p=0.9,gains={1:1,2:2,3:3}) (scaled by 3); by 3 / G_t in general."""
    root = shared_data / "dl2020_passage"
    qrels = read_qrels(root / "qrels.txt")
    matrix = relevance_matrix(read_runs(root / "runs" / "pash_r3.gz"), qrels, threshold=1)
    got = evaluate(matrix, ["rbp", "RBP(p=0.9,gains={1:1,2:2,3:3})"])
    ours, fixed = got[parse_measure("rbp")][0], got[parse_measure("RBP(p=0.9,gains={1:1,2:2,3:3})")][0]
    top = np.zeros(matrix.n_topics)
    np.maximum.at(top, matrix.qrels_topic, matrix.qrels_grade.astype(float))
    assert (top == 2).any()
    np.testing.assert_allclose(ours, fixed * 3.0 / top, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- against pytrec_eval

pytrec_eval = pytest.importorskip("pytrec_eval")

REQUEST = {"iprec_at_recall", "11pt_avg", "num_ret", "num_rel", "num_rel_ret", "set_map", "set_relative_P",
           "relative_P.5,10,100", "Rprec_mult", "utility", "G", "binG", "ndcg_rel", "Rndcg"}


def qrels_for_pytrec(qrels: Qrels) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        if g >= 0:
            out[q][d] = int(g)
    return dict(out)


def runs_in_trec_order(runs: Runs) -> dict[str, dict[str, dict[str, float]]]:
    """{run: {qid: {docid: 1e7 - rank}}}: trec_eval's order as strictly decreasing scores."""
    docids = np.asarray(runs.docids.to_pylist(), dtype=object)
    out: dict[str, dict[str, dict[str, float]]] = {name: defaultdict(dict) for name in runs.names}
    scores = (1e7 - runs.rank.astype(np.float64)).tolist()
    for r, q, d, s in zip(runs.run.tolist(), runs.qid.tolist(), docids[runs.docid].tolist(), scores):
        out[runs.names[r]][runs.topics[q]][d] = s
    return out


def compare_with_pytrec(runs: Runs, qrels: Qrels, threshold: int) -> int:
    matrix = relevance_matrix(runs, qrels, threshold=threshold)
    judged = qrels_for_pytrec(qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, REQUEST, relevance_level=threshold)
    set_f = pytrec_eval.RelevanceEvaluator(judged, {"set_F.0.5"}, relevance_level=threshold)
    names: set[str] = set()
    results = {}
    for run, per_topic in runs_in_trec_order(runs).items():
        wanted = {q: docs for q, docs in per_topic.items() if q in matrix.topics}
        results[run] = evaluator.evaluate(wanted)
        for q, values in set_f.evaluate(wanted).items():
            results[run][q]["set_F_0.5"] = values["set_F"]
        names |= {name for topic in results[run].values() for name in topic}
    scores = evaluate(matrix, sorted(names))
    compared = 0
    for run, per_topic in results.items():
        s = matrix.runs.index(run)
        for q, values in per_topic.items():
            t = matrix.topics.index(q)
            for name, value in values.items():
                ours = float(scores[parse_measure(name)][s, t])
                assert abs(ours - value) <= 1e-9, (run, q, name, ours, value)
                compared += 1
    return compared


@pytest.mark.slow
def test_trec8_equals_pytrec_eval(shared_data, trec8_qrels):
    runs = read_runs(sorted((shared_data / "trec8_adhoc" / "runs").glob("*.gz"))[:24])
    assert compare_with_pytrec(runs, trec8_qrels, threshold=1) >= 24 * 50 * 36


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [1, 2])
def test_dl2020_equals_pytrec_eval(shared_data, threshold):
    root = shared_data / "dl2020_passage"
    runs = read_runs(sorted((root / "runs").glob("*.gz"))[:16])
    assert compare_with_pytrec(runs, read_qrels(root / "qrels.txt"), threshold) >= 16 * 54 * 36
