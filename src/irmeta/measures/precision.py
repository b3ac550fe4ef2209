"""P@k and AP@k with trec_eval's arithmetic (``P_k``; ``map`` with ``-M k``).

AP sums precisions at relevant ranks in rank order, as trec_eval's loop does, then
divides by the topic's relevant count, so results agree to the last bit.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.cutoffs import cut_at, divide_by_relevant, top_ranks
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, RangeDeclaration, register


def precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """P@k = |relevant in top k| / k (trec_eval ``P_k``; missing ranks count as non-relevant)."""
    hits, k = cut_at(matrix, cutoff)
    return matrix.cell_counts(hits) / k


def precision_at_relevant_ranks(hits: Postings) -> np.ndarray:
    """|relevant in top i| / i at each relevant posting's rank i: AP's summands."""
    # in place, the same IEEE division as (position + 1) / float(rank): one (n,) float array
    summands = hits.position + 1.0
    summands /= hits.rank
    return summands


def average_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """AP@k = (1/N_R) sum_{i<=k} rel(d_i) P@i, N_R = relevant documents in the qrels.

    trec_eval ``map`` with ``-M k``: the sum runs in rank order, as trec_eval's loop,
    so results agree to the last bit. A topic with N_R = 0 scores 0.
    """
    hits = top_ranks(matrix, cutoff)
    # once per postings: AP, AP_rareness and AP_rareness_norm all start from it
    total = matrix.grid(hits.memo("ap_sums", lambda: hits.ordered_sums(precision_at_relevant_ranks(hits))))
    return divide_by_relevant(total, matrix.n_relevant)


register(MeasureDefinition("P", precision, "precision at k (trec_eval P_k)",
                           value_range=RangeDeclaration(grid="per_cutoff")))  # j/k


register(MeasureDefinition("AP", average_precision, "average precision cut at k (trec_eval map -M k)",
                           value_range=UNIT_RANGE))
