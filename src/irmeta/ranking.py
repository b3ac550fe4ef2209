"""Runs joined to qrels: the judged documents each run retrieved, the input of every measure.

Measures read the judged documents a run retrieved (the relevant ones; the judged
non-relevant ones for bpref and for gains below the relevance threshold), their ranks,
and how many documents the run returned for each topic; nothing else. So a campaign is
held as *postings*: for each (run, topic) cell, the judged documents the run retrieved,
in rank order, as compressed sparse rows (cell offsets, ranks, qrels rows). Its size
follows what the measures read (TREC-8 at depth 1000: 0.3 M relevant and 1.4 M other
judged postings against 6.5 M ranked cells), and unjudged documents are only counted.

Cells are run-major: cell ``s * Q + q`` for run ``s`` and topic ``q``; topics are those
of the qrels (trec_eval's topic set), runs in reading order. Relevant postings (judged,
grade >= the threshold) and the other judged ones are kept apart, so a job that reads
only the relevant ones never touches the rest (:func:`load_matrix` leaves them on disk
until asked for).

Every sum over a cell adds its postings one at a time in rank order
(:meth:`Postings.ordered_sums`), as trec_eval's loops do, so per-topic scores are the
same to the last bit whatever the other runs, and equal to the dense cumulative sums
irmeta computed before.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import io

# A dense (run, topic, rank) view is for small campaigns (tests, notebooks) only.
DENSE_LIMIT = 100_000_000


# ----------------------------------------------------------------------- postings


@dataclass(frozen=True, eq=False)
class Postings:
    """Judged documents retrieved, grouped by cell, ranks ascending within a cell.

    ``start`` (cells + 1,) int64 offsets; ``rank`` (n,) int32, 1-based; ``judgment``
    (n,) int32, the row of the qrels that judges the document.
    """

    start: np.ndarray
    rank: np.ndarray
    judgment: np.ndarray

    def __len__(self) -> int:
        return len(self.rank)

    @property
    def n_cells(self) -> int:
        return len(self.start) - 1

    @cached_property
    def counts(self) -> np.ndarray:
        """(cells,) int64: postings per cell."""
        return np.diff(self.start)

    @cached_property
    def cell(self) -> np.ndarray:
        """(n,) int64: the cell of each posting."""
        return np.repeat(np.arange(self.n_cells, dtype=np.int64), self.counts)

    @cached_property
    def position(self) -> np.ndarray:
        """(n,) int64: 0-based position of each posting within its cell (rank order)."""
        return np.arange(len(self), dtype=np.int64) - self.start[self.cell]

    @cached_property
    def _rounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Postings ordered by position, and where each position's run of them starts."""
        order = np.argsort(self.position, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(self.position, minlength=1))])
        return order, bounds

    def rounds(self, reverse: bool = False) -> Iterable[np.ndarray]:
        """Indices of the first posting of every cell, then of the second, ...; with
        ``reverse``, the last of every cell first. Within a round each cell occurs once,
        so ``out[cell[idx]] += v[idx]`` adds in rank order."""
        if reverse:
            back = (self.start[self.cell + 1] - 1) - np.arange(len(self), dtype=np.int64)
            order = np.argsort(back, kind="stable")
            bounds = np.concatenate([[0], np.cumsum(np.bincount(back, minlength=1))])
        else:
            order, bounds = self._rounds
        for j in range(len(bounds) - 1):
            yield order[bounds[j]:bounds[j + 1]]

    def ordered_sums(self, values: np.ndarray) -> np.ndarray:
        """(cells,) float64: each cell's values added one at a time in rank order (the
        order of trec_eval's loops and of a cumulative sum over ranks)."""
        out = np.zeros(self.n_cells, dtype=np.float64)
        cell = self.cell
        for idx in self.rounds():
            out[cell[idx]] += values[idx]
        return out

    def running_sums(self, values: np.ndarray, reverse: bool = False) -> np.ndarray:
        """(n,) float64: at each posting, the sum of its cell's values up to it, in rank
        order (with ``reverse``, from the cell's last posting up to it)."""
        acc = np.zeros(self.n_cells, dtype=np.float64)
        out = np.empty(len(self), dtype=np.float64)
        cell = self.cell
        for idx in self.rounds(reverse):
            c = cell[idx]
            acc[c] += values[idx]
            out[idx] = acc[c]
        return out

    def first(self) -> np.ndarray:
        """(cells,) int64: index of each cell's first posting, -1 for an empty cell."""
        return np.where(self.counts > 0, self.start[:-1], -1)

    def top(self, k: int | None) -> "Postings":
        """The postings ranked at most ``k`` (all for None)."""
        if k is None or len(self) == 0 or int(self.rank.max()) <= k:
            return self
        keep = self.rank <= k
        counts = np.bincount(self.cell[keep], minlength=self.n_cells)
        return Postings(_offsets(counts), self.rank[keep], self.judgment[keep])

    def cells(self, cells: np.ndarray) -> "Postings":
        """The postings of the given cells, in that order (a cell may repeat)."""
        cells = np.asarray(cells, dtype=np.int64)
        counts = self.counts[cells]
        begin = self.start[cells]
        index = np.repeat(begin - _offsets(counts)[:-1], counts) + np.arange(int(counts.sum()), dtype=np.int64)
        return Postings(_offsets(counts), self.rank[index], self.judgment[index])


def _offsets(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def merge(a: Postings, b: Postings) -> Postings:
    """Both sets of postings in one, ranks ascending within each cell."""
    cell = np.concatenate([a.cell, b.cell])
    rank = np.concatenate([a.rank, b.rank])
    order = np.lexsort((rank, cell))
    counts = a.counts + b.counts
    return Postings(_offsets(counts), rank[order], np.concatenate([a.judgment, b.judgment])[order])


# ---------------------------------------------------------------- relevance matrix


@dataclass(frozen=True, eq=False)
class RelevanceMatrix:
    """The judged documents every run retrieved for every qrels topic, as postings.

    ``hits``: the relevant postings (judged, grade >= ``threshold``); ``misses``: the
    other judged ones (loaded on first use when read from disk). ``length`` (runs,
    topics): documents each run returned, after the depth cut. Qrels arrays are indexed
    by judgment row: ``qrels_topic``, ``qrels_grade``, ``docids`` (the judged document of
    each row; ``qrels_doc`` is ``arange(J)``, kept for the rarity listing).
    """

    runs: list[str]
    topics: list[str]
    length: np.ndarray  # (S, Q) int32
    hits: Postings
    misses_loader: Callable[[], Postings] = field(repr=False)
    threshold: int
    qrels_topic: np.ndarray  # (J,) int64
    qrels_grade: np.ndarray  # (J,) int64
    docids: pa.Array  # (J,) judged document of each qrels row
    run_depth: int | None = None
    ignored_topics: dict[str, list[str]] = field(default_factory=dict)

    # ------------------------------------------------------------- shape and counts

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def depth(self) -> int:
        """The longest list kept (at least 1): the depth of the dense views."""
        return max(1, int(self.length.max(initial=0)))

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.n_runs, self.n_topics, self.depth

    @property
    def returned(self) -> np.ndarray:
        """(S, Q) bool: the run returned at least one document for the topic."""
        return self.length > 0

    @cached_property
    def n_relevant(self) -> np.ndarray:
        """(Q,) int64: relevant documents of each topic in the qrels."""
        rel = self.qrels_grade >= self.threshold
        return np.bincount(self.qrels_topic[rel], minlength=self.n_topics).astype(np.int64)

    @property
    def qrels_doc(self) -> np.ndarray:
        return np.arange(len(self.qrels_grade), dtype=np.int64)

    @cached_property
    def misses(self) -> Postings:
        """Judged documents retrieved with a grade below the threshold (negative ones too)."""
        return self.misses_loader()

    @cached_property
    def judged(self) -> Postings:
        """Every judged document retrieved: hits and misses together."""
        return merge(self.hits, self.misses)

    def grid(self, values: np.ndarray) -> np.ndarray:
        """(cells,) values as (runs, topics)."""
        return values.reshape(self.n_runs, self.n_topics)

    def cell_counts(self, postings: Postings) -> np.ndarray:
        """(S, Q) int64: postings per cell."""
        return self.grid(postings.counts)

    def topic_of(self, postings: Postings) -> np.ndarray:
        """(n,) int64: the topic index of each posting."""
        return postings.cell % self.n_topics

    def run_of(self, postings: Postings) -> np.ndarray:
        """(n,) int64: the run index of each posting."""
        return postings.cell // self.n_topics

    def grade_of(self, postings: Postings) -> np.ndarray:
        """(n,) int64: the qrels grade of each posting."""
        return self.qrels_grade[postings.judgment]

    # ------------------------------------------------------------------- subsets

    def subset(self, runs: np.ndarray | Sequence[int]) -> "RelevanceMatrix":
        """The given runs (indices) only, sharing the qrels."""
        idx = np.asarray(runs, dtype=np.int64)
        cells = (idx[:, None] * self.n_topics + np.arange(self.n_topics)).reshape(-1)
        misses = self.misses_loader
        return RelevanceMatrix(
            runs=[self.runs[i] for i in idx], topics=self.topics, length=self.length[idx],
            hits=self.hits.cells(cells), misses_loader=lambda: misses().cells(cells),
            threshold=self.threshold, qrels_topic=self.qrels_topic, qrels_grade=self.qrels_grade,
            docids=self.docids, run_depth=self.run_depth,
            ignored_topics={self.runs[i]: self.ignored_topics.get(self.runs[i], []) for i in idx},
        )

    # --------------------------------------------------------------- dense views

    def _dense(self, postings: Postings, values: np.ndarray, fill, dtype) -> np.ndarray:
        if self.n_runs * self.n_topics * self.depth > DENSE_LIMIT:
            raise MemoryError(f"a dense view of {self.n_runs} x {self.n_topics} x {self.depth} cells is for small "
                              f"campaigns only; measures read the postings")
        out = np.full(self.shape, fill, dtype=dtype)
        cell = postings.cell
        out[cell // self.n_topics, cell % self.n_topics, postings.rank - 1] = values
        return out

    @cached_property
    def relevant(self) -> np.ndarray:
        """Dense (S, Q, depth) bool view: a relevant document at that rank (small campaigns)."""
        return self._dense(self.hits, True, False, bool)

    @cached_property
    def judgment(self) -> np.ndarray:
        """Dense (S, Q, depth) int32 view: the qrels row judging the document there, -1 if
        unjudged or past the end of the list (small campaigns)."""
        judged = self.judged
        return self._dense(judged, judged.judgment, -1, np.int32)

    @cached_property
    def grade(self) -> np.ndarray:
        """Dense (S, Q, depth) int32 view: the grade there, 0 when unjudged (small campaigns)."""
        judged = self.judged
        return self._dense(judged, self.qrels_grade[judged.judgment], 0, np.int32)


# ----------------------------------------------------------------------- joining


@dataclass(frozen=True)
class _Lookup:
    """The qrels as a sorted key array: (topic, judged-document code) -> qrels row."""

    topics: pa.Array  # qrels topics, in irmeta's topic order
    vocabulary: pa.Array  # distinct judged docids
    keys: np.ndarray  # sorted topic * V + doc
    rows: np.ndarray  # qrels row of each key

    @classmethod
    def of(cls, qrels: io.Qrels, topics: list[str]) -> "_Lookup":
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
class _Side:
    """One run's hits or misses: postings in topic order, ranks ascending, per-topic counts."""

    rank: np.ndarray  # int32
    judgment: np.ndarray  # int32
    counts: np.ndarray  # (topics,) int64


@dataclass(frozen=True)
class _JudgedRun:
    """One run joined to the qrels: its relevant and other judged postings, its list lengths."""

    name: str
    path: str
    hits: _Side
    misses: _Side
    length: np.ndarray  # (Q,) int32
    ignored: list[str]
    dropped: int


def _judge_run(name: str, path: str, qid: pa.Array, docid: pa.Array, rank: np.ndarray, lookup: _Lookup,
               grade: np.ndarray, threshold: int, depth: int | None, dropped: int = 0) -> _JudgedRun:
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

    def side(mask: np.ndarray) -> _Side:
        return _Side(rank[mask], row[mask], np.bincount(topic[mask], minlength=n_topics))

    return _JudgedRun(name, path, side(relevant), side(~relevant), length, io.sort_topics(ignored), dropped)


def _concatenate(sides: list[_Side]) -> Postings:
    """Runs' postings one after the other (each in topic order: cells stay sorted), copied
    into place run by run."""
    counts = np.concatenate([side.counts for side in sides]) if sides else np.zeros(0, np.int64)
    start = _offsets(counts)
    rank = np.empty(int(start[-1]), dtype=np.int32)
    judgment = np.empty(int(start[-1]), dtype=np.int32)
    at = 0
    for side in sides:
        rank[at:at + len(side.rank)] = side.rank
        judgment[at:at + len(side.rank)] = side.judgment
        at += len(side.rank)
    return Postings(start, rank, judgment)


def _assemble(judged: list[_JudgedRun], qrels: io.Qrels, lookup: _Lookup, topics: list[str], *,
              threshold: int, run_depth: int | None) -> RelevanceMatrix:
    """The runs' postings, run-major, as one matrix."""
    hits = _concatenate([j.hits for j in judged])
    misses = _concatenate([j.misses for j in judged])
    topic_of_row = np.asarray(pc.index_in(qrels.qid, value_set=lookup.topics), dtype=np.int64)
    return RelevanceMatrix(
        runs=[j.name for j in judged], topics=topics,
        length=np.stack([j.length for j in judged]) if judged else np.zeros((0, len(topics)), np.int32),
        hits=hits, misses_loader=lambda: misses, threshold=threshold,
        qrels_topic=topic_of_row, qrels_grade=qrels.grade.astype(np.int64), docids=qrels.docid,
        run_depth=run_depth, ignored_topics={j.name: j.ignored for j in judged if j.ignored},
    )


def _check_threshold(threshold: int) -> None:
    if threshold < 0:
        raise ValueError(f"the relevance threshold must be >= 0 (trec_eval -l), not {threshold}")


def relevance_matrix(runs: io.Runs, qrels: io.Qrels, *, depth: int | None = None,
                     threshold: int = 1) -> RelevanceMatrix:
    """Join runs read by :func:`irmeta.io.read_runs` to the qrels, cut at ``depth``."""
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
    return _assemble(judged, qrels, lookup, topics, threshold=threshold, run_depth=_cut_depth(runs.depth, depth))


def judge_runs(paths, qrels: io.Qrels, *, depth: int | None = None, threshold: int = 1,
               duplicates: io.DuplicatePolicy = "error", run_name: io.RunNameSource = "file", threads: int = 2,
               progress: Callable[[int, int, Path], None] | None = None) -> tuple[RelevanceMatrix, dict]:
    """Read run files straight into a :class:`RelevanceMatrix`: each file is parsed, put in
    trec_eval's order, cut at ``depth`` and joined to the qrels on its own (in threads),
    so memory holds one file's rows per thread and the judged postings, never every
    retrieved document. Returns the matrix and what reading did (files, dropped
    duplicates), for the record."""
    files = io.resolve_paths(paths)
    if not files:
        raise FileNotFoundError("no run file given")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be a positive integer, not {depth}")
    _check_threshold(threshold)
    topics = qrels.topics
    lookup = _Lookup.of(qrels, topics)
    grade = qrels.grade.astype(np.int64)

    def load(i_path: tuple[int, Path]) -> _JudgedRun:
        i, path = i_path
        f = io._read_run_file(path, run_name, depth, duplicates)
        out = _judge_run(f.name, str(path), f.qid, f.docid, f.rank, lookup, grade, threshold, None, f.dropped)
        if progress is not None:
            progress(i + 1, len(files), path)
        return out

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        judged = list(pool.map(load, enumerate(files)))
    seen: dict[str, str] = {}
    for j in judged:
        if j.name in seen:
            raise io.TrecFormatError(j.path, None, f"run name {j.name!r} is also the name of {seen[j.name]}")
        seen[j.name] = j.path
    matrix = _assemble(judged, qrels, lookup, topics, threshold=threshold, run_depth=depth)
    reading = {
        "depth": depth,
        "order": "score descending, then docid descending (trec_eval)",
        "duplicates": duplicates,
        "dropped_duplicates": {j.name: j.dropped for j in judged if j.dropped},
        "files": [j.path for j in judged],
    }
    return matrix, reading


def _cut_depth(read: int | None, kept: int | None) -> int | None:
    """The depth the runs are cut to: at reading (``-M``) and again when joined."""
    return min((d for d in (read, kept) if d is not None), default=None)


# ------------------------------------------------------------------ on disk

_ARRAYS = ("length", "hits_start", "hits_rank", "hits_judgment", "misses_start", "misses_rank",
           "misses_judgment", "qrels_topic", "qrels_grade", "docid_offsets", "docid_bytes")


def save_matrix(matrix: RelevanceMatrix, path: str | Path, settings: dict | None = None) -> None:
    """Write the matrix as one uncompressed ``.npz`` (each array loads on its own, so a
    job reading the hits never reads the misses), atomically, with ``settings`` (how
    the runs were read) for the record."""
    path = Path(path)
    docid = matrix.docids.cast(pa.large_binary())
    offsets = np.frombuffer(docid.buffers()[1], dtype=np.int64)[docid.offset:docid.offset + len(docid) + 1]
    data = np.frombuffer(docid.buffers()[2], dtype=np.uint8) if docid.buffers()[2] else np.zeros(0, np.uint8)
    meta = {"runs": matrix.runs, "topics": matrix.topics, "threshold": matrix.threshold,
            "run_depth": matrix.run_depth, "ignored_topics": matrix.ignored_topics, "settings": settings or {}}
    arrays = {
        "length": matrix.length, "hits_start": matrix.hits.start, "hits_rank": matrix.hits.rank,
        "hits_judgment": matrix.hits.judgment, "misses_start": matrix.misses.start,
        "misses_rank": matrix.misses.rank, "misses_judgment": matrix.misses.judgment,
        "qrels_topic": matrix.qrels_topic, "qrels_grade": matrix.qrels_grade,
        "docid_offsets": offsets - offsets[0], "docid_bytes": data[offsets[0]:offsets[-1]],
        "meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8),
    }
    io.atomic_save_npz(path, arrays)


def matrix_settings(path: str | Path) -> dict:
    """What :func:`save_matrix` recorded: runs, topics, threshold, depth, reading settings."""
    with np.load(path) as stored:
        return json.loads(stored["meta"].tobytes())


def load_matrix(path: str | Path) -> RelevanceMatrix:
    """A matrix written by :func:`save_matrix`: the hits and the lengths now, the misses
    when first used."""
    path = Path(path)
    with np.load(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        hits = Postings(stored["hits_start"], stored["hits_rank"], stored["hits_judgment"])
        length = stored["length"]
        qrels_topic, qrels_grade = stored["qrels_topic"], stored["qrels_grade"]
        offsets, data = stored["docid_offsets"], stored["docid_bytes"]
    docids = pa.Array.from_buffers(pa.large_string(), len(offsets) - 1,
                                   [None, pa.py_buffer(offsets), pa.py_buffer(data)])

    def misses() -> Postings:
        with np.load(path) as stored:
            return Postings(stored["misses_start"], stored["misses_rank"], stored["misses_judgment"])

    return RelevanceMatrix(
        runs=list(meta["runs"]), topics=list(meta["topics"]), length=length, hits=hits, misses_loader=misses,
        threshold=int(meta["threshold"]), qrels_topic=qrels_topic, qrels_grade=qrels_grade, docids=docids,
        run_depth=meta["run_depth"], ignored_topics={k: list(v) for k, v in meta["ignored_topics"].items()},
    )
