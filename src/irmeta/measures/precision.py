"""P@k and AP@k with trec_eval's arithmetic (``P_k``; ``map`` with ``-M k``).

AP sums precisions at relevant ranks in rank order, as trec_eval's loop does, then
divides by the topic's relevant count, so results agree to the last bit.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.cutoffs import cut_at, divide_by_relevant, top_ranks
from irmeta.measures.registry import (
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    RangeDeclaration,
    register,
    register_peer_names,
    same,
    trec_eval_cut,
    trec_eval_word,
)


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

_RANX_MAP = "sums precision at the relevant ranks <= k over all relevant documents: trec_eval's map_cut_k"
register_peer_names(
    trec_eval_cut("P", "P"),
    PeerName("P", "trec_eval", "P_", "P", "trec_eval's P without its cutoff: P at the depth read (-M, 1000 by "
             "default)", cutoff=False, examples=(("P_", "P.1000"),)),
    PeerName("P", "ir_measures", "P", "P", cutoff=True, examples=same("P@10")),
    PeerName("P", "ir_measures", "Precision", "P", cutoff=True, examples=same("Precision@10")),
    PeerName("P", "ranx", "precision", "P", "hits in the top k / k", cutoff=True, examples=same("precision@10")),
    PeerName("P", "ranx", "name-lN", None, "ranx's -l{2} is irmeta's relevance threshold for {0}: write {0}{1} with "
             "--threshold {2} (relevance_threshold: {2} in a config)",
             pattern=r"(hits|hit_rate|precision|recall|f1|r-precision|mrr|map|bpref)((?:@\d+)?)-l(\d+)",
             symbols=("name", "@k", "N")),
    trec_eval_word("AP", "map"),
    trec_eval_cut("AP", "map_cut", 100),
    PeerName("AP", "ir_measures", "MAP", "AP", examples=same("MAP", "MAP@100")),
    PeerName("AP", "ir_measures", "AP", "AP", examples=same("AP", "AP@100")),
    PeerName("AP", "ranx", "map", "AP", _RANX_MAP, examples=same("map@100", "map")),
    PeerName("AP", "trec_eval", "gm_map", None, "trec_eval's gm_map is AP under the geometric mean: score AP with "
             "average geometric"),
)
