"""Subtopic qrels (``topic subtopic docid grade``, ndeval's layout): read into ordinary
qrels rows, each (topic, document) once at its largest subtopic grade, with each row's
subtopic judgments beside; what is refused (a judgment twice, a line of another width,
the reserved topic ``all``) is refused with its file and line; the judgments follow the
rows through a subset of the qrels and through the store."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from campaigns import diversity_campaign, write
from irmeta.campaign.errors import TrecFormatError, TrecFormatWarning
from irmeta.campaign.in_memory import to_qrels
from irmeta.campaign.judge import judge_runs
from irmeta.campaign.qrels_formats import read_qrels_as
from irmeta.campaign.store import load_matrix, save_matrix
from irmeta.campaign.subtopics import read_subtopic_qrels

SUBTOPICS = """7 2 b 0
7 10 a 1
7 2 a 3
7 1 c 0
8 1 a 2
7 1 a -2
"""


def _judgments(qrels) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """(topic, docid) -> [(subtopic index, grade)] of each row."""
    s = qrels.subtopics
    return {(q, d): list(zip(s.subtopic[s.start[r]:s.start[r + 1]].tolist(),
                             s.grade[s.start[r]:s.start[r + 1]].tolist()))
            for r, (q, d) in enumerate(zip(qrels.qid.to_pylist(), qrels.docid.to_pylist()))}


def test_rows_collapse_to_the_largest_grade_in_first_occurrence_order(tmp_path):
    qrels = read_subtopic_qrels(write(tmp_path / "q", SUBTOPICS))
    assert list(zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist())) == [
        ("7", "b", 0), ("7", "a", 3), ("7", "c", 0), ("8", "a", 2)]
    # topic 7's subtopics 1, 2, 10 in natural order (numeric: 10 after 2), each row's in that order
    assert _judgments(qrels) == {("7", "b"): [(1, 0)], ("7", "a"): [(0, -2), (1, 3), (2, 1)], ("7", "c"): [(0, 0)],
                                 ("8", "a"): [(0, 2)]}
    assert qrels.subtopics.width == 3
    assert qrels.subtopics.relevant(1).tolist() == [[False, False, False], [False, True, True],
                                                    [False, False, False], [True, False, False]]
    per_subtopic = qrels.subtopics.relevant_per_subtopic(3, qrels.topic_of_row, 2)
    assert per_subtopic.tolist() == [[0, 1, 0], [0, 0, 0]]


def test_read_as_the_format_says(tmp_path):
    path = write(tmp_path / "q", SUBTOPICS)
    assert read_qrels_as(path, "subtopics").subtopics is not None
    with pytest.raises(TrecFormatError, match=r":3: topic 7 document a is judged twice .*subtopics format"):
        read_qrels_as(path, "trec")  # a document judged for two subtopics is no TREC qrels
    with pytest.raises(ValueError, match="irmeta reads trec, subtopics, qrels_jg"):
        read_qrels_as(path, "ndeval")


@pytest.mark.parametrize("text,line,message", [
    ("1 1 a 1\n1 2 a 0\n1 1 a 2\n", 3, "topic 1 subtopic 1 document a is judged twice (first on line 1)"),
    ("1 1 a 1\n1 a 0\n", 2, "3 columns, expected 4 (topic subtopic docid grade)"),
    ("1 1 a 1\n1 1 b x\n", 2, "grade 'x' is not an integer"),
    ("1 1 a 1\nall 1 b 0\n", 2, "topic id 'all' is reserved"),
])
def test_bad_lines_are_refused_with_their_line(tmp_path, text, line, message):
    path = write(tmp_path / "q", text)
    with pytest.raises(TrecFormatError) as caught:
        read_subtopic_qrels(path)
    assert caught.value.line == line and message in caught.value.reason


def test_ordinary_qrels_read_as_subtopic_qrels_are_warned_about(tmp_path):
    path = write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    with pytest.warns(TrecFormatWarning, match="every topic has a single subtopic"):
        read_subtopic_qrels(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_subtopic_qrels(write(tmp_path / "r", SUBTOPICS))


def test_in_memory_forms_read_as_the_file(tmp_path):
    from pyndeval import SubtopicQrel

    path = write(tmp_path / "q", SUBTOPICS)
    rows = [line.split() for line in SUBTOPICS.splitlines()]
    frame = pd.DataFrame(rows, columns=["query_id", "subtopic_id", "doc_id", "relevance"]).astype({"relevance": int})
    want = read_subtopic_qrels(path)
    for given in (path, frame, [(q, s, d, int(g)) for q, s, d, g in rows],
                  [SubtopicQrel(q, s, d, int(g)) for q, s, d, g in rows]):
        got = to_qrels(given, qrels_format="subtopics")
        assert got.qid.to_pylist() == want.qid.to_pylist() and got.grade.tolist() == want.grade.tolist()
        assert _judgments(got) == _judgments(want)
    with pytest.raises(TrecFormatError, match="qrels:2: expected"):
        to_qrels([("1", "1", "a", 1), ("1", "a", 0)], qrels_format="subtopics")


def test_a_subset_of_rows_keeps_their_subtopics(tmp_path):
    qrels = read_subtopic_qrels(write(tmp_path / "q", SUBTOPICS))
    keep = np.array([False, True, False, True])
    kept = qrels.subtopics.kept(keep)
    assert kept.n_rows == 2 and kept.start.tolist() == [0, 3, 4]
    assert kept.subtopic.tolist() == [0, 1, 2, 0] and kept.grade.tolist() == [-2, 3, 1, 2]


def test_the_store_keeps_the_subtopics(tmp_path):
    qrels_path, runs = diversity_campaign(tmp_path, 3, n_topics=6, n_runs=3, depth=20)
    matrix, _ = judge_runs(runs, read_subtopic_qrels(qrels_path))
    save_matrix(matrix, tmp_path / "judged.npz")
    loaded = load_matrix(tmp_path / "judged.npz")
    for name in ("start", "subtopic", "grade"):
        assert np.array_equal(getattr(loaded.subtopics, name), getattr(matrix.subtopics, name))
    assert loaded.subtopics.width == matrix.subtopics.width
    ordinary, _ = judge_runs(runs[:1], read_qrels_as(write(tmp_path / "t", "1 0 a 1\n"), "trec"))
    save_matrix(ordinary, tmp_path / "ordinary.npz")
    assert load_matrix(tmp_path / "ordinary.npz").subtopics is None
