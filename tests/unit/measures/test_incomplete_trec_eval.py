"""Measures for incomplete judgments against trec_eval (pytrec_eval-terrier) on real campaigns.

``judged_only=true`` is trec_eval -J (Sakai's condensed lists: unjudged documents, and
negative grades, leave each list before the cutoff), and ``infAP`` is trec_eval's
``infAP``. Checked per run and topic on every TREC-8 run at depth 1000 (its qrels as
published, and with a random 30 % of its judgments turned into -1, "pooled but not
judged"), and on the TREC 2020 DL passage runs (grades 0-3, relevant from grade 2).
pytrec_eval is fed trec_eval's order as scores (depth - position), as
docs/PROTOCOL.md's "Numerical care" says; the largest difference measured is 0.0.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.campaign.runs import Runs, read_runs
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure

pytrec_eval = pytest.importorskip("pytrec_eval")

DEPTH = 1000
TOLERANCE = 1e-12
# irmeta's name -> trec_eval's, under -J (judged_docs_only_flag)
CONDENSED = {"AP(judged_only=true)": "map", "AP(judged_only=true)@100": "map_cut_100",
             "P(judged_only=true)@10": "P_10", "nDCG(judged_only=true)@10": "ndcg_cut_10",
             "nDCG(judged_only=true)": "ndcg", "Rprec(judged_only=true)": "Rprec",
             "SetP(judged_only=true)": "set_P", "RR(judged_only=true)": "recip_rank",
             "Bpref(judged_only=true)": "bpref", "infAP(judged_only=true)": "infAP"}
# without -J
PLAIN = {"infAP": "infAP", "AP": "map", "Bpref": "bpref"}


def qrels_dict(qrels: Qrels) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        out[q][d] = int(g)
    return dict(out)


def ordered_runs(runs: Runs) -> dict[str, dict[str, dict[str, float]]]:
    """{run: {qid: {docid: depth - position}}} of the top DEPTH: trec_eval's order as scores."""
    keep = runs.rank <= DEPTH
    docids = np.asarray(runs.docids.to_pylist(), dtype=object)[runs.docid[keep]]
    out: dict[str, dict[str, dict[str, float]]] = {name: defaultdict(dict) for name in runs.names}
    for r, q, d, k in zip(runs.run[keep].tolist(), runs.qid[keep].tolist(), docids.tolist(),
                          runs.rank[keep].tolist()):
        out[runs.names[r]][runs.topics[q]][d] = float(DEPTH + 1 - k)
    return out


def largest_differences(matrix, qrels: Qrels, runs: dict, names: dict[str, str], *, judged_only: bool,
                        threshold: int = 1) -> dict[str, float]:
    """Per measure, the largest |irmeta - pytrec_eval| over every run and topic pytrec_eval
    scores; the topics a run did not return must score 0 here."""
    ours = {str(m): v for m, v in evaluate(matrix, list(names)).items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict(qrels), set(names.values()), relevance_level=threshold,
                                               judged_docs_only_flag=judged_only)
    topic = {t: i for i, t in enumerate(matrix.topics)}
    worst = dict.fromkeys(names, 0.0)
    for s, run in enumerate(matrix.runs):
        result = evaluator.evaluate(dict(runs[run]))
        for q, values in result.items():
            for name, theirs in names.items():
                worst[name] = max(worst[name], abs(values[theirs] - ours[str(parse_measure(name))][s, topic[q]]))
        missing = [i for t, i in topic.items() if t not in result]
        assert not matrix.returned[s, missing].any(), run
        for name in names:
            assert (ours[str(parse_measure(name))][s, missing] == 0).all(), (run, name)
    return worst


@pytest.fixture(scope="module")
def trec8_ordered(trec8_runs):
    return ordered_runs(trec8_runs)


@pytest.fixture(scope="module")
def trec8_sampled(trec8_runs, trec8_qrels):
    """TREC-8 with a random 30 % of its judgments (relevant and not) marked -1: pooled, not judged."""
    grade = trec8_qrels.grade.copy()
    hidden = np.random.default_rng(19).random(len(grade)) < 0.3
    grade[hidden] = -1
    qrels = Qrels(qid=trec8_qrels.qid, docid=trec8_qrels.docid, grade=grade, source="trec8 sampled")
    return qrels, relevance_matrix(trec8_runs, qrels, depth=DEPTH)


@pytest.mark.slow
def test_trec8_judged_only_equals_trec_eval_J(trec8_matrix, trec8_qrels, trec8_ordered):
    worst = largest_differences(trec8_matrix, trec8_qrels, trec8_ordered, CONDENSED, judged_only=True)
    assert max(worst.values()) <= TOLERANCE, worst


@pytest.mark.slow
def test_trec8_infap_equals_trec_eval(trec8_matrix, trec8_qrels, trec8_ordered):
    worst = largest_differences(trec8_matrix, trec8_qrels, trec8_ordered, PLAIN, judged_only=False)
    assert max(worst.values()) <= TOLERANCE, worst


def test_trec8_infap_is_ap_up_to_epsilon_with_complete_pools(trec8_matrix):
    # No -1 in TREC-8's qrels: u = 0 and (r + n)/j times r/(r + n) is precision at the rank,
    # so infAP differs from AP by INFAP_EPSILON's shift only (measured: at most 2.3e-6).
    scores = evaluate(trec8_matrix, ["infAP", "AP"])
    gap = np.abs(scores[parse_measure("infAP")] - scores[parse_measure("AP")])
    assert 0 < gap.max() < 1e-5


@pytest.mark.slow
def test_trec8_with_unjudged_pool_equals_trec_eval(trec8_sampled, trec8_ordered):
    qrels, matrix = trec8_sampled
    assert (matrix.grade_of(matrix.misses) == -1).sum() > 100_000  # the sample leaves many in the runs
    plain = largest_differences(matrix, qrels, trec8_ordered, PLAIN, judged_only=False)
    condensed = largest_differences(matrix, qrels, trec8_ordered, CONDENSED, judged_only=True)
    assert max(plain.values()) <= TOLERANCE and max(condensed.values()) <= TOLERANCE, (plain, condensed)
    # the -1s matter: infAP now differs from AP by far more than epsilon
    scores = evaluate(matrix, ["infAP", "AP"])
    assert np.abs(scores[parse_measure("infAP")] - scores[parse_measure("AP")]).max() > 0.1


@pytest.mark.slow
def test_graded_dl2020_equals_trec_eval(shared_data):
    root = shared_data / "dl2020_passage"
    runs, qrels = read_runs(root / "runs", depth=DEPTH), read_qrels(root / "qrels.txt")
    matrix = relevance_matrix(runs, qrels, depth=DEPTH, threshold=2)  # the track's official level
    ordered = ordered_runs(runs)
    condensed = largest_differences(matrix, qrels, ordered, CONDENSED, judged_only=True, threshold=2)
    plain = largest_differences(matrix, qrels, ordered, PLAIN, judged_only=False, threshold=2)
    assert max(condensed.values()) <= TOLERANCE and max(plain.values()) <= TOLERANCE, (condensed, plain)
    # DL's shallow pools leave most retrieved documents unjudged: condensing changes scores
    scores = evaluate(matrix, ["nDCG@10", "nDCG(judged_only=true)@10", "Judged@10", "Judged"])
    assert (scores[parse_measure("nDCG(judged_only=true)@10")] > scores[parse_measure("nDCG@10")]).any()
    # Judged@k as ir_measures counts it: qrels entries in the top k over min(k, returned)
    judged, topic = qrels_dict(qrels), {t: i for i, t in enumerate(matrix.topics)}
    for k, name in ((10, "Judged@10"), (DEPTH, "Judged")):
        want = np.zeros(matrix.length.shape)
        for s, run in enumerate(matrix.runs):
            for q, docs in ordered[run].items():
                top = sorted(docs, key=lambda d: -docs[d])[:k]
                want[s, topic[q]] = sum(d in judged[q] for d in top) / len(top)
        assert np.array_equal(scores[parse_measure(name)], want), name
    assert 0 < scores[parse_measure("Judged@10")].mean() < 1
