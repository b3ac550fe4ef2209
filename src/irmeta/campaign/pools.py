"""Pools: which judged documents each run contributed to the judging.

TREC builds each topic's judgment pool from the top ``pool_depth`` documents of every
submitted run (Voorhees and Harman 2005); a document judged only because runs of one
group pooled it would not have been judged without that group (Zobel 1998). Counted on
the campaign's judged postings after its own reading (trec_eval order, depth cut), so a
judged document no run ranks that high (judged from a deeper pool, or by hand) is in no
run's pool.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix


def _check_depth(depth: int) -> int:
    if isinstance(depth, bool) or int(depth) != depth or depth < 1:
        raise ValueError(f"the pool depth must be an integer >= 1, not {depth!r}")
    return int(depth)


def pooled_judgments(matrix: RelevanceMatrix, depth: int) -> np.ndarray:
    """(J,) bool: the qrels rows some run ranks in its top ``depth`` for their topic."""
    judged = matrix.judged.top(_check_depth(depth))
    out = np.zeros(len(matrix.qrels_grade), dtype=bool)
    out[judged.judgment] = True
    return out


def sole_pooling_unit(matrix: RelevanceMatrix, depth: int, unit_of_run: np.ndarray) -> np.ndarray:
    """(J,) int64: for each qrels row, the unit whose runs alone pooled it at ``depth``;
    -1 when runs of two or more units pooled it, or none did.

    ``unit_of_run`` (runs,) gives each run's unit (a group, or the run itself) as an
    integer code >= 0.
    """
    units = np.asarray(unit_of_run, dtype=np.int64)
    if units.shape != (matrix.n_runs,) or (units < 0).any():
        raise ValueError(f"unit_of_run needs one code >= 0 per run ({matrix.n_runs}), got shape {units.shape}")
    judged = matrix.judged.top(_check_depth(depth))
    n_units = int(units.max(initial=-1)) + 1
    pairs = np.unique(judged.judgment.astype(np.int64) * max(n_units, 1) + units[matrix.run_of(judged)])
    row, unit = pairs // max(n_units, 1), pairs % max(n_units, 1)
    n_pooling = np.bincount(row, minlength=len(matrix.qrels_grade))
    out = np.full(len(matrix.qrels_grade), -1, dtype=np.int64)
    alone = n_pooling[row] == 1
    out[row[alone]] = unit[alone]
    return out
