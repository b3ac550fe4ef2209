"""Pools: which judged documents each run contributed to the judging.

TREC builds each topic's judgment pool from the top ``pool_depth`` documents of every
submitted run (Voorhees and Harman 2005); a document judged only because runs of one
group pooled it would not have been judged without that group (Zobel 1998). Counted on
the campaign's judged postings after its own reading (trec_eval order, depth cut), so a
judged document no run ranks that high (judged from a deeper pool, or by hand) is in no
run's pool.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix


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
