"""Runs joined to qrels as dense (run, topic, rank) arrays: the input of every measure.

A campaign is small when laid out densely (TREC-8 at depth 1000: 129 runs x 50 topics x
1000 ranks, 6.5 M cells), and dense arrays let every measure be a handful of numpy
reductions over all runs and topics at once.

Topics are those of the qrels (trec_eval's topic set). Topics a run returned that the
qrels do not judge are dropped and reported in ``ignored_topics``. Documents are coded
in one vocabulary that holds every retrieved and every judged document, so a relevant
document that no run found keeps a code (rarity needs it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .io import Qrels, Runs


@dataclass(frozen=True)
class RelevanceMatrix:
    """Ranked lists of all runs on all qrels topics, judged.

    ``doc[s, q, i]`` is the document run ``s`` put at rank ``i + 1`` for topic ``q``
    (-1 past the end of its list); ``grade`` its qrels grade (0 when unjudged);
    ``relevant`` is ``grade >= threshold`` for judged documents.
    """

    runs: list[str]
    topics: list[str]
    doc: np.ndarray  # (S, Q, D) int32
    grade: np.ndarray  # (S, Q, D) int32
    relevant: np.ndarray  # (S, Q, D) bool
    n_relevant: np.ndarray  # (Q,) int64: relevant documents of each topic in the qrels
    length: np.ndarray  # (S, Q) int64: documents each run returned (after the depth cut)
    threshold: int
    docids: pa.Array  # vocabulary of doc codes
    qrels_topic: np.ndarray  # (J,) int64 topic index of each judgment
    qrels_doc: np.ndarray  # (J,) int64 doc code of each judgment
    qrels_grade: np.ndarray  # (J,) int64
    judgment: np.ndarray  # (S, Q, D) int32: row of the qrels judging the document, -1 if unjudged
    ignored_topics: dict[str, list[str]] = field(default_factory=dict)
    # The depth the runs were cut to when read (trec_eval -M), None if uncut. Measures
    # without a cutoff that need one (P divides by k) use it, never the matrix depth,
    # which is the deepest list among the runs scored together.
    run_depth: int | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.doc.shape  # type: ignore[return-value]

    @property
    def depth(self) -> int:
        return self.doc.shape[2]

    @property
    def returned(self) -> np.ndarray:
        """(S, Q) bool: the run returned at least one document for the topic."""
        return self.length > 0

    def subset(self, runs: np.ndarray | list[int]) -> "RelevanceMatrix":
        """The given runs (indices) only, sharing the qrels and vocabulary."""
        idx = np.asarray(runs, dtype=np.int64)
        return RelevanceMatrix(
            runs=[self.runs[i] for i in idx], topics=self.topics, doc=self.doc[idx],
            grade=self.grade[idx], relevant=self.relevant[idx], n_relevant=self.n_relevant,
            length=self.length[idx], threshold=self.threshold, docids=self.docids,
            qrels_topic=self.qrels_topic, qrels_doc=self.qrels_doc, qrels_grade=self.qrels_grade,
            judgment=self.judgment[idx],
            ignored_topics={self.runs[i]: self.ignored_topics.get(self.runs[i], []) for i in idx},
            run_depth=self.run_depth,
        )


def relevance_matrix(runs: Runs, qrels: Qrels, *, depth: int | None = None, threshold: int = 1) -> RelevanceMatrix:
    """Join runs to qrels, cut at ``depth`` (default: the deepest list), as dense arrays."""
    topics = qrels.topics
    n_topics = len(topics)
    # Run topic code -> qrels topic index (-1: the qrels do not judge that topic).
    topic_of = np.asarray(
        pc.index_in(pa.array(runs.topics, pa.string()), value_set=pa.array(topics, pa.string()))
        .fill_null(-1), dtype=np.int64,
    )
    judged_topic = np.asarray(
        pc.index_in(qrels.qid.cast(pa.string()), value_set=pa.array(topics, pa.string())), dtype=np.int64
    )

    # One vocabulary: the runs' documents, then judged documents no run retrieved.
    in_runs = pc.index_in(qrels.docid, value_set=runs.docids)
    missing = pc.invert(pc.is_valid(in_runs))
    extra = pc.unique(pc.filter(qrels.docid, missing))
    docids = pa.concat_arrays([runs.docids.cast(pa.large_string()), extra.cast(pa.large_string())])
    qrels_doc = np.asarray(pc.index_in(qrels.docid, value_set=docids), dtype=np.int64)

    n_docs = len(docids)
    qkey = judged_topic * n_docs + qrels_doc
    order = np.argsort(qkey)
    qkey_sorted = qkey[order]
    grade_sorted = qrels.grade[order]

    row_topic = topic_of[runs.qid]
    max_rank = int(runs.rank.max(initial=0))
    d = max_rank if depth is None else min(depth, max(max_rank, 1))
    d = max(d, 1)
    keep = (row_topic >= 0) & (runs.rank <= d)
    s, t, r = runs.run[keep].astype(np.int64), row_topic[keep], runs.rank[keep].astype(np.int64) - 1
    doc_codes = runs.docid[keep].astype(np.int64)

    shape = (runs.n_runs, n_topics, d)
    doc = np.full(shape, -1, dtype=np.int32)
    doc[s, t, r] = doc_codes
    grade = np.zeros(shape, dtype=np.int32)
    judgment = np.full(shape, -1, dtype=np.int32)
    if len(qkey_sorted):
        key = t * n_docs + doc_codes
        pos = np.minimum(np.searchsorted(qkey_sorted, key), len(qkey_sorted) - 1)
        hit = qkey_sorted[pos] == key
        grade[s[hit], t[hit], r[hit]] = grade_sorted[pos[hit]]
        judgment[s[hit], t[hit], r[hit]] = order[pos[hit]]
    relevant = (judgment >= 0) & (grade >= threshold)

    n_relevant = np.bincount(judged_topic[qrels.grade >= threshold], minlength=n_topics).astype(np.int64)
    length = np.bincount(s * n_topics + t, minlength=runs.n_runs * n_topics).reshape(runs.n_runs, n_topics)

    ignored: dict[str, list[str]] = {}
    unjudged_rows = topic_of[runs.qid] < 0
    if unjudged_rows.any():
        pairs = np.unique(np.stack([runs.run[unjudged_rows], runs.qid[unjudged_rows]]), axis=1)
        for run_code, qcode in pairs.T:
            ignored.setdefault(runs.names[run_code], []).append(runs.topics[qcode])

    return RelevanceMatrix(
        runs=list(runs.names), topics=topics, doc=doc, grade=grade, relevant=relevant,
        n_relevant=n_relevant, length=length, threshold=threshold, docids=docids,
        qrels_topic=judged_topic, qrels_doc=qrels_doc, qrels_grade=qrels.grade.astype(np.int64),
        judgment=judgment, ignored_topics=ignored, run_depth=_cut_depth(runs.depth, depth),
    )


def _cut_depth(read: int | None, kept: int | None) -> int | None:
    """The depth the runs are cut to: at reading (``-M``) and again when joined."""
    return min((d for d in (read, kept) if d is not None), default=None)
