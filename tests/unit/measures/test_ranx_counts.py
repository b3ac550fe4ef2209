"""ranx's hits@k and f1@k (issue 42): irmeta's Hits and F1 against ranx itself.

ranx (the test extra's oracle) scores a few runs of TREC-8 and TREC DL 2020 passage, fed
trec_eval's order as strictly decreasing scores, its relevance level ``-lN`` at irmeta's
threshold; every topic of the qrels is compared (ranx's ``make_comparable``: 0 for a topic
the run did not return, as irmeta). Values equal to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest
import ranx

import innovation_reference as ref
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")

# ranx's names as typed (irmeta reads them through its alias table), and irmeta's F1 family
# without k against ranx's f1
NAMES = ("hits@10", "hits@100", "hits", "f1@10", "f1@100", "f1@1000", "f1", "F1")
PEER = {"F1": "f1"}


def ranx_per_topic(qrels, runs, matrix, run_index: int, names: list[str]) -> dict[str, dict[str, float]]:
    """ranx's {name: {qid: value}} of one run."""
    grades: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        grades.setdefault(q, {})[d] = int(g)
    docids = runs.docids.to_pylist()
    scored: dict[str, dict[str, float]] = {}
    rows = np.flatnonzero(runs.run == run_index)
    for i, (q, d) in enumerate(zip(runs.qid[rows].tolist(), runs.docid[rows].tolist())):
        if runs.topics[q] in grades:
            scored.setdefault(runs.topics[q], {})[docids[d]] = 1e7 - i
    run = ranx.Run(scored)
    ranx.evaluate(ranx.Qrels(grades), run, names, make_comparable=True)
    return {name: dict(run.scores[name]) for name in names}


def check(qrels, runs, matrix, threshold: int, every: int) -> int:
    suffix = "" if threshold == 1 else f"-l{threshold}"
    peer = [PEER.get(name, name) + suffix for name in NAMES]
    ours = evaluate(matrix, [parse_measure(name) for name in NAMES])
    compared = 0
    for r in range(0, len(runs.names), every):
        theirs = ranx_per_topic(qrels, runs, matrix, r, sorted(set(peer)))
        s = matrix.runs.index(runs.names[r])
        for name, spelled in zip(NAMES, peer):
            assert set(theirs[spelled]) == set(matrix.topics)
            for q, topic in enumerate(matrix.topics):
                value = ours[parse_measure(name)][s, q]
                want = theirs[spelled][topic]
                assert value == pytest.approx(want, rel=1e-12, abs=1e-15), (name, runs.names[r], topic)
                compared += 1
    return compared


@pytest.mark.slow
def test_hits_and_f1_equal_ranx_on_trec8(trec8_runs, trec8_qrels, trec8_matrix):
    assert check(trec8_qrels, trec8_runs, trec8_matrix, 1, every=16) == 9 * 50 * len(NAMES)  # 9 of the 129 runs


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [1, 2])
def test_hits_and_f1_equal_ranx_on_dl2020_passage(shared_data, threshold):
    runs, qrels, matrix = ref.dl2020_passage(shared_data, threshold=threshold)
    assert check(qrels, runs, matrix, threshold, every=6) == 10 * 54 * len(NAMES)  # 10 of the 59 runs


def test_ranx_names_read_as_the_families():
    assert [str(parse_measure(name)) for name in NAMES] == ["Hits@10", "Hits@100", "Hits", "F1@10", "F1@100",
                                                             "F1@1000", "SetF", "F1"]


def test_f1_without_k_is_set_f_as_ranx_reads_it(tmp_path):
    m = ref.campaign_matrix(tmp_path, {"1": {"a": 1, "b": 1, "c": 0}, "2": {"x": 1}},
                            {"r": {"1": ["a", "c", "z"]}, "s": {"1": ["z"], "2": ["x", "y"]}})
    got = evaluate(m, ["F1", "SetF"])
    assert np.array_equal(got[parse_measure("F1")], got[parse_measure("SetF")])


def test_f1_divides_by_k_however_short_the_list(tmp_path):
    m = ref.campaign_matrix(tmp_path, {"1": {"a": 1, "b": 1, "c": 1, "d": 1}}, {"r": {"1": ["a", "x"]}})
    got = evaluate(m, ["F1@10", "SetF@10", "Hits@10"])
    p, r = 1 / 10, 1 / 4
    assert got[parse_measure("F1@10")][0, 0] == pytest.approx(2 * p * r / (p + r), rel=1e-15)
    assert got[parse_measure("SetF@10")][0, 0] == pytest.approx(2 * 0.5 * r / (0.5 + r), rel=1e-15)
    assert got[parse_measure("Hits@10")][0, 0] == 1.0
