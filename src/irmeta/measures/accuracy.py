"""ir_measures' ``Accuracy`` (issue 42), vectorised over runs and topics.

``Accuracy@k``
    The share of (relevant, non-relevant) pairs in the top k that the run orders
    relevant first: with r relevant documents in the top k (grade >= the threshold,
    ir_measures' ``rel``), N the others there (non-relevant and unjudged alike) and n_j the
    others ranked above the j-th relevant one,

        Accuracy@k = 1 - sum_j n_j / (N r)

    (ir_measures 0.4's ``AccuracyProvider``; a diagnostic of training data). Without ``@k``,
    the whole list. Where ir_measures reports nothing, irmeta needs a number: 0 when no
    relevant document is in the top k (ir_measures leaves the topic out of its mean,
    irmeta's averaging decides whether it counts), 1 when every document there is
    relevant (no pair is misordered; ir_measures divides by zero).
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, PeerName, register, register_peer_names


def accuracy(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Accuracy@k = 1 - sum_j n_j / (N r) (ir_measures ``Accuracy@k``)."""
    hits = matrix.hits.top(cutoff)
    found = matrix.cell_counts(hits).astype(np.float64)  # r
    read = matrix.length if cutoff is None else np.minimum(matrix.length, int(cutoff))
    others = read - found  # N
    above = matrix.grid(hits.ordered_sums((hits.rank - 1 - hits.position).astype(np.float64)))  # sum_j n_j
    pairs = others * found
    value = np.where(found > 0, 1.0, 0.0)
    return np.subtract(1.0, np.divide(above, pairs, out=np.zeros_like(above), where=pairs > 0), out=value,
                       where=pairs > 0)


register(MeasureDefinition("Accuracy", accuracy, "share of (relevant, non-relevant) pairs in the top k ordered "
                                                 "relevant first (ir_measures Accuracy)", value_range=UNIT_RANGE))
_ACCURACY_TEST = "tests/unit/measures/test_compat_and_accuracy.py"  # ir_measures computes each example
register_peer_names(
    PeerName("Accuracy", "ir_measures", "Accuracy", "Accuracy",
             "where ir_measures reports nothing (no relevant document in the top k) irmeta gives 0, and 1 "
             "where ir_measures divides by zero (every document there relevant)",
             examples=(("Accuracy", "Accuracy"), ("Accuracy@20", "Accuracy@20")), checked_by=_ACCURACY_TEST),
)
