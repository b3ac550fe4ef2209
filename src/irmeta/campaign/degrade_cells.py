"""Every run's rankings degraded at once (issue 28's cost budget): the runs held as
*cells*, one per (run, topic) in the runs' and their topics' order, each document as an
integer, its place in the topic's pool (every run's documents for the topic, sorted as
strings are, so that comparing the integers compares the docids); a degraded copy is
another array of pool places in the same cells, judged by indexing, never re-read as a run.

Each kind draws from the very streams :func:`~irmeta.campaign.degrade.degrade_run` draws
from (one per run, :func:`~irmeta.campaign.degrade.degradation_rng`), in the same order,
so a copy equals the per-topic functions' document for document (the tests check it):
``swap`` and ``noise`` draw every topic's numbers in one call per run (consecutive calls
of ``random`` and ``normal`` continue one sequence), ``replace`` draws topic by topic
(``permutation`` consumes a varying amount of the stream).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import cast

import numpy as np

from irmeta.campaign.degrade import KINDS, degradation_rng
from irmeta.campaign.judge import campaign_matrix, judgment_rows, matrix_of_rows, postings_of_rows
from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.campaign.qrels import Qrels
from irmeta.campaign.ranked_store import read_ranked


@dataclass(frozen=True, eq=False)
class RankedCells:
    """Runs as cells of pool places. ``start`` (cells + 1,) offsets into ``doc`` and
    ``score`` (documents best first); ``cell_run``, ``cell_topic`` (cells,) indices into
    ``runs`` and ``topics``; ``pool_start`` (topics + 1,) where each topic's pool begins
    among the places; ``docids`` (places,) the document of each place."""

    runs: list[str]
    topics: list[str]
    start: np.ndarray
    cell_run: np.ndarray
    cell_topic: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    pool_start: np.ndarray
    docids: np.ndarray

    @property
    def n_cells(self) -> int:
        return len(self.start) - 1

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.start)

    @cached_property
    def cell(self) -> np.ndarray:
        """(documents,) the cell of each document."""
        return np.repeat(np.arange(self.n_cells, dtype=np.int64), self.lengths)

    @cached_property
    def position(self) -> np.ndarray:
        """(documents,) 0-based position of each document in its cell."""
        return np.arange(len(self.doc), dtype=np.int64) - self.start[self.cell]

    @cached_property
    def replacement_plan(self) -> tuple[list[int], list[int], list[int], list[int], list[np.ndarray]]:
        """What ``replace`` reads per cell, as Python values: the offsets, the run, the
        first place of the topic's pool, how many places of the pool the run lacks, and
        the run's own places in the pool, sorted, each minus the number before it (the
        k-th place the run lacks is k plus the count of these at most k)."""
        bases = self.pool_start[self.cell_topic]
        free = np.diff(self.pool_start)[self.cell_topic] - self.lengths
        shifted = [np.sort(self.doc[lo:hi]) - base - np.arange(hi - lo)
                   for lo, hi, base in zip(self.start[:-1].tolist(), self.start[1:].tolist(), bases.tolist())]
        return self.start.tolist(), self.cell_run.tolist(), bases.tolist(), free.tolist(), shifted

    def runs_slice(self, lo: int, hi: int) -> RankedCells:
        """Runs ``lo``..``hi - 1`` alone (the pools shared): their documents and scores
        read here, when ``doc`` and ``score`` are stored arrays read a slice at a time."""
        c0, c1 = (int(c) for c in np.searchsorted(self.cell_run, [lo, hi]))
        d0, d1 = int(self.start[c0]), int(self.start[c1])
        return RankedCells(self.runs[lo:hi], self.topics, self.start[c0:c1 + 1] - d0, self.cell_run[c0:c1] - lo,
                           self.cell_topic[c0:c1], np.asarray(self.doc[d0:d1], dtype=np.int64),
                           np.asarray(self.score[d0:d1], dtype=np.float64), self.pool_start, self.docids)

    def run_chunks(self, documents: int) -> list[tuple[int, int]]:
        """Consecutive ranges of runs of about ``documents`` documents each (one run at
        least): what is degraded, judged and compared at once."""
        per_run = np.bincount(self.cell_run, weights=self.lengths, minlength=len(self.runs))
        chunks, lo, held = [], 0, 0.0
        for r, n in enumerate(per_run.tolist()):
            if r > lo and held + n > documents:
                chunks.append((lo, r))
                lo, held = r, 0.0
            held += n
        return chunks + [(lo, len(self.runs))] if len(self.runs) else []

    def run_cells(self, run: int) -> range:
        """The cells of one run (contiguous, its topics in order)."""
        cells = np.flatnonzero(self.cell_run == run)
        return range(int(cells[0]), int(cells[-1]) + 1) if len(cells) else range(0)

    def rankings(self, doc: np.ndarray | None = None) -> dict[str, dict[str, list[str]]]:
        """Cells as rankings (run -> topic -> documents), of ``doc`` (a copy) or the runs'."""
        doc = self.doc if doc is None else doc
        out: dict[str, dict[str, list[str]]] = {name: {} for name in self.runs}
        for c in range(self.n_cells):
            docs = self.docids[doc[self.start[c]:self.start[c + 1]]].tolist()
            out[self.runs[self.cell_run[c]]][self.topics[self.cell_topic[c]]] = docs
        return out


def ranked_cells(runs: Mapping[str, Mapping[str, tuple[Sequence[str], np.ndarray]]]) -> RankedCells:
    """The runs (name -> topic -> (documents, scores), trec_eval's order) as cells."""
    names = list(runs)
    topics = list(dict.fromkeys(t for run in runs.values() for t in run))
    index = {t: i for i, t in enumerate(topics)}
    cell_run: list[int] = []
    cell_topic: list[int] = []
    lengths: list[int] = []
    docs: list[str] = []
    scores: list[np.ndarray] = []
    for r, name in enumerate(names):
        for topic, (d, s) in runs[name].items():
            cell_run.append(r)
            cell_topic.append(index[topic])
            lengths.append(len(d))
            docs.extend(d)
            scores.append(np.asarray(s, dtype=np.float64))
    lengths_a = np.asarray(lengths, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(lengths_a)]).astype(np.int64)
    topic_of_doc = np.repeat(np.asarray(cell_topic, dtype=np.int64), lengths_a)
    text = np.asarray(docs, dtype=str)
    place = np.empty(len(text), dtype=np.int64)
    pools, pool_start = [], [0]
    for t in range(len(topics)):  # each topic's pool sorted as Python sorts strings (code points)
        where = np.flatnonzero(topic_of_doc == t)
        pool, inverse = np.unique(text[where], return_inverse=True)
        place[where] = pool_start[-1] + inverse.reshape(-1)
        pools.append(pool)
        pool_start.append(pool_start[-1] + len(pool))
    docids = np.concatenate(pools).astype(object) if pools else np.zeros(0, dtype=object)
    return RankedCells(names, topics, start, np.asarray(cell_run, dtype=np.int64), np.asarray(cell_topic, np.int64),
                       place, np.concatenate(scores) if scores else np.zeros(0), np.asarray(pool_start, np.int64),
                       docids)


def load_ranked(path: str | Path, *, lazy: bool = False) -> RankedCells:
    """``ranked.npz`` (:mod:`irmeta.campaign.ranked_store`) as cells, integers widened to
    int64 as :func:`ranked_cells` makes them. ``lazy``: the documents and scores left on
    disk, read a range of runs at a time (:meth:`RankedCells.runs_slice`; 12 bytes a
    document never held whole): stored arrays, sliced as arrays are."""
    meta, arrays, pool = read_ranked(path, lazy=lazy)
    return RankedCells(meta["runs"], meta["topics"], arrays["start"], arrays["cell_run"], arrays["cell_topic"],
                       cast(np.ndarray, arrays["place"]), cast(np.ndarray, arrays["score"]), arrays["pool_start"],
                       np.asarray(pool.to_pylist(), dtype=object))


def degrade_cells(cells: RankedCells, kind: str, level: float, seed: int, trial: int) -> np.ndarray:
    """Every run degraded by ``kind`` at ``level`` (trial ``trial``): the copy's pool
    places, cell by cell as ``cells.doc``; each run draws from
    ``degradation_rng(seed, kind, run, level, trial)`` as :func:`~irmeta.campaign.degrade.degrade_run` does."""
    if kind not in KINDS:
        raise ValueError(f"degradation kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if level == 0:
        return cells.doc.copy()
    rngs = [degradation_rng(seed, kind, name, level, trial) for name in cells.runs]
    if kind == "swap":
        return _swapped(cells, level, rngs)
    if kind == "noise":
        return _perturbed(cells, level, rngs)
    return _replaced(cells, level, rngs)


def _per_run_draws(cells: RankedCells, rngs: Sequence[np.random.Generator], counts: np.ndarray,
                   draw: str) -> np.ndarray:
    """Each run's draws for all its cells in one call (``counts`` per cell), run after run."""
    per_run = np.bincount(cells.cell_run, weights=counts, minlength=len(cells.runs)).astype(np.int64)
    parts = [getattr(rng, draw)(size=int(n)) if draw == "random" else rng.normal(0.0, 1.0, int(n))
             for rng, n in zip(rngs, per_run)]
    return np.concatenate(parts) if parts else np.zeros(0)


def _swapped(cells: RankedCells, level: float, rngs: Sequence[np.random.Generator]) -> np.ndarray:
    """``swap``: top down, pair (i, i + 1) swapped when its draw is below ``level``. A
    block of consecutive swaps s..e-1 moves the document at s to e and lifts s+1..e by
    one; blocks never touch (a cell's last position draws nothing, so none crosses cells)."""
    draws = _per_run_draws(cells, rngs, np.maximum(cells.lengths - 1, 0), "random")
    position, lengths = cells.position, cells.lengths[cells.cell]
    flag = np.zeros(len(cells.doc), dtype=bool)
    flag[position < lengths - 1] = draws < level
    index = np.arange(len(flag), dtype=np.int64)
    begins = flag & ~np.concatenate([[False], flag[:-1]])
    block_start = np.maximum.accumulate(np.where(begins, index, -1)) if len(flag) else index
    ends = ~flag & np.concatenate([[False], flag[:-1]])
    source = np.where(flag, index + 1, index)
    source[ends] = block_start[np.flatnonzero(ends) - 1]
    return cells.doc[source]


def _perturbed(cells: RankedCells, level: float, rngs: Sequence[np.random.Generator]) -> np.ndarray:
    """``noise``: scores plus N(0, 1) x (level x the cell's range), re-ranked by score
    descending, docid descending (pool places order docids), cell by cell."""
    noise = _per_run_draws(cells, rngs, cells.lengths, "normal")
    starts = cells.start[:-1][cells.lengths > 0]
    spread = np.zeros(cells.n_cells)
    spread[cells.lengths > 0] = (np.maximum.reduceat(cells.score, starts) - np.minimum.reduceat(cells.score, starts))
    noisy = cells.score + noise * (level * spread)[cells.cell]
    width = max(int(cells.lengths.max(initial=0)), 1)
    key = np.full((cells.n_cells, width), np.inf)  # past a cell's end: last
    key[cells.cell, cells.position] = -noisy
    doc = np.zeros((cells.n_cells, width), dtype=np.int64)
    doc[cells.cell, cells.position] = -cells.doc
    order = np.lexsort((doc, key), axis=1)
    return -doc[np.arange(cells.n_cells)[:, None], order][cells.cell, cells.position]


def _replaced(cells: RankedCells, level: float, rngs: Sequence[np.random.Generator]) -> np.ndarray:
    """``replace``: each document, when its draw is below ``level``, replaced by one of the
    topic's pool the run did not retrieve (the k-th such place: k plus the run's own
    places before it), drawn without replacement; topic after topic per run."""
    out = cells.doc.copy()
    starts, runs, bases, free, shifted = cells.replacement_plan
    for c, rng in enumerate(rngs[r] for r in runs):
        lo, hi = starts[c], starts[c + 1]
        chosen = np.flatnonzero(rng.random(hi - lo) < level)
        picks = rng.permutation(free[c])[:len(chosen)]
        if len(picks):
            out[lo + chosen[:len(picks)]] = bases[c] + picks + np.searchsorted(shifted[c], picks, "right")
    return out


def judged_copy(cells: RankedCells, doc: np.ndarray, qrels: Qrels, rows: tuple[np.ndarray, np.ndarray], *,
                threshold: int = 1) -> RelevanceMatrix:
    """A copy's cells (``doc``: pool places) judged as ingestion judges runs
    (:func:`~irmeta.campaign.judge.judge_each` with no depth cut): ``rows`` =
    :func:`pool_judgments`, each place's qrels topic and row."""
    topic_of_place, row_of_place = rows
    return matrix_of_rows(cells.runs, qrels, run=cells.cell_run[cells.cell], topic=topic_of_place[doc],
                          rank=cells.position + 1, row=row_of_place[doc], threshold=threshold,
                          ignored=_ignored(cells, qrels))


@dataclass(frozen=True)
class JudgedRange:
    """A range of a copy's runs judged (:func:`judged_range`): what
    :func:`judged_copy` holds of them, without the qrels."""

    runs: list[str]
    length: np.ndarray  # (runs, qrels topics)
    hits: Postings
    misses: Postings
    ignored: dict[str, list[str]]


def judged_range(cells: RankedCells, doc: np.ndarray, qrels: Qrels, rows: tuple[np.ndarray, np.ndarray], *,
                 threshold: int = 1) -> JudgedRange:
    """:func:`judged_copy` of a range of runs (``cells``, :meth:`RankedCells.runs_slice`),
    to be joined with the others (:func:`joined_copy`); it reads only the qrels' grades
    and topics, found once however many ranges and copies are judged."""
    topic_of_place, row_of_place = rows
    length, hits, misses = postings_of_rows(
        len(cells.runs), len(qrels.topics), np.asarray(qrels.grade, dtype=np.int64),
        run=cells.cell_run[cells.cell], topic=topic_of_place[doc], rank=cells.position + 1, row=row_of_place[doc],
        threshold=threshold)
    return JudgedRange(list(cells.runs), length, hits, misses, _ignored(cells, qrels))


def joined_copy(parts: list[JudgedRange], qrels: Qrels, *, threshold: int = 1) -> RelevanceMatrix:
    """Consecutive ranges of a copy's runs judged (:func:`judged_range`, in run order) as
    the one matrix :func:`judged_copy` gives for every run at once: cells are run-major,
    so each side's postings are the ranges' laid end to end. ``parts`` is emptied as
    they are joined, each array released once copied, so the postings are held once and
    one array's worth more, never twice."""
    runs = [name for p in parts for name in p.runs]
    length = np.concatenate([p.length for p in parts])
    ignored = {name: t for p in parts for name, t in p.ignored.items() if t}
    pieces = {side: [getattr(p, side) for p in parts] for side in ("hits", "misses")}
    parts.clear()

    def join(sides: list[Postings]) -> Postings:
        if len(sides) == 1:
            return sides.pop()
        start = offsets_from_counts(np.concatenate([np.diff(p.start) for p in sides]))
        ranks, judgments = [p.rank for p in sides], [p.judgment for p in sides]
        sides.clear()
        rank = np.concatenate(ranks)
        ranks.clear()
        return Postings(start, rank, np.concatenate(judgments))

    hits = join(pieces["hits"])
    return campaign_matrix(runs, length, hits, join(pieces["misses"]), ignored, qrels, threshold=threshold,
                           run_depth=None)


def pool_judgments(cells: RankedCells, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """Per pool place, its topic's index among the qrels topics (-1: not judged) and the
    qrels row judging it (-1: unjudged), looked up once for every copy."""
    topic_of_place = np.repeat(np.arange(len(cells.topics)), np.diff(cells.pool_start))
    return judgment_rows(qrels, [cells.topics[t] for t in topic_of_place], cells.docids.tolist())


def _ignored(cells: RankedCells, qrels: Qrels) -> dict[str, list[str]]:
    """Per run the topics it ranked that the qrels lack (as ingestion records them)."""
    from irmeta.campaign.qrels import sort_topics

    judged = set(qrels.topics)
    unjudged = np.asarray([t not in judged for t in cells.topics], dtype=bool)
    out: dict[str, set[str]] = {}
    for c in np.flatnonzero(unjudged[cells.cell_topic] & (cells.lengths > 0)).tolist():
        out.setdefault(cells.runs[cells.cell_run[c]], set()).add(cells.topics[cells.cell_topic[c]])
    return {name: sort_topics(topics) for name, topics in out.items()}
