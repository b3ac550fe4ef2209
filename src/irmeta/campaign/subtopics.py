"""Subtopic qrels: ``topic subtopic docid grade``, ndeval's layout (the TREC Web track's
diversity task, 2009-2014), read into ordinary qrels plus each judged document's
subtopic judgments.

A document judged for several subtopics of a topic is one row of the ordinary qrels,
its grade the largest of its subtopic grades: a document relevant to some subtopic is
relevant to the topic, as ndeval's own (unprinted) MAP reads its qrels, so every
ordinary measure scores the collapsed qrels. Beside those rows,
:class:`SubtopicJudgments` keeps each row's subtopic judgments as compressed rows; the
postings stay as they are (a posting's qrels row leads to its subtopics), so a campaign
costs nothing more until a diversity measure asks (:mod:`irmeta.measures.diversity`).

A topic's subtopics are numbered in the natural order of their ids (numerically when
every id is an integer, as ndeval reads them), and the subtopics a measure counts are
those with a relevant document (grade at or above the threshold), as ndeval counts them
(its ``actualSubtopics``). A (topic, subtopic, document) judged twice is refused: ndeval
would count the document twice in the subtopic's relevant documents.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.errors import TrecFormatError, TrecFormatWarning
from irmeta.campaign.qrels import Qrels, checked_qrels, read_grouped_rows, sort_topics

SUBTOPIC_LAYOUT = "topic subtopic docid grade"


@dataclass(frozen=True, eq=False)
class SubtopicJudgments:
    """Each row of the collapsed qrels, its subtopic judgments: row ``r``'s are
    ``start[r]:start[r + 1]``, ``subtopic`` the subtopic's index among its topic's (0,
    1, ... in the natural order of their ids), ``grade`` its grade; ``width`` the most
    subtopics a topic has."""

    start: np.ndarray  # (J + 1,) int64
    subtopic: np.ndarray  # (n,) int32
    grade: np.ndarray  # (n,) int64
    width: int
    _memo: dict = field(default_factory=dict, repr=False)

    @property
    def n_rows(self) -> int:
        return len(self.start) - 1

    @property
    def row(self) -> np.ndarray:
        """(n,) int64: the qrels row of each subtopic judgment."""
        return np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(self.start))

    def memo(self, key: object, make: Callable[[], object]) -> object:
        """A value derived from these judgments alone (a threshold's relevance, an
        alpha's ideal rankings), made once however many measures read it."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def relevant(self, threshold: int) -> np.ndarray:
        """(J, width) bool: row r is relevant to subtopic s (grade >= ``threshold``)."""
        def make() -> np.ndarray:
            out = np.zeros((self.n_rows, self.width), dtype=bool)
            keep = self.grade >= threshold
            out[self.row[keep], self.subtopic[keep]] = True
            return out
        return self.memo(("relevant", threshold), make)  # type: ignore[return-value]

    def relevant_per_subtopic(self, threshold: int, qrels_topic: np.ndarray, n_topics: int) -> np.ndarray:
        """(topics, width) int64: relevant documents of each subtopic (ndeval's ``nrelSub``)."""
        def make() -> np.ndarray:
            keep = self.grade >= threshold
            topic = qrels_topic[self.row[keep]]
            flat = np.bincount(topic * self.width + self.subtopic[keep], minlength=n_topics * self.width)
            return flat.reshape(n_topics, self.width).astype(np.int64)
        return self.memo(("per_subtopic", threshold), make)  # type: ignore[return-value]

    def regraded(self, before: np.ndarray, after: np.ndarray) -> SubtopicJudgments:
        """The judgments once the rows' grades go from ``before`` to ``after`` (an
        assessor who regrades a document: :meth:`~irmeta.campaign.postings.RelevanceMatrix.with_grades`):
        a row whose grade changed takes its new grade on every subtopic it is judged for,
        so its largest subtopic grade is its new grade; the other rows keep theirs."""
        changed = np.asarray(before) != np.asarray(after)
        if not changed.any():
            return self
        row = self.row
        return SubtopicJudgments(self.start, self.subtopic, np.where(changed[row], np.asarray(after)[row], self.grade),
                                 self.width)

    def kept(self, keep: np.ndarray) -> SubtopicJudgments:
        """The judgments of the rows ``keep`` (J,) bool selects, the rows renumbered as
        :meth:`~irmeta.campaign.postings.RelevanceMatrix.with_judgments` renumbers them."""
        counts = np.diff(self.start)[keep]
        mask = np.repeat(np.asarray(keep, dtype=bool), np.diff(self.start))
        start = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        return SubtopicJudgments(start, self.subtopic[mask], self.grade[mask], self.width)



def read_subtopic_qrels(path: str | Path) -> Qrels:
    """Subtopic qrels (``topic subtopic docid grade``, ndeval's layout) as :class:`Qrels`
    whose ``subtopics`` hold each row's subtopic judgments."""
    path = Path(path)
    rows = read_grouped_rows(path, ("topic", "subtopic"), SUBTOPIC_LAYOUT)
    qrels = subtopic_qrels(rows.qid, rows.group, rows.docid, rows.grade, path, rows.line_numbers)
    warn_single_subtopics(path, qrels)
    return qrels


def subtopic_qrels(qid: pa.Array, subtopic: pa.Array, docid: pa.Array, grade: np.ndarray, source: str | Path,
                   line_numbers: Callable[[], np.ndarray], *, unit: str = "line") -> Qrels:
    """Subtopic judgments (one per line or row of ``source``) collapsed to one row per
    (topic, document), in the order each pair first occurs, graded by its largest
    subtopic grade, with its subtopic judgments beside it. A (topic, subtopic, document)
    twice is refused, naming both lines (``line_numbers()``: each judgment's line, asked
    for only to word an error)."""
    if len(grade) == 0:
        raise TrecFormatError(source, None, "no judgments (the qrels are empty)")
    t, s, d = (_codes(x) for x in (qid, subtopic, docid))
    order = np.lexsort((d, s, t))
    same = (np.diff(t[order]) == 0) & (np.diff(s[order]) == 0) & (np.diff(d[order]) == 0)
    if same.any():
        first, second = sorted((int(order[np.argmax(same)]), int(order[np.argmax(same) + 1])))
        number = line_numbers()
        raise TrecFormatError(source, int(number[second]),
                              f"topic {qid[second].as_py()} subtopic {subtopic[second].as_py()} document "
                              f"{docid[second].as_py()} is judged twice (first on {unit} {int(number[first])})")
    # one row per (topic, document), in the order of its first judgment
    pair = t * (int(d.max()) + 1) + d
    _, first_at, row_of = np.unique(pair, return_index=True, return_inverse=True)
    renumber = np.empty(len(first_at), dtype=np.int64)
    renumber[np.argsort(first_at, kind="stable")] = np.arange(len(first_at))
    row_of = renumber[row_of.reshape(-1)]
    rows = np.sort(first_at)
    collapsed = np.full(len(rows), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(collapsed, row_of, grade)
    index = _subtopic_index(subtopic, t, s)
    by_row = np.lexsort((index, row_of))
    start = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=len(rows)), out=start[1:])
    judgments = SubtopicJudgments(start, index[by_row].astype(np.int32), np.asarray(grade, np.int64)[by_row],
                                  int(index.max()) + 1)
    take = pa.array(rows)
    qrels = checked_qrels(qid.take(take), docid.take(take), collapsed, source,
                          lambda: line_numbers()[rows], unit=unit)
    return Qrels(qrels.qid, qrels.docid, qrels.grade, qrels.source, subtopics=judgments)


def _codes(values: pa.Array) -> np.ndarray:
    enc = values.dictionary_encode()
    return np.asarray(enc.indices, dtype=np.int64)


def _subtopic_index(subtopic: pa.Array, t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(n,) int64: each judgment's subtopic numbered among its topic's, in the natural
    order of their ids (:func:`~irmeta.campaign.qrels.sort_topics`)."""
    _, first, inverse = np.unique(t * (int(s.max()) + 1) + s, return_index=True, return_inverse=True)
    pair_topic = t[first]
    names = subtopic.take(pa.array(first)).to_pylist()
    index = np.empty(len(first), dtype=np.int64)
    for topic in np.unique(pair_topic).tolist():
        mine = np.flatnonzero(pair_topic == topic)
        place = {name: k for k, name in enumerate(sort_topics([names[i] for i in mine.tolist()]))}
        index[mine] = [place[names[i]] for i in mine.tolist()]
    return index[inverse.reshape(-1)]


def warn_single_subtopics(path: str | Path, qrels: Qrels) -> None:
    """Warn when every topic has one subtopic: ordinary qrels (``qid iter docid grade``,
    iter 0) read as subtopic qrels look so, and score as topics of a single intent."""
    judgments = qrels.subtopics
    if judgments is None or judgments.width > 1:
        return
    warnings.warn(TrecFormatWarning(f"{path}: every topic has a single subtopic: ordinary qrels (qid iter docid "
                                    f"grade) read as subtopic qrels? The diversity measures then score each topic "
                                    f"as one intent"), stacklevel=3)
