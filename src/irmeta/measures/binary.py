"""trec_eval's other binary-relevance measures, vectorised over runs and topics.

Each maps a :class:`~irmeta.campaign.postings.RelevanceMatrix` to per-topic scores (runs, topics)
with trec_eval's arithmetic (trec_eval 9, ``m_*.c``). "Relevant" is judged with grade
>= the threshold (trec_eval -l), N_R the topic's relevant documents in the qrels, and
``@k`` cuts the runs at rank k first, as ``AP@k`` does (trec_eval -M k); without it the
whole run counts. Registered names (trec_eval's in brackets):

``Recall@k`` (``recall_k``; ir_measures' ``R@k``)
    relevant documents in the top k / N_R; 0 when N_R = 0.
``Rprec`` (``Rprec``)
    relevant documents in the top N_R / N_R: precision at the rank where it equals
    recall; 0 when N_R = 0.
``Bpref`` (``bpref``; Buckley and Voorhees, SIGIR 2004)
    (1/N_R) sum over the relevant documents returned of
    1 - min(n, N_R) / min(N_N, N_R), n the judged non-relevant documents ranked above,
    N_N the topic's judged non-relevant documents (0 <= grade < threshold); a term is 1
    when n = 0. Unjudged documents and negative grades (trec_eval's "unjudged in the
    pool") count neither way.
``SetP``, ``SetR``, ``SetF`` (``set_P``, ``set_recall``, ``set_F``)
    the returned list as a set: relevant returned / returned, relevant returned / N_R,
    and their weighted harmonic mean (x + 1) P R / (x P + R), x = ``recall_weight``, the
    relative importance of R to P as trec_eval's ``set_F.x`` and ir_measures' ``SetF(beta=x)``
    take it (the textbook F_b's b^2; not named beta here, which is Sakai's blended-ratio
    option and --beta's; default 1: 2 P R / (P + R)); 0 when the numerator is 0.
``Success@k`` (``success_k``)
    1 if a relevant document is in the top k, else 0.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.cutoffs import divide_by_relevant, relevant_count, top_ranks
from irmeta.measures.registry import (
    NUMBER,
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    RangeDeclaration,
    register,
    register_option_check,
    register_peer_names,
    same,
    trec_eval_cut,
    trec_eval_word,
)


def recall(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Recall@k = |relevant in top k| / N_R (trec_eval ``recall_k``)."""
    return divide_by_relevant(relevant_count(matrix, cutoff).astype(np.float64), matrix.n_relevant)


def r_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Rprec = |relevant in top N_R| / N_R (trec_eval ``Rprec``)."""
    hits = top_ranks(matrix, cutoff)
    within = hits.rank <= matrix.n_relevant[matrix.topic_of(hits)]  # the top N_R
    count = np.bincount(hits.cell[within], minlength=hits.n_cells)
    return divide_by_relevant(matrix.grid(count).astype(np.float64), matrix.n_relevant)


def bpref(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Bpref = (1/N_R) sum_{relevant r} (1 - min(n_r, N_R) / min(N_N, N_R)) (trec_eval ``bpref``)."""
    hits = top_ranks(matrix, cutoff)
    misses = matrix.misses.top(cutoff)
    nonrel = matrix.grade_of(misses) >= 0  # negative grades: in the pool, unjudged
    span = np.int64(max(int(hits.rank.max(initial=0)), int(misses.rank.max(initial=0))) + 1)
    keys = misses.cell[nonrel] * span + misses.rank[nonrel]  # sorted: cells, then ranks
    above = np.searchsorted(keys, hits.cell * span + hits.rank) - np.searchsorted(keys, hits.cell * span)
    graded = matrix.qrels_grade
    n_nonrel = np.bincount(matrix.qrels_topic[(graded >= 0) & (graded < matrix.threshold)],
                           minlength=matrix.n_topics)
    n_rel = matrix.n_relevant
    topic = matrix.topic_of(hits)
    denominator = np.minimum(n_nonrel, n_rel)[topic].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # n > 0 implies a positive denominator
        term = np.where(above > 0, 1.0 - np.minimum(above, n_rel[topic]) / denominator, 1.0)
    # Summed in rank order, as trec_eval's loop adds the terms.
    return divide_by_relevant(matrix.grid(hits.ordered_sums(term)), n_rel)


def _set_counts(matrix: RelevanceMatrix, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Relevant documents returned and documents returned (in the top k), as float64."""
    returned = matrix.length if cutoff is None else np.minimum(matrix.length, cutoff)
    return relevant_count(matrix, cutoff).astype(np.float64), returned.astype(np.float64)


def set_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """SetP = relevant returned / returned (trec_eval ``set_P``); 0 for an empty list."""
    hits, returned = _set_counts(matrix, cutoff)
    return np.divide(hits, returned, out=np.zeros_like(hits), where=returned > 0)


def set_recall(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """SetR = relevant returned / N_R (trec_eval ``set_recall``)."""
    return recall(matrix, cutoff)


def _weight(weight: object) -> float:
    """SetF's recall_weight: a finite number >= 0."""
    if isinstance(weight, (bool, np.bool_)) or not isinstance(weight, (int, float, np.integer, np.floating)):
        raise TypeError(f"SetF's recall_weight must be a number >= 0, not {type(weight).__name__} {weight!r}")
    x = float(weight)
    if not (np.isfinite(x) and x >= 0):
        raise ValueError(f"SetF's recall_weight must be a finite number >= 0, not {weight!r}")
    return x


register_option_check("recall_weight", _weight)


def set_f(matrix: RelevanceMatrix, cutoff: int | None, *, recall_weight: float = 1.0) -> np.ndarray:
    """SetF = (x + 1) P R / (x P + R), x = recall_weight (trec_eval ``set_F.x``); 0 with no relevant returned."""
    hits, _ = _set_counts(matrix, cutoff)
    p, r = set_precision(matrix, cutoff), set_recall(matrix, cutoff)
    x = _weight(recall_weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(hits > 0, (x + 1.0) * p * r / (x * p + r), 0.0)


def success(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k, else 0 (trec_eval ``success_k``)."""
    return (relevant_count(matrix, cutoff) > 0).astype(np.float64)


register(MeasureDefinition("Recall", recall, "recall at k: relevant in the top k / N_R (trec_eval recall_k)",
                           value_range=UNIT_RANGE))


register(MeasureDefinition("Rprec", r_precision, "precision at rank N_R (trec_eval Rprec)",
                           value_range=UNIT_RANGE))


register(MeasureDefinition("Bpref", bpref, "binary preference over judged documents (trec_eval bpref)",
                           value_range=UNIT_RANGE))


register(MeasureDefinition("SetP", set_precision, "relevant returned / returned (trec_eval set_P)",
                           value_range=UNIT_RANGE))


register(MeasureDefinition("SetR", set_recall, "relevant returned / N_R (trec_eval set_recall)",
                           value_range=UNIT_RANGE))


register(MeasureDefinition("SetF", set_f, "weighted harmonic mean of SetP and SetR (trec_eval set_F)",
                           options=("recall_weight",), value_range=UNIT_RANGE))


register(MeasureDefinition("Success", success, "1 if a relevant document is in the top k (trec_eval success_k)",
                           value_range=RangeDeclaration(grid="binary")))

# ir_measures' rel=t on its binary measures (P, AP, R, RR, Rprec, Bpref, SetP, SetR, SetF,
# SetAP, Success, infAP, IPrec): a grade >= t is relevant. irmeta's relevance threshold
# is one for all the measures scored (trec_eval's -l), so the name is refused naming it.
_IR_MEASURES_REL = ("ir_measures' rel={1} counts a grade >= {1} as relevant, which irmeta sets for every measure at "
                    "once: write {0} without rel= and score with --threshold {1} (threshold={1} in the API, "
                    "relevance_threshold in a collection's YAML)")
_IR_MEASURES_REL_PATTERN = (r"(?i)(P|AP|MAP|R|Recall|RR|MRR|Rprec|RPrec|Bpref|BPref|SetP|SetR|SetF|SetAP|Success|"
                            r"infAP|IPrec)\([^()]*?\brel\s*=\s*(\d+)[^()]*\)(?:@\d*\.?\d+)?")

register_peer_names(
    trec_eval_cut("Recall", "recall", 100),
    PeerName("Recall", "ir_measures", "R", "Recall", "relevant in the top k / relevant", examples=same("R@100")),
    PeerName("Recall", "ir_measures", "Recall", "Recall", "relevant in the top k / relevant",
             examples=same("Recall@100")),
    PeerName("Recall", "ranx", "recall", "Recall", "relevant in the top k / relevant", examples=same("recall@100")),
    trec_eval_word("Rprec", "Rprec"),
    PeerName("Rprec", "ir_measures", "RPrec", "Rprec", examples=same("RPrec")),
    PeerName("Rprec", "ranx", "r-precision", "Rprec", "P@R, R the relevant documents", examples=same("r-precision")),
    PeerName("Rprec", "ranx", "r_precision", "Rprec", "ranx's r-precision, with an underscore",
             examples=(("r_precision", "r-precision"),)),
    trec_eval_word("Bpref", "bpref"),
    PeerName("Bpref", "ir_measures", "BPref", "Bpref", examples=same("BPref")),
    PeerName("Bpref", "ranx", "bpref", "Bpref", examples=same("bpref")),
    trec_eval_word("SetP", "set_P"),
    PeerName("SetP", "ranx", "precision", "SetP", "without k ranx divides by the documents returned: trec_eval's set_P",
             cutoff=False, examples=same("precision")),
    trec_eval_word("SetR", "set_recall"),
    trec_eval_word("SetF", "set_F"),
    PeerName("SetF", "trec_eval", "set_F.x", "SetF(recall_weight={0})", "x weighs recall against precision: "
             "(x + 1) P R / (x P + R)", pattern=r"set_F[._]" + NUMBER, examples=same("set_F.0.5"),
             symbols=("x",)),
    PeerName("SetF", "ir_measures", "SetF(beta=x)", "SetF(recall_weight={0})", "ir_measures passes beta to "
             "trec_eval's set_F.x: (x + 1) P R / (x P + R), not the textbook F_beta's beta^2",
             pattern=r"SetF\(beta=" + NUMBER + r"\)", examples=same("SetF(beta=0.5)", "SetF(beta=2.0)"),
             symbols=("x",)),
    PeerName("SetF", "ranx", "f1", "SetF", "without k: 2 set_P set_recall / (set_P + set_recall)", cutoff=False,
             examples=same("f1")),
    trec_eval_cut("Success", "success"),
    PeerName("Success", "ir_measures", "Success", "Success", cutoff=True, examples=same("Success@10")),
    PeerName("Success", "ranx", "hit_rate", "Success", "1 if a relevant document is in the top k (ranx: trec_eval's "
             "success)", examples=same("hit_rate@10")),
    PeerName("P", "ir_measures", "M(rel=t)", None, _IR_MEASURES_REL, pattern=_IR_MEASURES_REL_PATTERN,
             symbols=("M", "t")),
)
