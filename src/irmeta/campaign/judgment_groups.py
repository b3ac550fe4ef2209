"""Judgment-group qrels, trec_eval's ``-R qrels_jg``: ``qid jg docid grade``, each topic
judged by one or more judgment groups (users, assessors), read into ordinary qrels plus
each judged document's judgments by group (trec_eval 10.0 get_qrels_jg.c, form_res_rels_jg.c).

- A topic's groups are those its lines name, in the byte order of their names (trec_eval's
  strcmp order), numbered 0, 1, ... per topic: a group's *slot*. Topics may have different
  groups and different numbers of them.
- The ordinary qrels hold one row per (topic, document) some group judged, so runs are
  joined to the qrels once; its grade is the largest of the groups' (read by no measure:
  every measure but the ``*_avgjg`` ones is refused over judgment groups, as trec_eval
  refuses them with ``-R qrels_jg``). :class:`JudgmentGroups` keeps each row's judgments
  by slot.
- For a group, a document it did not judge is unjudged (not in its pool), and a negative
  grade is trec_eval's "in the pool, unjudged": a group is scored as the ordinary qrels of
  its own lines (:func:`group_matrix`).
- A (topic, group, document) judged twice is refused, as trec_eval refuses it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.qrels import Qrels, checked_qrels, read_grouped_rows

JG_LAYOUT = "qid jg docid grade"


@dataclass(frozen=True, eq=False)
class JudgmentGroups:
    """Each row of the collapsed qrels, its judgments by group: row ``r``'s are
    ``start[r]:start[r + 1]``, ``slot`` the group's index among its topic's groups (byte
    order of their names), ``grade`` its grade; ``n_groups`` (topics,) the groups of each
    qrels topic. ``condensed``: the rows of a matrix whose lists were condensed
    (``judged_only``), so each group's lists are condensed again on its own judgments."""

    start: np.ndarray  # (J + 1,) int64
    slot: np.ndarray  # (n,) int32
    grade: np.ndarray  # (n,) int64
    n_groups: np.ndarray  # (Q,) int64
    condensed: bool = False

    @property
    def width(self) -> int:
        """The most groups any topic has."""
        return int(self.n_groups.max(initial=0))

    @property
    def row(self) -> np.ndarray:
        """(n,) int64: the qrels row of each judgment."""
        return np.repeat(np.arange(len(self.start) - 1, dtype=np.int64), np.diff(self.start))

    def of_condensed(self) -> JudgmentGroups:
        """The same judgments, for the condensed lists of the matrix they belong to."""
        return replace(self, condensed=True)



def read_qrels_jg(path: str | Path) -> Qrels:
    """Judgment-group qrels (``qid jg docid grade``, trec_eval's ``qrels_jg``) as
    :class:`Qrels` whose ``judgment_groups`` hold each row's judgments by group."""
    path = Path(path)
    rows = read_grouped_rows(path, ("qid", "jg"), JG_LAYOUT)
    return qrels_jg(rows.qid, rows.group, rows.docid, rows.grade, path, rows.line_numbers)


def _codes(values: pa.Array) -> tuple[np.ndarray, list[str]]:
    """Each value's index among the distinct values sorted (byte order), and those values."""
    enc = values.dictionary_encode()
    names = enc.dictionary.to_pylist()
    order = np.argsort(np.asarray(names, dtype=object), kind="stable") if names else np.zeros(0, np.int64)
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank[np.asarray(enc.indices, dtype=np.int64)], [names[i] for i in order.tolist()]


def qrels_jg(qid: pa.Array, group: pa.Array, docid: pa.Array, grade: np.ndarray, source: str | Path,
             line_numbers: Callable[[], np.ndarray], *, unit: str = "line") -> Qrels:
    """Judgments by group (one per line or row of ``source``) collapsed to one row per
    (topic, document), in the order each pair first occurs, graded by its largest grade,
    with its judgments by group beside it. A (topic, group, document) twice is refused,
    naming both lines (``line_numbers()``: each judgment's line, asked for only to word
    an error)."""
    if len(grade) == 0:
        raise TrecFormatError(source, None, "no judgments (the qrels are empty)")
    grade = np.asarray(grade, dtype=np.int64)
    t, topic_names = _codes(qid)
    g, _ = _codes(group)
    d, _ = _codes(docid)
    order = np.lexsort((d, g, t))
    same = (np.diff(t[order]) == 0) & (np.diff(g[order]) == 0) & (np.diff(d[order]) == 0)
    if same.any():
        first, second = sorted((int(order[np.argmax(same)]), int(order[np.argmax(same) + 1])))
        number = line_numbers()
        raise TrecFormatError(source, int(number[second]),
                              f"topic {qid[second].as_py()} judgment group {group[second].as_py()} document "
                              f"{docid[second].as_py()} is judged twice (first on {unit} {int(number[first])})")
    # one row per (topic, document), in the order of its first judgment
    _, first_at, row_of = np.unique(t * (int(d.max()) + 1) + d, return_index=True, return_inverse=True)
    renumber = np.empty(len(first_at), dtype=np.int64)
    renumber[np.argsort(first_at, kind="stable")] = np.arange(len(first_at))
    row_of = renumber[row_of.reshape(-1)]
    rows = np.sort(first_at)
    collapsed = np.full(len(rows), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(collapsed, row_of, grade)
    take = pa.array(rows)
    qrels = checked_qrels(qid.take(take), docid.take(take), collapsed, source, lambda: line_numbers()[rows],
                          unit=unit)
    # a group's slot: its rank among its topic's groups, names in byte order (g ranks them so)
    pairs, pair_of = np.unique(t * (int(g.max()) + 1) + g, return_inverse=True)
    pair_topic = pairs // (int(g.max()) + 1)
    slot_of_pair = np.arange(len(pairs)) - np.searchsorted(pair_topic, pair_topic)  # pairs sorted by (t, g)
    slot = slot_of_pair[pair_of.reshape(-1)]
    by_row = np.lexsort((slot, row_of))
    start = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=len(rows)), out=start[1:])
    per_code = dict(zip(topic_names, np.bincount(pair_topic, minlength=len(topic_names)).tolist()))
    n_groups = np.asarray([per_code[name] for name in qrels.topics], dtype=np.int64)  # in Qrels.topics' order
    groups = JudgmentGroups(start, slot[by_row].astype(np.int32), grade[by_row], n_groups)
    return Qrels(qrels.qid, qrels.docid, qrels.grade, qrels.source, judgment_groups=groups)


# ---------------------------------------------------------------- one group's campaign

_BY_SLOT: weakref.WeakKeyDictionary[RelevanceMatrix, dict[int, RelevanceMatrix]] = weakref.WeakKeyDictionary()


def group_matrix(matrix: RelevanceMatrix, slot: int) -> RelevanceMatrix:
    """The campaign as judged by each topic's group at ``slot`` alone: its grades, the
    documents it did not judge unjudged (trec_eval's form_res_rels_jg.c, per group); on a
    topic with fewer groups, no judgment at all. Lists condensed on the group's own
    judgments when ``matrix``'s were (``judged_only``). Made once per matrix and slot."""
    groups = matrix.judgment_groups
    if groups is None:
        raise ValueError("the campaign has no judgment groups (qrels read in the qrels_jg format)")
    made = _BY_SLOT.setdefault(matrix, {})
    if slot not in made:
        mine = groups.slot == slot
        rows = groups.row[mine]
        keep = np.zeros(len(matrix.qrels_grade), dtype=bool)
        keep[rows] = True
        grades = matrix.qrels_grade.copy()
        grades[rows] = groups.grade[mine]
        judged = matrix.with_grades(grades).with_judgments(keep)
        made[slot] = judged.condensed() if groups.condensed else judged
    return made[slot]
