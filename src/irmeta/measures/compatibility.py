"""Compatibility with an ideal ranking (issue 42): ir_measures' ``Compat``, vectorised
over runs and topics.

``Compat(p=0.95,normalize=true)`` (Clarke, Vtyurina and Smucker, "Assessing top-k
preferences", TOIS 2021)
    The rank-biased overlap of the run with an ideal ranking of the topic's documents of
    positive grade (whatever the relevance threshold): by grade, highest first, and within
    a grade those the run retrieved first, in the run's order (the ideal the run is most
    compatible with). To depth D = max(documents returned, documents of positive grade),

        RBO = sum_{d=1}^{D} p^(d-1) |run_d & ideal_d| / d  /  sum_{d=1}^{D} p^(d-1)

    (run_d, ideal_d: the top d of each), and with ``normalize`` (the default) divided by
    the ideal's RBO with itself, so a run that is the ideal scores 1; 0 for a topic
    without a document of positive grade. ir_measures 0.4's ``CompatProvider`` computes
    the same, from scores: a run whose scores are 0 or negative has its unretrieved
    relevant documents put before the retrieved ones of their grade there (their score
    is taken as 0), which irmeta's reading of the ranking never does. ``@k`` cuts the run
    at rank k first (ir_measures has no cutoff).

A document of positive grade retrieved at rank r with place i in the ideal is in
run_d & ideal_d from d = max(r, i) on, so the sum is sum_x T(max(r_x, i_x)),
T(m) = sum_{d=m}^{D} p^(d-1) / d = F(D) - F(m - 1), F read from one table of prefix sums.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.incomplete import counts_up_to
from irmeta.measures.rank_biased import _persistence
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, PeerName, register, register_peer_names

COMPAT_PERSISTENCE = 0.95  # ir_measures' default p


def _prefix(p: float, depth: int) -> np.ndarray:
    """(depth + 1,) F(x) = sum_{d=1}^{x} p^(d-1) / d for x = 0..depth, summed from d = 1 on, so
    F(x) is the same bits however deep the table (a run's score never depends on the others')."""
    d = np.arange(1, depth + 1, dtype=np.float64)
    out = np.zeros(depth + 1, dtype=np.float64)
    np.cumsum(np.power(p, d - 1.0) / d, out=out[1:])
    return out


def compatibility(matrix: RelevanceMatrix, cutoff: int | None, *, p: float = COMPAT_PERSISTENCE,
                  normalize: bool = True) -> np.ndarray:
    """Compat = RBO(run, ideal) to depth D, over the ideal's RBO with itself when normalized (see the module)."""
    p = _persistence(p)
    graded = matrix.qrels_grade
    below = ((graded > 0) & (graded < matrix.threshold)).any()  # positive grades the hits leave out
    judged = (matrix.judged if below else matrix.hits).top(cutoff)
    grade = matrix.grade_of(judged)
    # the ideal: every document of positive grade, by grade descending, the run's own first in its order
    q_topic, q_grade = matrix.qrels_topic[graded > 0], graded[graded > 0]
    n_ideal = np.bincount(q_topic, minlength=matrix.n_topics).astype(np.int64)  # R
    levels = np.unique(q_grade)
    per_level = np.zeros((matrix.n_topics, len(levels) + 1), dtype=np.int64)
    np.add.at(per_level, (q_topic, np.searchsorted(levels, q_grade)), 1)
    higher = np.cumsum(per_level[:, ::-1], axis=1)[:, ::-1]  # [t, j]: documents of topic t at level >= j
    level = np.where(grade > 0, np.searchsorted(levels, grade), -1)
    above = np.zeros(len(judged), dtype=np.int64)  # the run's own of the same grade ranked above
    for j in range(len(levels)):
        same = level == j
        above[same] = counts_up_to(judged, same)[same] - 1
    positive = level >= 0
    cell, rank, level, above = judged.cell[positive], judged.rank[positive], level[positive], above[positive]
    place = higher[cell % matrix.n_topics, level + 1] + above + 1  # i: higher grades first, then the run's own
    returned = (matrix.length if cutoff is None else np.minimum(matrix.length, int(cutoff))).astype(np.int64)
    depth = np.maximum(returned, n_ideal[None, :])  # D per cell
    prefix = _prefix(p, int(depth.max(initial=0)))
    flat_depth = depth.reshape(-1)
    shared = np.maximum(rank.astype(np.int64), place)  # the depth from which the document is in both tops
    overlap = prefix[flat_depth[cell]] - prefix[shared - 1]  # T(m) = F(D) - F(m - 1)
    total = np.bincount(cell, weights=overlap, minlength=matrix.n_runs * matrix.n_topics).astype(np.float64)
    r = np.broadcast_to(n_ideal[None, :], depth.shape).reshape(-1)
    if bool(normalize):  # the ideal against itself: min(d, R) / d = 1 to d = R, then R / d
        best = (1.0 - np.power(p, r.astype(np.float64))) / (1.0 - p) + r * (prefix[flat_depth] - prefix[r])
        return matrix.grid(np.divide(total, best, out=np.zeros_like(total), where=best > 0))
    weight = (1.0 - np.power(p, flat_depth.astype(np.float64))) / (1.0 - p)
    return matrix.grid(np.divide(total, weight, out=np.zeros_like(total), where=weight > 0))


register(MeasureDefinition("Compat", compatibility, "RBO of the run with the ideal ranking compatible with it "
                                                    "(Clarke, Vtyurina and Smucker 2021)",
                           options=("p", "normalize"), value_range=UNIT_RANGE))
_COMPAT_TEST = "tests/unit/measures/test_compat_and_accuracy.py"  # ir_measures computes each example
register_peer_names(
    PeerName("Compat", "ir_measures", "Compat", "Compat",
             "RBO with the ideal ranking compatible with the run; ir_measures puts an unretrieved relevant "
             "document before retrieved ones of its grade when the run's scores are 0 or negative, irmeta never",
             examples=(("Compat", "Compat"), ("Compat(p=0.8,normalize=false)", "Compat(p=0.8,normalize=False)")),
             checked_by=_COMPAT_TEST),
)
