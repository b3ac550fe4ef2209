"""The C/W/L measures of cwl_eval that ir_measures provides (issue 42): INST, INSQ,
SDCG, NERR8-NERR11 and BPM, vectorised over runs and topics.

C/W/L (Azzopardi, Thomas and Moffat, "cwl_eval", SIGIR 2019; Moffat et al., TOIS 2017): a
user examines rank 1 and, after rank i, continues with probability C_i. With
P_m = prod_{i<m} C_i the chance of reaching rank m, the weight of rank i is
W_i = P_i / sum_{m=1}^{n} P_m and the measure is the expected rate of gain
sum_{i=1}^{n} W_i g_i (cwl_eval's "expected utility", what ir_measures reports).

Gains, as ir_measures feeds cwl_eval: a judged document's grade, negative ones read as 0,
clipped to [``min_rel``, ``max_rel``] and scaled to g = (grade - min_rel) / (max_rel -
min_rel) in [0, 1]; an unjudged document gains 0. ir_measures requires ``max_rel``;
irmeta's default is the largest grade of the collection's qrels (1 on binary qrels, where
g is the grade). The relevance threshold plays no part (as in nDCG's gains).

``n`` is ``max_depth`` (default 1000, cwl_eval's ``--max_depth``, which ir_measures
fixes): the list is cut at rank n and padded with documents of gain 0 up to n, so W is
normalised over n ranks however long the list. ``@k`` cuts the list at rank k first
(gains below k are 0); SDCG, NERR8, NERR9 and BPM take k as their own depth (cwl_eval's
k, ir_measures' required cutoff): C_i = 0 from rank k on, and k = n without ``@k``.

``INST(T=1)`` (Moffat, Bailey, Scholer and Thomas, ADCS 2015)
    C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} g_j.
``INSQ(T=1)`` (Moffat, Scholer and Thomas, ADCS 2012)
    C_i = ((i + 2T - 1) / (i + 2T))^2, so P_m = (2T / (m - 1 + 2T))^2.
``SDCG@k``
    C_i = log2(i + 1) / log2(i + 2) for i < k: DCG@k over the DCG@k of k documents of
    gain 1, sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1).
``NERR8@k``, ``NERR9@k``, ``NERR10(p=0.9)``, ``NERR11(T=1)`` (Azzopardi, Mackenzie and
Moffat, "ERR is not C/W/L", ICTIR 2021, eqs. 8-11)
    C_i = (1 - g_i) times, in turn: 1 for i < k; i / (i + 1) for i < k; p; INSQ's
    ((i + 2T - 1) / (i + 2T))^2.
``BPM(T=1)@k`` (Zhang et al., "Evaluating web search with a bejeweled player model",
SIGIR 2017; cwl_eval's static form, a unit cost per document)
    C_i = 1 while i < k and sum_{j<=i} g_j < T, else 0: the user reads down to
    s = min(k, n, the first rank whose cumulative gain reaches T), and BPM = CG(s) / s.

No rank is visited: between two documents of positive gain the C_i follow a closed form,
so each family sums its P_m over those stretches in one expression (telescoping
products, geometric and harmonic sums, Hurwitz's zeta for the inverse squares).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import digamma

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.graded import _gain_postings
from irmeta.measures.rank_biased import _persistence, products_before
from irmeta.measures.registry import (
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    register,
    register_option_check,
    register_peer_names,
)

MAX_DEPTH = 1000  # cwl_eval's --max_depth default, which ir_measures fixes
NERR10_PERSISTENCE = 0.9  # cwl_eval's phi and ir_measures' p
_CHUNK = 1 << 20  # ranks summed at a time for SDCG's normaliser (no table of k entries)


def _positive(name: str) -> Callable[[object], float]:
    def check(value: object) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number > 0, not {type(value).__name__} {value!r}")
        number = float(value)
        if not np.isfinite(number) or number <= 0:
            raise ValueError(f"{name} must be a finite number > 0, not {value!r}")
        return number
    return check


def _grade(name: str, value: object) -> float:
    """min_rel or max_rel: a finite number (ir_measures takes integers; any number works)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__} {value!r}")
    if not np.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    return float(value)


def _max_depth(value: object) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not float(value).is_integer() or not 1 <= float(value) <= 2**31 - 1:
        raise ValueError(f"max_depth must be a whole number of ranks >= 1, not {value!r}")
    return int(value)


def _dcg_form(value: object) -> str:
    if value != "log2":
        raise ValueError(f"SDCG's dcg takes log2 only (ir_measures' one choice), not {value!r}")
    return "log2"


register_option_check("T", _positive("T (the gain the user wants)"))
register_option_check("min_rel", lambda value: _grade("min_rel", value))
register_option_check("max_rel", lambda value: None if value is None else _grade("max_rel", value))
register_option_check("max_depth", _max_depth)
register_option_check("dcg", _dcg_form)


def cwl_gains(matrix: RelevanceMatrix, min_rel: float = 0.0, max_rel: float | None = None) -> np.ndarray:
    """(J,) g = (clip(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel) per
    judged document, as ir_measures scales grades for cwl_eval; ``max_rel`` None: the
    largest grade of the qrels (all gains 0 when it is at most min_rel)."""
    low = _grade("min_rel", min_rel)
    if max_rel is None:
        high = float(max(int(matrix.qrels_grade.max(initial=0)), 0))
        if high <= low:
            return np.zeros(len(matrix.qrels_grade), dtype=np.float64)
    else:
        high = _grade("max_rel", max_rel)
        if high <= low:
            raise ValueError(f"max_rel must be greater than min_rel, not {max_rel!r} <= {min_rel!r}")
    grade = np.clip(np.maximum(matrix.qrels_grade, 0).astype(np.float64), low, high)
    return (grade - low) / (high - low)


def _horizon(cutoff: int | None, max_depth: int) -> tuple[int, int]:
    """(n, depth): the ranks the user model runs over (max_depth) and the deepest rank
    whose gain counts (k, at most n; n without @k)."""
    n = _max_depth(max_depth)
    if cutoff is None:
        return n, n
    if int(cutoff) < 1:
        raise ValueError(f"the cutoff must be at least 1, not {cutoff!r}")
    return n, min(int(cutoff), n)


def _carriers(matrix: RelevanceMatrix, gain: np.ndarray, depth: int) -> tuple[Postings, np.ndarray]:
    """The postings that can carry a gain down to ``depth``, and their gains."""
    postings = _gain_postings(matrix, gain, depth)
    return postings, gain[postings.judgment]


def _rate(matrix: RelevanceMatrix, postings: Postings, g: np.ndarray, at: np.ndarray, total: float,
          after: np.ndarray | None) -> np.ndarray:
    """(runs, topics) sum_i W_i g_i for P_m = H(m) prod_{p_j < m} (1 - g_j) (the stopping
    families) or P_m = H(m) (``after`` None), given H at each posting's rank (``at``),
    S = sum_{m=1}^{n} H(m) (``total``) and sum_{m=p+1}^{n} H(m) at each posting (``after``).

    prod_{p_j < m} (1 - g_j) = 1 - sum_{p_j < m} g_j Pi_j (Pi_j: the product above
    posting j), so the normaliser is S - sum_j g_j Pi_j sum_{m > p_j} H(m)."""
    if after is None:
        return matrix.grid(postings.ordered_sums(g * at)) / total
    reach = g * products_before(postings, 1.0 - g)
    normaliser = total - postings.ordered_sums(reach * after)
    return matrix.grid(postings.ordered_sums(reach * at) / normaliser)


# psi'(x) ~ 1/x + 1/(2x^2) + sum_j B_2j / x^(2j+1) from x = 10 on, to B_20: the next term,
# B_22 / x^23, is below 1e-19 there. Below, psi'(x) = psi'(x + 1) + 1 / x^2 lifts x (scipy's
# zeta(2, x) is the same function, several times slower).
_TRIGAMMA_FROM = 10.0
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
              -174611 / 330)


def trigamma(x: np.ndarray) -> np.ndarray:
    """psi'(x) = sum_{t>=0} 1 / (t + x)^2 for x > 0 (Hurwitz's zeta(2, x)), elementwise."""
    shape = np.shape(x)
    x = np.array(x, dtype=np.float64, copy=True).reshape(-1)
    lifted = np.zeros_like(x)
    low = np.flatnonzero(x < _TRIGAMMA_FROM)  # lifted on a shrinking copy: at most 10 steps
    part, added = x[low], np.zeros(len(low))
    while len(low):
        added += 1.0 / (part * part)
        part += 1.0
        done = part >= _TRIGAMMA_FROM
        x[low[done]], lifted[low[done]] = part[done], added[done]
        low, part, added = low[~done], part[~done], added[~done]
    inverse = 1.0 / x
    square = inverse * inverse
    series = np.zeros_like(x)
    for b in reversed(_BERNOULLI):  # Horner in 1/x^2
        series = (series + b) * square
    return (lifted + inverse + 0.5 * square + series * inverse).reshape(shape)


def _inverse_squares(a: float | np.ndarray, first: np.ndarray | float, last: np.ndarray | float) -> np.ndarray:
    """sum_{t=first}^{last} 1 / (t + a)^2 (0 when last < first), as psi'(first + a) - psi'(last + 1 + a)."""
    first, last = np.asarray(first, dtype=np.float64), np.asarray(last, dtype=np.float64)
    return np.where(last >= first, trigamma(first + a) - trigamma(np.maximum(last, first - 1) + 1 + a), 0.0)


def _insq_weights(T: float, n: int, rank: np.ndarray) -> tuple[np.ndarray, float]:
    """INSQ's H(m) = (2T / (m - 1 + 2T))^2 at ``rank``, and its sum over m = 1..n."""
    a = 2.0 * T
    at = (a / (rank.astype(np.float64) - 1.0 + a)) ** 2
    return at, float(a * a * _inverse_squares(a, 0.0, n - 1.0))


def insq(matrix: RelevanceMatrix, cutoff: int | None, *, T: float = 1.0, min_rel: float = 0.0,
         max_rel: float | None = None, max_depth: int = MAX_DEPTH) -> np.ndarray:
    """INSQ = sum_i W_i g_i, C_i = ((i + 2T - 1) / (i + 2T))^2 (Moffat et al. 2012)."""
    n, depth = _horizon(cutoff, max_depth)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    at, total = _insq_weights(_positive("T")(T), n, postings.rank)
    return _rate(matrix, postings, g, at, total, None)


def nerr11(matrix: RelevanceMatrix, cutoff: int | None, *, T: float = 1.0, min_rel: float = 0.0,
           max_rel: float | None = None, max_depth: int = MAX_DEPTH) -> np.ndarray:
    """NERR11 = sum_i W_i g_i, C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i) (Azzopardi et al. 2021, eq. 11)."""
    n, depth = _horizon(cutoff, max_depth)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    t = _positive("T")(T)
    at, total = _insq_weights(t, n, postings.rank)
    after = (2.0 * t) ** 2 * _inverse_squares(2.0 * t, postings.rank.astype(np.float64), n - 1.0)
    return _rate(matrix, postings, g, at, total, after)


def nerr10(matrix: RelevanceMatrix, cutoff: int | None, *, p: float = NERR10_PERSISTENCE, min_rel: float = 0.0,
           max_rel: float | None = None, max_depth: int = MAX_DEPTH) -> np.ndarray:
    """NERR10 = sum_i W_i g_i, C_i = p (1 - g_i) (Azzopardi et al. 2021, eq. 10)."""
    n, depth = _horizon(cutoff, max_depth)
    phi = _persistence(p)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    m = postings.rank.astype(np.float64)
    tail = phi ** float(n)
    at = np.power(phi, m - 1.0)  # H(m) = p^(m-1): sums are geometric
    after = (np.power(phi, m) - tail) / (1.0 - phi)
    return _rate(matrix, postings, g, at, (1.0 - tail) / (1.0 - phi), after)


def nerr8(matrix: RelevanceMatrix, cutoff: int | None, *, min_rel: float = 0.0, max_rel: float | None = None,
          max_depth: int = MAX_DEPTH) -> np.ndarray:
    """NERR8@k = sum_i W_i g_i, C_i = 1 - g_i for i < k, 0 after (Azzopardi et al. 2021, eq. 8)."""
    _, depth = _horizon(cutoff, max_depth)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    m = postings.rank.astype(np.float64)
    return _rate(matrix, postings, g, np.ones_like(m), float(depth), depth - m)


def nerr9(matrix: RelevanceMatrix, cutoff: int | None, *, min_rel: float = 0.0, max_rel: float | None = None,
          max_depth: int = MAX_DEPTH) -> np.ndarray:
    """NERR9@k = sum_i W_i g_i, C_i = (i / (i + 1)) (1 - g_i) for i < k, 0 after (eq. 9): H(m) = 1/m."""
    _, depth = _horizon(cutoff, max_depth)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    m = postings.rank.astype(np.float64)
    harmonic = float(digamma(depth + 1.0))  # H_x = psi(x + 1) + Euler's gamma; the gammas cancel in differences
    return _rate(matrix, postings, g, 1.0 / m, harmonic + np.euler_gamma, harmonic - digamma(m + 1.0))


def _log_discount_sum(k: int) -> float:
    """sum_{m=1}^{k} 1 / log2(m + 1), a chunk of ranks at a time."""
    total = 0.0
    for start in range(1, k + 1, _CHUNK):
        m = np.arange(start, min(k, start + _CHUNK - 1) + 1, dtype=np.float64)
        total += float(np.sum(1.0 / np.log2(m + 1.0)))
    return total


def sdcg(matrix: RelevanceMatrix, cutoff: int | None, *, dcg: str = "log2", min_rel: float = 0.0,
         max_rel: float | None = None, max_depth: int = MAX_DEPTH) -> np.ndarray:
    """SDCG@k = sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1) (cwl_eval's NDCG-k)."""
    _dcg_form(dcg)
    _, depth = _horizon(cutoff, max_depth)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    at = 1.0 / np.log2(postings.rank.astype(np.float64) + 1.0)
    return _rate(matrix, postings, g, at, _log_discount_sum(depth), None)


def inst(matrix: RelevanceMatrix, cutoff: int | None, *, T: float = 1.0, min_rel: float = 0.0,
         max_rel: float | None = None, max_depth: int = MAX_DEPTH) -> np.ndarray:
    """INST = sum_i W_i g_i, C_i = ((i + a - 1) / (i + a))^2 with a = 2T - CG_i (Moffat et al. 2015).

    CG, so a, is constant from a document of positive gain at rank p_j to the rank before
    the next (e_j): there P_m = P_{p_j} ((p_j - 1 + a_j) / (m - 1 + a_j))^2, so the stretch
    sums to P_{p_j} (1 + (p_j - 1 + a_j)^2 sum_{t=p_j}^{e_j - 1} 1 / (t + a_j)^2) and
    hands on P_{e_j + 1} = P_{p_j} ((p_j - 1 + a_j) / (e_j + a_j))^2. Before the first
    such document a = 2T (INSQ's P_m). t + a_j >= 2T > 0, as CG_i <= i.
    """
    n, depth = _horizon(cutoff, max_depth)
    t = _positive("T")(T)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    rank = postings.rank.astype(np.float64)
    a = 2.0 * t - postings.running_sums(g)  # a_j from posting j on
    last = np.zeros(len(postings), dtype=bool)
    last[postings.start[1:][postings.counts > 0] - 1] = True
    end = np.where(last, float(n), np.append(rank[1:], 0.0) - 1.0)  # e_j: the rank before the next posting, or n
    # P at each posting: (2T / (p_1 - 1 + 2T))^2 into the first, then one factor per stretch
    handed = ((rank - 1.0 + a) / (end + a)) ** 2
    first = postings.first()
    has = first >= 0
    lead = np.ones(postings.n_cells)
    lead[has] = (2.0 * t / (rank[first[has]] - 1.0 + 2.0 * t)) ** 2
    reach = lead[postings.cell] * products_before(postings, handed)
    # the ranks before the first posting (all n for a cell without one), then each stretch
    before = np.full(postings.n_cells, float(n))
    before[has] = rank[first[has]] - 1.0
    opening = 1.0 + (2.0 * t) ** 2 * _inverse_squares(2.0 * t, 1.0, before - 1.0)
    opening = np.where(before >= 1.0, opening, 0.0)
    stretch = reach * (1.0 + (rank - 1.0 + a) ** 2 * _inverse_squares(a, rank, end - 1.0))
    normaliser = opening + postings.ordered_sums(stretch)
    return matrix.grid(postings.ordered_sums(g * reach) / normaliser)


def bpm(matrix: RelevanceMatrix, cutoff: int | None, *, T: float = 1.0, min_rel: float = 0.0,
        max_rel: float | None = None, max_depth: int = MAX_DEPTH) -> np.ndarray:
    """BPM@k = CG(s) / s, s = min(k, n, first rank with CG >= T) (Zhang et al. 2017, static, unit costs)."""
    _, depth = _horizon(cutoff, max_depth)
    t = _positive("T")(T)
    postings, g = _carriers(matrix, cwl_gains(matrix, min_rel, max_rel), depth)
    gained = postings.running_sums(g)  # cwl_eval's cumsum, in rank order: the same comparisons with T
    reached = gained >= t
    stop = np.full(postings.n_cells, float(depth))
    np.minimum.at(stop, postings.cell[reached], postings.rank[reached].astype(np.float64))
    read = postings.rank <= stop[postings.cell]
    return matrix.grid(postings.ordered_sums(np.where(read, g, 0.0)) / stop)


_CWL = ("min_rel", "max_rel", "max_depth")


register(MeasureDefinition("INST", inst, "INST, C/W/L with a target gain T (Moffat et al. 2015; cwl_eval)",
                           options=("T",) + _CWL, value_range=UNIT_RANGE))


register(MeasureDefinition("INSQ", insq, "INSQ, C/W/L with C_i = ((i + 2T - 1) / (i + 2T))^2 (Moffat et al. "
                                         "2012; cwl_eval)", options=("T",) + _CWL, value_range=UNIT_RANGE))


register(MeasureDefinition("SDCG", sdcg, "scaled DCG@k: DCG over that of k documents of gain 1 (cwl_eval's NDCG-k)",
                           options=("dcg",) + _CWL, value_range=UNIT_RANGE))


register(MeasureDefinition("NERR8", nerr8, "not-but-nearly ERR, eq. 8: stopping on gain, cut at k (Azzopardi et al. "
                                           "2021; cwl_eval)", options=_CWL, value_range=UNIT_RANGE))


register(MeasureDefinition("NERR9", nerr9, "not-but-nearly ERR, eq. 9: stopping on gain and rank, cut at k "
                                           "(Azzopardi et al. 2021; cwl_eval)", options=_CWL, value_range=UNIT_RANGE))


register(MeasureDefinition("NERR10", nerr10, "not-but-nearly ERR, eq. 10: stopping on gain, persistence p "
                                             "(Azzopardi et al. 2021; cwl_eval)", options=("p",) + _CWL,
                           value_range=UNIT_RANGE))


register(MeasureDefinition("NERR11", nerr11, "not-but-nearly ERR, eq. 11: stopping on gain, INSQ's patience T "
                                             "(Azzopardi et al. 2021; cwl_eval)", options=("T",) + _CWL,
                           value_range=UNIT_RANGE))


register(MeasureDefinition("BPM", bpm, "bejeweled player model, static: read to k or to a gain of T "
                                       "(Zhang et al. 2017; cwl_eval)", options=("T",) + _CWL, value_range=UNIT_RANGE))

# ir_measures' names (its cwl_eval provider), each checked against ir_measures on TREC-8 and
# DL 2020 by tests/unit/measures/test_cwl.py (cwl_eval visits 1000 ranks a list in Python).
_CWL_DIFFERS = ("cwl_eval's gains (grade - min_rel) / (max_rel - min_rel), clipped to [0, 1], over cwl_eval's 1000 "
                "ranks (max_depth); ir_measures requires max_rel (and @k for SDCG, NERR8, NERR9, BPM), irmeta "
                "without max_rel takes the qrels' largest grade and without @k reads to max_depth")
register_peer_names(
    *(PeerName(family, "ir_measures", family, family, _CWL_DIFFERS, examples=((typed, request),),
               checked_by="tests/unit/measures/test_cwl.py")
      for family, typed, request in (("INST", "INST", "INST(T=1.0,max_rel=1)"),
                                     ("INSQ", "INSQ(T=2)", "INSQ(T=2.0,max_rel=1)"),
                                     ("SDCG", "SDCG@10", "SDCG(max_rel=1)@10"),
                                     ("NERR8", "NERR8@20", "NERR8(max_rel=1)@20"),
                                     ("NERR9", "NERR9@10", "NERR9(max_rel=1)@10"),
                                     ("NERR10", "NERR10(p=0.8)", "NERR10(p=0.8,max_rel=1)"),
                                     ("NERR11", "NERR11", "NERR11(T=1.0,max_rel=1)"),
                                     ("BPM", "BPM(T=2)@20", "BPM(T=2.0,max_rel=1)@20"))),
)
