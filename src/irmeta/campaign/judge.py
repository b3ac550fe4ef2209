"""Runs joined to the qrels: each run file is read, put in trec_eval's order, cut at
the depth and joined to the judgments on its own (in threads), into a
:class:`~irmeta.campaign.postings.RelevanceMatrix` of the judged documents the runs
retrieved. Memory holds one file's rows per thread and the judged postings, never every
retrieved document.
"""

from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError, TrecFormatWarning
from irmeta.campaign.files import resolve_paths
from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.campaign.qrels import Qrels, sort_topics
from irmeta.campaign.ranked_store import TopRows, top_rows
from irmeta.campaign.run_blocks import TopicsNotGrouped
from irmeta.campaign.runs import (
    DuplicatePolicy,
    RunFile,
    RunNameSource,
    Runs,
    ScorePrecision,
    check_score_precision,
    read_each_run,
    read_run_file,
)


@dataclass(frozen=True)
class _Lookup:
    """The qrels as a sorted key array: (topic, judged-document code) -> qrels row."""

    topics: pa.Array  # qrels topics, in irmeta's topic order
    vocabulary: pa.Array  # distinct judged docids
    keys: np.ndarray  # sorted topic * V + doc
    rows: np.ndarray  # qrels row of each key

    @classmethod
    def of(cls, qrels: Qrels, topics: list[str]) -> _Lookup:
        vocabulary = pc.unique(qrels.docid)
        topic_values = pa.array(topics, pa.large_string())
        topic = np.asarray(pc.index_in(qrels.qid, value_set=topic_values), dtype=np.int64)
        doc = np.asarray(pc.index_in(qrels.docid, value_set=vocabulary), dtype=np.int64)
        keys = topic * max(len(vocabulary), 1) + doc
        order = np.argsort(keys, kind="stable")
        return cls(topic_values, vocabulary, keys[order], order.astype(np.int64))

    def topic_codes(self, qid: pa.Array) -> np.ndarray:
        """Topic index of each qid, -1 when the qrels do not judge the topic."""
        return np.asarray(pc.index_in(qid, value_set=self.topics).fill_null(-1), dtype=np.int64)

    def judge(self, topic: np.ndarray, docid: pa.Array) -> np.ndarray:
        """qrels row of each (topic, docid), -1 when unjudged (or the topic is not judged).
        A dictionary-encoded ``docid`` is looked up once per distinct document."""
        if pa.types.is_dictionary(docid.type):
            codes = np.asarray(pc.index_in(docid.dictionary, value_set=self.vocabulary).fill_null(-1), dtype=np.int64)
            doc = codes[np.asarray(docid.indices, dtype=np.int64)] if len(docid) else np.zeros(0, np.int64)
        else:
            doc = np.asarray(pc.index_in(docid, value_set=self.vocabulary).fill_null(-1), dtype=np.int64)
        out = np.full(len(doc), -1, dtype=np.int64)
        known = (doc >= 0) & (topic >= 0)
        if known.any() and len(self.keys):
            key = topic[known] * max(len(self.vocabulary), 1) + doc[known]
            pos = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
            out[known] = np.where(self.keys[pos] == key, self.rows[pos], -1)
        return out


@dataclass(frozen=True)
class Side:
    """One run's hits or misses: postings in topic order, ranks ascending, per-topic counts."""

    rank: np.ndarray  # int32
    judgment: np.ndarray  # int32
    counts: np.ndarray  # (topics,) int64


@dataclass(frozen=True)
class JudgedRun:
    """One run joined to the qrels: its relevant and other judged postings, its list lengths."""

    name: str
    path: str
    hits: Side
    misses: Side
    length: np.ndarray  # (Q,) int32
    ignored: list[str]
    dropped: int
    top: TopRows | None = None  # its rows down to the degradations' depth, when kept
    # its sides as the store encodes them, the raw ones released (a shard's runs:
    # irmeta.campaign.ingest_parts.compact_run)
    encoded: dict[str, dict[str, np.ndarray]] | None = None


def _judge_run(name: str, path: str, qid: pa.Array, docid: pa.Array, rank: np.ndarray, lookup: _Lookup,
               grade: np.ndarray, threshold: int, depth: int | None, dropped: int = 0) -> JudgedRun:
    """Rows of one run (trec_eval order, ranks from 1 per topic) joined to the qrels and
    split at the relevance ``threshold`` (``grade``: the qrels grades)."""
    n_topics = len(lookup.topics)
    qid_enc = qid.dictionary_encode()
    code_of = lookup.topic_codes(qid_enc.dictionary)
    topic = code_of[np.asarray(qid_enc.indices, dtype=np.int64)] if len(qid) else np.zeros(0, np.int64)
    rank = np.asarray(rank, dtype=np.int32)
    keep = topic >= 0
    if depth is not None:
        keep &= rank <= depth
    ignored = sorted(set(np.asarray(qid_enc.dictionary.to_pylist(), dtype=object)[code_of < 0].tolist()))
    topic, rank = topic[keep], rank[keep]
    length = np.bincount(topic, minlength=n_topics).astype(np.int32)
    row = lookup.judge(topic, docid.filter(pa.array(keep)) if not keep.all() else docid)
    judged = row >= 0
    topic, rank, row = topic[judged], rank[judged], row[judged]
    order = np.lexsort((rank, topic))  # the run's cells in topic order, ranks ascending
    topic, rank, row = topic[order], rank[order], row[order].astype(np.int32)
    relevant = grade[row] >= threshold

    def side(mask: np.ndarray) -> Side:
        return Side(rank[mask], row[mask], np.bincount(topic[mask], minlength=n_topics))

    return JudgedRun(name, path, side(relevant), side(~relevant), length, sort_topics(ignored), dropped)


def judgment_rows(qrels: Qrels, qid: Sequence[str], docid: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each (qid, docid) joined to the qrels as ingestion joins a run's rows: its topic's
    index in ``qrels.topics`` (-1: a topic the qrels lack) and the qrels row judging it
    (-1: unjudged)."""
    lookup = _Lookup.of(qrels, qrels.topics)
    topic = lookup.topic_codes(pa.array(list(qid), pa.large_string()))
    return topic, lookup.judge(topic, pa.array(list(docid), pa.large_string()))


def matrix_of_rows(names: Sequence[str], qrels: Qrels, *, run: np.ndarray, topic: np.ndarray, rank: np.ndarray,
                   row: np.ndarray, threshold: int = 1, ignored: dict[str, list[str]] | None = None
                   ) -> RelevanceMatrix:
    """The matrix :func:`judge_each` builds, from rows already joined to the qrels
    (:func:`judgment_rows`): per row its run's index in ``names``, its qrels topic index
    (-1: left out), its 1-based rank and its qrels row (-1: unjudged); rows in any order.
    Every run at once, postings ordered by (run, topic, rank) as :func:`_judge_run` and
    :func:`_concatenate` order them. The runs' depth is not cut (``run_depth`` None);
    ``ignored``: per run the topics the qrels lack."""
    _check_threshold(threshold)
    length, hits, misses = postings_of_rows(len(names), len(qrels.topics), np.asarray(qrels.grade, dtype=np.int64),
                                            run=run, topic=topic, rank=rank, row=row, threshold=threshold)
    return campaign_matrix(list(names), length, hits, misses,
                           {name: list(t) for name, t in (ignored or {}).items() if t}, qrels, threshold=threshold,
                           run_depth=None)


def postings_of_rows(n_runs: int, n_topics: int, grade: np.ndarray, *, run: np.ndarray, topic: np.ndarray,
                     rank: np.ndarray, row: np.ndarray, threshold: int) -> tuple[np.ndarray, Postings, Postings]:
    """What :func:`matrix_of_rows` holds of its rows: the lengths (runs, topics) and the
    relevant and the other judged postings (``grade``: the qrels' grades), without a look
    at the qrels' strings, so judging many sets of rows against one qrels costs the rows."""
    n_cells = n_runs * n_topics
    keep = np.asarray(topic) >= 0
    cell = np.asarray(run, dtype=np.int64)[keep] * n_topics + np.asarray(topic, dtype=np.int64)[keep]
    rank, row = np.asarray(rank, dtype=np.int32)[keep], np.asarray(row, dtype=np.int64)[keep]
    length = np.bincount(cell, minlength=n_cells).astype(np.int32).reshape(n_runs, n_topics)
    judged = row >= 0
    cell, rank, row = cell[judged], rank[judged], row[judged]
    order = np.lexsort((rank, cell))
    cell, rank, row = cell[order], rank[order], row[order].astype(np.int32)
    relevant = grade[row] >= threshold

    def side(mask: np.ndarray) -> Postings:
        return Postings(offsets_from_counts(np.bincount(cell[mask], minlength=n_cells)), rank[mask], row[mask])

    return length, side(relevant), side(~relevant)


def _concatenate(sides: list[Side]) -> Postings:
    """Runs' postings one after the other (each in topic order: cells stay sorted), copied
    into place run by run."""
    counts = np.concatenate([side.counts for side in sides]) if sides else np.zeros(0, np.int64)
    start = offsets_from_counts(counts)
    rank = np.empty(int(start[-1]), dtype=np.int32)
    judgment = np.empty(int(start[-1]), dtype=np.int32)
    at = 0
    for side in sides:
        rank[at:at + len(side.rank)] = side.rank
        judgment[at:at + len(side.rank)] = side.judgment
        at += len(side.rank)
    return Postings(start, rank, judgment)


def matrix_of_judged(judged: list[JudgedRun], qrels: Qrels, *, threshold: int,
                     run_depth: int | None) -> RelevanceMatrix:
    """The runs' postings, run-major, as one matrix."""
    topics = qrels.topics
    length = np.stack([j.length for j in judged]) if judged else np.zeros((0, len(topics)), np.int32)
    return campaign_matrix([j.name for j in judged], length, _concatenate([j.hits for j in judged]),
                           _concatenate([j.misses for j in judged]), {j.name: j.ignored for j in judged if j.ignored},
                           qrels, threshold=threshold, run_depth=run_depth)


def qrels_topics_of_rows(qrels: Qrels) -> np.ndarray:
    """(J,) int64: each qrels row's topic, an index into ``qrels.topics``."""
    return qrels.topic_of_row


def campaign_matrix(runs: list[str], length: np.ndarray, hits: Postings, misses: Postings,
                    ignored: dict[str, list[str]], qrels: Qrels, *, threshold: int,
                    run_depth: int | None) -> RelevanceMatrix:
    """Judged runs' lengths and postings (run-major, on the qrels' topics) with the qrels'
    rows: one matrix, however the runs were read (in one job or in shards)."""
    topic_of_row = qrels_topics_of_rows(qrels)
    return RelevanceMatrix(
        runs=runs, topics=qrels.topics, length=length, hits=hits, misses_loader=lambda: misses,
        threshold=threshold, qrels_topic=topic_of_row, qrels_grade=qrels.grade.astype(np.int64),
        docids=qrels.docid, run_depth=run_depth, ignored_topics=ignored, subtopics=qrels.subtopics,
        judgment_groups=qrels.judgment_groups,
    )


def _check_threshold(threshold: int) -> None:
    if threshold < 0:
        raise ValueError(f"the relevance threshold must be >= 0 (trec_eval -l), not {threshold}")


def relevance_matrix(runs: Runs, qrels: Qrels, *, depth: int | None = None,
                     threshold: int = 1) -> RelevanceMatrix:
    """Join runs read by :func:`irmeta.campaign.runs.read_runs` to the qrels, cut at ``depth``."""
    _check_threshold(threshold)
    topics = qrels.topics
    grade = qrels.grade.astype(np.int64)
    lookup = _Lookup.of(qrels, topics)
    qids = pa.array(runs.topics, pa.large_string())
    bounds = np.searchsorted(runs.run, np.arange(runs.n_runs + 1))  # rows are sorted by run
    judged = []
    for s, name in enumerate(runs.names):
        lo, hi = int(bounds[s]), int(bounds[s + 1])
        qid = qids.take(pa.array(runs.qid[lo:hi]))
        docid = runs.docids.take(pa.array(runs.docid[lo:hi]))
        judged.append(_judge_run(name, "", qid, docid, runs.rank[lo:hi], lookup, grade, threshold, depth,
                                 runs.dropped_duplicates.get(name, 0)))
    return matrix_of_judged(judged, qrels, threshold=threshold, run_depth=_cut_depth(runs.depth, depth))


def judge_runs(paths, qrels: Qrels, *, depth: int | None = None, threshold: int = 1,
               duplicates: DuplicatePolicy = "error", run_name: RunNameSource = "file", threads: int = 2,
               progress: Callable[[int, int, Path], None] | None = None,
               score_precision: ScorePrecision = "double") -> tuple[RelevanceMatrix, dict]:
    """Read run files straight into a :class:`RelevanceMatrix`: each file is parsed, put in
    trec_eval's order, cut at ``depth`` and joined to the qrels on its own (in threads),
    so memory holds one file's rows per thread and the judged postings, never every
    retrieved document. Returns the matrix and what reading did (files, dropped
    duplicates, the scores' precision), for the record."""
    check_score_precision(score_precision)
    return judge_each(resolve_paths(paths),
                      lambda path: read_run_file(path, run_name, depth, duplicates, score_precision), qrels,
                      depth=depth, threshold=threshold, duplicates=duplicates, threads=threads, progress=progress,
                      score_precision=score_precision)


def judge_each(sources: Sequence[Any], read: Callable[[Any], RunFile], qrels: Qrels, *, depth: int | None,
               threshold: int, duplicates: DuplicatePolicy, threads: int = 2,
               progress: Callable[[int, int, Any], None] | None = None,
               score_precision: ScorePrecision = "double") -> tuple[RelevanceMatrix, dict]:
    """:func:`judge_runs` for runs from any source: ``read(source)`` gives one run in
    trec_eval's order (:func:`irmeta.campaign.runs.ordered_run`) on its scores at
    ``score_precision``, cut at ``depth``; the ranks it stores are that order."""
    judged = judge_sources(sources, read, qrels, depth=depth, threshold=threshold, threads=threads,
                           progress=progress)
    matrix = matrix_of_judged(judged, qrels, threshold=threshold, run_depth=depth)
    return matrix, reading_record(judged, depth=depth, duplicates=duplicates, score_precision=score_precision)


def judge_sources(sources: Sequence[Any], read: Callable[[Any], RunFile], qrels: Qrels, *, depth: int | None,
                  threshold: int, threads: int = 2, progress: Callable[[int, int, Any], None] | None = None,
                  ranked_depth: int | None = None,
                  finish: Callable[[JudgedRun], JudgedRun] | None = None) -> list[JudgedRun]:
    """Each source read (``read``) and joined to the qrels on its own, in threads, in
    source order: what one job of a sharded ingestion holds (one file's rows per thread,
    then the judged postings of its runs; with ``ranked_depth``, also each run's rows
    down to it, :func:`~irmeta.campaign.ranked_store.top_rows`). ``finish``: what is kept
    of each judged run, made in its thread as soon as it is judged."""
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be a positive integer, not {depth}")
    _check_threshold(threshold)
    lookup = _Lookup.of(qrels, qrels.topics)
    grade = qrels.grade.astype(np.int64)

    def load(source: Any) -> JudgedRun:
        f = read(source)
        judged = _judge_run(f.name, str(f.path), f.qid, f.docid, f.rank, lookup, grade, threshold, None, f.dropped)
        judged = judged if ranked_depth is None else replace(judged, top=top_rows(f, ranked_depth))
        return judged if finish is None else finish(judged)

    return read_each_run(sources, load, threads=threads, progress=progress)


def judged_in_order(sources: Sequence[Any], read: Callable[[Any], RunFile], qrels: Qrels, *, depth: int | None,
                    threshold: int, threads: int = 2, progress: Callable[[int, int, Any], None] | None = None,
                    ranked_depth: int | None = None, finish: Callable[[JudgedRun], JudgedRun] | None = None,
                    pieces: Callable[[Any], Iterator[RunFile]] | None = None,
                    in_pieces: Callable[[Any], bool] = lambda source: False) -> Iterator[JudgedRun]:
    """:func:`judge_sources` one run at a time, in source order, as the caller takes them:
    at most ``threads`` sources read ahead (in threads) while it works on the last, so
    memory holds that many in flight and what the caller keeps. A source for which
    ``in_pieces`` says so is read alone, in this thread, as ``pieces(source)`` gives it
    (topics in pieces, :func:`irmeta.campaign.run_blocks.read_run_pieces`), each piece
    judged on its own and the pieces joined (:func:`_joined`): the run it judges whole.
    Two sources that give one run name are refused, naming both, as
    :func:`~irmeta.campaign.runs.read_each_run` does."""
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be a positive integer, not {depth}")
    _check_threshold(threshold)
    if not sources:
        raise FileNotFoundError("no run file given")
    lookup = _Lookup.of(qrels, qrels.topics)
    grade = qrels.grade.astype(np.int64)
    n_topics = len(qrels.topics)

    def judged(f: RunFile) -> JudgedRun:
        run = _judge_run(f.name, str(f.path), f.qid, f.docid, f.rank, lookup, grade, threshold, None, f.dropped)
        return run if ranked_depth is None else replace(run, top=top_rows(f, ranked_depth))

    def load(source: Any) -> JudgedRun:
        run = judged(read(source))
        return run if finish is None else finish(run)

    def load_pieces(source: Any) -> JudgedRun:
        assert pieces is not None
        try:
            run = _joined([judged(piece) for piece in pieces(source)], n_topics)
        except TopicsNotGrouped as exc:
            warnings.warn(TrecFormatWarning(f"{exc.path}:{exc.line}: topic {exc.topic} again, after other topics: "
                                            f"the file is read whole, not in blocks of lines (its memory follows "
                                            f"the file)"), stacklevel=2)
            return load(source)
        return run if finish is None else finish(run)

    seen: dict[str, Any] = {}
    following = iter(sources)
    upcoming = next(following, _NOTHING)
    ahead: deque[tuple[Any, Future[JudgedRun] | None]] = deque()
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:

        def top_up() -> None:  # the pool's threads busy, one more source queued
            nonlocal upcoming
            while upcoming is not _NOTHING and len(ahead) <= max(1, threads):
                alone = pieces is not None and in_pieces(upcoming)
                if ahead and (alone or ahead[-1][1] is None):
                    return  # one read in pieces is read alone: after the sources before it, before the next
                ahead.append((upcoming, None if alone else pool.submit(load, upcoming)))
                upcoming = next(following, _NOTHING)
                if alone:
                    return

        for done in range(1, len(sources) + 1):
            top_up()
            source, future = ahead.popleft()
            if future is not None:
                top_up()
            run = future.result() if future is not None else load_pieces(source)
            if run.name in seen:
                raise TrecFormatError(run.path, None, f"run name {run.name!r} is also the name of {seen[run.name]}")
            seen[run.name] = run.path
            if progress is not None:
                progress(done, len(sources), source)
            yield run


_NOTHING = object()


def _joined(pieces: list[JudgedRun], n_topics: int) -> JudgedRun:
    """One run's pieces (each every row of its topics, judged) as the run judged whole:
    its lengths, dropped duplicates and ignored topics summed, its postings laid in topic
    order (each piece's topics apart from the others'), its rankings one after another."""
    first = pieces[0]
    if len(pieces) == 1:
        return first

    def side(name: str) -> Side:
        parts = [getattr(p, name) for p in pieces]
        counts = np.asarray(np.sum([p.counts for p in parts], axis=0, dtype=np.int64))
        start = offsets_from_counts(counts)
        rank = np.empty(int(start[-1]), dtype=np.int32)
        judgment = np.empty(int(start[-1]), dtype=np.int32)
        for part in parts:  # each posting to its topic's place, after the piece's earlier postings of it
            topic = np.repeat(np.arange(n_topics, dtype=np.int64), part.counts)
            at = start[topic] + np.arange(len(topic), dtype=np.int64) - offsets_from_counts(part.counts)[topic]
            rank[at], judgment[at] = part.rank, part.judgment
        return Side(rank, judgment, counts)

    tops = [p.top for p in pieces if p.top is not None]
    top = None
    if tops:
        shift = np.cumsum([0] + [len(t.topics) for t in tops])
        top = TopRows([t for r in tops for t in r.topics],
                      np.concatenate([r.topic + np.int32(s) for r, s in zip(tops, shift)]).astype(np.int32),
                      pa.chunked_array([r.docid for r in tops], pa.large_string()).combine_chunks(),
                      np.concatenate([r.score for r in tops]))
    return JudgedRun(first.name, first.path, side("hits"), side("misses"),
                     np.asarray(np.sum([p.length for p in pieces], axis=0, dtype=np.int32)),
                     sort_topics({t for p in pieces for t in p.ignored}), sum(p.dropped for p in pieces), top)


def reading_record(judged: Sequence[JudgedRun], *, depth: int | None, duplicates: DuplicatePolicy,
                   score_precision: ScorePrecision = "double") -> dict:
    """What reading did (files, dropped duplicates, the scores' precision), for the record
    in judged.npz."""
    return {
        "depth": depth,
        "order": "score descending, then docid descending (trec_eval)",
        "duplicates": duplicates,
        "dropped_duplicates": {j.name: j.dropped for j in judged if j.dropped},
        "files": [j.path for j in judged],
        "score_precision": score_precision,
    }


def _cut_depth(read: int | None, kept: int | None) -> int | None:
    """The depth the runs are cut to: at reading (``-M``) and again when joined."""
    return min((d for d in (read, kept) if d is not None), default=None)


class RunsRead(Protocol):
    """What reading runs records of them: their names, and the topics the qrels lack."""

    runs: list[str]
    ignored_topics: dict[str, list[str]]


def ignored_topics_warnings(matrix: RunsRead, files: Sequence[str | Path], qrels: str | Path, *,
                            skip: Sequence[str] = ()) -> list[str]:
    """One line per run whose file has topics the qrels (``qrels``, its file) lack: the
    run's file, the run, how many topics were ignored and which (the first five), as
    ``irmeta score`` and the workflow's ingest both report it after ``irmeta: warning:``.
    ``files``: the run files in ``matrix.runs`` order (``reading["files"]``); ``skip``:
    runs another message covers."""
    where = dict(zip(matrix.runs, map(str, files)))
    lines = []
    for run in (r for r in matrix.runs if r not in set(skip)):
        topics = matrix.ignored_topics.get(run) or []
        if topics:
            shown = " ".join(topics[:5]) + (" ..." if len(topics) > 5 else "")
            lines.append(f"{where.get(run, run)}: run {run}: {len(topics)} topic(s) not in the qrels ({qrels}) "
                         f"ignored: {shown}")
    return lines
