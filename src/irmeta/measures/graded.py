"""Graded-relevance and one-document measures, vectorised over runs and topics.

Every measure maps a :class:`~irmeta.campaign.postings.RelevanceMatrix` to per-topic scores of
shape (runs, topics), cut at rank k (``@k``; no ``@k``: the full depth of the matrix),
with numpy reductions over whole (runs, topics, ranks) arrays. Registered names:

``RR``
    1 / r_1, r_1 the rank of the first relevant document in the top k; 0 if there is
    none (trec_eval ``recip_rank``; relevant = judged with grade >= the threshold).
``DCG``, ``nDCG``
    trec_eval's ``ndcg_cut``: DCG@k = sum_{r<=k} g(r) / log2(r + 1), normalised by the
    DCG@k of the ideal list (every judged document with a positive gain, by gain
    descending, cut at k); 0 when the ideal is 0. Current trec_eval and
    pytrec_eval-terrier discount by log2(r + 1); some older trec_eval sources of
    ``m_ndcg_cut.c`` used the JK discount below instead (rank 1 undiscounted). Without
    ``@k``, trec_eval's ``ndcg``: the whole run against the ideal over every positive
    judged gain of the topic (not cut at any depth). Gains, as trec_eval's, ignore the
    relevance threshold: a judged document graded 1 gains 1 even at threshold 2
    (trec_eval -l 2 changes no ndcg).
``DCG_jk``, ``nDCG_jk``
    Järvelin and Kekäläinen's original discount with base 2, as the IR lecture
    (seed 003) writes it: DCG_p = rel_1 + sum_{i=2..p} rel_i / log2(i).
``Q``, ``O``, ``Pmeasure``, ``Pplus``
    Sakai's measures (Sakai, "Give me just one highly relevant document: P-measure",
    SIGIR 2006, section 2; seed 004). With cg(r) = sum_{i<=r} g(i), cg*(r) the same for
    the ideal list, count(r) the relevant documents in the top r and the blended ratio

        BR(r) = (beta cg(r) + count(r)) / (beta cg*(r) + r)      (beta = 1 in the paper)

    - Q-measure  = (1/R) sum_{r<=k} isrel(r) BR(r), R = relevant documents of the topic
      (divided by R even at a cutoff, like irmeta's AP@k and trec_eval's map cut);
    - O-measure  = BR(r_1), r_1 the rank of the first relevant document;
    - P-measure  = BR(r_p), the "preferred rank" r_p the first record when the output
      is sorted by relevance level (the qrels grade, highest first) then rank;
    - P+-measure = sum_{r<=r_p} isrel(r) BR(r) / count(r_p).

    Each is 0 when the top k holds no relevant document. ``P`` is irmeta's precision,
    so Sakai's P-measure is registered as ``Pmeasure`` and the P+-measure as ``Pplus``.
    beta = 0 turns BR(r) into precision count(r)/r: Q becomes AP, O becomes RR.

Gains (option ``gains``): by default the DCG family gives a judged document its
grade when positive, whatever the relevance threshold (trec_eval's ``ndcg`` and
``ndcg_cut``: -l changes no gain), and Sakai's measures the grade of relevant
documents (grade >= the threshold) only, as their relevance flags count them. Negative
grades (spam) and unjudged documents gain nothing. A mapping ``{grade: gain}`` (e.g.
``{1: 1, 2: 3}``) sets the gain of judged documents by grade instead, 0 for grades it
does not name; with ``gains_rest=grade`` (DCG, nDCG and their _jk forms, trec_eval's G,
nDCG_rel, Rndcg and RBP) a grade the map does not name keeps its grade as its gain (0 below
0), as trec_eval's ``ndcg.1=1,2=3`` reads its map, and trec_eval's names with a map
(``ndcg.1=0,2=3``, ``G.1=3,2=5``) read so (:mod:`irmeta.measures.aliases`); gains must be
in [0, 1e300] (``GAIN_LIMIT``: their sums stay finite). Grades
are int64 (the qrels reader refuses larger ones, naming file and line), and a huge grade
is a huge gain whose sums stay finite; ERR's 2^g is never formed (``rank_biased``). The
relevance flags that Q, O, P, RR and the R of Q use stay ``grade >= threshold`` whatever the gains.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.cutoffs import divide_by_relevant
from irmeta.measures.registry import (
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

GainMap = Mapping[int, float]

# The largest gain a map may give: sums of up to 10^8 such gains (any topic's ideal list)
# stay below the largest double (1.8e308), so no DCG, cg or ideal overflows.
GAIN_LIMIT = 1e300


def normalise_gains(gains: GainMap | None) -> dict[int, float] | None:
    """A gain map with int grades and float gains, checked; None stays None.

    Keys may be ints or integer strings (as a YAML config gives them); values must be
    in [0, GAIN_LIMIT] (every measure here is bounded by its ideal only then).
    """
    if gains is None:
        return None
    if not isinstance(gains, Mapping):
        raise ValueError(f"gains must be a mapping grade -> gain, not {type(gains).__name__}")
    out: dict[int, float] = {}
    for key, value in gains.items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            grade = int(key)
        elif isinstance(key, str) and re.fullmatch(r"\s*[+-]?\d+\s*", key):
            grade = int(key)
        else:
            raise ValueError(f"gains: grade {key!r} is not an integer")
        try:
            gain = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"gains: the gain of grade {key!r} is not a number: {value!r}") from None
        if not 0 <= gain <= GAIN_LIMIT:  # NaN fails too
            raise ValueError(f"gains: the gain of grade {key!r} must be in [0, {GAIN_LIMIT:g}], not {value!r}")
        if grade in out and out[grade] != gain:
            raise ValueError(f"gains: grade {grade} is given twice with different gains")
        out[grade] = gain
    return out


#: What a grade a gain map does not name gains: 0 (irmeta's rule, the default) or its own
#: grade, 0 below 0 (trec_eval's, gain_init.c).
GAINS_REST = ("zero", "grade")


def check_gains_rest(value: object) -> str:
    if value not in GAINS_REST:
        raise ValueError(f"gains_rest takes {' or '.join(GAINS_REST)} (the gain of a grade the gains map does not "
                         f"name), not {value!r}")
    return str(value)


def _mapped(grades: np.ndarray, table: dict[int, float], rest: str = "zero") -> np.ndarray:
    """gain of each grade under ``table``, as float64; a grade it does not name gains 0,
    or with ``rest="grade"`` its grade (0 below 0)."""
    if check_gains_rest(rest) == "grade":
        named = np.isin(grades, np.asarray(list(table), dtype=np.int64))
        return np.where(named, _mapped(grades, table), np.maximum(grades, 0).astype(np.float64))
    if not table:
        return np.zeros(grades.shape, dtype=np.float64)
    keys = np.asarray(sorted(table), dtype=np.int64)
    values = np.asarray([table[k] for k in keys.tolist()], dtype=np.float64)
    if grades.size:
        lo = min(int(keys[0]), int(grades.min()))
        hi = max(int(keys[-1]), int(grades.max()))
        if hi - lo < 1 << 16:  # grades are small integers: one dense lookup table
            lut = np.zeros(hi - lo + 1, dtype=np.float64)
            lut[keys - lo] = values
            return lut[grades - lo]
    pos = np.minimum(np.searchsorted(keys, grades), len(keys) - 1)
    return np.where(keys[pos] == grades, values[pos], 0.0)


def judgment_gains(matrix: RelevanceMatrix, gains: GainMap | None = None, *,
                   below_threshold: bool = False, rest: str = "zero") -> np.ndarray:
    """(J,) float64: the gain of each judged document (qrels row).

    Default gains are the grade of relevant documents (grade >= the threshold), or with
    ``below_threshold`` of every judged document with a positive grade (trec_eval's
    ndcg, whose gains -l does not change); a gain map sets them by grade instead, the
    grades it does not name gaining 0 or (``rest="grade"``) their grade.
    """
    table = normalise_gains(gains)
    if table is None:
        floor = 1 if below_threshold else max(matrix.threshold, 1)
        return np.where(matrix.qrels_grade >= floor, matrix.qrels_grade, 0).astype(np.float64)
    return _mapped(matrix.qrels_grade, table, rest)


def ideal_gains(matrix: RelevanceMatrix, gain: np.ndarray) -> np.ndarray:
    """(topics, M) float64: each topic's positive judged gains sorted descending, padded
    with 0, M the most any topic has (from the qrels: relevant documents no run found
    count)."""
    keep = gain > 0
    topic, value = matrix.qrels_topic[keep], gain[keep]
    order = np.lexsort((-value, topic))  # by topic, then gain descending
    topic, value = topic[order], value[order]
    counts = np.bincount(topic, minlength=matrix.n_topics)
    starts = np.cumsum(counts) - counts
    ideal = np.zeros((matrix.n_topics, int(counts.max(initial=0))), dtype=np.float64)
    ideal[topic, np.arange(len(topic)) - starts[topic]] = value
    return ideal


def gain_of(matrix: RelevanceMatrix, gains: GainMap | None = None, *,
            depth: int | None = None, below_threshold: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Dense gains of a small campaign: ``(cell, ideal)``, ``cell`` (runs, topics, depth)
    the gain at each rank (0 past the end of a list and for unjudged documents), ``ideal``
    as :func:`ideal_gains`. ``depth`` cuts the cells (default: all). The measures read
    :func:`judgment_gains` on the postings instead."""
    gain = judgment_gains(matrix, gains, below_threshold=below_threshold)
    d = matrix.depth if depth is None else max(0, min(depth, matrix.depth))
    judgment = matrix.judgment[:, :, :d]
    cell = np.where(judgment >= 0, gain[np.maximum(judgment, 0)], 0.0) if len(gain) else np.zeros(judgment.shape)
    return cell, ideal_gains(matrix, gain)


def _gain_postings(matrix: RelevanceMatrix, gain: np.ndarray, cutoff: int | None) -> Postings:
    """The postings that can carry a gain within the top ``cutoff``: the relevant ones,
    and the other judged ones too when a grade below the threshold has a gain."""
    if (gain[matrix.qrels_grade < matrix.threshold] > 0).any():
        return matrix.judged.top(cutoff)
    return matrix.hits.top(cutoff)


def _check_cutoff(cutoff: int | None) -> None:
    if cutoff is not None and int(cutoff) < 1:
        raise ValueError(f"the cutoff must be at least 1, not {cutoff!r}")


def _last(cumulative: np.ndarray) -> np.ndarray:
    return cumulative[..., -1] if cumulative.shape[-1] else np.zeros(cumulative.shape[:-1])


def _at_first(matrix: RelevanceMatrix, postings: Postings, values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(runs, topics): ``values`` at one posting per cell (``index``, -1: none), 0 elsewhere."""
    out = np.zeros(postings.n_cells, dtype=np.float64)
    has = index >= 0
    out[has] = values[index[has]]
    return matrix.grid(out)


def reciprocal_rank(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None) -> np.ndarray:
    """RR@k = 1 / r_1 (first relevant rank within k), 0 if none (trec_eval ``recip_rank``).

    Gains play no part (``gains`` is accepted and ignored, for a uniform signature).
    """
    _check_cutoff(cutoff)
    hits = matrix.hits.top(cutoff)
    return _at_first(matrix, hits, 1.0 / hits.rank.astype(np.float64), hits.first())


def _log2_denominators(n: int, convention: str) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype=np.float64)
    if convention == "trec":
        return np.log2(ranks + 1.0)  # rank r: log2(r + 1)
    return np.log2(np.maximum(ranks, 2.0))  # JK: rank 1 undiscounted, rank r >= 2: log2(r)


def check_min_grade(value: object) -> int:
    """``min_grade``: the lowest grade that gains, a whole number >= 1 (ranx's ``-lN``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"min_grade must be a whole number >= 1, not {type(value).__name__} {value!r}")
    if not (float(value).is_integer() and value >= 1):
        raise ValueError(f"min_grade must be a whole number >= 1, not {value!r}")
    return int(value)


def gains_from(matrix: RelevanceMatrix, gain: np.ndarray, min_grade: int) -> np.ndarray:
    """``gain`` with the judged documents graded below ``min_grade`` gaining nothing
    (ranx's ``-lN``: its graded measures drop the grades below N from the qrels)."""
    min_grade = check_min_grade(min_grade)
    return gain if min_grade <= 1 else np.where(matrix.qrels_grade >= min_grade, gain, 0.0)


def _dcg(matrix: RelevanceMatrix, cutoff: int | None, gains: GainMap | None, convention: str,
         normalised: bool, min_grade: int = 1, rest: str = "zero") -> np.ndarray:
    _check_cutoff(cutoff)
    gain = gains_from(matrix, judgment_gains(matrix, gains, below_threshold=True, rest=rest), min_grade)
    postings = _gain_postings(matrix, gain, cutoff)
    deepest = int(postings.rank.max(initial=0))
    # Summed in rank order, gain / log2(.), as trec_eval's loop does.
    terms = gain[postings.judgment] / _log2_denominators(deepest, convention)[postings.rank - 1]
    value = matrix.grid(postings.ordered_sums(terms))
    if not normalised:
        return value
    # ndcg_cut_k cuts the ideal list at k; uncut ndcg takes every positive judged gain,
    # however short the runs are.
    ideal = ideal_gains(matrix, gain)
    m = ideal.shape[1] if cutoff is None else min(int(cutoff), ideal.shape[1])
    best = _last(np.cumsum(ideal[:, :m] / _log2_denominators(m, convention), axis=1))
    best = np.broadcast_to(best, value.shape)
    return np.divide(value, best, out=np.zeros_like(value), where=best > 0)


def dcg(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
        min_grade: int = 1, gains_rest: str = "zero") -> np.ndarray:
    """DCG@k = sum_{r<=k} g(r) / log2(r + 1) (trec_eval's ``ndcg_cut`` numerator);
    ``min_grade``: grades below it gain 0 (ranx's ``-lN``)."""
    return _dcg(matrix, cutoff, gains, "trec", normalised=False, min_grade=min_grade, rest=gains_rest)


def ndcg(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
         min_grade: int = 1, gains_rest: str = "zero") -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k (trec_eval ``ndcg_cut_k``); 0 when the ideal is 0;
    ``min_grade``: grades below it gain 0, in the run and the ideal (ranx's ``-lN``)."""
    return _dcg(matrix, cutoff, gains, "trec", normalised=True, min_grade=min_grade, rest=gains_rest)


def dcg_jk(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
           gains_rest: str = "zero") -> np.ndarray:
    """DCG_p = rel_1 + sum_{i=2..p} rel_i / log2(i) (Järvelin & Kekäläinen; seed 003)."""
    return _dcg(matrix, cutoff, gains, "jk", normalised=False, rest=gains_rest)


def ndcg_jk(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
            gains_rest: str = "zero") -> np.ndarray:
    """NDCG_p = DCG_p / DCG_p of the ideal ranking, JK discount (seed 003)."""
    return _dcg(matrix, cutoff, gains, "jk", normalised=True, rest=gains_rest)


def _check_beta(beta: object) -> float:
    """Sakai's beta: a finite number >= 0 (a TypeError for no number, as the API refuses a
    wrong type)."""
    if isinstance(beta, (bool, np.bool_)) or not isinstance(beta, (int, float, np.integer, np.floating)):
        raise TypeError(f"beta must be a number >= 0, not {type(beta).__name__} {beta!r}")
    b = float(beta)
    if not np.isfinite(b) or b < 0:
        raise ValueError(f"beta must be a finite number >= 0, not {beta!r}")
    return b


register_option_check("beta", _check_beta)
register_option_check("gains", normalise_gains)
register_option_check("min_grade", check_min_grade)
register_option_check("gains_rest", check_gains_rest)


def _blended(matrix: RelevanceMatrix, cutoff: int | None, gains: GainMap | None,
             beta: float) -> tuple[Postings, np.ndarray]:
    """The relevant postings within the top k and BR(r) at each of them."""
    b = _check_beta(beta)
    _check_cutoff(cutoff)
    hits = matrix.hits.top(cutoff)
    gain = judgment_gains(matrix, gains)
    carriers = _gain_postings(matrix, gain, cutoff)
    cg = carriers.running_sums(gain[carriers.judgment])  # cg(r), summed in rank order
    if carriers is not hits:  # the relevant ones among every judged posting, in the same order
        cg = cg[matrix.qrels_grade[carriers.judgment] >= matrix.threshold]
    count = hits.position + 1
    ideal_cg = np.cumsum(ideal_gains(matrix, gain), axis=1)  # cg*(r), flat past the last gain
    if ideal_cg.shape[1]:
        best = ideal_cg[matrix.topic_of(hits), np.minimum(hits.rank, ideal_cg.shape[1]) - 1]
    else:
        best = np.zeros(len(hits))
    rank = hits.rank.astype(np.float64)
    if b > 1.0 and b * float(best.max(initial=0.0)) > 1e300:  # cg <= cg*: b cg* is the largest product
        return hits, (cg + count / b) / (best + rank / b)  # the same ratio divided through by beta: no overflow
    return hits, (b * cg + count) / (b * best + rank)


def q_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
              beta: float = 1.0) -> np.ndarray:
    """Q@k = (1/R) sum_{r<=k} isrel(r) BR(r) (Sakai 2006, section 2); 0 when R = 0."""
    hits, br = _blended(matrix, cutoff, gains, beta)
    return divide_by_relevant(matrix.grid(hits.ordered_sums(br)), matrix.n_relevant)  # rank order, as AP


def o_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
              beta: float = 1.0) -> np.ndarray:
    """O@k = BR(r_1), r_1 the first relevant rank within k; 0 if none (Sakai 2006, section 2)."""
    hits, br = _blended(matrix, cutoff, gains, beta)
    return _at_first(matrix, hits, br, hits.first())


def _preferred(matrix: RelevanceMatrix, hits: Postings) -> np.ndarray:
    """(cells,) index of r_p's posting: the highest relevance level, the nearest the top
    (-1 for a cell without a relevant posting)."""
    if not len(hits):
        return np.full(hits.n_cells, -1, dtype=np.int64)
    order = np.lexsort((hits.position, -matrix.grade_of(hits), hits.cell))  # cells stay in place
    return np.where(hits.counts > 0, order[np.minimum(hits.start[:-1], len(hits) - 1)], -1)


def p_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
              beta: float = 1.0) -> np.ndarray:
    """Sakai's P-measure @k = BR(r_p); 0 with no relevant document in the top k."""
    hits, br = _blended(matrix, cutoff, gains, beta)
    return _at_first(matrix, hits, br, _preferred(matrix, hits))


def p_plus_measure(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
                   beta: float = 1.0) -> np.ndarray:
    """Sakai's P+-measure @k = sum_{r<=r_p} isrel(r) BR(r) / count(r_p); 0 with none."""
    hits, br = _blended(matrix, cutoff, gains, beta)
    rp = _preferred(matrix, hits)
    total = _at_first(matrix, hits, hits.running_sums(br), rp)
    n = _at_first(matrix, hits, (hits.position + 1).astype(np.float64), rp)
    return np.divide(total, n, out=np.zeros_like(total), where=n > 0)


_G = ("gains", "gains_rest")


_GB = ("gains", "beta")


# DCG sums gains without bound (as many as the topic's judged documents, each up to
# GAIN_LIMIT); a normalised form is at most its ideal's 1, and Sakai's blended ratio
# BR(r) <= 1 since cg(r) <= cg*(r) and count(r) <= r.
_UNBOUNDED = RangeDeclaration(high=float("inf"))


register(MeasureDefinition("RR", reciprocal_rank,
                           "reciprocal rank of the first relevant document in the top k (trec_eval recip_rank)",
                           value_range=RangeDeclaration(grid="reciprocal_ranks")))
register_peer_names(
    trec_eval_word("RR", "recip_rank"),
    PeerName("RR", "ir_measures", "MRR", "RR", examples=same("MRR", "MRR@10")),
    PeerName("RR", "ranx", "mrr", "RR", "stops at k: 1 / rank of the first relevant document in the top k, 0 if none",
             examples=same("mrr", "mrr@10")),
)

_RANX_GRADED = ("gain = grade (grades >= 1; with -lN grades >= N only, in the run and the ideal), "
                "discount log2(rank + 1), ideal cut at k: trec_eval's ndcg_cut")

register(MeasureDefinition("DCG", dcg, "discounted cumulative gain, gain / log2(r + 1) (trec_eval ndcg_cut's DCG)",
                           options=_G + ("min_grade",), value_range=_UNBOUNDED))
register_peer_names(
    PeerName("DCG", "ranx", "dcg", "DCG", _RANX_GRADED, examples=same("dcg@10")),
    PeerName("DCG", "ranx", "dcg@k-lN", "DCG(min_grade={1})@{0}", _RANX_GRADED, pattern=r"dcg@(\d+)-l(\d+)",
             examples=same("dcg@10-l2"), symbols=("k", "N")),
    PeerName("DCG", "ranx", "dcg_burges", None, "ranx's dcg_burges takes the gain 2^grade - 1: write "
             "DCG(gains={1:1,2:3,3:7})@k for grades 1..3"),
)

register(MeasureDefinition("nDCG", ndcg, "normalised DCG at k (trec_eval ndcg_cut_k)", options=_G + ("min_grade",),
                           value_range=UNIT_RANGE))
register_peer_names(
    trec_eval_word("nDCG", "ndcg"),
    trec_eval_cut("nDCG", "ndcg_cut"),
    PeerName("nDCG", "ir_measures", "NDCG", "nDCG", examples=same("NDCG@10")),
    PeerName("nDCG", "ir_measures", "nDCG", "nDCG", examples=same("nDCG@10", "nDCG")),
    PeerName("nDCG", "ir_measures", "nDCG(dcg=log2)", "nDCG{1}", "ir_measures' default DCG, trec_eval's: the gain "
             "is the grade", pattern=r"(?i)nDCG\(dcg=(['\"]?)log2\1\)((?:@\d+)?)",
             examples=same("nDCG(dcg='log2')@10"), symbols=("", "@k")),
    PeerName("nDCG", "ir_measures", "nDCG(dcg=exp-log2)", None, "ir_measures' dcg='exp-log2' (gdeval.pl's nDCG@k) "
             "takes the gain 2^grade - 1: write nDCG(gains={{1:1,2:3,3:7}})@k, a gain 2^g - 1 for each grade g of the "
             "qrels", pattern=r"(?i)nDCG\(dcg=(['\"]?)exp-log2\1\)(?:@\d+)?", symbols=("",)),
    PeerName("nDCG", "ranx", "ndcg", "nDCG", _RANX_GRADED, examples=same("ndcg@10", "ndcg")),
    PeerName("nDCG", "ranx", "ndcg@k-lN", "nDCG(min_grade={1})@{0}", _RANX_GRADED, pattern=r"ndcg@(\d+)-l(\d+)",
             examples=same("ndcg@10-l2", "ndcg@10-l3"), symbols=("k", "N")),
    PeerName("nDCG", "ranx", "ndcg-lN", "nDCG(min_grade={0})", _RANX_GRADED, pattern=r"ndcg-l(\d+)",
             examples=same("ndcg-l2"), symbols=("N",)),
    PeerName("nDCG", "ranx", "ndcg_burges", None, "ranx's ndcg_burges takes the gain 2^grade - 1: write "
             "nDCG(gains={1:1,2:3,3:7})@k for grades 1..3"),
)


register(MeasureDefinition("DCG_jk", dcg_jk, "DCG with Jarvelin-Kekalainen's discount: rel_1 + sum rel_i / log2(i)",
                           options=_G, value_range=_UNBOUNDED))


register(MeasureDefinition("nDCG_jk", ndcg_jk, "normalised DCG_jk (Jarvelin-Kekalainen discount)", options=_G,
                           value_range=UNIT_RANGE))


register(MeasureDefinition("Q", q_measure, "Sakai's Q-measure at k (blended ratio, beta = 1 by default)",
                           options=_GB, value_range=UNIT_RANGE))


register(MeasureDefinition("O", o_measure, "Sakai's O-measure: blended ratio at the first relevant rank",
                           options=_GB, value_range=UNIT_RANGE))


register(MeasureDefinition("Pmeasure", p_measure, "Sakai's P-measure: blended ratio at the preferred rank",
                           options=_GB, value_range=UNIT_RANGE))


register(MeasureDefinition("Pplus", p_plus_measure, "Sakai's P+-measure: mean blended ratio down to the preferred rank",
                           options=_GB, value_range=UNIT_RANGE))
