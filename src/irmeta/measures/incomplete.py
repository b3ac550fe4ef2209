"""Measures made for incomplete judgments, vectorised over runs and topics.

Sakai's condensed lists (AP', Q', nDCG', ...) are no family of their own: every family
takes ``judged_only=true`` (:mod:`.names`, :meth:`RelevanceMatrix.condensed`). Here:

``infAP@k`` (trec_eval ``infAP``; Yilmaz and Aslam, "Estimating average precision with
incomplete and imperfect judgments", CIKM 2006)
    The qrels divide a run's documents into not pooled (absent from the qrels), pooled
    but not judged (a negative grade, by convention -1), judged relevant (grade >= the
    threshold) and judged non-relevant. For the relevant document at 0-based position j
    (j = rank - 1), with r, n and u the relevant, non-relevant and pooled-unjudged
    documents above it (r not counting itself),

        term = 1                                                   if j = 0
        term = 1/(j+1) + (j/(j+1)) ((r + n + u)/j) ((r + eps)/(r + n + 2 eps))  otherwise

    eps = 1e-5 (trec_eval's INFAP_EPSILON); infAP = (1/N_R) sum of the terms, in rank
    order as trec_eval's loop adds them; 0 when N_R = 0. ``@k`` cuts the run at k first
    (trec_eval -M k). With complete judgments (no negative grade) u = 0, and infAP still
    differs from AP: not-pooled documents above count in j only, and eps shifts the
    estimate.
``Judged@k`` (ir_measures' ``Judged@k``)
    The share of the top k that has a qrels entry, any grade (negative ones too, as
    ir_measures counts a document "judged" when the qrels name it): judged documents in
    the top k / min(k, documents returned). Without ``@k``, the whole list. 0 for a topic
    the run did not return (ir_measures reports nothing there; irmeta's averaging
    decides whether it counts).
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.cutoffs import divide_by_relevant
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, register

INFAP_EPSILON = 1e-5  # trec_eval's INFAP_EPSILON


def counts_up_to(postings: Postings, flags: np.ndarray) -> np.ndarray:
    """(n,) int64: at each posting, how many postings of its cell up to and including it
    are flagged (integer prefix sums, exact)."""
    total = np.zeros(len(postings) + 1, dtype=np.int64)
    np.cumsum(flags, dtype=np.int64, out=total[1:])
    return total[1:] - total[postings.start[postings.cell]]


def inferred_average_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """infAP@k (trec_eval ``infAP`` with -M k; Yilmaz and Aslam 2006), see the module."""
    judged = matrix.judged.top(cutoff)
    grade = matrix.grade_of(judged)
    relevant = grade >= matrix.threshold
    above_rel = counts_up_to(judged, relevant) - 1  # r at a relevant posting: itself excluded
    above_non = counts_up_to(judged, (grade >= 0) & ~relevant)  # a relevant posting adds none
    above_pool = counts_up_to(judged, grade < 0)
    j = (judged.rank - 1).astype(np.float64)
    seen = (above_rel + above_non + above_pool).astype(np.float64)
    share = (above_rel.astype(np.float64) + INFAP_EPSILON) / ((above_rel + above_non).astype(np.float64)
                                                             + 2 * INFAP_EPSILON)
    with np.errstate(divide="ignore", invalid="ignore"):  # j = 0 takes the first branch
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (seen / j) * share
    term = np.where(j == 0, 1.0, term)
    # Non-relevant postings add 0.0 (exact), so the sum is trec_eval's, in rank order.
    total = judged.ordered_sums(np.where(relevant, term, 0.0))
    return divide_by_relevant(matrix.grid(total), matrix.n_relevant)


def judged_share(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Judged@k = |documents with a qrels entry in the top k| / min(k, returned) (ir_measures)."""
    judged = matrix.cell_counts(matrix.judged.top(cutoff)).astype(np.float64)
    returned = (matrix.length if cutoff is None else np.minimum(matrix.length, cutoff)).astype(np.float64)
    return np.divide(judged, returned, out=np.zeros_like(judged), where=returned > 0)


register(MeasureDefinition("infAP", inferred_average_precision,
                           "inferred AP, pooled-but-unjudged documents graded -1 (trec_eval infAP)",
                           value_range=UNIT_RANGE))  # each term <= 1, at most N_R terms


register(MeasureDefinition("Judged", judged_share,
                           "share of the top k with a qrels entry (ir_measures Judged@k)",
                           value_range=UNIT_RANGE))
