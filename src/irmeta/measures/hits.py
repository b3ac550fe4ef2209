"""ranx's counts at k (issue 42): ``Hits@k`` and ``F1@k``, vectorised over runs and topics.

"Relevant" is judged with grade >= the threshold (ranx's ``rel_lvl``, its ``-lN`` suffix),
N_R the topic's relevant documents in the qrels.

``Hits@k`` (ranx's ``hits@k``)
    relevant documents in the top k; without ``@k``, in the whole list (ranx's ``hits``;
    trec_eval's ``num_rel_ret``). A count, not a share: its mean is the mean count.
``F1@k`` (ranx's ``f1@k``)
    2 P R / (P + R) with P = Hits@k / k (irmeta's ``P@k``: k as written, however short
    the list; ``SetF@k`` divides by the documents returned instead) and R = Hits@k / N_R
    (``Recall@k``); 0 when N_R = 0 or no relevant document is in the top k. Without
    ``@k``, k is the length of the list, as ranx reads its ``f1``: trec_eval's ``set_F``,
    which is what ranx's ``f1`` reads as (``SetF``).
"""

from __future__ import annotations

import math

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.cutoffs import relevant_count
from irmeta.measures.registry import (
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    RangeDeclaration,
    register,
    register_peer_names,
    same,
)


def hits(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Hits@k = |relevant in top k| (ranx ``hits@k``); the whole list without k."""
    return relevant_count(matrix, cutoff).astype(np.float64)


def f1(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """F1@k = 2 P R / (P + R), P = Hits@k / k, R = Hits@k / N_R (ranx ``f1@k``), in ranx's
    arithmetic: 2 ((P R) / (P + R)); k the list's length without ``@k``."""
    found = hits(matrix, cutoff)
    k = matrix.length.astype(np.float64) if cutoff is None else np.full(found.shape, float(cutoff))
    precision = np.divide(found, k, out=np.zeros_like(found), where=k > 0)
    n_relevant = np.broadcast_to(matrix.n_relevant.astype(np.float64), found.shape)
    recall = np.divide(found, n_relevant, out=np.zeros_like(found), where=n_relevant > 0)
    both = precision + recall
    return 2.0 * np.divide(precision * recall, both, out=np.zeros_like(found), where=both > 0)


register(MeasureDefinition("Hits", hits, "relevant documents in the top k, a count (ranx hits@k)",
                           value_range=RangeDeclaration(high=math.inf)))
register_peer_names(
    PeerName("Hits", "ranx", "hits", "Hits", "the relevant documents in the top k, a count (without k: in the whole "
             "list)", examples=same("hits@10", "hits")),
)


register(MeasureDefinition("F1", f1, "harmonic mean of P@k and Recall@k (ranx f1@k)",
                           value_range=UNIT_RANGE))
register_peer_names(
    PeerName("F1", "ranx", "f1", "F1", "2 P R / (P + R), P = hits@k / k (not SetF@k, which divides by the documents "
             "returned)", cutoff=True, examples=same("f1@10")),
)
