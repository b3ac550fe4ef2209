"""The intent-aware diversity measures of ndeval (TREC Web track 2009-2014), on subtopic
qrels (:mod:`irmeta.campaign.subtopics`), as ndeval 4.5 computes them.

A topic has N subtopics (those with a relevant document: ndeval's ``actualSubtopics``);
a document is relevant to a subtopic at a grade at or above the threshold (ndeval's
judgments are binary: grade >= 1). Going down a ranking, the document at rank r earns

    g(r) = sum over its subtopics j of (1 - alpha)^c_j(r),

c_j(r) the documents above it relevant to j (Clarke et al., SIGIR 2008), the sum taken in
the subtopics' order. ``alpha`` (redundancy intolerance, ndeval's -alpha) defaults to 0.5.

``alpha_DCG@k``
    sum_{r<=k} g(r) / log2(r + 1), divided by the ideal-ideal sum_{r<=k} N (1 - alpha)^(r-1)
    / log2(r + 1) (every subtopic at every rank: ndeval's collection-independent
    normalisation).
``alpha_nDCG@k``
    alpha-DCG@k over the ideal ranking's (Clarke et al. 2008); the ideal is ndeval's greedy
    one: at each rank the judged document of the largest g, ties to the larger docid.
``ERR_IA@k``
    sum_{r<=k} g(r) / r over the ideal-ideal sum_{r<=k} N (1 - alpha)^(r-1) / r (Chapelle et
    al., CIKM 2009, intent-aware, with alpha as every relevant document's stopping
    probability); ``nERR_IA@k`` over the greedy ideal ranking's instead.
``NRBP``, ``nNRBP``
    (1 - (1 - alpha) beta) / N sum_r g(r) beta^(r-1) (Clarke, Kolla and Vechtomova, ICTIR
    2009; beta the patience, ndeval's -beta, 0.5), over the whole list (``@k``: its top k,
    ndeval -M k); nNRBP over the greedy ideal ranking's.
``P_IA@k``
    (1/N) sum_j (documents relevant to j in the top k) / k.
``AP_IA``
    (1/N) sum_j AP_j, AP_j the average precision of subtopic j over its relevant documents.
``StRecall@k``
    subtopics with a relevant document in the top k, over N.

Measures whose value depends on k itself (alpha_DCG, ERR_IA, P_IA) take k from the runs'
depth when written without @k, as P does; the others read the whole list. A topic without
a relevant document (N = 0) scores 0, as in ndeval, whose nNRBP is then 0/0 (printed nan).
ndeval leaves alpha-DCG@1 and ERR-IA@1 undivided by their normalisation (its loop starts
at rank 2), so those two are refused rather than given another meaning. Ties in a run are
ordered as ndeval -traditional and trec_eval order them (score, then docid, descending);
pyndeval breaks them by docid ascending. Only the relevant postings are read, and the
subtopics of those: nothing is computed for a campaign until a diversity measure is asked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.cutoffs import measure_depth
from irmeta.measures.names import Measure
from irmeta.measures.registry import (
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    RangeDeclaration,
    register,
    register_option_check,
    register_peer_names,
    same,
)

ALPHA = 0.5  # ndeval's ALPHA
PATIENCE = 0.5  # ndeval's BETA

#: The families that read subtopic judgments.
DIVERSITY_FAMILIES: list[str] = []


def _unit_interval(name: str, what: str):
    def check(value: object) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{what} {name} must be a number in [0, 1], not {type(value).__name__} {value!r}")
        number = float(value)
        if not 0.0 <= number <= 1.0:
            raise ValueError(f"{what} {name} must be in [0, 1] (as ndeval takes it), not {value!r}")
        return number
    return check


_alpha = _unit_interval("alpha", "the diversity measures' redundancy intolerance")
_patience = _unit_interval("patience", "NRBP's")
register_option_check("alpha", _alpha)
register_option_check("patience", _patience)


def needs_subtopics(family: str) -> bool:
    """Whether the family reads subtopic judgments (a diversity measure)."""
    return family in DIVERSITY_FAMILIES


def refuse_without_subtopics(measures: Iterable[Measure], has_subtopics: bool, source: str = "the qrels") -> None:
    """Refuse, in one line, a diversity measure over qrels without subtopics."""
    wanted = [str(m) for m in measures if needs_subtopics(m.family)]
    if wanted and not has_subtopics:
        raise ValueError(f"{', '.join(wanted)}: a diversity measure needs subtopic qrels (topic subtopic docid grade), "
                         f"not ordinary ones ({source}): read them in the subtopics format (--qrels-format "
                         f"subtopics; qrels_format: subtopics in a collection; qrels_format='subtopics' in the API)")


# ---------------------------------------------------------------- what they read


class _Intents:
    """The relevant postings within a cutoff, with what every diversity measure reads of
    them: ``relevant`` (n, width) their subtopics, ``seen`` (n, width) how many documents
    above each in its list are relevant to each subtopic, ``n_subtopics`` (Q,) N."""

    def __init__(self, matrix: RelevanceMatrix, cutoff: int | None, name: str):
        judgments = matrix.subtopics
        if judgments is None:
            raise ValueError(f"{name} needs subtopic judgments: subtopic qrels (topic subtopic docid grade) read in "
                             f"the subtopics format (--qrels-format subtopics; qrels_format: subtopics in a "
                             f"collection)")
        self.matrix = matrix
        self.postings: Postings = matrix.hits.top(cutoff)
        self.relevant = judgments.relevant(matrix.threshold)[self.postings.judgment]
        counts = np.cumsum(self.relevant, axis=0, dtype=np.int32)
        counts -= self.relevant
        if len(self.postings):  # less what lies above the cell's first posting
            counts -= counts[self.postings.start[:-1][self.postings.cell]]
        self.seen = counts
        self.per_subtopic = judgments.relevant_per_subtopic(matrix.threshold, matrix.qrels_topic, matrix.n_topics)
        self.n_subtopics = (self.per_subtopic > 0).sum(axis=1)

    @property
    def topic(self) -> np.ndarray:
        return self.matrix.topic_of(self.postings)

    def gains(self, alpha: float) -> np.ndarray:
        """(n,) g(r) of each posting, its subtopics' (1 - alpha)^c summed in their order."""
        weight = _powers(1.0 - alpha, int(self.seen.max(initial=0)) + 1)
        out = np.zeros(len(self.postings), dtype=np.float64)
        for j in range(self.relevant.shape[1]):
            out += np.where(self.relevant[:, j], weight[self.seen[:, j]], 0.0)
        return out

    def cell_sums(self, values: np.ndarray) -> np.ndarray:
        """(runs, topics): each cell's ``values`` summed in rank order."""
        return self.matrix.grid(self.postings.ordered_sums(values))

    def per_topic(self, values: np.ndarray) -> np.ndarray:
        """(Q,) values as (runs, topics), broadcast."""
        return np.broadcast_to(values, (self.matrix.n_runs, self.matrix.n_topics))


def _powers(base: float, n: int, first: float = 1.0) -> np.ndarray:
    """(n,) first, first base, first base^2, ... by repeated multiplication (a sequential
    product), as ndeval's running weights."""
    factors = np.full(max(n, 1), base, dtype=np.float64)
    factors[0] = first
    return np.cumprod(factors)


def _dcg_weighed(values: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """values / log2(r + 1), as ndeval writes it: values * (log 2 / log(r + 1))."""
    return values * (np.log(2.0) / np.log(rank + 1.0))


def _err_weighed(values: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """values / r."""
    return values / rank


_CHUNK = 1 << 16  # ranks of the ideal-ideal summed at a time


def _ideal_ideal(n_subtopics: np.ndarray, alpha: float, weighed, k: int) -> np.ndarray:
    """(Q,) sum_{r<=k} of N (1 - alpha)^(r-1) weighed at rank r: every subtopic at every
    rank (ndeval's collection-independent normalisation), N's gain multiplied down and
    the terms added in rank order as ndeval does; once the gain underflows to 0 the sum
    stops growing, so a k of 2^31 costs what the nonzero terms do (all of them at alpha 0)."""
    out = np.zeros(len(n_subtopics), dtype=np.float64)
    for n in np.unique(n_subtopics[n_subtopics > 0]).tolist():
        total, gain, start = 0.0, float(n), 1
        while start <= k and gain != 0.0:
            m = min(_CHUNK, k - start + 1)
            gains = _powers(1.0 - alpha, m, gain)
            terms = weighed(gains, np.arange(start, start + m, dtype=np.float64))
            total = float(np.cumsum(np.concatenate(([total], terms)))[-1])
            gain, start = float(gains[-1]) * (1.0 - alpha), start + m
        out[n_subtopics == n] = total
    return out


def _check_k(name: str, k: int) -> None:
    if k < 2:
        raise ValueError(f"{name}@1: ndeval leaves {name}@1 undivided by its normalisation (its loop starts at rank "
                         f"2), so it can exceed 1; irmeta gives no other meaning to the name: write {name}@k with "
                         f"k >= 2, or the normalised form")


# ------------------------------------------------------------- the ideal rankings


def ideal_gains(matrix: RelevanceMatrix, alpha: float, depth: int | None) -> np.ndarray:
    """(Q, m) g(r) down ndeval's greedy ideal ranking of each topic (0 past its relevant
    documents), m = ``depth`` (None: as deep as the most relevant documents a topic has):
    at each rank the judged document of the largest g, ties to the larger docid, g summed
    in the subtopics' order as ndeval sums it. Made once per alpha (at the deepest depth asked).
    Past the columns returned every g is 0."""
    judgments = matrix.subtopics
    assert judgments is not None
    cache: dict = judgments.memo(("ideal", matrix.threshold, alpha), dict)  # type: ignore[assignment]
    deepest = cache.get("gains")
    # a greedy ranking's top m is the deeper one's: the deepest made serves every shallower depth
    if deepest is None or not (cache["whole"] or (depth is not None and depth <= deepest.shape[1])):
        deepest = cache["gains"] = _greedy(matrix, alpha, depth)
        cache["whole"] = depth is None or deepest.shape[1] < depth  # fewer ranks than asked: every document placed
    return deepest if depth is None else deepest[:, :depth]


def _greedy(matrix: RelevanceMatrix, alpha: float, depth: int | None) -> np.ndarray:
    """:func:`ideal_gains` made: every topic's greedy ranking at once, rank by rank, over
    its documents relevant to a subtopic (the others gain 0 at any rank), padded to the
    most a topic has, docids descending so that the first largest g is ndeval's pick."""
    judgments = matrix.subtopics
    assert judgments is not None
    relevant = judgments.relevant(matrix.threshold)
    rows = np.flatnonzero(relevant.any(axis=1))
    topic = matrix.qrels_topic[rows]
    names = matrix.docids.take(rows).cast("large_binary").to_pylist()  # byte order, as strcmp
    by_name = np.asarray(sorted(range(len(rows)), key=names.__getitem__, reverse=True), dtype=np.int64)
    order = by_name[np.argsort(topic[by_name], kind="stable")]  # topics ascending, docids descending within
    rows, topic = rows[order], topic[order]
    counts = np.bincount(topic, minlength=matrix.n_topics)
    width = int(counts.max(initial=0))
    m = width if depth is None else min(int(depth), width)
    out = np.zeros((matrix.n_topics, m), dtype=np.float64)  # deeper ranks would gain 0
    if m == 0:
        return out
    place = np.arange(len(rows)) - (np.cumsum(counts) - counts)[topic]
    candidates = np.zeros((matrix.n_topics, width, judgments.width), dtype=bool)
    candidates[topic, place] = relevant[rows]
    left = np.zeros((matrix.n_topics, width), dtype=bool)
    left[topic, place] = True
    weight = np.ones((matrix.n_topics, judgments.width), dtype=np.float64)
    by_size = np.argsort(-counts, kind="stable")
    for r in range(m):
        active = by_size[:int((counts > r).sum())]  # the topics with a document still to place
        cols = int(counts[active[0]])
        score = np.zeros((len(active), cols), dtype=np.float64)
        mine = candidates[active, :cols]
        for j in range(judgments.width):
            score += np.where(mine[:, :, j], weight[active, j][:, None], 0.0)
        score[~left[active, :cols]] = -1.0
        pick = np.argmax(score, axis=1)  # the first largest: the larger docid
        out[active, r] = score[np.arange(len(active)), pick]
        left[active, pick] = False
        chosen = candidates[active, pick]
        weight[active] = np.where(chosen, weight[active] * (1.0 - alpha), weight[active])
    return out


# ------------------------------------------------------------------- the measures


def _cumulated(matrix: RelevanceMatrix, cutoff: int | None, alpha: float, weighed, name: str,
               normalised: bool) -> np.ndarray:
    """alpha-DCG or ERR-IA (``weighed(g, r)``: a gain at rank r as the sum takes it),
    over the ideal-ideal, or, ``normalised``, over the greedy ideal ranking's."""
    alpha = _alpha(alpha)
    k = cutoff if cutoff is not None or normalised else measure_depth(matrix, cutoff, f"{name} without @k")
    if not normalised:
        _check_k(name, int(k))  # type: ignore[arg-type]
    intents = _Intents(matrix, k, name + ("" if k is None else f"@{k}"))
    value = intents.cell_sums(weighed(intents.gains(alpha), intents.postings.rank.astype(np.float64)))
    if k is not None and k >= 2:  # ndeval divides the run's, and the ideal's, by the ideal-ideal first
        scale = _ideal_ideal(intents.n_subtopics, alpha, weighed, int(k))
        value = _divide(value, intents.per_topic(scale))
    if not normalised:
        return value
    ideal = ideal_gains(matrix, alpha, k)
    ranks = np.arange(1, ideal.shape[1] + 1, dtype=np.float64)
    best = np.cumsum(weighed(ideal, ranks[None, :]), axis=1)[:, -1] if ideal.shape[1] else np.zeros(matrix.n_topics)
    if k is not None and k >= 2:
        best = _divide(best, scale)
    return _divide(value, intents.per_topic(best))


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b, 0 where b is 0 (a topic without a relevant document)."""
    b = np.broadcast_to(b, a.shape)
    return np.divide(a, b, out=np.zeros(a.shape, dtype=np.float64), where=b > 0)


def alpha_dcg(matrix: RelevanceMatrix, cutoff: int | None, *, alpha: float = ALPHA) -> np.ndarray:
    """alpha-DCG@k = sum_{r<=k} g(r) / log2(r + 1) over sum_{r<=k} N (1 - alpha)^(r-1) / log2(r + 1) (ndeval)."""
    return _cumulated(matrix, cutoff, alpha, _dcg_weighed, "alpha_DCG", normalised=False)


def alpha_ndcg(matrix: RelevanceMatrix, cutoff: int | None, *, alpha: float = ALPHA) -> np.ndarray:
    """alpha-nDCG@k = alpha-DCG@k / alpha-DCG@k of the greedy ideal ranking (Clarke et al. 2008; ndeval)."""
    return _cumulated(matrix, cutoff, alpha, _dcg_weighed, "alpha_nDCG", normalised=True)


def err_ia(matrix: RelevanceMatrix, cutoff: int | None, *, alpha: float = ALPHA) -> np.ndarray:
    """ERR-IA@k = sum_{r<=k} g(r) / r over sum_{r<=k} N (1 - alpha)^(r-1) / r (ndeval)."""
    return _cumulated(matrix, cutoff, alpha, _err_weighed, "ERR_IA", normalised=False)


def nerr_ia(matrix: RelevanceMatrix, cutoff: int | None, *, alpha: float = ALPHA) -> np.ndarray:
    """nERR-IA@k = sum_{r<=k} g(r) / r over the greedy ideal ranking's (ndeval)."""
    return _cumulated(matrix, cutoff, alpha, _err_weighed, "nERR_IA", normalised=True)


def _nrbp(matrix: RelevanceMatrix, cutoff: int | None, alpha: float, patience: float, name: str,
          normalised: bool) -> np.ndarray:
    alpha, patience = _alpha(alpha), _patience(patience)
    intents = _Intents(matrix, cutoff, name)
    deepest = int(intents.postings.rank.max(initial=0))
    decay = _powers(patience, deepest)
    scale = (1.0 - (1.0 - alpha) * patience) / np.maximum(intents.n_subtopics, 1)
    scale = np.where(intents.n_subtopics > 0, scale, 0.0)
    value = intents.cell_sums(intents.gains(alpha) * decay[intents.postings.rank - 1]) * intents.per_topic(scale)
    if not normalised:
        return value
    ideal = ideal_gains(matrix, alpha, None)
    weighted = ideal * _powers(patience, ideal.shape[1])[None, :ideal.shape[1]]
    best = np.cumsum(weighted, axis=1)[:, -1] if ideal.shape[1] else np.zeros(matrix.n_topics)  # in rank order
    return _divide(value, intents.per_topic(best * scale))


def nrbp(matrix: RelevanceMatrix, cutoff: int | None, *, alpha: float = ALPHA,
         patience: float = PATIENCE) -> np.ndarray:
    """NRBP = (1 - (1 - alpha) beta) / N sum_r g(r) beta^(r-1), beta the patience (Clarke et al. 2009; ndeval)."""
    return _nrbp(matrix, cutoff, alpha, patience, "NRBP", normalised=False)


def nnrbp(matrix: RelevanceMatrix, cutoff: int | None, *, alpha: float = ALPHA,
          patience: float = PATIENCE) -> np.ndarray:
    """nNRBP = NRBP / NRBP of the greedy ideal ranking (ndeval)."""
    return _nrbp(matrix, cutoff, alpha, patience, "nNRBP", normalised=True)


def precision_ia(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """P-IA@k = (1/N) sum_j |{r <= k: d_r relevant to j}| / k (ndeval)."""
    k = measure_depth(matrix, cutoff, "P_IA without @k")
    intents = _Intents(matrix, k, f"P_IA@{k}")
    pairs = intents.cell_sums(intents.relevant.sum(axis=1).astype(np.float64))
    return _divide(pairs, intents.per_topic(k * intents.n_subtopics).astype(np.float64))


def subtopic_recall(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """S-recall@k = subtopics with a relevant document in the top k / N (Zhai et al. 2003; ndeval's strec)."""
    intents = _Intents(matrix, cutoff, "StRecall")
    first = (intents.relevant & (intents.seen == 0)).sum(axis=1).astype(np.float64)
    return _divide(intents.cell_sums(first), intents.per_topic(intents.n_subtopics).astype(np.float64))


def ap_ia(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """AP-IA = (1/N) sum_j (1/R_j) sum_{r: d_r relevant to j} |{r' <= r: d_r' relevant to j}| / r (ndeval's MAP-IA)."""
    intents = _Intents(matrix, cutoff, "AP_IA")
    rank = intents.postings.rank.astype(np.float64)
    n_cells = intents.postings.n_cells
    topic = np.arange(n_cells) % matrix.n_topics
    total = np.zeros(n_cells, dtype=np.float64)
    for j in range(intents.relevant.shape[1]):
        hit = intents.relevant[:, j]
        precision = np.where(hit, (intents.seen[:, j] + 1) / rank, 0.0)
        sums = intents.postings.ordered_sums(precision)
        judged = intents.per_subtopic[topic, j]
        total += np.divide(sums, judged, out=np.zeros(n_cells), where=judged > 0)
    return _divide(matrix.grid(total), intents.per_topic(intents.n_subtopics).astype(np.float64))


# Over the ideal-ideal (N subtopics at every rank) a score is at most 1: a subtopic's j-th
# relevant document sits at a rank >= j, and the weights fall with the rank. The greedy
# ideal ranking is not always the best one (Clarke et al. 2008), so a run can beat it:
# the forms over it have no upper end below infinity that holds for every campaign.
_OVER_GREEDY = RangeDeclaration(high=math.inf)


def _register(family: str, compute, description: str, options: tuple[str, ...] = (),
              value_range: RangeDeclaration = UNIT_RANGE) -> None:
    register(MeasureDefinition(family, compute, description, options=options, value_range=value_range))
    DIVERSITY_FAMILIES.append(family)


_register("alpha_DCG", alpha_dcg, "alpha-DCG at k over the ideal-ideal (ndeval's collection-independent "
          "normalisation)", ("alpha",))
_register("alpha_nDCG", alpha_ndcg, "alpha-nDCG at k over ndeval's greedy ideal ranking (Clarke et al. 2008)",
          ("alpha",), _OVER_GREEDY)
_register("ERR_IA", err_ia, "intent-aware ERR at k over the ideal-ideal (ndeval)", ("alpha",))
_register("nERR_IA", nerr_ia, "intent-aware ERR at k over ndeval's greedy ideal ranking", ("alpha",), _OVER_GREEDY)
_register("NRBP", nrbp, "novelty- and rank-biased precision (Clarke et al. 2009; ndeval)", ("alpha", "patience"))
_register("nNRBP", nnrbp, "NRBP over ndeval's greedy ideal ranking's", ("alpha", "patience"), _OVER_GREEDY)
_register("P_IA", precision_ia, "intent-aware precision at k (ndeval)")
_register("AP_IA", ap_ia, "intent-aware average precision (ndeval's MAP-IA)")
_register("StRecall", subtopic_recall, "subtopic recall at k (ndeval's strec)")

# ndeval's names (TREC Web track 2009-2014), each checked against pyndeval (ndeval's C code) on
# subtopic qrels by tests/unit/measures/test_diversity.py, as the alias test's TREC qrels cannot.
_DIVERSITY_TEST = "tests/unit/measures/test_diversity.py"
register_peer_names(
    *(PeerName(family, "ndeval", name, family, examples=same(example), checked_by=_DIVERSITY_TEST)
      for name, family, example in (("alpha-nDCG", "alpha_nDCG", "alpha-nDCG@10"),
                                    ("alpha-DCG", "alpha_DCG", "alpha-DCG@10"), ("ERR-IA", "ERR_IA", "ERR-IA@20"),
                                    ("nERR-IA", "nERR_IA", "nERR-IA@20"), ("P-IA", "P_IA", "P-IA@5"),
                                    ("MAP-IA", "AP_IA", "MAP-IA"), ("strec", "StRecall", "strec@10"))),
    PeerName("AP_IA", "ir_measures", "MAP_IA", "AP_IA", "ir_measures' alias of AP_IA (its pyndeval provider): "
             "ndeval's MAP-IA", examples=(("MAP_IA", "MAP-IA"),), checked_by=_DIVERSITY_TEST),
)
