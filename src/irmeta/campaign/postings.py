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

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    from irmeta.campaign.judgment_groups import JudgmentGroups
    from irmeta.campaign.subtopics import SubtopicJudgments

# A dense (run, topic, rank) view is for small campaigns (tests, notebooks) only.
DENSE_LIMIT = 100_000_000


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
        position = np.arange(len(self), dtype=np.int64)
        position -= self.start[self.cell]  # in place: one (n,) temporary fewer at the peak
        return position

    def memo(self, key: str, make: Callable[[], np.ndarray]) -> np.ndarray:
        """A value derived from these postings alone (AP's sums, AP's tail weights), made
        once however many measures read it; the caller must not change it in place."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def counts_where(self, mask: np.ndarray) -> np.ndarray:
        """(cells,) int64: per cell, its postings where ``mask`` (n,) is true; without the
        (n,) cell index, which for the judged non-relevant postings of 10^9 lines is 0.8 GB."""
        if not len(self):
            return np.zeros(self.n_cells, dtype=np.int64)
        flags = np.append(np.asarray(mask, dtype=bool), False)  # empty cells at the end start at n
        counts = np.add.reduceat(flags, self.start[:-1], dtype=np.int64)
        counts[self.counts == 0] = 0  # reduceat gives an empty segment the flag at its start
        return counts

    @cached_property
    def _cells_by_count(self) -> tuple[np.ndarray, np.ndarray]:
        """The cells, most postings first, and per position p how many cells reach it
        (the first so many of them): round p is their p-th postings, no sort of the
        postings needed."""
        order = np.argsort(-self.counts, kind="stable")
        width = int(self.counts[order[0]]) if self.n_cells else 0
        reach = np.searchsorted(-self.counts[order], -np.arange(width), side="left")
        return order, reach

    def round_cells(self, reverse: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Per round, the indices of the postings (as :meth:`rounds`) and their cells."""
        order, reach = self._cells_by_count
        base = self.start[order] + (self.counts[order] - 1 if reverse else 0)
        step = -1 if reverse else 1
        for p, m in enumerate(reach.tolist()):
            yield base[:m] + step * p, order[:m]

    def rounds(self, reverse: bool = False) -> Iterator[np.ndarray]:
        """Indices of the first posting of every cell, then of the second, ...; with
        ``reverse``, the last of every cell first. Within a round each cell occurs once,
        so ``out[cell[idx]] += v[idx]`` adds in rank order."""
        for idx, _ in self.round_cells(reverse):
            yield idx

    def ordered_sums(self, values: np.ndarray) -> np.ndarray:
        """(cells,) float64: each cell's values added one at a time in rank order (the
        order of trec_eval's loops and of a cumulative sum over ranks)."""
        # bincount adds weights[i] to out[cell[i]] for i = 0, 1, ... in one loop: within a
        # cell, from 0.0 in rank order, the order of the rounds (test_rank_order_sums)
        return np.bincount(self.cell, weights=values, minlength=self.n_cells).astype(np.float64, copy=False)

    def running_sums(self, values: np.ndarray, reverse: bool = False, in_place: bool = False) -> np.ndarray:
        """(n,) float64: at each posting, the sum of its cell's values up to it, in rank
        order (with ``reverse``, from the cell's last posting up to it); ``in_place``: into
        ``values`` (float64), which a round reads before it writes them."""
        acc = np.zeros(self.n_cells, dtype=np.float64)
        out = values if in_place else np.empty(len(self), dtype=np.float64)
        for idx, c in self.round_cells(reverse):
            acc[c] += values[idx]
            out[idx] = acc[c]
        return out

    def first(self) -> np.ndarray:
        """(cells,) int64: index of each cell's first posting, -1 for an empty cell."""
        return np.where(self.counts > 0, self.start[:-1], -1)

    def top(self, k: int | None) -> Postings:
        """The postings ranked at most ``k`` (all for None)."""
        if k is None or len(self) == 0 or int(self.rank.max()) <= k:
            return self
        keep = self.rank <= k
        return Postings(offsets_from_counts(self.counts_where(keep)), self.rank[keep], self.judgment[keep])

    def cells(self, cells: np.ndarray) -> Postings:
        """The postings of the given cells, in that order (a cell may repeat)."""
        cells = np.asarray(cells, dtype=np.int64)
        counts = self.counts[cells]
        begin = self.start[cells]
        index = (np.repeat(begin - offsets_from_counts(counts)[:-1], counts)
                 + np.arange(int(counts.sum()), dtype=np.int64))
        return Postings(offsets_from_counts(counts), self.rank[index], self.judgment[index])


def offsets_from_counts(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def merge(a: Postings, b: Postings) -> Postings:
    """Both sets of postings in one, ranks ascending within each cell."""
    # Each side's (cell, rank) keys ascend and no key is on both sides (a document has one
    # rank in a cell): a posting's place is its place on its side plus the postings of the
    # other side before it, so the outputs are filled in place, with no sort and no
    # concatenated copy (an assessor's errors merge 4 x 10^7 postings at MS MARCO's size).
    key_a, key_b = _cell_rank_keys(a), _cell_rank_keys(b)
    place_a = np.searchsorted(key_b, key_a)
    place_a += np.arange(len(a), dtype=np.int64)
    place_b = np.searchsorted(key_a, key_b)
    place_b += np.arange(len(b), dtype=np.int64)
    del key_a, key_b
    n = len(a) + len(b)
    rank = np.empty(n, dtype=np.result_type(a.rank, b.rank))
    judgment = np.empty(n, dtype=np.result_type(a.judgment, b.judgment))
    rank[place_a], rank[place_b] = a.rank, b.rank
    judgment[place_a], judgment[place_b] = a.judgment, b.judgment
    return Postings(offsets_from_counts(a.counts + b.counts), rank, judgment)


def _cell_rank_keys(postings: Postings) -> np.ndarray:
    """(n,) int64: cell << 32 | rank per posting, ascending (cells, then ranks)."""
    key = np.repeat(np.arange(postings.n_cells, dtype=np.int64), postings.counts)  # not kept as .cell
    key <<= 32
    key |= postings.rank
    return key


@dataclass(frozen=True, eq=False)
class RelevanceMatrix:
    """The judged documents every run retrieved for every qrels topic, as postings.

    ``hits``: the relevant postings (judged, grade >= ``threshold``); ``misses``: the
    other judged ones (loaded on first use when read from disk). ``length`` (runs,
    topics): documents each run returned, after the depth cut. Qrels arrays are indexed
    by judgment row: ``qrels_topic``, ``qrels_grade``, ``docids`` (the judged document of
    each row; ``qrels_doc`` is ``arange(J)``, kept for the rarity listing); ``subtopics``:
    each row's subtopic judgments, from subtopic qrels (None: ordinary qrels), read only
    by the diversity measures; ``judgment_groups``: each row's judgments by group, from
    judgment-group qrels (None: ordinary qrels; read only by the ``*_avgjg`` measures;
    dropped with the rows or grades).
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
    subtopics: SubtopicJudgments | None = None
    judgment_groups: JudgmentGroups | None = None

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

    def subset(self, runs: np.ndarray | Sequence[int]) -> RelevanceMatrix:
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
            subtopics=self.subtopics,
            judgment_groups=self.judgment_groups,
        )

    def top(self, depth: int | None) -> RelevanceMatrix:
        """The campaign with only the postings ranked at most ``depth`` (all for None).
        Lengths stay (a run still returned what it returned), so every measure that
        reads no deeper (:func:`irmeta.measures.names.depth_read`) scores the same, with
        less to read: what a job asks for that scores many judgment sets."""
        if depth is None:
            return self
        misses = self.misses_loader
        return RelevanceMatrix(
            runs=self.runs, topics=self.topics, length=self.length, hits=self.hits.top(depth),
            misses_loader=lambda: misses().top(depth), threshold=self.threshold, qrels_topic=self.qrels_topic,
            qrels_grade=self.qrels_grade, docids=self.docids, run_depth=self.run_depth,
            ignored_topics=self.ignored_topics, subtopics=self.subtopics, judgment_groups=self.judgment_groups,
        )

    def with_judgments(self, keep: np.ndarray) -> RelevanceMatrix:
        """The campaign judged by a subset of its qrels: ``keep`` (J,) bool over qrels rows.

        Dropped rows leave the qrels (so N_R and ideal gains are counted without them) and
        their postings become unjudged documents: still ranked, so ranks and list lengths
        stay, but read as trec_eval reads a document absent from the qrels. Rows are
        renumbered; anything indexed by the old rows (a :class:`Rarity`) must be recounted.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != self.qrels_grade.shape:
            raise ValueError(f"keep has shape {keep.shape}, expected one flag per qrels row {self.qrels_grade.shape}")
        row = np.cumsum(keep, dtype=np.int64) - 1  # new row of each kept old row

        def kept(postings: Postings) -> Postings:
            mask = keep[postings.judgment]
            return Postings(offsets_from_counts(postings.counts_where(mask)), postings.rank[mask],
                            row[postings.judgment[mask]].astype(postings.judgment.dtype))

        misses = self.misses_loader
        return RelevanceMatrix(
            runs=self.runs, topics=self.topics, length=self.length, hits=kept(self.hits),
            misses_loader=lambda: kept(misses()), threshold=self.threshold,
            qrels_topic=self.qrels_topic[keep], qrels_grade=self.qrels_grade[keep],
            docids=self.docids.filter(pa.array(keep)), run_depth=self.run_depth,
            ignored_topics=self.ignored_topics, subtopics=None if self.subtopics is None else self.subtopics.kept(keep),
        )

    def with_grades(self, grades: np.ndarray) -> RelevanceMatrix:
        """The campaign judged with other grades of the same qrels rows (an assessor who
        judged the same documents differently): postings move between hits and misses as
        their grade crosses the threshold; ranks, lengths and rows stay. A regraded row's
        subtopic judgments all take its new grade (:meth:`~irmeta.campaign.subtopics.SubtopicJudgments.regraded`)."""
        grades = np.asarray(grades, dtype=np.int64)
        if grades.shape != self.qrels_grade.shape:
            raise ValueError(f"grades has shape {grades.shape}, expected one per qrels row {self.qrels_grade.shape}")
        # Each side split by the new grades and the relevant parts merged: never every
        # judged posting in one more copy (at 10^9 lines, 10^8 postings and 6 GB).
        hits, misses = self.hits, self.misses
        relevant = grades >= self.threshold  # per row, then gathered: never a grade per posting
        stay = relevant[hits.judgment]
        rise = relevant[misses.judgment]

        def part(postings: Postings, mask: np.ndarray) -> Postings:
            return Postings(offsets_from_counts(postings.counts_where(mask)), postings.rank[mask],
                            postings.judgment[mask])

        # the misses only when a measure reads them (P, AP and rareness never do)
        return RelevanceMatrix(
            runs=self.runs, topics=self.topics, length=self.length, hits=merge(part(hits, stay), part(misses, rise)),
            misses_loader=lambda: merge(part(hits, ~stay), part(misses, ~rise)),
            threshold=self.threshold, qrels_topic=self.qrels_topic, qrels_grade=grades, docids=self.docids,
            run_depth=self.run_depth, ignored_topics=self.ignored_topics,
            subtopics=None if self.subtopics is None else self.subtopics.regraded(self.qrels_grade, grades),
        )

    def condensed(self) -> RelevanceMatrix:
        """Sakai's condensed lists (SIGIR 2007; trec_eval -J): each list with its unjudged
        documents removed, the judged ones (grade >= 0) renumbered 1..n in rank order.

        Negative grades count as unjudged, as trec_eval reads them (pooled, not judged);
        ``length`` becomes the judged documents each run returned (trec_eval's num_ret
        under -J), so a cutoff k applied afterwards cuts the condensed list. Qrels, runs,
        topics and ``run_depth`` (the depth the original lists were cut to, before
        condensing) stay. Built once per matrix.
        """
        return self._condensed

    @cached_property
    def _condensed(self) -> RelevanceMatrix:
        judged = self.judged
        grade = self.qrels_grade[judged.judgment]
        keep = grade >= 0
        cell, judgment, grade = judged.cell[keep], judged.judgment[keep], grade[keep]
        counts = np.bincount(cell, minlength=self.n_runs * self.n_topics)
        rank = (np.arange(len(cell), dtype=np.int64) - offsets_from_counts(counts)[cell] + 1).astype(np.int32)

        def part(mask: np.ndarray) -> Postings:
            return Postings(offsets_from_counts(np.bincount(cell[mask], minlength=len(counts))), rank[mask],
                            judgment[mask])

        relevant = grade >= self.threshold
        misses = part(~relevant)
        return RelevanceMatrix(
            runs=self.runs, topics=self.topics, length=self.grid(counts).astype(np.int32), hits=part(relevant),
            misses_loader=lambda: misses, threshold=self.threshold, qrels_topic=self.qrels_topic,
            qrels_grade=self.qrels_grade, docids=self.docids, run_depth=self.run_depth,
            ignored_topics=self.ignored_topics, subtopics=self.subtopics,
            judgment_groups=None if self.judgment_groups is None else self.judgment_groups.of_condensed(),
        )

    # --------------------------------------------------------------- dense views

    def _dense(self, postings: Postings, values: np.ndarray | bool, fill, dtype) -> np.ndarray:
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
