"""Interpolated precision at recall levels and precision at multiples of R (issue 42),
with trec_eval's arithmetic (m_iprec_at_recall.c, m_11pt_avg.c, m_Rprec_mult.c).

r_m is the rank of the m-th relevant document returned (grade >= the threshold), rr how
many there are, n the documents returned (``@k``: cut at k first, trec_eval -M k) and
N_R the topic's relevant documents. trec_eval turns a recall level x into a count of
relevant documents c = floor(x N_R + 0.9) (its historical rounding), in doubles.

``IPrec(recall=x)`` (trec_eval ``iprec_at_recall_x``, ir_measures ``IPrec@x``)
    max over m >= max(c, 1) of m / r_m: the best precision at or after the c-th relevant
    document; 0 when c > rr.
``IPrec_avg`` (trec_eval ``11pt_avg``), ``IPrec_avg(levels=[x,y,...])`` (``11pt_avg.x,y,...``)
    the mean of IPrec at recall 0, 0.1, ..., 1.0, added from 1.0 down as trec_eval does;
    at the levels given, in the order given, with m_11pt_avg.c's walk: it reads the levels
    from the last, takes the levels whose c exceeds rr as 0, then walks the relevant
    documents from the bottom, consuming the current level at the m-th one when c = m
    (IPrec there), and gives every level left when it reaches the top (c = 0, or a c it
    passed because the list was not ascending) the best precision of the list. Over
    ascending levels that is the mean of IPrec at each; over others, trec_eval's value.
``Rprec_mult(multiple=x)`` (trec_eval ``Rprec_mult_x``)
    precision at rank c = floor(x N_R + 0.9): relevant in the top c / c, rr / c when
    c > n, 0 when c = 0.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.cutoffs import relevant_count
from irmeta.measures.registry import (
    NUMBER,
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    register,
    register_option_check,
    register_peer_names,
    same,
)

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _level(value: object, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, not {type(value).__name__} {value!r}")
    x = float(value)
    if not (np.isfinite(x) and x >= 0):
        raise ValueError(f"{what} must be a finite number >= 0, not {value!r}")
    return x


register_option_check("recall", lambda v: _level(v, "IPrec's recall level"))
register_option_check("multiple", lambda v: _level(v, "Rprec_mult's multiple of R"))


def relevant_needed(matrix: RelevanceMatrix, x: float) -> np.ndarray:
    """(Q,) int64: c = (long) (x N_R + 0.9), trec_eval's count of relevant documents at level x."""
    return (x * matrix.n_relevant.astype(np.float64) + 0.9).astype(np.int64)


def _best_precision_after(matrix: RelevanceMatrix, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per relevant posting (top k): max over the relevant postings at or below it of
    m / r_m; with the cells' starts and counts."""
    hits = matrix.hits.top(cutoff)
    precision = (hits.position + 1.0) / hits.rank
    best = np.zeros(hits.n_cells, dtype=np.float64)
    after = np.empty(len(hits), dtype=np.float64)
    for idx, c in hits.round_cells(reverse=True):
        best[c] = np.maximum(best[c], precision[idx])
        after[idx] = best[c]
    return after, hits.start, hits.counts


def _iprec_from(matrix: RelevanceMatrix, after: np.ndarray, start: np.ndarray, counts: np.ndarray,
                x: float) -> np.ndarray:
    c = np.repeat(relevant_needed(matrix, x)[None], matrix.n_runs, axis=0).ravel()
    at = np.maximum(c, 1) - 1  # the c-th relevant posting (the first for c = 0)
    ok = (c <= counts) & (counts > 0)
    out = np.zeros(len(counts), dtype=np.float64)
    out[ok] = after[start[:-1][ok] + at[ok]]
    return matrix.grid(out)


def interpolated_precision(matrix: RelevanceMatrix, cutoff: int | None, *, recall: float = 0.0) -> np.ndarray:
    """IPrec(recall=x) = max_{m >= max(c, 1)} m / r_m, c = floor(x N_R + 0.9); 0 if c > rr."""
    after, start, counts = _best_precision_after(matrix, cutoff)
    return _iprec_from(matrix, after, start, counts, _level(recall, "IPrec's recall level"))


def _levels(value: object) -> tuple[float, ...]:
    """IPrec_avg's recall levels: one or more finite numbers >= 0, in trec_eval's order."""
    if not isinstance(value, (tuple, list)) or not value:
        raise ValueError(f"IPrec_avg's levels must be a list of one or more recall levels, not {value!r}")
    return tuple(_level(x, "an IPrec_avg recall level") for x in value)


register_option_check("levels", _levels)


def eleven_point_average(matrix: RelevanceMatrix, cutoff: int | None, *,
                         levels: tuple[float, ...] = ELEVEN_POINTS) -> np.ndarray:
    """IPrec_avg = (1/L) sum of IPrec at the L recall levels (trec_eval ``11pt_avg``, by
    default at 0, 0.1, ..., 1), in m_11pt_avg.c's order of additions and walk."""
    points = _levels(levels)
    after, start, counts = _best_precision_after(matrix, cutoff)
    n_cells = matrix.n_runs * matrix.n_topics
    found = counts > 0
    best = np.zeros(n_cells, dtype=np.float64)  # the list's best precision: IPrec at its first relevant
    best[found] = after[start[:-1][found]]
    skipping = np.ones(n_cells, dtype=bool)  # before the walk: levels with c > rr count 0
    done = np.zeros(n_cells, dtype=bool)  # the walk reached the top: every level left gets ``best``
    m = counts.astype(np.int64)  # the relevant document the walk is at
    total = np.zeros(n_cells, dtype=np.float64)
    for x in reversed(points):  # trec_eval reads its levels from the last
        c = np.tile(relevant_needed(matrix, x), matrix.n_runs)
        skipping &= c > counts
        walking = ~skipping & ~done
        hit = walking & (c >= 1) & (c <= m)
        value = np.zeros(n_cells, dtype=np.float64)
        value[hit] = after[start[:-1][hit] + c[hit] - 1]
        m = np.where(hit, c, m)
        done |= walking & ~hit
        total += np.where(done, best, value)
    return matrix.grid(total / float(len(points)))


def precision_at_multiple(matrix: RelevanceMatrix, cutoff: int | None, *, multiple: float = 1.0) -> np.ndarray:
    """Rprec_mult(multiple=x): precision at rank c = floor(x N_R + 0.9) (trec_eval ``Rprec_mult_x``)."""
    c = relevant_needed(matrix, _level(multiple, "Rprec_mult's multiple of R"))
    hits = matrix.hits.top(cutoff)
    within = hits.rank <= c[matrix.topic_of(hits)]
    count = matrix.grid(np.bincount(hits.cell[within], minlength=hits.n_cells)).astype(np.float64)
    n = matrix.length if cutoff is None else np.minimum(matrix.length, int(cutoff))
    c_grid = np.broadcast_to(c, n.shape)
    beyond = c_grid > n  # trec_eval: rr / c past the list's end
    numerator = np.where(beyond, relevant_count(matrix, cutoff).astype(np.float64), count)
    return np.divide(numerator, c_grid.astype(np.float64), out=np.zeros_like(numerator), where=c_grid > 0)


register(MeasureDefinition("IPrec", interpolated_precision, "interpolated precision at a recall level "
                           "(trec_eval iprec_at_recall)", options=("recall",), value_range=UNIT_RANGE))
register(MeasureDefinition("IPrec_avg", eleven_point_average, "interpolated precision averaged over recall "
                           "levels, 0, 0.1, ..., 1 by default (trec_eval 11pt_avg)", options=("levels",),
                           value_range=UNIT_RANGE))
register(MeasureDefinition("Rprec_mult", precision_at_multiple, "precision at rank x R (trec_eval Rprec_mult)",
                           options=("multiple",), value_range=UNIT_RANGE))

register_peer_names(
    PeerName("IPrec", "trec_eval", "iprec_at_recall_x", "IPrec(recall={0})", pattern=r"iprec_at_recall[._]" + NUMBER,
             examples=(("iprec_at_recall_0.10", "iprec_at_recall.0.10"),
                       ("iprec_at_recall.0.5", "iprec_at_recall.0.5")), symbols=("x",)),
    PeerName("IPrec", "ir_measures", "IPrec@x", "IPrec(recall={0})", "ir_measures' @ gives IPrec its recall level "
             "(a fraction), where irmeta's @k is a cutoff: IPrec@0.1 is IPrec(recall=0.1); a whole number after @ "
             "stays irmeta's cutoff (write IPrec(recall=1) for the recall level 1)",
             pattern=r"IPrec@(\d*\.\d+)", examples=same("IPrec@0.1", "IPrec@0.5", "IPrec@.8"), symbols=("x",)),
    PeerName("IPrec_avg", "trec_eval", "11pt_avg", "IPrec_avg", pattern="11pt_avg", examples=same("11pt_avg"),
             prints="11pt_avg"),
    PeerName("IPrec_avg", "trec_eval", "11pt_avg.x,y,...", "IPrec_avg(levels=[{0}])", "the mean of IPrec over the "
             "levels given, walked as m_11pt_avg.c walks them (over levels out of order, trec_eval's value)",
             pattern=r"11pt_avg[._](" + NUMBER + "(?:," + NUMBER + ")*)",
             examples=(("11pt_avg..25,.5,.75", "11pt_avg..25,.5,.75"), ("11pt_avg_0.5,0.25", "11pt_avg.0.5,0.25")),
             symbols=("x,y,...",), checked_by="tests/unit/measures/test_trec_eval_jg_gains.py"),
    PeerName("Rprec_mult", "trec_eval", "Rprec_mult_x", "Rprec_mult(multiple={0})",
             pattern=r"Rprec_mult[._]" + NUMBER, examples=(("Rprec_mult_0.20", "Rprec_mult.0.20"),),
             symbols=("x",)),
)
