"""P@k and AP@k (irmeta.measures): hand-worked values, averaging, thresholds, exact means,
measure names, and a property test against an obviously-correct pure-Python loop.
"""

from __future__ import annotations

import math
import random
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import write
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels, sort_topics
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import AVERAGING_NAMES, evaluate, exact_mean, mean_scores, score_table
from irmeta.measures.cutoffs import relevant_count
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.precision import average_precision, precision


def bits(x) -> bytes:
    return struct.pack("<d", float(x))


# ------------------------------------------------------------------ tiny campaign
#
# qrels (topics 1, 2, 3):
#   1: d1 1, d2 1, d3 0, d4 2, d5 1  -> threshold 1: relevant d1 d2 d4 d5 (N_R = 4; d5 is
#                                        retrieved by no run); threshold 2: d4 only (N_R = 1)
#   2: e1 0, e2 -2                    -> no relevant document (threshold 1 or 2)
#   3: f1 1, f2 -2                    -> threshold 1: f1 (N_R = 1); threshold 2: none
#
# run A:  topic 1: d1 .9, d3 .8, d2 .7, x1 .6, d4 .5  -> order d1 R, d3 N, d2 R, x1 N, d4 R
#         topic 2: e2 .5, e1 .4                        -> no relevant
#         topic 9: z 1 (not in the qrels: ignored)     ;  topic 3: not returned
# run B:  topic 1: x1 1, x2 1, d4 .5, d1 .4            -> tie: x2 before x1 (docid desc);
#                                                          order x2 N, x1 N, d4 R, d1 R
#         topic 3: f2 .9, f1 .1                        -> f2 (-2, not relevant), f1 R
#                                                         ;  topic 2: not returned

QRELS = """1 0 d1 1
1 0 d2 1
1 0 d3 0
1 0 d4 2
1 0 d5 1
2 0 e1 0
2 0 e2 -2
3 0 f1 1
3 0 f2 -2
"""
RUN_A = """1 Q0 d1 1 0.9 A
1 Q0 d3 2 0.8 A
1 Q0 d2 3 0.7 A
1 Q0 x1 4 0.6 A
1 Q0 d4 5 0.5 A
2 Q0 e2 1 0.5 A
2 Q0 e1 2 0.4 A
9 Q0 z 1 1 A
"""
RUN_B = """1 Q0 d4 1 0.5 B
1 Q0 x1 2 1 B
1 Q0 d1 3 0.4 B
1 Q0 x2 4 1 B
3 Q0 f1 1 0.1 B
3 Q0 f2 2 0.9 B
"""


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    qrels = read_qrels(write(root / "qrels.txt", QRELS))
    runs = read_runs([write(root / "runs" / "A", RUN_A), write(root / "runs" / "B.gz", RUN_B)])
    return runs, qrels


@pytest.fixture(scope="module")
def matrix(campaign):
    runs, qrels = campaign
    return relevance_matrix(runs, qrels, depth=10)


def test_tiny_campaign_shape(matrix):
    assert matrix.runs == ["A", "B"]
    assert matrix.topics == ["1", "2", "3"]
    assert matrix.depth == 5  # the deepest list, not 10
    assert matrix.n_relevant.tolist() == [4, 0, 1]
    assert matrix.returned.tolist() == [[True, True, False], [True, False, True]]
    assert matrix.ignored_topics == {"A": ["9"]}


def test_precision_by_hand(matrix):
    # A/1: R N R N R    B/1: N N R R    B/3: N R
    assert precision(matrix, 1).tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert precision(matrix, 2).tolist() == [[1 / 2, 0.0, 0.0], [0.0, 0.0, 1 / 2]]
    assert precision(matrix, 3).tolist() == [[2 / 3, 0.0, 0.0], [1 / 3, 0.0, 1 / 3]]
    assert precision(matrix, 5).tolist() == [[3 / 5, 0.0, 0.0], [2 / 5, 0.0, 1 / 5]]
    # Past the end of a list counts as non-relevant: P@10 divides by 10, not by 5.
    assert precision(matrix, 10).tolist() == [[3 / 10, 0.0, 0.0], [2 / 10, 0.0, 1 / 10]]
    assert relevant_count(matrix, 5).tolist() == [[3, 0, 0], [2, 0, 1]]
    assert relevant_count(matrix, 5).dtype == np.int64


def test_average_precision_by_hand(matrix):
    ap5 = average_precision(matrix, 5)
    # A/1: (1/1 + 2/3 + 3/5) / 4 = 2.2667 / 4 = 0.56667
    assert ap5[0, 0] == pytest.approx((1 + 2 / 3 + 3 / 5) / 4, abs=1e-15)
    # B/1: (1/3 + 2/4) / 4 = 0.20833
    assert ap5[1, 0] == pytest.approx((1 / 3 + 2 / 4) / 4, abs=1e-15)
    # B/3: f1 at rank 2, N_R = 1: (1/2) / 1
    assert ap5[1, 2] == 0.5
    # No relevant document (topic 2) and topics not returned (A/3, B/2): 0.
    assert ap5[0, 1] == ap5[1, 1] == ap5[0, 2] == 0.0
    # Cut at 2: A/1 keeps only d1 -> 1/4; B/1 none; B/3 -> 1/2.
    assert average_precision(matrix, 2).tolist() == [[0.25, 0.0, 0.0], [0.0, 0.0, 0.5]]
    # Cut at 3: A/1 -> (1 + 2/3)/4; B/1 -> (1/3)/4.
    ap3 = average_precision(matrix, 3)
    assert ap3[0, 0] == pytest.approx((1 + 2 / 3) / 4, abs=1e-15)
    assert ap3[1, 0] == pytest.approx(1 / 12, abs=1e-15)
    # No cutoff: the full depth of the matrix (5) here.
    assert np.array_equal(average_precision(matrix, None), ap5)
    assert np.array_equal(average_precision(matrix, 100), ap5)


def test_ap_divides_by_all_relevant_in_the_qrels(matrix):
    # d5 is relevant but retrieved by no run: A/1 divides by 4, not by the 3 retrieved.
    ap = average_precision(matrix, 5)[0, 0]
    assert ap == pytest.approx(2.2666666666666666 / 4, abs=1e-15)
    assert ap != pytest.approx(2.2666666666666666 / 3)


def test_zero_scores_without_relevant_or_without_results(matrix):
    for values in (precision(matrix, 5), average_precision(matrix, 5)):
        assert values[:, 1].tolist() == [0.0, 0.0]  # topic 2: no relevant document
        assert values[0, 2] == 0.0  # A did not return topic 3
        assert values[1, 1] == 0.0  # B did not return topic 2
        assert np.isfinite(values).all()


def test_threshold_two(campaign):
    runs, qrels = campaign
    m = relevance_matrix(runs, qrels, depth=10, threshold=2)
    # Only d4 (grade 2) is relevant: N_R = [1, 0, 0]; A has d4 at 5, B at 3.
    assert m.n_relevant.tolist() == [1, 0, 0]
    assert precision(m, 5).tolist() == [[1 / 5, 0.0, 0.0], [1 / 5, 0.0, 0.0]]
    assert average_precision(m, 5).tolist() == [[1 / 5, 0.0, 0.0], [1 / 3, 0.0, 0.0]]
    assert average_precision(m, 4).tolist() == [[0.0, 0.0, 0.0], [1 / 3, 0.0, 0.0]]
    assert m.threshold == 2


def test_negative_grades_never_relevant(campaign):
    runs, qrels = campaign
    # Even at threshold 0 (grade 0 counts), -2 does not: topic 2 has e1 only, topic 3 f1
    # only (f2 is -2), topic 1 gains d3.
    m = relevance_matrix(runs, qrels, depth=10, threshold=0)
    assert m.n_relevant.tolist() == [5, 1, 1]
    # A/2: e2 (-2) then e1 (0, relevant): AP = (1/2) / 1.
    assert average_precision(m, 5)[0, 1] == 0.5
    # B/3: f2 (-2) at rank 1 is not relevant; f1 at 2.
    assert precision(m, 1)[1, 2] == 0.0
    grades = {(m.topics[t], m.docids[d].as_py()): g for t, d, g in zip(m.qrels_topic, m.qrels_doc, m.qrels_grade)}
    assert grades[("2", "e2")] == -2
    # The matrix keeps the grade, relevance follows it.
    a1 = m.grade[0, 1, :2].tolist()
    assert a1 == [-2, 0] and m.relevant[0, 1, :2].tolist() == [False, True]
    # And at threshold 1 none of the -2 documents counts.
    m1 = relevance_matrix(runs, qrels, depth=10, threshold=1)
    assert not (m1.relevant & (m1.grade < 0)).any()


def test_unjudged_documents_are_not_relevant(campaign):
    runs, qrels = campaign
    m = relevance_matrix(runs, qrels, depth=10, threshold=0)
    # x1 is unjudged (no qrels row, grade 0 in the dense view) yet not relevant even at
    # threshold 0: the matrix keeps judged documents only, unjudged ones are counted.
    x1 = runs.docids.to_pylist().index("x1")
    rows = np.flatnonzero(runs.docid == x1)
    assert len(rows)
    for row in rows:
        s, q, r = runs.run[row], m.topics.index(runs.topics[runs.qid[row]]), runs.rank[row] - 1
        assert m.judgment[s, q, r] == -1 and m.grade[s, q, r] == 0 and not m.relevant[s, q, r]
        assert m.length[s, q] > r


def test_mean_scores_both_averagings(matrix):
    p2 = precision(matrix, 2)
    ap5 = average_precision(matrix, 5)
    # 'all': over the 3 qrels topics (missing topics count 0).
    #   P@2:  A (1/2 + 0 + 0)/3 = 1/6;  B (0 + 0 + 1/2)/3 = 1/6
    #   AP@5: A 0.56667/3 = 0.18889;    B (0.20833 + 0.5)/3 = 0.23611
    assert mean_scores(matrix, p2, "all") == pytest.approx([1 / 6, 1 / 6], abs=1e-15)
    assert mean_scores(matrix, ap5, "all") == pytest.approx(
        [(1 + 2 / 3 + 3 / 5) / 4 / 3, ((1 / 3 + 2 / 4) / 4 + 0.5) / 3], abs=1e-15)
    # 'returned': A over topics 1, 2; B over topics 1, 3.
    #   P@2:  A (1/2 + 0)/2 = 1/4;  B (0 + 1/2)/2 = 1/4
    #   AP@5: A 0.56667/2 = 0.28333;  B (0.20833 + 0.5)/2 = 0.35417
    assert mean_scores(matrix, p2, "returned") == pytest.approx([1 / 4, 1 / 4], abs=1e-15)
    assert mean_scores(matrix, ap5, "returned") == pytest.approx(
        [(1 + 2 / 3 + 3 / 5) / 4 / 2, ((1 / 3 + 2 / 4) / 4 + 0.5) / 2], abs=1e-15)
    with pytest.raises(ValueError, match="averaging"):
        mean_scores(matrix, p2, "some")


def test_score_table(matrix):
    table = score_table(matrix, ["P@2", "AP@5"])
    assert set(table.columns) >= {"run", "qid", "measure", "alpha", "value", "averaging"}
    per_topic = table[table["qid"] != "all"]
    means = table[table["qid"] == "all"]
    assert len(per_topic) == 2 * 2 * 3  # measures x runs x topics (every qrels topic)
    assert per_topic["averaging"].isna().all()
    assert set(per_topic["qid"]) == {"1", "2", "3"}  # topic 9 is not scored
    got = {(r.run, r.qid, r.measure): r.value for r in per_topic.itertuples()}
    assert got[("A", "1", "P@2")] == 0.5
    assert got[("B", "3", "AP@5")] == 0.5
    assert got[("A", "3", "AP@5")] == 0.0  # not returned: a 0 row, not a missing row
    assert got[("B", "2", "P@2")] == 0.0
    m = {(r.run, r.measure, r.averaging): r.value for r in means.itertuples()}
    assert set(means["averaging"]) == {AVERAGING_NAMES["all"], AVERAGING_NAMES["returned"]}
    assert m[("A", "AP@5", "all_topics")] == pytest.approx((1 + 2 / 3 + 3 / 5) / 4 / 3, abs=1e-15)
    assert m[("A", "AP@5", "returned_topics")] == pytest.approx((1 + 2 / 3 + 3 / 5) / 4 / 2, abs=1e-15)
    assert m[("B", "P@2", "all_topics")] == pytest.approx(1 / 6, abs=1e-15)
    assert m[("B", "P@2", "returned_topics")] == pytest.approx(1 / 4, abs=1e-15)
    # The means in the table are the means of its own per-topic rows.
    for (run, measure, averaging), value in m.items():
        rows = per_topic[(per_topic["run"] == run) & (per_topic["measure"] == measure)]
        if averaging == "all_topics":
            assert value == pytest.approx(rows["value"].mean(), abs=1e-15)
    only_all = score_table(matrix, ["P@2"], averaging=("all",), per_topic=False)
    assert len(only_all) == 2 and set(only_all["averaging"]) == {"all_topics"}


def test_evaluate_names_measures(matrix):
    out = evaluate(matrix, ["P_2", "map", "AP@5"])
    assert list(out) == [Measure("P", 2), Measure("AP", None), Measure("AP", 5)]
    assert np.array_equal(out[Measure("P", 2)], precision(matrix, 2))
    assert np.array_equal(out[Measure("AP", None)], out[Measure("AP", 5)])


# ----------------------------------------------------------------- exact means


def test_exact_mean_is_permutation_invariant():
    rng = np.random.default_rng(7)
    values = rng.random(50) ** 3  # a spread of magnitudes: float sums depend on order
    ref = exact_mean(values[None])[0]
    naive = set()
    for _ in range(200):
        perm = rng.permutation(values)
        assert bits(exact_mean(perm[None])[0]) == bits(ref)
        naive.add(bits(sum(perm) / len(perm)))
    assert len(naive) > 1  # the plain sequential sum does depend on the order here
    assert ref == pytest.approx(math.fsum(values) / len(values), rel=1e-15)


def test_exact_mean_with_mask():
    values = np.array([[0.1, 0.7, 0.2, 0.3], [0.3, 0.9, 0.1, 0.2]])
    mask = np.array([[True, False, True, True], [True, False, True, True]])
    out = exact_mean(values, mask)
    assert bits(out[0]) == bits(out[1])  # same multiset {0.1, 0.2, 0.3} -> same bits
    assert out[0] == pytest.approx(0.2, abs=1e-16)
    assert exact_mean(values, np.zeros_like(mask)).tolist() == [0.0, 0.0]


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(0, 1), min_size=1, max_size=60), seed=st.integers(0, 2**32 - 1))
def test_exact_mean_permutation_property(values, seed):
    arr = np.array(values)
    perm = np.random.default_rng(seed).permutation(arr)
    both = exact_mean(np.stack([arr, perm]))
    assert bits(both[0]) == bits(both[1])
    mask = np.random.default_rng(seed + 1).random(len(arr)) < 0.5
    order = np.random.default_rng(seed).permutation(len(arr))
    masked = exact_mean(np.stack([arr, arr[order]]), np.stack([mask, mask[order]]))
    assert bits(masked[0]) == bits(masked[1])


def test_runs_with_same_per_topic_scores_in_other_topics_tie_exactly(tmp_path):
    """Run B is run A with its rankings moved to other topics: equal multisets of
    per-topic scores, so the means must be bit-identical (docs/PROTOCOL.md, Numerical care)."""
    rng = random.Random(3)
    n_topics = 40
    qrels_lines, a_lines, b_lines = [], [], []
    patterns = [[rng.random() < 0.3 for _ in range(30)] for _ in range(n_topics)]
    target = list(range(n_topics))
    rng.shuffle(target)
    for t in range(n_topics):
        for j in range(8):
            qrels_lines.append(f"{t} 0 T{t}R{j} 1")
        for j in range(5):
            qrels_lines.append(f"{t} 0 T{t}N{j} 0")
    for t, pattern in enumerate(patterns):
        for lines, topic in ((a_lines, t), (b_lines, target[t])):
            r = n = 0
            for i, rel in enumerate(pattern):
                doc = f"T{topic}R{r}" if rel and r < 8 else f"T{topic}U{n}"
                r, n = (r + 1, n) if rel and r < 8 else (r, n + 1)
                lines.append(f"{topic} Q0 {doc} {i + 1} {100 - i} x")
    qrels = read_qrels(write(tmp_path / "qrels", "\n".join(qrels_lines) + "\n"))
    runs = read_runs([write(tmp_path / "A", "\n".join(a_lines) + "\n"),
                         write(tmp_path / "B", "\n".join(b_lines) + "\n")])
    m = relevance_matrix(runs, qrels, depth=30)
    for measure in (average_precision, precision):
        per_topic = measure(m, 30)
        assert sorted(per_topic[0]) == sorted(per_topic[1])
        assert not np.array_equal(per_topic[0], per_topic[1])
        for averaging in ("all", "returned"):
            means = mean_scores(m, per_topic, averaging)
            assert bits(means[0]) == bits(means[1])


# ---------------------------------------------------------------- measure names


@pytest.mark.parametrize(
    "text, family, cutoff",
    [
        ("P@10", "P", 10),
        ("AP@100", "AP", 100),
        ("P_10", "P", 10),
        ("P_100", "P", 100),
        ("map", "AP", None),
        ("MAP", "AP", None),
        ("AP", "AP", None),
        (" P@5 ", "P", 5),
        ("map@100", "AP", 100),
    ],
)
def test_parse_measure_accepts(text, family, cutoff):
    m = parse_measure(text)
    assert m == Measure(family, cutoff)
    assert str(m) == (family if cutoff is None else f"{family}@{cutoff}")
    assert m.higher_is_better is True
    assert parse_measure(m) is m


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("X@10", "unknown measure 'X@10'"),
        ("P@0", "cutoff must be at least 1"),
        ("AP@0", "cutoff must be at least 1"),
        ("P_0", "cutoff must be at least 1"),
        ("P@", "cannot read measure"),
        ("P@-1", "cannot read measure"),
        ("P@1.5", "cannot read measure"),
        ("@10", "cannot read measure"),
        ("", "cannot read measure"),
        ("bpref_10", "unknown measure"),
        ("P@99999999999999999999", "cutoff must be at most 2147483647"),
    ],
)
def test_parse_measure_rejects(text, fragment):
    with pytest.raises(ValueError) as excinfo:
        parse_measure(text)
    assert fragment in str(excinfo.value)
    if "unknown" in fragment:
        # the three closest known names (issue 29), not the whole list
        assert len(str(excinfo.value).split("; the closest known: ")[1].split(", ")) == 3


# ------------------------------------------------- property: against a plain loop


def slow_order(lines: list[tuple[str, str]]) -> list[str]:
    """trec_eval order of (docid, score_text) lines: score desc, docid desc as bytes."""
    return [d for d, _ in sorted(lines, key=lambda ds: (float(ds[1]), ds[0].encode()), reverse=True)]


def slow_precision(ranking: list[str], relevant: set[str], k: int) -> float:
    hits = 0
    for doc in ranking[:k]:
        if doc in relevant:
            hits += 1
    return hits / k


def slow_ap(ranking: list[str], relevant: set[str], k: int) -> float:
    if not relevant:
        return 0.0
    hits = 0
    total = 0.0
    for i, doc in enumerate(ranking[:k], start=1):
        if doc in relevant:
            hits += 1
            total += hits / i
    return total / len(relevant)


_doc = st.sampled_from([f"d{i}" for i in range(10)] + ["D1", "u", "U0", "zz"])


@st.composite
def campaigns(draw):
    n_topics = draw(st.integers(1, 4))
    qrels = {}
    for t in range(n_topics):
        judged = draw(st.lists(_doc, min_size=1, max_size=8, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-2, 3)) for d in judged}
    runs = {}
    for r in range(draw(st.integers(1, 3))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels) + ["77"]), max_size=5, unique=True))
        if not topics:
            topics = ["1"]
        runs[f"run{r}"] = {
            t: [(d, draw(st.sampled_from(["1", "0.5", "0.25", "2", "-1", "0.3333333333333333", "0.33333333333333337"])))
                for d in draw(st.lists(_doc, min_size=1, max_size=12, unique=True))]
            for t in topics
        }
    return qrels, runs


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), ks=st.lists(st.integers(1, 14), min_size=1, max_size=3), threshold=st.sampled_from([1, 2]))
def test_against_plain_python(campaign, ks, threshold):
    qrels_d, runs_d = campaign
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        qpath = write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels_d.items() for d, g in j.items()))
        paths = []
        for name, topics in runs_d.items():
            text = "".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, lines in topics.items() for d, s in lines)
            paths.append(write(root / "runs" / name, text))
        qrels = read_qrels(qpath)
        runs = read_runs(paths)
    m = relevance_matrix(runs, qrels, depth=max(ks), threshold=threshold)
    topics = sort_topics(qrels_d)
    assert m.topics == topics
    for k in ks:
        p = precision(m, k)
        ap = average_precision(m, k)
        want_p = np.zeros_like(p)
        want_ap = np.zeros_like(ap)
        for s, name in enumerate(runs_d):
            for q, topic in enumerate(topics):
                relevant = {d for d, g in qrels_d[topic].items() if g >= threshold}
                ranking = slow_order(runs_d[name].get(topic, []))
                want_p[s, q] = slow_precision(ranking, relevant, k)
                want_ap[s, q] = slow_ap(ranking, relevant, k)
        # Same arithmetic, same order of additions: equal to the last bit.
        assert [bits(x) for x in p.ravel()] == [bits(x) for x in want_p.ravel()]
        assert [bits(x) for x in ap.ravel()] == [bits(x) for x in want_ap.ravel()]
        returned = np.array([[bool(runs_d[n].get(t)) for t in topics] for n in runs_d])
        assert np.array_equal(m.returned, returned)
        for values, want in ((p, want_p), (ap, want_ap)):
            all_mean = mean_scores(m, values, "all")
            ret_mean = mean_scores(m, values, "returned")
            for s in range(len(runs_d)):
                assert all_mean[s] == pytest.approx(math.fsum(want[s]) / len(topics), abs=1e-15)
                kept = [v for v, r in zip(want[s], returned[s]) if r]
                assert ret_mean[s] == pytest.approx(math.fsum(kept) / len(kept) if kept else 0.0, abs=1e-15)
    assert m.ignored_topics == {n: ["77"] for n, t in runs_d.items() if "77" in t}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("P_10", "P@10"), ("map", "AP"), ("map_cut_100", "AP@100"), ("ndcg_cut_10", "nDCG@10"),
     ("ndcg", "nDCG"), ("recip_rank", "RR"), ("ASL@g1-10", "ASL_g1@10"), ("Pmeasure@1000", "Pmeasure@1000")],
)
def test_parse_measure_reads_trec_eval_and_paper_spellings(text, expected):
    assert str(parse_measure(text)) == expected
