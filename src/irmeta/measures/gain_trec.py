"""trec_eval's experimental gain measures (issue 42): G, binG, ndcg_rel and Rndcg, with the
arithmetic of m_G.c, m_binG.c, m_ndcg_rel.c and m_Rndcg.c (trec_eval 10.0).

Gains are trec_eval's default: a judged document's grade (every grade >= 0, whatever the
threshold; unjudged documents and negative grades gain 0), or a ``gains`` map's, the
grades it does not name gaining 0 or, with ``gains_rest=grade``, their grade: trec_eval's
``G.1=3,2=5`` is ``G(gains={1:3,2:5},gains_rest=grade)``. ideal(j), j = 0, 1, ... is the
topic's positive gains sorted descending (M of them, every judged document of the topic,
found or not), 0 past them. i is a document's 0-based rank, n the documents returned
(``@k``: cut at k first, trec_eval -M k).

``binG`` (``binG``)
    (1/N_R) sum over the relevant documents returned of 1 / log2(2 + non-relevant above it).
``G`` (``G``)
    (1/sum ideal) sum over the returned documents with a gain g_i of
    g_i / log2(2 + cost(i) - got(i)), cost(i) = sum_{j<=i} max(ideal(j), 1) and
    got(i) = sum of the gains at ranks <= i.
``nDCG_rel`` (``ndcg_rel``)
    nDCG averaged over the M positive-gain documents: at each returned one,
    DCG(i) / IDCG(min(i, M - 1)); each not returned counts DCG(n) / IDCG(M - 1); divided by M.
``Rndcg`` (``Rndcg``)
    nDCG averaged at the "R levels", the ranks b where the ideal gain changes
    (ideal(b) != ideal(b - 1), 1 <= b <= M): DCG of the top b / IDCG of the top b, and,
    when the run returned more than M + 1 documents (trec_eval's loop stops one rank past
    the ideal), its whole DCG / IDCG; 0 when N_R = 0.

DCG(i) sums g / log2(rank + 1) in rank order, IDCG the ideal's, as trec_eval's loops.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.measures.cutoffs import divide_by_relevant
from irmeta.measures.graded import GainMap, ideal_gains, judgment_gains
from irmeta.measures.registry import (
    UNIT_RANGE,
    MeasureDefinition,
    register,
    register_peer_names,
    trec_eval_word,
)


def grade_gains(matrix: RelevanceMatrix, gains: GainMap | None = None, rest: str = "zero") -> np.ndarray:
    """(J,) float64: trec_eval's default gain, the grade of a judged document (0 below 0),
    or the ``gains`` map's (the grades it does not name: ``rest``)."""
    if gains is None:
        return np.maximum(matrix.qrels_grade, 0).astype(np.float64)
    return judgment_gains(matrix, gains, below_threshold=True, rest=rest)


def _gain_carriers(matrix: RelevanceMatrix, gain: np.ndarray, cutoff: int | None) -> Postings:
    judged = matrix.judged.top(cutoff)
    keep = gain[judged.judgment] > 0
    if keep.all():
        return judged
    return Postings(offsets_from_counts(judged.counts_where(keep)), judged.rank[keep], judged.judgment[keep])


def _discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank.astype(np.float64) + 1.0)  # trec_eval: log2(i + 2), i = rank - 1


def binary_g(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """binG = (1/N_R) sum_relevant 1 / log2(3 + i - r), r the relevant up to it (trec_eval ``binG``)."""
    hits = matrix.hits.top(cutoff)
    term = 1.0 / np.log2((hits.rank + 1 - hits.position).astype(np.float64))
    return divide_by_relevant(matrix.grid(hits.ordered_sums(term)), matrix.n_relevant)


def normalised_gain(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
                    gains_rest: str = "zero") -> np.ndarray:
    """G = sum g_i / log2(2 + cost(i) - got(i)) / sum ideal (trec_eval ``G``)."""
    gain = grade_gains(matrix, gains, gains_rest)
    ideal = ideal_gains(matrix, gain)
    # extra cost of the ideal's first j + 1 positions over 1 each: cumsum(max(ideal, 1) - 1)
    extra = np.cumsum(np.where(ideal > 0, np.maximum(ideal, 1.0) - 1.0, 0.0), axis=1)
    carriers = _gain_carriers(matrix, gain, cutoff)
    g = gain[carriers.judgment]
    got = carriers.running_sums(g)
    topic = matrix.topic_of(carriers)
    i = carriers.rank.astype(np.int64) - 1
    width = extra.shape[1]
    cost = (i + 1).astype(np.float64)
    if width:
        cost = cost + extra[topic, np.minimum(i, width - 1)]
    term = g / np.log2(2.0 + cost - got)
    total = ideal.sum(axis=1)
    value = matrix.grid(carriers.ordered_sums(term))
    return np.divide(value, total, out=np.zeros_like(value), where=total > 0)


def _ideal_dcg(matrix: RelevanceMatrix, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal gains (Q, M), their running IDCG (Q, M) and M per topic."""
    ideal = ideal_gains(matrix, gain)
    m = (ideal > 0).sum(axis=1)
    idcg = np.cumsum(ideal / _discount(np.arange(1, ideal.shape[1] + 1)), axis=1)
    return ideal, idcg, m


def ndcg_rel(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
             gains_rest: str = "zero") -> np.ndarray:
    """nDCG_rel: nDCG averaged over the positive-gain documents (trec_eval ``ndcg_rel``)."""
    gain = grade_gains(matrix, gains, gains_rest)
    ideal, idcg, m = _ideal_dcg(matrix, gain)
    carriers = _gain_carriers(matrix, gain, cutoff)
    g = gain[carriers.judgment]
    dcg = carriers.running_sums(g / _discount(carriers.rank))
    topic = matrix.topic_of(carriers)
    if idcg.shape[1]:
        at = np.minimum(carriers.rank.astype(np.int64) - 1, np.maximum(m[topic] - 1, 0))
        below = idcg[topic, at]
    else:
        below = np.ones(len(carriers))
    total = matrix.grid(carriers.ordered_sums(dcg / below))
    found = matrix.cell_counts(carriers).astype(np.float64)
    final_dcg = matrix.grid(carriers.ordered_sums(g / _discount(carriers.rank)))
    last = idcg[np.arange(matrix.n_topics), np.maximum(m - 1, 0)] if idcg.shape[1] else np.zeros(matrix.n_topics)
    mf = m.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + ((mf - found) * final_dcg) / last
    with np.errstate(invalid="ignore"):
        positive = total > 0
    return np.divide(total, mf, out=np.zeros_like(total), where=positive & (mf > 0))


def _dcg_at(carriers: Postings, dcg: np.ndarray, cell_b: np.ndarray) -> np.ndarray:
    """(cells,) DCG of each cell's top b (``cell_b`` per cell): the running DCG at its last
    carrier ranked <= b, 0 before its first."""
    span = np.int64(max(int(carriers.rank.max(initial=0)), int(cell_b.max(initial=0))) + 1)
    keys = carriers.cell * span + carriers.rank
    cells = np.arange(carriers.n_cells, dtype=np.int64)
    last = np.searchsorted(keys, cells * span + cell_b, side="right") - 1
    has = last >= carriers.start[:-1]
    out = np.zeros(carriers.n_cells, dtype=np.float64)
    out[has] = dcg[last[has]]
    return out


def r_ndcg(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
           gains_rest: str = "zero") -> np.ndarray:
    """Rndcg: nDCG averaged at the ranks where the ideal gain changes (trec_eval ``Rndcg``)."""
    gain = grade_gains(matrix, gains, gains_rest)
    ideal, idcg, m = _ideal_dcg(matrix, gain)
    carriers = _gain_carriers(matrix, gain, cutoff)
    g = gain[carriers.judgment]
    dcg = carriers.running_sums(g / _discount(carriers.rank))
    n_cells = carriers.n_cells
    topic_of_cell = np.tile(np.arange(matrix.n_topics), matrix.n_runs)
    total = np.zeros(n_cells, dtype=np.float64)
    count = np.zeros(n_cells, dtype=np.int64)
    width = ideal.shape[1]
    if width:
        # boundaries b in 1..M: ideal(b) != ideal(b - 1), ideal(M) = 0 always a boundary
        padded = np.concatenate([ideal, np.zeros((matrix.n_topics, 1))], axis=1)
        change = padded[:, 1:] != padded[:, :-1]  # (Q, width): boundary at b = column + 1
        change &= np.arange(1, width + 1)[None, :] <= m[:, None]
        order = np.cumsum(change, axis=1)
        for step in range(1, int(order[:, -1].max(initial=0)) + 1):
            is_b = change & (order == step)
            has = is_b.any(axis=1)
            b = np.where(has, np.argmax(is_b, axis=1) + 1, 0)  # (Q,)
            cell_b = b[topic_of_cell]
            on = has[topic_of_cell]
            value = _dcg_at(carriers, dcg, cell_b) / np.where(on, idcg[topic_of_cell, np.maximum(cell_b - 1, 0)], 1.0)
            total = np.where(on, total + value, total)
            count += on
        n = (matrix.length if cutoff is None else np.minimum(matrix.length, int(cutoff))).ravel()
        beyond = n > m[topic_of_cell] + 1  # trec_eval's loop ends at rank M + 1 past the ideal
        full = carriers.ordered_sums(g / _discount(carriers.rank))
        last = idcg[topic_of_cell, np.maximum(m[topic_of_cell] - 1, 0)]
        extra = beyond & (last > 0)
        total = np.where(extra, total + full / np.where(extra, last, 1.0), total)
        count += extra
    value = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    value[matrix.n_relevant[topic_of_cell] == 0] = 0.0
    return matrix.grid(value)


register(MeasureDefinition("binG", binary_g, "binary G: relevant documents' 1 / log2(2 + non-relevant above) "
                           "(trec_eval binG)", value_range=UNIT_RANGE))
_GAINS = ("gains", "gains_rest")
register(MeasureDefinition("G", normalised_gain, "trec_eval's normalised gain G (m_G.c)", options=_GAINS,
                           value_range=UNIT_RANGE))
register(MeasureDefinition("nDCG_rel", ndcg_rel, "nDCG averaged over the positive-gain documents (trec_eval ndcg_rel)",
                           options=_GAINS, value_range=UNIT_RANGE))
register(MeasureDefinition("Rndcg", r_ndcg, "nDCG averaged at the ideal's gain-level changes (trec_eval Rndcg)",
                           options=_GAINS, value_range=UNIT_RANGE))

register_peer_names(
    trec_eval_word("binG", "binG"), trec_eval_word("G", "G"), trec_eval_word("nDCG_rel", "ndcg_rel"),
    trec_eval_word("Rndcg", "Rndcg"),
)
