"""trec_eval's order: score descending (full double), ties by docid descending as bytes,
then the depth cut; duplicates keep the copy first in that order; run topics the
qrels do not judge are dropped and reported.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from campaigns import write
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import Runs, read_runs
from irmeta.measures.precision import average_precision, precision


def order_of(runs: Runs, run: str | None = None, qid: str | None = None) -> list[str]:
    """Docids of one (run, topic) in the stored rank order."""
    docids = runs.docids.to_pylist()
    r = 0 if run is None else runs.names.index(run)
    q = 0 if qid is None else runs.topics.index(qid)
    sel = (runs.run == r) & (runs.qid == q)
    ranks = runs.rank[sel]
    assert list(ranks) == list(range(1, len(ranks) + 1))
    return [docids[d] for d in runs.docid[sel]]


def lines(*docs_scores: tuple[str, str], qid: str = "1") -> str:
    return "".join(f"{qid} Q0 {d} {i + 1} {s} tag\n" for i, (d, s) in enumerate(docs_scores))


def test_ties_broken_by_docid_descending_as_bytes(tmp_path):
    # All scores equal: the order is docid descending by bytes, whatever the file order.
    docs = ["DOC10", "DOC9", "DOC100", "doc1", "DOC1", "Doc5", "DOC-1", "DOC_1", "a", "B"]
    text = lines(*[(d, "0.5") for d in docs])
    runs = read_runs(write(tmp_path / "r", text))
    want = sorted(docs, key=lambda d: d.encode(), reverse=True)
    assert order_of(runs) == want
    # Spelled out: lowercase bytes sort above uppercase; 'DOC9' > 'DOC100' > 'DOC10' > 'DOC1'.
    assert want == ["doc1", "a", "Doc5", "DOC_1", "DOC9", "DOC100", "DOC10", "DOC1", "DOC-1", "B"]


def test_docid_order_is_not_numeric_nor_case_folded(tmp_path):
    text = lines(("DOC9", "1"), ("DOC10", "1"), ("abc", "1"), ("ABD", "1"))
    runs = read_runs(write(tmp_path / "r", text))
    assert order_of(runs) == ["abc", "DOC9", "DOC10", "ABD"]


def test_docid_order_utf8_bytes(tmp_path):
    # 'é' is 0xC3 0xA9 in UTF-8: above every ASCII byte. 'z' (0x7A) > 'Z' (0x5A).
    text = lines(("z", "1"), ("é", "1"), ("Z", "1"), ("zé", "1"), ("z~", "1"))
    runs = read_runs(write(tmp_path / "r", text))
    assert order_of(runs) == ["é", "zé", "z~", "z", "Z"]


def test_score_beats_docid(tmp_path):
    text = lines(("A", "0.1"), ("B", "0.2"), ("Z", "0.05"), ("C", "0.2"))
    runs = read_runs(write(tmp_path / "r", text))
    assert order_of(runs) == ["C", "B", "A", "Z"]


def test_scores_compared_as_numbers_not_text(tmp_path):
    text = lines(("a", "9"), ("b", "10"), ("c", "1e1"), ("d", "-2"), ("e", "-10"), ("f", "0.95e1"), ("g", "-0.0"),
                 ("h", "0"))
    runs = read_runs(write(tmp_path / "r", text))
    # 10 == 1e1 (tie: c > b), then 9.5, 9, then -0.0 == 0 (tie: h > g), -2, -10.
    assert order_of(runs) == ["c", "b", "f", "a", "h", "g", "d", "e"]


def test_near_tied_scores_ordered_by_full_double(tmp_path):
    lo = 0.12345678901234566
    hi = math.nextafter(lo, 1.0)  # 0.12345678901234568, one ulp above
    assert f"{lo:.15g}" == f"{hi:.15g}" and lo < hi  # equal to 15 digits, different doubles
    # The lower score has the higher docid: a parser that rounds to 15 digits would
    # see a tie and put 'Z' first.
    text = lines(("Z", repr(lo)), ("A", repr(hi)), ("M", "1.2345678901234568e-1"), ("B", "0.12345678901234567"))
    runs = read_runs(write(tmp_path / "r", text))
    # Other spellings of the same doubles: these pairs are exact ties, broken by docid.
    assert float("1.2345678901234568e-1") == hi and float("0.12345678901234567") == lo
    assert order_of(runs) == ["M", "A", "Z", "B"]
    assert [float(s) for s in runs.score] == [hi, hi, lo, lo]


def test_near_ties_at_large_magnitude(tmp_path):
    base = 12345.678901234567
    up = math.nextafter(base, math.inf)
    text = lines(("a", repr(base)), ("b", repr(up)), ("c", repr(math.nextafter(base, -math.inf))))
    runs = read_runs(write(tmp_path / "r", text))
    assert order_of(runs) == ["b", "a", "c"]


def test_depth_cut_after_ordering(tmp_path):
    docs = [(f"d{i:02d}", f"{1.0 - i / 100:.2f}") for i in range(10)]  # d00 best ... d09 worst
    text = lines(*docs) + "1 Q0 late 11 5.0 tag\n"  # the best score, on the last line
    runs = read_runs(write(tmp_path / "r", text), depth=3)
    assert order_of(runs) == ["late", "d00", "d01"]
    full = read_runs(write(tmp_path / "r", text))
    assert order_of(full)[:3] == ["late", "d00", "d01"]
    assert len(full) == 11


def test_depth_cut_with_ties_at_the_boundary(tmp_path):
    # Five docs tie at the cut: docid descending decides which two of them are kept.
    text = lines(("top", "2"), ("x1", "1"), ("x3", "1"), ("x2", "1"), ("x5", "1"), ("x4", "1"))
    runs = read_runs(write(tmp_path / "r", text), depth=3)
    assert order_of(runs) == ["top", "x5", "x4"]


def test_depth_cut_per_topic(tmp_path):
    text = lines(("a", "1"), ("b", "2"), ("c", "3"), qid="2") + lines(("d", "1"), qid="1")
    runs = read_runs(write(tmp_path / "r", text), depth=2)
    assert order_of(runs, qid="2") == ["c", "b"]
    assert order_of(runs, qid="1") == ["d"]


def test_interleaved_topics(tmp_path):
    text = "2 Q0 a 1 1 t\n1 Q0 b 1 1 t\n2 Q0 c 1 2 t\n1 Q0 d 1 0 t\n2 Q0 e 1 3 t\n"
    runs = read_runs(write(tmp_path / "r", text), depth=2)
    assert runs.topics == ["1", "2"]
    assert order_of(runs, qid="1") == ["b", "d"]
    assert order_of(runs, qid="2") == ["e", "c"]


def test_duplicates_first_keeps_copy_first_in_trec_order(tmp_path):
    # 'dup' appears with 0.2 (line 1) and 0.9 (line 3): the 0.9 copy is kept, ranked 1st.
    text = lines(("dup", "0.2"), ("x", "0.5"), ("dup", "0.9"), ("y", "0.1"))
    runs = read_runs(write(tmp_path / "r", text), duplicates="first")
    assert order_of(runs) == ["dup", "x", "y"]
    assert list(runs.score) == [0.9, 0.5, 0.1]
    assert runs.dropped_duplicates == {"r": 1}


def test_duplicates_first_then_depth_counts_kept_rows(tmp_path):
    # Dropping the lower copy of 'dup' lets 'y' into the top 3.
    text = lines(("dup", "0.9"), ("x", "0.5"), ("dup", "0.6"), ("y", "0.1"), ("z", "0.05"))
    runs = read_runs(write(tmp_path / "r", text), duplicates="first", depth=3)
    assert order_of(runs) == ["dup", "x", "y"]


def test_runs_order_independent_of_other_runs(tmp_path):
    # Docid tie order is a property of bytes, not of which docids other runs hold.
    a = write(tmp_path / "a", lines(("m", "1"), ("b", "1")))
    b = write(tmp_path / "b", lines(("z", "1"), ("c", "1"), ("m", "1")))
    both = read_runs([a, b])
    assert order_of(both, "a") == ["m", "b"]
    assert order_of(both, "b") == ["z", "m", "c"]
    assert order_of(read_runs(a)) == ["m", "b"]


def test_unjudged_run_topics_are_dropped_and_reported(tmp_path):
    qrels = read_qrels(write(tmp_path / "qrels", "1 0 a 1\n1 0 b 0\n3 0 c 1\n"))
    a = write(tmp_path / "runs" / "a", lines(("a", "1"), ("b", "0.5"), qid="1") + lines(("x", "1"), qid="2")
              + lines(("y", "1"), qid="99"))
    b = write(tmp_path / "runs" / "b", lines(("c", "1"), qid="3"))
    runs = read_runs([a, b])
    assert runs.topics == ["1", "2", "3", "99"]
    m = relevance_matrix(runs, qrels, depth=10)
    assert m.topics == ["1", "3"]  # the qrels' topics
    assert m.ignored_topics == {"a": ["2", "99"]}
    assert m.shape[:2] == (2, 2)
    assert m.length.tolist() == [[2, 0], [0, 1]]
    assert m.returned.tolist() == [[True, False], [False, True]]
    # Dropped topics leave no trace in the scores: run a has 1 relevant in the top 1 of topic 1.
    assert precision(m, 1).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert average_precision(m, 10).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_relevance_matrix_follows_trec_order(tmp_path):
    qrels = read_qrels(write(tmp_path / "qrels", "1 0 DOC9 1\n1 0 DOC10 0\n"))
    runs = read_runs(write(tmp_path / "r", lines(("DOC10", "1"), ("DOC9", "1"))))
    m = relevance_matrix(runs, qrels, depth=2)
    docids = m.docids.to_pylist()
    assert [docids[j] for j in m.judgment[0, 0]] == ["DOC9", "DOC10"]  # qrels rows, in trec order
    assert m.relevant[0, 0].tolist() == [True, False]
    assert precision(m, 1)[0, 0] == 1.0


def test_relevance_matrix_depth_cut(tmp_path):
    qrels = read_qrels(write(tmp_path / "qrels", "1 0 c 1\n"))
    runs = read_runs(write(tmp_path / "r", lines(("a", "3"), ("b", "2"), ("c", "1"))))
    deep = relevance_matrix(runs, qrels)
    cut = relevance_matrix(runs, qrels, depth=2)
    assert deep.depth == 3 and cut.depth == 2
    assert average_precision(deep, None)[0, 0] == pytest.approx(1 / 3)
    assert average_precision(cut, None)[0, 0] == 0.0
    assert cut.judgment[0, 0].tolist() == [-1, -1] and cut.length[0, 0] == 2  # a, b: unjudged


def test_relevance_matrix_pads_short_lists(tmp_path):
    qrels = read_qrels(write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n"))
    runs = read_runs(write(tmp_path / "r", lines(("a", "1")) + lines(("b", "3"), ("z", "2"), ("a", "1"), qid="2")))
    m = relevance_matrix(runs, qrels, depth=5)
    assert m.depth == 3  # no deeper than the deepest list
    assert m.judgment[0, 0].tolist()[1:] == [-1, -1]
    assert not m.relevant[0, 0, 1:].any()
    assert np.array_equal(m.length, [[1, 3]])
