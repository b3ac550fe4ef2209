"""ir_measures' Compat (Clarke, Vtyurina and Smucker 2021) and Accuracy (issue 42).

The references are ir_measures' own providers: ``compatibility`` of its CompatProvider on
each list of random graded campaigns, its evaluators on TREC-8 and TREC DL 2020 passage, fed
trec_eval's order as strictly decreasing positive scores (Compat reads an unretrieved
document's score as 0, so the run's scores must be above it). Accuracy: ir_measures reports
nothing for a topic without a relevant document in the top k (irmeta: 0) and divides by
zero when every document there is relevant (irmeta: 1).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures.providers.compat_provider import compatibility as ir_compatibility

import innovation_reference as ref
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure


def ir_accuracy(ranking: list[str], judged: dict[str, int], *, rel: int, k: int | None) -> float | None:
    """ir_measures' Accuracy of one list (None where it reports nothing), through its evaluator."""
    qrels = [ir_measures.Qrel("q", d, g) for d, g in judged.items()]
    measure = ir_measures.Accuracy(rel=rel) if k is None else ir_measures.Accuracy(rel=rel) @ k
    run = [ir_measures.ScoredDoc("q", d, float(len(ranking) - i)) for i, d in enumerate(ranking)]
    try:
        values = [m.value for m in ir_measures.accuracy.evaluator([measure], qrels).iter_calc(run)]
    except ZeroDivisionError:  # every document of the top k relevant
        return 1.0
    return values[0] if values else None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=ref.campaigns(), k=st.sampled_from([None, 1, 3, 8]), p=st.sampled_from([0.5, 0.8, 0.95]),
       normalize=st.booleans())
def test_each_list_equals_ir_measures_providers(campaign, k, p, normalize):
    qrels, runs, threshold = campaign
    cut = "" if k is None else f"@{k}"
    compat, accuracy = f"Compat(p={p},normalize={normalize}){cut}", f"Accuracy{cut}"
    with tempfile.TemporaryDirectory() as tmp:
        m = ref.campaign_matrix(Path(tmp), qrels, runs, threshold=threshold)
    got = evaluate(m, [compat, accuracy])
    for s, run in enumerate(m.runs):
        for q, topic in enumerate(m.topics):
            ranking = runs[run].get(topic, [])
            scored = {d: float(len(ranking) - i) for i, d in enumerate(ranking[:k])}
            want = ir_compatibility(qrels[topic], scored, p, normalize) if ranking else 0.0  # (it skips the topic)
            at = (compat, run, topic)
            assert got[parse_measure(compat)][s, q] == pytest.approx(want, rel=1e-12, abs=1e-14), at
            want = ir_accuracy(ranking, qrels[topic], rel=threshold, k=k)
            assert got[parse_measure(accuracy)][s, q] == (0.0 if want is None else pytest.approx(want, abs=1e-15)), \
                (accuracy, run, topic)


def test_the_ideal_run_is_fully_compatible_and_normalize_reads_as_ir_measures_writes_it(tmp_path):
    qrels = {"1": {"a": 2, "b": 1, "c": 1, "d": 0}}
    m = ref.campaign_matrix(tmp_path, qrels, {"best": {"1": ["a", "c", "b", "d", "x"]}, "worst": {"1": ["x", "d"]}})
    got = evaluate(m, ["Compat", "Compat(normalize=False)", "Compat(normalize=0)"])
    assert got[parse_measure("Compat")][:, 0].tolist() == [pytest.approx(1.0, abs=1e-15), 0.0]
    assert str(parse_measure("Compat(normalize=False)")) == "Compat(normalize=false)"
    assert str(parse_measure("Compat(normalize=TRUE,p=0.95)")) == "Compat"
    assert np.array_equal(got[parse_measure("Compat(normalize=False)")], got[parse_measure("Compat(normalize=0)")])
    with pytest.raises(ValueError, match="option normalize takes 0 or 1, true or false, not 'maybe'"):
        parse_measure("Compat(normalize=maybe)")


# ------------------------------------------------------------------- real runs


def ir_qrels(qrels) -> list:
    return [ir_measures.Qrel(q, d, int(g)) for q, d, g in
            zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist())]


def compare(runs, qrels, matrix, names: dict[str, str], every: int) -> tuple[int, int]:
    """Every ``every``-th run, each topic's ir_measures value of each peer name against
    irmeta's (``names``: peer -> irmeta); topics ir_measures leaves out must be 0 here, and
    1 where its Accuracy divides by zero. Returns (values compared, of them special)."""
    scores = evaluate(matrix, list(names.values()))
    measures = {ir_measures.parse_measure(peer): ours for peer, ours in names.items()}
    by_topic: dict[str, list] = {}
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        by_topic.setdefault(q, []).append(ir_measures.Qrel(q, d, int(g)))
    evaluators = {(t, m): ir_measures.evaluator([m], by_topic[t]) for t in matrix.topics for m in measures}
    docids = runs.docids.to_pylist()
    compared = special = 0
    for r in range(0, len(runs.names), every):
        s = matrix.runs.index(runs.names[r])
        rows = np.flatnonzero(runs.run == r)
        lists: dict[str, list] = {}
        for i, (q, d) in enumerate(zip(runs.qid[rows].tolist(), runs.docid[rows].tolist())):
            lists.setdefault(runs.topics[q], []).append(ir_measures.ScoredDoc(runs.topics[q], docids[d], 1e7 - i))
        for t, topic in enumerate(matrix.topics):
            for measure, ours in measures.items():
                value = scores[parse_measure(ours)][s, t]
                try:
                    theirs = [x.value for x in evaluators[topic, measure].iter_calc(lists.get(topic, []))]
                except ZeroDivisionError:
                    theirs, special = [1.0], special + 1
                if not theirs:
                    theirs, special = [0.0], special + 1
                assert value == pytest.approx(theirs[0], rel=1e-9, abs=1e-12), (ours, runs.names[r], topic)
                compared += 1
    return compared, special


@pytest.mark.slow
def test_compat_and_accuracy_equal_ir_measures_on_trec8(trec8_runs, trec8_qrels, trec8_matrix):
    names = {"Compat": "Compat", "Compat(p=0.8,normalize=False)": "Compat(p=0.8,normalize=false)",
             "Accuracy": "Accuracy", "Accuracy@20": "Accuracy@20"}
    compared, special = compare(trec8_runs, trec8_qrels, trec8_matrix, names, every=16)  # 9 of the 129 runs
    assert compared == 9 * 50 * len(names) and special > 0


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [1, 2])
def test_compat_and_accuracy_equal_ir_measures_on_dl2020_passage(shared_data, threshold):
    runs, qrels, matrix = ref.dl2020_passage(shared_data, threshold=threshold)
    # Compat's ideal: every positive grade, whatever the threshold; Accuracy's rel: the threshold
    names = {"Compat": "Compat", "Compat(p=0.5)": "Compat(p=0.5)", f"Accuracy(rel={threshold})": "Accuracy",
             f"Accuracy(rel={threshold})@10": "Accuracy@10"}
    compared, _ = compare(runs, qrels, matrix, names, every=12)  # 5 of the 59 runs
    assert compared == 5 * 54 * len(names)
