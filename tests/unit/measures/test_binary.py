"""trec_eval's other binary measures (irmeta.measures.binary): hand-worked values, a property test
against plain-Python loops written from trec_eval's m_*.c, and the names they answer to.
Against pytrec_eval on real campaigns: tests/test_trec_eval_names.py.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import write
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import evaluate
from irmeta.measures.binary import bpref, r_precision, recall, set_f, set_precision, set_recall, success
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.registry import MEASURES

FUNCTIONS = {"Recall": recall, "Rprec": r_precision, "Bpref": bpref, "SetP": set_precision,
             "SetR": set_recall, "SetF": set_f, "Success": success}

# topic 1: a 1, b 2, c 1, n1 0, n2 0, n3 0, s -2 (spam: neither relevant nor judged non-relevant)
# topic 2: e 1, n4 0
# topic 3: z 0 (no relevant document)
QRELS = """1 0 a 1
1 0 b 2
1 0 c 1
1 0 n1 0
1 0 n2 0
1 0 n3 0
1 0 s -2
2 0 e 1
2 0 n4 0
3 0 z 0
"""
# run A, topic 1: n1 a u s n2 b   (u unjudged)   topic 2: e   topic 3: z
# run B, topic 1: b                               topic 2: not returned
RUN_A = ("1 Q0 n1 1 9 A\n1 Q0 a 2 8 A\n1 Q0 u 3 7 A\n1 Q0 s 4 6 A\n1 Q0 n2 5 5 A\n1 Q0 b 6 4 A\n"
         "2 Q0 e 1 9 A\n3 Q0 z 1 9 A\n")
RUN_B = "1 Q0 b 1 9 B\n3 Q0 z 1 9 B\n"


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    root = tmp_path_factory.mktemp("binary")
    qrels = read_qrels(write(root / "qrels", QRELS))
    runs = read_runs([write(root / "A", RUN_A), write(root / "B", RUN_B)])
    return relevance_matrix(runs, qrels)


def test_by_hand(matrix):
    # Topic 1, run A: relevant a (rank 2), b (rank 6) of N_R = 3; 6 returned.
    assert recall(matrix, None)[0].tolist() == [2 / 3, 1.0, 0.0]
    assert recall(matrix, 2)[0].tolist() == [1 / 3, 1.0, 0.0]
    assert recall(matrix, 1)[:, 0].tolist() == [0.0, 1 / 3]
    # Rprec: the top N_R = 3 of A holds a; B's top 3 (one document) holds b.
    assert r_precision(matrix, None).tolist() == [[1 / 3, 1.0, 0.0], [1 / 3, 0.0, 0.0]]
    # bpref, topic 1: N_N = 3 judged non-relevant (n1 n2 n3; s is -2, u unjudged), N_R = 3,
    # min = 3. a has n1 above: 1 - 1/3; b has n1, n2 above (u and s count neither way):
    # 1 - 2/3. (2/3 + 1/3) / 3 = 1/3. B: b first, 1/3.
    assert bpref(matrix, None)[:, 0].tolist() == pytest.approx([1 / 3, 1 / 3], abs=1e-15)
    assert bpref(matrix, None)[0, 1] == 1.0  # e first of topic 2
    assert bpref(matrix, 5)[0, 0] == pytest.approx((2 / 3) / 3, abs=1e-15)  # b below the cut
    # set measures: A/1 2 of 6 returned, 2 of 3 relevant; F = 2 P R / (P + R).
    assert set_precision(matrix, None)[0].tolist() == [2 / 6, 1.0, 0.0]
    assert set_precision(matrix, 3)[0, 0] == 1 / 3
    assert set_recall(matrix, None)[0].tolist() == [2 / 3, 1.0, 0.0]
    p, r = 2 / 6, 2 / 3
    assert set_f(matrix, None)[0, 0] == 2.0 * p * r / (1.0 * p + r)
    assert set_f(matrix, None)[1].tolist() == [0.5, 0.0, 0.0]  # P = 1, R = 1/3: 2/3 / (4/3)
    assert success(matrix, 1).tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    assert success(matrix, 2)[0].tolist() == [1.0, 1.0, 0.0]


def test_threshold_two(tmp_path):
    qrels = read_qrels(write(tmp_path / "qrels", QRELS))
    runs = read_runs([write(tmp_path / "A", RUN_A)])
    m = relevance_matrix(runs, qrels, threshold=2)
    # Only b is relevant; a and c (grade 1) join the judged non-relevant: N_N = 5.
    assert recall(m, None)[0, 0] == 1.0
    # b at rank 6 has n1 a n2 above (3 judged non-relevant), min(N_N, N_R) = 1: 1 - min(3, 1)/1 = 0
    assert bpref(m, None)[0, 0] == 0.0
    assert r_precision(m, None)[0, 0] == 0.0  # the top 1 is n1


def test_names():
    for spelling, measure in (("recall_100", Measure("Recall", 100)), ("R@10", Measure("Recall", 10)),
                              ("Recall@5", Measure("Recall", 5)), ("Rprec", Measure("Rprec")),
                              ("bpref", Measure("Bpref")), ("Bpref@100", Measure("Bpref", 100)),
                              ("set_P", Measure("SetP")), ("set_recall", Measure("SetR")),
                              ("set_F", Measure("SetF")), ("success_10", Measure("Success", 10)),
                              ("Success@1", Measure("Success", 1))):
        assert parse_measure(spelling) == measure, spelling
    for family in FUNCTIONS:
        assert MEASURES[family].higher_is_better
    assert parse_measure("set_map") == Measure("SetAP")  # trec_eval's set_map (issue 42)
    with pytest.raises(ValueError, match="unknown measure"):
        parse_measure("set_mapp")


def test_evaluate_dispatches(matrix):
    out = evaluate(matrix, ["recall_2", "bpref", "set_F", "success_1", "Rprec", "set_P", "set_recall"])
    assert np.array_equal(out[Measure("Recall", 2)], recall(matrix, 2))
    assert np.array_equal(out[Measure("SetF")], set_f(matrix, None))
    assert np.array_equal(out[Measure("Success", 1)], success(matrix, 1))


# --------------------------------------------------- plain loops, from trec_eval's m_*.c

UNJUDGED = None


def slow_measures(ranking: list[str], judged: dict[str, int], threshold: int, k: int | None) -> dict[str, float]:
    """One ranked list, trec_eval's loops: ``rel`` of each rank is the grade (None when
    unjudged); negative grades are "unjudged in the pool"; ``k`` cuts the run (-M)."""
    rels = [judged.get(d, UNJUDGED) for d in (ranking if k is None else ranking[:k])]
    num_ret = len(rels)
    num_rel = sum(1 for g in judged.values() if g >= max(threshold, 0))
    num_nonrel = sum(1 for g in judged.values() if 0 <= g < threshold)
    is_rel = [g is not None and g >= threshold for g in rels]
    num_rel_ret = sum(is_rel)
    out = {"Recall": num_rel_ret / num_rel if num_rel else 0.0,
           "SetR": num_rel_ret / num_rel if num_rel else 0.0,
           "SetP": num_rel_ret / num_ret if num_ret else 0.0,
           "Success": 1.0 if num_rel_ret else 0.0}
    top_r = sum(is_rel[:min(num_ret, num_rel)])
    out["Rprec"] = top_r / num_rel if num_rel else 0.0
    value, nonrel_so_far = 0.0, 0
    for g, rel in zip(rels, is_rel):
        if g is None or g < 0:
            continue
        if not rel:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            value += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
        else:
            value += 1.0
    out["Bpref"] = value / num_rel if num_rel else value
    if num_rel_ret:
        p, r = out["SetP"], out["SetR"]
        out["SetF"] = (1.0 + 1.0) * p * r / (1.0 * p + r)
    else:
        out["SetF"] = 0.0
    return out


_doc = st.sampled_from([f"d{i}" for i in range(10)] + ["u1", "u2"])


@st.composite
def campaigns(draw):
    qrels = {}
    for t in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(_doc, min_size=1, max_size=9, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-2, 3)) for d in judged}
    runs = {}
    for r in range(draw(st.integers(1, 3))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels) + ["77"]), min_size=1, max_size=5, unique=True))
        runs[f"run{r}"] = {t: draw(st.lists(_doc, min_size=1, max_size=12, unique=True)) for t in topics}
    return qrels, runs


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), cutoffs=st.lists(st.one_of(st.none(), st.integers(1, 14)), min_size=1, max_size=3),
       threshold=st.sampled_from([0, 1, 2]))
def test_against_plain_loops(campaign, cutoffs, threshold):
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels.items() for d, g in j.items()))
        for name, lists in runs.items():
            write(root / "runs" / name, "".join(f"{t} Q0 {d} {i + 1} {len(docs) - i} {name}\n"
                                                 for t, docs in lists.items() for i, d in enumerate(docs)))
        m = relevance_matrix(read_runs(root / "runs"), read_qrels(root / "qrels"), threshold=threshold)
    for cutoff in cutoffs:
        got = {name: fn(m, cutoff) for name, fn in FUNCTIONS.items()}
        for s, run in enumerate(m.runs):
            for q, topic in enumerate(m.topics):
                want = slow_measures(runs[run].get(topic, []), qrels[topic], threshold, cutoff)
                for name, value in want.items():
                    assert got[name][s, q] == pytest.approx(value, rel=1e-13, abs=1e-13), (name, run, topic, cutoff)
        for name in FUNCTIONS:
            assert ((got[name] >= 0) & (got[name] <= 1)).all(), name
