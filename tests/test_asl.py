"""Atomized search length (irmeta.measures.asl): hand-worked values of eq. 1-5 and 11-12, a property
test against a plain-Python loop, monotonicity and atomicity, the histograms of Figures
5-6, the re-ordering analysis of Table 2 (by hand and on TREC-8), deterministic plots,
and the speed of ASL on all TREC-8 runs.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats


from irmeta.artefacts.figures.asl import plot_asl_difference_histogram, plot_asl_histogram
from irmeta.campaign.judge import relevance_matrix
from irmeta.measures.asl import asl, asl_g1, atomized_search_lengths
from irmeta.measures.averaging import evaluate, mean_scores, score_table
from irmeta.measures.names import Measure, parse_asl_name, parse_measure
from irmeta.measures.precision import average_precision
from irmeta.metaeval.asl_analysis import MetricVariant, asl_difference_histogram, asl_histogram, better_counts, decade_edges, delta_sort, paired_t_pvalues, reordering_row, reordering_table, rrie
from campaigns import write
from irmeta.campaign.qrels import read_qrels, sort_topics
from irmeta.campaign.runs import read_runs


# ------------------------------------------------------------------ tiny campaign
#
# qrels: topic 1: a 1, b 1, c 2, d 1, x 0   -> relevant a b c d (n_q = 4); at threshold 2: c
#        topic 2: e 1, y 0                  -> relevant e (n_q = 1)
#        topic 3: z 0                       -> no relevant document (n_q = 0)
# Relevant qrels rows, in file order: a b c d e (columns of the per-document array).
#
# run A, topic 1: a x u b y  (R N N R N; u unjudged, y judged only for topic 2: both
#                             irrelevant here)           length 5
#        topic 2: x1 x2 e   (N N R)                      length 3
#        topic 3: z                                      length 1
# run B, topic 1: b a c z1 z2 z3 z4 (R R R N N N N)      length 7
#        topic 2: not returned
#        topic 3: z
# The runs are cut at depth 7, the deepest list: k = 7 (the "depth" alternative pads
# to the depth the runs were cut to).

QRELS = """1 0 a 1
1 0 b 1
1 0 c 2
1 0 d 1
1 0 x 0
2 0 e 1
2 0 y 0
3 0 z 0
"""
RUN_A = """1 Q0 a 1 0.9 A
1 Q0 x 2 0.8 A
1 Q0 u 3 0.7 A
1 Q0 b 4 0.6 A
1 Q0 y 5 0.5 A
2 Q0 x1 1 0.9 A
2 Q0 x2 2 0.8 A
2 Q0 e 3 0.7 A
3 Q0 z 1 0.5 A
"""
RUN_B = """1 Q0 b 1 0.9 B
1 Q0 a 2 0.8 B
1 Q0 c 3 0.7 B
1 Q0 z1 4 0.6 B
1 Q0 z2 5 0.5 B
1 Q0 z3 6 0.4 B
1 Q0 z4 7 0.3 B
3 Q0 z 1 1 B
"""


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    root = tmp_path_factory.mktemp("asl")
    qrels = read_qrels(write(root / "qrels.txt", QRELS))
    runs = read_runs([write(root / "runs" / "A", RUN_A), write(root / "runs" / "B", RUN_B)], depth=7)
    return relevance_matrix(runs, qrels)


def test_tiny_campaign_shape(matrix):
    assert matrix.runs == ["A", "B"]
    assert matrix.depth == 7
    assert matrix.n_relevant.tolist() == [4, 1, 0]
    assert matrix.length.tolist() == [[5, 3, 1], [7, 0, 1]]


def test_per_document_asl_by_hand(matrix):
    found = atomized_search_lengths(matrix)
    assert found.topic.tolist() == [0, 0, 0, 0, 1]
    assert found.qrels_row.tolist() == [0, 1, 2, 3, 5]  # rows of a b c d e in the qrels
    assert found.values.dtype == np.int64
    # Returned documents, eq. 2 (rank - relevant above) = eq. 1 (irrelevant above + 1):
    #   A/1: a rank 1, 0 above -> 1;  b rank 4, 1 relevant above (a) -> 3 (= x, u above + 1)
    #   A/2: e rank 3, 0 relevant above -> 3
    #   B/1: b rank 1 -> 1;  a rank 2 - 1 -> 1;  c rank 3 - 2 -> 1
    # Missing documents, eq. 3: irrel_q = returned - relevant returned (no + 1):
    #   A/1: c, d -> 5 - 2 = 3;  B/1: d -> 7 - 3 = 4;  B/2 (nothing returned): e -> 0 - 0 = 0
    assert found.values.tolist() == [[1, 3, 3, 3, 3], [1, 1, 1, 4, 0]]


def test_unretrieved_alternatives_by_hand(matrix):
    # plus_one: irrel_q + 1: A/1 c, d -> 4; B/1 d -> 5; B/2 e -> 1
    assert atomized_search_lengths(matrix, unretrieved="plus_one").values.tolist() == [[1, 3, 4, 4, 3],
                                                                                        [1, 1, 1, 5, 1]]
    # depth: (k - found) + 1 with k = 7: A/1 c, d -> 7 - 2 + 1 = 6; B/1 d -> 7 - 3 + 1 = 5;
    # B/2 e -> 7 - 0 + 1 = 8 (a topic not returned is the worst case, not the best)
    assert atomized_search_lengths(matrix, unretrieved="depth").values.tolist() == [[1, 3, 6, 6, 3],
                                                                                     [1, 1, 1, 5, 8]]
    with pytest.raises(ValueError, match="unretrieved"):
        atomized_search_lengths(matrix, unretrieved="zero")


def test_eq3_lower_bound_anomaly(matrix):
    """Eq. 3 literally: a document the run did not return (irrel_q) scores better than the
    same document returned after every irrelevant one (irrel_q + 1); plus_one removes it."""
    # A/1 with b moved to the end: a x u y b -> b gets 3 + 1 = 4; unreturned it gets 3.
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        qrels = read_qrels(write(root / "q", QRELS))
        last = read_runs([write(root / "A", "1 Q0 a 1 5 A\n1 Q0 x 2 4 A\n1 Q0 u 3 3 A\n1 Q0 y 4 2 A\n"
                                                 "1 Q0 b 5 1 A\n")])
        dropped = read_runs([write(root / "A", "1 Q0 a 1 5 A\n1 Q0 x 2 4 A\n1 Q0 u 3 3 A\n1 Q0 y 4 2 A\n")])
    at_end = atomized_search_lengths(relevance_matrix(last, qrels)).values[0, 1]
    missing = atomized_search_lengths(relevance_matrix(dropped, qrels)).values[0, 1]
    assert (at_end, missing) == (4, 3)
    missing_plus = atomized_search_lengths(relevance_matrix(dropped, qrels), unretrieved="plus_one").values[0, 1]
    assert missing_plus == at_end


def test_asl_per_topic_by_hand(matrix):
    # eq. 4's inner mean, (1/n_q) sum_d ASL_{q,d}:
    #   A: topic 1 (1 + 3 + 3 + 3)/4 = 2.5; topic 2: 3; topic 3 (no relevant): 0
    #   B: topic 1 (1 + 1 + 1 + 4)/4 = 1.75; topic 2: 0 (eq. 3, nothing returned); topic 3: 0
    assert asl(matrix).tolist() == [[2.5, 3.0, 0.0], [1.75, 0.0, 0.0]]
    # eq. 4 over the topics that have relevant documents: A (2.5 + 3)/2, B (1.75 + 0)/2
    has_relevant = matrix.n_relevant > 0
    assert asl(matrix)[:, has_relevant].mean(axis=1).tolist() == [2.75, 0.875]
    # irmeta's mean over all qrels topics counts topic 3 as 0
    assert mean_scores(matrix, asl(matrix)).tolist() == pytest.approx([5.5 / 3, 1.75 / 3], abs=1e-15)
    # plus_one: A (1 + 3 + 4 + 4)/4 = 3, 3;  B (1 + 1 + 1 + 5)/4 = 2, e -> 1
    assert asl(matrix, asl_unretrieved="plus_one").tolist() == [[3.0, 3.0, 0.0], [2.0, 1.0, 0.0]]
    # depth: A (1 + 3 + 6 + 6)/4 = 4, 3;  B 2, e -> 8
    assert asl(matrix, asl_unretrieved="depth").tolist() == [[4.0, 3.0, 0.0], [2.0, 8.0, 0.0]]


def test_asl_at_depth_by_hand(matrix):
    # ASL@3: runs cut at rank 3. A/1 top 3: a x u -> a 1; b (rank 4) counts as missing;
    #   irrel_q = 2 -> (1 + 2 + 2 + 2)/4 = 1.75.  A/2: x1 x2 e -> e 3.
    #   B/1 top 3: b a c, irrel_q = 0 -> d gets 0: (1 + 1 + 1 + 0)/4 = 0.75.
    assert asl(matrix, 3).tolist() == [[1.75, 3.0, 0.0], [0.75, 0.0, 0.0]]
    # ASL@1: A/1 top 1 = a -> 1; b, c, d missing with 0 irrelevant returned -> 0: 1/4.
    #        A/2 top 1 = x1 -> e missing, irrel_q = 1 -> 1.
    #        B/1 top 1 = b -> 1; a, c, d missing, irrel_q = 0 -> 0: 1/4.
    assert asl(matrix, 1).tolist() == [[0.25, 1.0, 0.0], [0.25, 0.0, 0.0]]
    assert atomized_search_lengths(matrix, 1).values.tolist() == [[1, 0, 0, 0, 1], [0, 1, 0, 0, 0]]


def test_asl_g1_by_hand(matrix):
    # ASL@g1-1 (eq. 5, n = 1): the first relevant document of the run's order.
    #   A: topic 1 a -> 1; topic 2 e -> 3.  B: topic 1 b -> 1; topic 2 e missing -> 0.
    assert asl_g1(matrix, 1).tolist() == [[1.0, 3.0, 0.0], [1.0, 0.0, 0.0]]
    # ASL@g1-1 is the rank of the first relevant document (1/RR) when one is returned.
    # n = 2: A/1 a, b -> (1 + 3)/2 = 2; A/2 has n_q = 1 < 2: e alone -> 3 (divisor min(n, n_q)).
    #        B/1 b, a -> 1.
    assert asl_g1(matrix, 2).tolist() == [[2.0, 3.0, 0.0], [1.0, 0.0, 0.0]]
    # n = 3: A/1 a, b, then one of the missing c, d -> (1 + 3 + 3)/3 = 7/3; B/1 b a c -> 1.
    assert asl_g1(matrix, 3)[0, 0] == 7 / 3
    # ASL@g1-10: every topic has at most 4 relevant documents, so the full ASL.
    assert asl_g1(matrix, 10).tolist() == asl(matrix).tolist() == [[2.5, 3.0, 0.0], [1.75, 0.0, 0.0]]
    # depth alternative, n = 3: A/1 (1 + 3 + 6)/3 = 10/3
    assert asl_g1(matrix, 3, asl_unretrieved="depth")[0, 0] == 10 / 3
    with pytest.raises(ValueError, match="ASL_g1@10"):
        asl_g1(matrix, None)


def test_first_n_is_the_runs_order_not_the_smallest_values(tmp_path):
    # topic 1: relevant a, b. The run returns x, a (irrel_q = 1): a -> 2; b missing -> 1 (eq. 3).
    # ASL@g1-1 takes a (the first relevant document of the run), 2, not the smaller 1.
    qrels = read_qrels(write(tmp_path / "q", "1 0 a 1\n1 0 b 1\n"))
    runs = read_runs([write(tmp_path / "R", "1 Q0 x 1 2 R\n1 Q0 a 2 1 R\n")])
    m = relevance_matrix(runs, qrels)
    assert atomized_search_lengths(m).values.tolist() == [[2, 1]]
    assert asl_g1(m, 1).tolist() == [[2.0]]


def test_registry_names_and_direction(matrix):
    assert parse_measure("ASL").higher_is_better is False
    assert parse_measure("ASL_g1@10").higher_is_better is False
    assert parse_measure("ASL_g1@1") == Measure("ASL_g1", 1)
    assert parse_measure("ASL@100") == Measure("ASL", 100)
    assert parse_asl_name("ASL@g1-10") == "ASL_g1@10"
    assert parse_asl_name("ASL@g1-1") == "ASL_g1@1"
    assert parse_asl_name("asl@g_1\u201310") == "ASL_g1@10"
    assert parse_asl_name("ASL@g1") == "ASL_g1@1"
    assert parse_asl_name(" ASL ") == "ASL"
    assert parse_asl_name("AP@100") == "AP@100"
    assert parse_measure(parse_asl_name("ASL@g1-10")) == Measure("ASL_g1", 10)
    scores = evaluate(matrix, ["ASL", "ASL_g1@1", "ASL_g1@10"])
    assert scores[Measure("ASL")].tolist() == asl(matrix).tolist()
    assert scores[Measure("ASL_g1", 1)].tolist() == asl_g1(matrix, 1).tolist()
    # the option reaches the measures that declare it
    depth = evaluate(matrix, ["ASL"], asl_unretrieved="depth")[Measure("ASL")]
    assert depth.tolist() == [[4.0, 3.0, 0.0], [2.0, 8.0, 0.0]]
    table = score_table(matrix, ["ASL", "ASL_g1@10"])
    means = table[(table.qid == "all") & (table.averaging == "returned_topics") & (table.measure == "ASL")]
    # returned topics only: A (2.5 + 3 + 0)/3; B (1.75 + 0)/2 (topic 2 not returned)
    assert means.value.tolist() == pytest.approx([5.5 / 3, 0.875], abs=1e-15)


# ------------------------------------------------------------------ RRIE


def test_rrie_reproduces_table_1():
    # eq. 12 on the paper's rounded ASLs: (ASL_a - 1 - (ASL_b - 1)) / (ASL_a - 1)
    assert rrie(14, 5) == pytest.approx(9 / 13)  # 69%
    assert round(100 * rrie(51, 6)) == 90  # 45/50
    assert round(100 * rrie(39, 27)) == 32  # 12/38 = 31.6%
    assert rrie(264, 215) == pytest.approx(49 / 263)  # 18.6% (19% in the paper, from unrounded ASLs)
    # eq. 11: ((1 - P_a) - (1 - P_b)) / (1 - P_a)
    assert round(100 * rrie(0.456, 0.594, higher_is_better=True)) == 25  # .138/.544
    assert round(100 * rrie(0.517, 0.706, higher_is_better=True)) == 39  # .189/.483
    assert round(100 * rrie(0.401, 0.543, higher_is_better=True)) == 24  # .142/.599
    assert round(100 * rrie(0.400, 0.572, higher_is_better=True)) == 29  # .172/.6
    # arrays broadcast; no error to reduce -> NaN; a worse b -> negative
    out = rrie(np.array([3.0, 1.0, 2.0]), np.array([2.0, 1.0, 3.0]))
    assert out[0] == 0.5 and math.isnan(out[1]) and out[2] == -1.0


# ------------------------------------------------------------------ oracle


def slow_order(lines: list[tuple[str, str]]) -> list[str]:
    """trec_eval order of (docid, score_text) lines: score desc, docid desc as bytes."""
    return [d for d, _ in sorted(lines, key=lambda ds: (float(ds[1]), ds[0].encode()), reverse=True)]


def slow_asl(ranking: list[str], relevant: list[str], k: int, unretrieved: str, pad: int | None = None) -> list[int]:
    """ASL_{q,d} of each relevant document by eq. 1 and eq. 3, one document at a time;
    ``pad``: the depth the "depth" alternative pads to (default k)."""
    top = ranking[:k]
    irrelevant_returned = sum(1 for doc in top if doc not in relevant)
    found = sum(1 for doc in top if doc in relevant)
    out = []
    for d in relevant:
        if d in top:
            above = top[: top.index(d)]
            out.append(sum(1 for doc in above if doc not in relevant) + 1)  # eq. 1
        elif unretrieved == "paper":
            out.append(irrelevant_returned)  # eq. 3
        elif unretrieved == "plus_one":
            out.append(irrelevant_returned + 1)
        else:
            out.append((k if pad is None else pad) - found + 1)
    return out


def slow_first_n(ranking: list[str], relevant: list[str], values: list[int], n: int, k: int) -> list[int]:
    """Values of the first n relevant documents in the run's order (returned first, by rank)."""
    top = ranking[:k]
    order = sorted(range(len(relevant)), key=lambda i: top.index(relevant[i]) if relevant[i] in top else k)
    return [values[i] for i in order[:n]]


_doc = st.sampled_from([f"d{i}" for i in range(10)] + ["D1", "u", "zz"])


@st.composite
def campaigns(draw):
    n_topics = draw(st.integers(1, 4))
    qrels = {}
    for t in range(n_topics):
        judged = draw(st.lists(_doc, min_size=1, max_size=8, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-1, 3)) for d in judged}
    runs = {}
    for r in range(draw(st.integers(1, 3))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels) + ["77"]), max_size=5, unique=True)) or ["1"]
        runs[f"run{r}"] = {
            t: [(d, draw(st.sampled_from(["1", "0.5", "0.25", "2", "-1"])))
                for d in draw(st.lists(_doc, min_size=1, max_size=12, unique=True))]
            for t in topics
        }
    return qrels, runs


def build(qrels_d: dict, runs_d: dict, **kwargs):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        qpath = write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels_d.items() for d, g in j.items()))
        paths = []
        for name, topics in runs_d.items():
            text = "".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, lines in topics.items() for d, s in lines)
            paths.append(write(root / "runs" / name, text))
        return relevance_matrix(read_runs(paths), read_qrels(qpath), **kwargs)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), ks=st.lists(st.integers(1, 14), min_size=1, max_size=2),
       threshold=st.sampled_from([1, 2]), ns=st.lists(st.integers(1, 9), min_size=1, max_size=3))
def test_against_plain_python(campaign, ks, threshold, ns):
    qrels_d, runs_d = campaign
    m = build(qrels_d, runs_d, depth=max(ks), threshold=threshold)
    topics = sort_topics(qrels_d)
    for k in ks + [None]:
        depth = m.depth if k is None else min(k, m.depth)
        pad = max(ks) if k is None else k  # the cutoff, else the depth the runs were cut to
        for mode in ("paper", "plus_one", "depth"):
            per_doc = atomized_search_lengths(m, k, unretrieved=mode)
            per_topic = asl(m, k, asl_unretrieved=mode)
            want_doc = np.zeros_like(per_doc.values)
            for s, name in enumerate(runs_d):
                for q, topic in enumerate(topics):
                    relevant = [d for d, g in qrels_d[topic].items() if g >= threshold]  # qrels order
                    ranking = slow_order(runs_d[name].get(topic, []))
                    values = slow_asl(ranking, relevant, depth, mode, pad)
                    cols = np.flatnonzero(per_doc.topic == q)
                    assert len(cols) == len(relevant)
                    want_doc[s, cols] = values
                    # eq. 4's inner mean: the integer sum divided once, as the implementation
                    want = sum(values) / len(values) if values else 0.0
                    assert per_topic[s, q] == want
                    if k is None:
                        for n in ns:
                            first = slow_first_n(ranking, relevant, values, n, depth)
                            got = asl_g1(m, n, asl_unretrieved=mode)[s, q]
                            assert got == (sum(first) / len(first) if first else 0.0)
            assert np.array_equal(per_doc.values, want_doc)
            docs = [d for t in topics for d, g in qrels_d[t].items() if g >= threshold]
            assert per_doc.values.shape == (len(runs_d), len(docs))


# ------------------------------------------------------------------ monotonicity, atomicity


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flags=st.lists(st.booleans(), min_size=2, max_size=12), data=st.data(),
       n_missing=st.integers(0, 2), mode=st.sampled_from(["paper", "plus_one", "depth"]))
def test_moving_a_relevant_document_up(flags, data, n_missing, mode):
    """Moving a relevant document up never increases its ASL, and leaves every other
    relevant document's ASL unchanged (atomized)."""
    if not any(flags):
        flags[-1] = True
    docs = [f"{'r' if f else 'n'}{i}" for i, f in enumerate(flags)]
    relevant = [d for d in docs if d.startswith("r")] + [f"m{i}" for i in range(n_missing)]
    moved = data.draw(st.sampled_from([i for i, d in enumerate(docs) if d.startswith("r")]))
    target = data.draw(st.integers(0, moved))
    after = docs[:moved] + docs[moved + 1:]
    after.insert(target, docs[moved])
    qrels = {"1": {d: 1 for d in relevant} | {d: 0 for d in docs if d.startswith("n")}}

    def values(order):
        lines = [(d, str(len(order) - i)) for i, d in enumerate(order)]
        matrix = build(qrels, {"R": {"1": lines}}, depth=len(order))
        return atomized_search_lengths(matrix, unretrieved=mode).values[0]

    before_v, after_v = values(docs), values(after)
    column = relevant.index(docs[moved])  # columns follow the qrels order: relevant first
    assert after_v[column] <= before_v[column]
    assert before_v[column] - after_v[column] == sum(1 for d in docs[target:moved] if d.startswith("n"))
    others = [i for i in range(len(relevant)) if i != column]
    assert after_v[others].tolist() == before_v[others].tolist()


# ------------------------------------------------------------------ histograms


def test_histograms_count_every_document(matrix):
    per_doc = atomized_search_lengths(matrix).values  # [[1, 3, 3, 3, 3], [1, 1, 1, 4, 0]]
    counts, edges = asl_histogram(per_doc[0], bins=2)  # [1, 3] in two bins: [1, 2), [2, 3]
    assert counts.tolist() == [1, 4] and edges.tolist() == [1.0, 2.0, 3.0]
    # explicit edges are open-ended: 0 joins the first bin, 4 the last:
    # [1, 2) holds 1 1 1 1 and 0; [2, 3] holds 3 3 3 3 and 4
    counts, _ = asl_histogram(per_doc, bins=[1, 2, 3])
    assert counts.tolist() == [5, 5] and counts.sum() == per_doc.size
    # differences A - B: [0, 2, 2, -1, 3] -> decade buckets <=-1, 0, >=1 (max |diff| 3 < 9.5)
    counts, edges = asl_difference_histogram(per_doc[0], per_doc[1])
    assert edges.tolist() == [-9.5, -0.5, 0.5, 9.5]
    assert counts.tolist() == [1, 1, 3]
    assert decade_edges(1234).tolist() == [-9999.5, -999.5, -99.5, -9.5, -0.5, 0.5, 9.5, 99.5, 999.5, 9999.5]
    with pytest.raises(ValueError, match="same documents"):
        asl_difference_histogram(per_doc[0], per_doc[1][:3])


def test_trec8_histograms_sum_to_document_counts(trec8_matrix):
    found = atomized_search_lengths(trec8_matrix)
    n_docs = int(trec8_matrix.n_relevant.sum())
    assert found.values.shape == (len(trec8_matrix.runs), n_docs)
    for bins in (10, np.arange(0, 1001, 100)):
        counts, _ = asl_histogram(found.values[0], bins)
        assert counts.sum() == n_docs
    counts, edges = asl_difference_histogram(found.values[0], found.values[1])
    assert counts.sum() == n_docs
    assert edges[0] < -999 and edges[-1] > 999 or np.abs(found.values[0] - found.values[1]).max() < 999.5


# ------------------------------------------------------------------ re-ordering (Table 2)


def variant(name, per_topic, higher_is_better):
    x = np.asarray(per_topic, dtype=np.float64)
    v = x.mean(axis=1)
    return MetricVariant(name, x, v, higher_is_better, v if higher_is_better else 1 / v)


def test_delta_sort_by_hand():
    # old (higher better): run 0 far above runs 1 and 2 (paired differences ~0.3, tiny
    # spread: p << 0.05); runs 1 and 2 within 10% of each other. n0 = [0, 1, 1].
    old = variant("old", [[0.50, 0.60, 0.55, 0.65],
                          [0.20, 0.30, 0.25, 0.33],
                          [0.21, 0.29, 0.26, 0.31]], True)
    # new (lower better): runs 0 and 1 within 10% (11.5 vs 11.675); run 2 far worse
    # (differences ~20 on every topic). n1 = [0, 0, 2].
    new = variant("new", [[10, 12, 11, 13],
                          [10.5, 12, 11, 13.2],
                          [30, 32, 31, 35]], False)
    assert better_counts(old.per_topic, old.value, True).tolist() == [0, 1, 1]
    assert better_counts(new.per_topic, new.value, False).tolist() == [0, 0, 2]
    # Delta Sort_s = 100 |n0 - n1| / |S| = [0, 100/3, 100/3]
    assert delta_sort(old, new).tolist() == pytest.approx([0, 100 / 3, 100 / 3], abs=1e-12)
    row = reordering_row(old, new, runs=["r0", "r1", "r2"])
    assert row["delta_sort_max"] == pytest.approx(100 / 3) and row["delta_sort_run"] == "r1"
    # both rankings are r0 > r1 > r2 (ASL oriented lower-first): tau = 1
    assert row["kendall_tau"] == 1.0
    # Delta Value: (1/ASL) / old, per system
    want = (1 / new.value) / old.value
    assert row["delta_value_mean"] == pytest.approx(want.mean())
    # unchanged metric: no re-ordering
    same = reordering_row(old, old)
    assert same["delta_sort_max"] == 0 and same["kendall_tau"] == 1.0 and same["delta_value_mean"] == 1.0


def test_ten_percent_boundary_and_t_test():
    # a constant shift is certain (p = 0): 9 is exactly 10% below 10 and counts; 9.1 does not
    lower = np.array([[10.0, 10.0, 10.0], [9.0, 9.0, 9.0], [9.1, 9.1, 9.1]])
    assert better_counts(lower, lower.mean(axis=1), False).tolist() == [1, 0, 0]
    # the same gap but noisy enough that the paired t-test fails: not better
    noisy = np.array([[10.0, 20.0, 30.0], [1.0, 40.0, 20.0]])
    assert paired_t_pvalues(noisy)[0, 1] > 0.05
    assert better_counts(noisy, noisy.mean(axis=1), False).tolist() == [0, 0]


def test_t_test_matches_scipy():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(5, 12))
    p = paired_t_pvalues(x)
    q = paired_t_pvalues(x, "independent")
    for a in range(5):
        assert p[a, a] == 1.0
        for b in range(a + 1, 5):
            assert p[a, b] == p[b, a] == pytest.approx(stats.ttest_rel(x[a], x[b]).pvalue, rel=1e-10)
            assert q[a, b] == pytest.approx(stats.ttest_ind(x[a], x[b]).pvalue, rel=1e-10)
    assert paired_t_pvalues(np.ones((2, 4)))[0, 1] == 1.0  # identical: no evidence


def test_reordering_table_trec8(trec8_matrix):
    m = trec8_matrix
    ap = average_precision(m, None)
    # eq. 3 gives ASL 0 on TREC-8 (READWARE returns only relevant documents for 6 topics),
    # and the precision-space steps cannot take 1/0
    paper = atomized_search_lengths(m)
    assert (paper.values == 0).any()
    with pytest.raises(ValueError, match="plus_one"):
        reordering_table(ap, per_doc_asl=paper.values, doc_topic=paper.topic)
    found = atomized_search_lengths(m, unretrieved="plus_one")
    per_topic = asl(m, asl_unretrieved="plus_one")
    table = reordering_table(ap, per_topic, per_doc_asl=found.values, doc_topic=found.topic, runs=m.runs)
    assert table["step"].tolist() == ["atomize_P", "harmonic_mean_within_topic",
                                      "harmonic_mean_across_topics", "cumulative"]
    assert table["old"].tolist() == ["MAP", "atomized_P", "harmonic_within_topic", "MAP"]
    assert table["new"].tolist() == ["atomized_P", "harmonic_within_topic", "harmonic_across_topics", "ASL"]
    assert table["kendall_tau"].between(-1, 1).all()
    assert table["delta_sort_max"].between(0, 100).all()
    assert (table["n_runs"] == 129).all() and (table["n_topics"] == 50).all()
    # 1/ASL in precision space is below AP for almost every system (the paper's 0.004-0.06x)
    cumulative = table.set_index("step").loc["cumulative"]
    assert 0 < cumulative["delta_value_mean"] < 0.1
    # per-topic ASL alone: the cumulative row, identical
    alone = reordering_table(ap, per_topic, runs=m.runs)
    pd.testing.assert_series_equal(alone.iloc[0], table.iloc[3], check_names=False)
    # the cumulative tau is the tau of MAP against -ASL (equivalently 1/ASL: the harmonic
    # mean across topics orders systems as ASL does)
    map_means, asl_means = ap.mean(axis=1), per_topic.mean(axis=1)
    assert cumulative["kendall_tau"] == pytest.approx(stats.kendalltau(map_means, -asl_means).statistic, abs=1e-12)
    assert cumulative["kendall_tau"] == pytest.approx(stats.kendalltau(map_means, 1 / asl_means).statistic, abs=1e-12)
    with pytest.raises(ValueError, match="topic means"):
        reordering_table(ap, per_topic + 1, per_doc_asl=found.values, doc_topic=found.topic)


# ------------------------------------------------------------------ plots


def test_plots_are_deterministic(tmp_path, matrix):
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    per_doc = atomized_search_lengths(matrix, unretrieved="depth").values
    outputs = []
    for run in ("one", "two"):
        a = plot_asl_histogram(per_doc, tmp_path / run / "hist", bins=4)
        b = plot_asl_difference_histogram(per_doc[0], per_doc[1], tmp_path / run / "diff", labels=("A", "B"))
        outputs.append([p.read_bytes() for p in a + b])
        assert [p.name for p in a + b] == ["hist.png", "hist.pdf", "diff.png", "diff.pdf"]
    assert outputs[0] == outputs[1]
    png, pdf = outputs[0][0], outputs[0][1]
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and pdf.startswith(b"%PDF")
    assert b"CreationDate" not in pdf
    assert plt.get_fignums() == open_before  # no pyplot figure was opened


# ------------------------------------------------------------------ speed


def test_asl_on_all_trec8_runs_is_fast(trec8_matrix):
    m = trec8_matrix
    timings = {}
    for name, fn in (("ASL", lambda: asl(m)), ("ASL_g1@10", lambda: asl_g1(m, 10)),
                     ("per-document", lambda: atomized_search_lengths(m))):
        fn()
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
        timings[name] = best
    print("ASL timings on TREC-8 (129 runs x 50 topics x 1000):", timings)
    assert max(timings.values()) < 1.0
