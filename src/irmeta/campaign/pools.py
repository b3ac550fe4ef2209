"""Pools: which judged documents each run contributed to the judging.

TREC builds each topic's judgment pool from the top ``pool_depth`` documents of every
submitted run (Voorhees and Harman 2005); a document judged only because runs of one
group pooled it would not have been judged without that group (Zobel 1998). Counted on
the campaign's judged postings after its own reading (trec_eval order, depth cut), so a
judged document no run ranks that high (judged from a deeper pool, or by hand) is in no
run's pool.

The data also tell how deep the pools were: a run whose top d documents were pooled has
its top d wholly judged. :func:`judged_depths` measures, per run and topic, the depth to
which the ranking is wholly judged, and :func:`judged_depth` summarises it per run and
checks a pool depth D against it, counting to :data:`JUDGED_REACH` times D (memory for
the postings to that depth, not the campaign's).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix

#: Judged depths are counted to this many times the pool depth: far enough to tell a pool
#: depth from a shallower or deeper one, and a run judged deeper shows that depth.
JUDGED_REACH = 2


def _check_depth(depth: int) -> int:
    if isinstance(depth, bool) or int(depth) != depth or depth < 1:
        raise ValueError(f"the pool depth must be an integer >= 1, not {depth!r}")
    return int(depth)


def _pooled_postings(matrix: RelevanceMatrix, depth: int) -> Iterator[Postings]:
    """The relevant, then the other judged postings within ``depth``: apart (merging them
    would copy every judged posting of the campaign), and the others not kept on the
    matrix when it had not loaded them (the paper's measures never read them)."""
    depth = _check_depth(depth)
    yield matrix.hits.top(depth)
    yield _misses(matrix).top(depth)


def _misses(matrix: RelevanceMatrix) -> Postings:
    """The judged non-relevant postings, not kept on the matrix when it had not loaded them."""
    loaded = matrix.__dict__.get("misses")  # the cached property, if it was read
    return loaded if loaded is not None else matrix.misses_loader()


def pooled_judgments(matrix: RelevanceMatrix, depth: int) -> np.ndarray:
    """(J,) bool: the qrels rows some run ranks in its top ``depth`` for their topic."""
    depth = _check_depth(depth)
    out = np.zeros(len(matrix.qrels_grade), dtype=bool)
    for postings in (matrix.hits, _misses(matrix)):
        out[postings.judgment[postings.rank <= depth]] = True  # no cut copy of the postings
    return out


def sole_pooling_unit(matrix: RelevanceMatrix, depth: int, unit_of_run: np.ndarray) -> np.ndarray:
    """(J,) int64: for each qrels row, the unit whose runs alone pooled it at ``depth``;
    -1 when runs of two or more units pooled it, or none did.

    ``unit_of_run`` (runs,) gives each run's unit (a group, or the run itself) as an
    integer code >= 0. One unit alone pooled a row when the smallest and the largest unit
    code over its postings agree (no sort or set of pairs: linear in the postings).
    """
    units = np.asarray(unit_of_run, dtype=np.int64)
    if units.shape != (matrix.n_runs,) or (units < 0).any():
        raise ValueError(f"unit_of_run needs one code >= 0 per run ({matrix.n_runs}), got shape {units.shape}")
    n_rows = len(matrix.qrels_grade)
    lowest = np.full(n_rows, np.iinfo(np.int64).max, dtype=np.int64)
    highest = np.full(n_rows, -1, dtype=np.int64)
    unit_of_cell = np.repeat(units, matrix.n_topics)  # cells are run-major
    for postings in _pooled_postings(matrix, depth):
        unit = np.repeat(unit_of_cell, postings.counts)  # no per-posting cell index kept
        np.minimum.at(lowest, postings.judgment, unit)
        np.maximum.at(highest, postings.judgment, unit)
    return np.where(lowest == highest, highest, -1)


def judged_depths(matrix: RelevanceMatrix, reach: int | None = None) -> np.ndarray:
    """(runs, topics) int64: how deep each run's ranking of each topic is wholly judged,
    the largest d <= ``reach`` (None: any) such that ranks 1..d all have a qrels entry (any
    grade: a document graded -1 was pooled too); the list's length when every document has
    one, 0 for a topic the run did not return. Linear in the judged postings (no merge of
    the relevant and other ones): a posting at rank r is within the judged top when the
    judged postings of its cell up to it number r, and those within it are exactly ranks
    1..d."""
    parts = (matrix.hits.top(reach), _misses(matrix).top(reach))
    span = np.int64(max(int(p.rank.max(initial=0)) for p in parts) + 1)
    keys = [p.cell * span + p.rank for p in parts]  # sorted: cells, then ranks
    depth = np.zeros(matrix.n_runs * matrix.n_topics, dtype=np.int64)
    for me, other in ((0, 1), (1, 0)):
        postings, theirs = parts[me], parts[other]
        cell = postings.cell
        above = np.searchsorted(keys[other], keys[me]) - theirs.start[cell]  # the other kind's, ranked above
        within = postings.position + 1 + above == postings.rank
        depth += np.bincount(cell[within], minlength=len(depth))
    return depth.reshape(matrix.n_runs, matrix.n_topics)


@dataclass(frozen=True)
class JudgedDepth:
    """A campaign's runs against a pool depth D: ``per_run`` (runs,), the median over the
    topics a run returned of how deep its ranking is wholly judged (:func:`judged_depths`;
    NaN for a run that returned none); ``judged_to_pool`` (runs,), whether the run's top
    min(D, its list's length) is wholly judged on more than half of the topics it
    returned; ``runs``: the runs that returned a topic."""

    pool_depth: int
    per_run: np.ndarray
    judged_to_pool: np.ndarray
    runs: int

    @property
    def median(self) -> float:
        """The median over runs of :attr:`per_run` (NaN without runs)."""
        known = self.per_run[np.isfinite(self.per_run)]
        return float(np.median(known)) if len(known) else float("nan")

    @property
    def least(self) -> float:
        """The smallest of :attr:`per_run` (NaN without runs)."""
        known = self.per_run[np.isfinite(self.per_run)]
        return float(known.min()) if len(known) else float("nan")

    @property
    def share_judged_to_pool(self) -> float:
        """The share of the runs wholly judged to the pool depth on most of their topics."""
        return float(self.judged_to_pool.sum() / self.runs) if self.runs else float("nan")

    @property
    def contradicted(self) -> bool:
        """Most runs (more than half) are not wholly judged to the pool depth on most of
        their topics: pools of that depth would have judged them."""
        return 2 * int(self.judged_to_pool.sum()) < self.runs

    def contradiction(self) -> str:
        """What the runs say against the pool depth, in words."""
        return (f"only {int(self.judged_to_pool.sum())} of the {self.runs} runs are wholly judged to depth "
                f"{self.pool_depth} on most of their topics (the median run is wholly judged to depth "
                f"{self.median:g}), where pools of that depth would have judged every run's top {self.pool_depth}")


def judged_depth(matrix: RelevanceMatrix, pool_depth: int) -> JudgedDepth:
    """The runs of ``matrix`` against ``pool_depth`` D (:class:`JudgedDepth`), their judged
    depths counted to :data:`JUDGED_REACH` D (a matrix loaded to that depth holds all
    it reads)."""
    d = _check_depth(pool_depth)
    depths = judged_depths(matrix, JUDGED_REACH * d)
    length = matrix.length.astype(np.int64)
    returned = length > 0
    n_returned = returned.sum(axis=1)
    per_run = np.full(matrix.n_runs, np.nan)
    some = n_returned > 0  # a median per run, over the topics it returned
    per_run[some] = np.nanmedian(np.where(returned, depths, np.nan)[some], axis=1)
    wholly = returned & (depths >= np.minimum(length, d))
    judged_to_pool = 2 * wholly.sum(axis=1) > n_returned
    return JudgedDepth(d, per_run, judged_to_pool & (n_returned > 0), int((n_returned > 0).sum()))
