"""trec_eval's counting and set measures, vectorised over runs and topics (issue 42).

With n the documents a run returned for a topic (``@k``: at most k, trec_eval -M k),
rr the relevant ones among them (grade >= the threshold) and N_R the topic's relevant
documents in the qrels (trec_eval's names in brackets, ``m_*.c`` of trec_eval 10.0):

``NumQ`` (``num_q``), ``NumRet`` (``num_ret``), ``NumRel`` (``num_rel``), ``NumRelRet`` (``num_rel_ret``)
    1, n, N_R and rr per topic. trec_eval's summary line of num_ret, num_rel and num_rel_ret
    is their *sum* over the topics it evaluated, and num_q's the number of those topics;
    irmeta's means (the API's ``qid == "all"``, every table) are means like every other
    measure's (sum / topics), and ``irmeta score --format trec_eval`` prints trec_eval's
    sums (:data:`SUMMED`).
``Unjudged@k`` (``unj_k``)
    documents in the top k without a judgment (absent from the qrels, or a negative
    grade: trec_eval's "in the pool, unjudged") / k, missing ranks counting as judged
    (m_unjudged.c). Without ``@k``: k is the depth the runs were cut to.
``SetAP`` (``set_map``)
    rr^2 / (n N_R): set precision times set recall; 0 when n or N_R is 0.
``SetRelP`` (``set_relative_P``)
    rr / min(n, N_R); 0 when n or N_R is 0.
``RelP@k`` (``relative_P_k``)
    relevant in the top k / min(k, N_R); 0 when N_R is 0.
``Utility`` (``utility``; trec_eval's ``utility.a,b,c,d`` is
``Utility(rel_ret=a,nonrel_ret=b,rel_unret=c,nonrel_unret=d)``, -N its ``docs``)
    a rr + b (n - rr) + c (N_R - rr) + d (docs + rr - n - N_R), default a = 1, b = -1.
"""

from __future__ import annotations

import math

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.cutoffs import measure_depth, relevant_count
from irmeta.measures.registry import UNIT_RANGE, MeasureDefinition, RangeDeclaration, register, register_option_check

#: Families whose trec_eval summary line is a sum over the topics (num_q's: their count).
SUMMED = ("NumQ", "NumRet", "NumRel", "NumRelRet")


def returned_count(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """(S, Q) float64: n, the documents returned (at most k)."""
    n = matrix.length if cutoff is None else np.minimum(matrix.length, int(cutoff))
    return n.astype(np.float64)


def _relevant_per_topic(matrix: RelevanceMatrix) -> np.ndarray:
    return np.broadcast_to(matrix.n_relevant.astype(np.float64), (matrix.n_runs, matrix.n_topics))


def num_q(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """1 per topic evaluated (trec_eval ``num_q``)."""
    return np.ones((matrix.n_runs, matrix.n_topics), dtype=np.float64)


def num_ret(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """n, the documents returned (trec_eval ``num_ret``)."""
    return returned_count(matrix, cutoff)


def num_rel(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """N_R, the topic's relevant documents (trec_eval ``num_rel``)."""
    return _relevant_per_topic(matrix).copy()


def num_rel_ret(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """rr, the relevant documents returned (trec_eval ``num_rel_ret``)."""
    return relevant_count(matrix, cutoff).astype(np.float64)


def unjudged(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Unjudged@k = |top k without a grade >= 0| / k (trec_eval ``unj_k``)."""
    k = measure_depth(matrix, cutoff)
    judged = matrix.judged.top(k)
    graded = judged.counts_where(matrix.qrels_grade[judged.judgment] >= 0)
    n = np.minimum(matrix.length, k).astype(np.int64)
    return (n - matrix.grid(graded)).astype(np.float64) / float(k)


def set_ap(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """SetAP = rr^2 / (n N_R) (trec_eval ``set_map``)."""
    rr, n, r = num_rel_ret(matrix, cutoff), returned_count(matrix, cutoff), _relevant_per_topic(matrix)
    denominator = n * r
    return np.divide(rr * rr, denominator, out=np.zeros_like(rr), where=(n > 0) & (r > 0))


def set_relative_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """SetRelP = rr / min(n, N_R) (trec_eval ``set_relative_P``)."""
    rr, n, r = num_rel_ret(matrix, cutoff), returned_count(matrix, cutoff), _relevant_per_topic(matrix)
    return np.divide(rr, np.minimum(n, r), out=np.zeros_like(rr), where=(n > 0) & (r > 0))


def relative_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """RelP@k = relevant in the top k / min(k, N_R) (trec_eval ``relative_P_k``)."""
    k = measure_depth(matrix, cutoff)
    rr, r = relevant_count(matrix, k).astype(np.float64), _relevant_per_topic(matrix)
    return np.divide(rr, np.minimum(float(k), r), out=np.zeros_like(rr), where=r > 0)


def _finite(value: object) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"a utility coefficient must be a number, not {type(value).__name__} {value!r}")
    if not np.isfinite(float(value)):
        raise ValueError(f"a utility coefficient must be finite, not {value!r}")
    return float(value)


def _collection_size(value: object) -> float:
    size = _finite(value)
    if size < 0 or not size.is_integer():
        raise ValueError(f"docs (the collection's size, trec_eval -N) must be a whole number >= 0, not {value!r}")
    return size


UTILITY_OPTIONS = ("rel_ret", "nonrel_ret", "rel_unret", "nonrel_unret", "docs")
for _name in UTILITY_OPTIONS[:-1]:
    register_option_check(_name, _finite)
register_option_check("docs", _collection_size)


def utility(matrix: RelevanceMatrix, cutoff: int | None, *, rel_ret: float = 1.0, nonrel_ret: float = -1.0,
            rel_unret: float = 0.0, nonrel_unret: float = 0.0, docs: float = 0.0) -> np.ndarray:
    """Utility = a rr + b (n - rr) + c (N_R - rr) + d (docs + rr - n - N_R) (trec_eval ``utility``)."""
    rr, n, r = num_rel_ret(matrix, cutoff), returned_count(matrix, cutoff), _relevant_per_topic(matrix)
    a, b, c, d = (_finite(x) for x in (rel_ret, nonrel_ret, rel_unret, nonrel_unret))
    # trec_eval's expression, term by term in its order
    return a * rr + b * (n - rr) + c * (r - rr) + d * (_collection_size(docs) + rr - n - r)


#: A count of documents: 0 up, unbounded.
_COUNT = RangeDeclaration(high=math.inf)

register(MeasureDefinition("NumQ", num_q, "1 per topic evaluated (trec_eval num_q; its summary: the count)",
                           value_range=RangeDeclaration(low=1.0, high=1.0)))
register(MeasureDefinition("NumRet", num_ret, "documents returned (trec_eval num_ret; its summary: the sum)",
                           value_range=_COUNT))
register(MeasureDefinition("NumRel", num_rel, "relevant documents in the qrels (trec_eval num_rel; summary: sum)",
                           value_range=_COUNT))
register(MeasureDefinition("NumRelRet", num_rel_ret, "relevant documents returned (trec_eval num_rel_ret; "
                           "summary: sum)", value_range=_COUNT))
register(MeasureDefinition("Unjudged", unjudged, "share of the top k without a judgment (trec_eval unj_k)",
                           higher_is_better=False, value_range=UNIT_RANGE))
register(MeasureDefinition("SetAP", set_ap, "rr^2 / (returned N_R) (trec_eval set_map)",
                           value_range=UNIT_RANGE))
register(MeasureDefinition("SetRelP", set_relative_precision, "rr / min(returned, N_R) (trec_eval set_relative_P)",
                           value_range=UNIT_RANGE))
register(MeasureDefinition("RelP", relative_precision, "relevant in the top k / min(k, N_R) (trec_eval relative_P_k)",
                           value_range=UNIT_RANGE))
register(MeasureDefinition("Utility", utility, "linear set utility a rr + b nonrel_ret + c rel_unret + d nonrel_unret "
                           "(trec_eval utility)", options=UTILITY_OPTIONS,
                           value_range=RangeDeclaration(low=-math.inf, high=math.inf)))  # its coefficients' signs
