"""Atomized search length (irmeta.measures.asl): hand-worked values of eq. 1-5, a property
test against a plain-Python loop, monotonicity and atomicity, the name grammar and the
registry. The tiny campaign is :func:`campaigns.asl_campaign`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import ASL_QRELS, asl_campaign, write
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels, sort_topics
from irmeta.campaign.runs import read_runs
from irmeta.measures.asl import asl, asl_g1, atomized_search_lengths
from irmeta.measures.averaging import evaluate, mean_scores, score_table
from irmeta.measures.names import Measure, parse_asl_name, parse_measure


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    return asl_campaign(tmp_path_factory.mktemp("asl"))


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
        qrels = read_qrels(write(root / "q", ASL_QRELS))
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


@pytest.mark.slow
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
