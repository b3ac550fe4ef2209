"""Rank-biased precision and expected reciprocal rank (issue 20), vectorised over runs and topics.

``RBP(p=0.8)``
    Moffat and Zobel (TOIS 2008): (1 - p) sum_i rel_i p^(i - 1) over the run's list (``@k``:
    its top k), rel_i = 1 for a relevant document (grade >= the threshold), else 0; with a
    ``gains`` map, rel_i = g(d_i) / the map's largest gain, for every judged document.
``RBP_residual(p=0.8)``
    the weight RBP leaves unknown: (1 - p) sum over the unjudged ranks i <= n of p^(i - 1),
    plus p^n beyond the list, n the length of the run's list (``@k``: at most k). Ranks 1..n
    carry 1 - p^n in all, so it is 1 - (1 - p) sum over the judged ranks of p^(i - 1).
    ``when=any_unjudged``: trec_eval's ``rbp_resid`` (m_rbp_resid.c), which reports the
    residual only for a list holding an unjudged document (absent from the qrels, or a
    negative grade: trec_eval's "in the pool, unjudged") and 0 for a fully judged one,
    tail p^n included; default ``when=always``.
``RBP(gain_scale=topic_max)``
    trec_eval's graded ``rbp`` (m_rbp.c): rel_i = g(d_i) / G_t where G_t > 1, else g(d_i),
    g the grade of a judged document (every grade >= 0, whatever the threshold) or the
    ``gains`` map (with ``gains_rest=grade``, as trec_eval's ``rbp.1=2,2=5`` reads a map,
    a grade it does not name gains the grade itself), G_t the largest of trec_eval's gain
    list for the topic (gain_init.c): the map's gains and the gain of every grade it does
    not name from 0 to the topic's largest judged grade; without a map, that grade.
    trec_eval's names ``rbp`` and ``rbp.p=x`` read as ``RBP(p=0.9,gain_scale=topic_max)``
    and ``RBP(p=x,gain_scale=topic_max)``. (m_rbp.c leaves its min/max uninitialised; the
    built binary starts them at 0, the reading every figure of it shows: gains / G_t.)
    Default ``gain_scale=threshold``: rel_i as above (1 at the threshold, or gain over the
    map's largest).
``RBP(gain_scale=none)``
    ranx's ``rbp`` (ranx/metrics/rank_biased_precision.py): rel_i = g(d_i) unscaled, g the
    grade of a judged document graded at least ``min_grade`` (default 1; ranx's ``-lN``) or
    the ``gains`` map's gain, 0 below ``min_grade``; so at most the largest gain, not 1.
    ranx's ``rbp.95`` and ``rbp@95`` read as ``RBP(p=0.95,gain_scale=none)``, over the whole
    ranking (ranx's ``@`` gives p, not a cutoff).
``RBP_rareness(p=0.8)``
    RBP with rel_i (1 + alpha R(d_i)), R the ``rarity`` function (S_d counted at the rarity
    depth, default the runs' depth, or k): RBP + alpha (1 - p) sum_i rel_i R(d_i) p^(i - 1),
    affine in alpha. A judged document below the threshold that a gain map rewards has R = 0.
``ERR@k``
    Chapelle et al. (CIKM 2009): R_i = (2^g(d_i) - 1) / 2^g_max, g the grade of a judged
    document with a positive grade (or the ``gains`` map), g_max the largest over the
    collection's qrels; ERR = sum_{i<=k} R_i / i prod_{j<i} (1 - R_j). Any grade works
    (R is computed without forming 2^g: :func:`stopping_probabilities`).
    ``ERR(max_grade=4)@20``: g_max fixed at 4 whatever the qrels hold, as the TREC Web
    track's official gdeval.pl (and so ir_measures' ``ERR@k``) takes it; a grade above
    ``max_grade`` is refused, as gdeval refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.campaign.rarity import LINEAR, check_rarity_function
from irmeta.measures.alpha import Alpha
from irmeta.measures.graded import (
    GainMap,
    _check_cutoff,
    _gain_postings,
    check_gains_rest,
    check_min_grade,
    judgment_gains,
    normalise_gains,
)
from irmeta.measures.rareness import RARENESS_RANGE, RARITY_OPTION, alpha_weights, rarity_cutoff, rarity_for
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
)

if TYPE_CHECKING:
    from irmeta.campaign.rarity import Rarity

PERSISTENCE = 0.8  # Moffat and Zobel's p, ir_measures' default
TREC_EVAL_PERSISTENCE = 0.9  # trec_eval's rbp and rbp_resid default p
GAIN_SCALES = ("threshold", "topic_max", "none")
RESIDUAL_WHEN = ("always", "any_unjudged")


def _persistence(p: object) -> float:
    """RBP's persistence: a number strictly between 0 and 1 (p = 1 weighs every rank alike
    and sums without bound; p = 0 reads rank 1 only)."""
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"RBP's persistence p must be a number in (0, 1), not {type(p).__name__} {p!r}")
    value = float(p)
    if not 0.0 < value < 1.0:
        raise ValueError(f"RBP's persistence p must be in (0, 1), not {p!r}")
    return value


register_option_check("p", _persistence)


def _word(option: str, allowed: tuple[str, ...]):
    def check(value: object) -> str:
        if value not in allowed:
            raise ValueError(f"{option} takes {' or '.join(allowed)}, not {value!r}")
        return str(value)
    return check


register_option_check("gain_scale", _word("gain_scale", GAIN_SCALES))
register_option_check("when", _word("when", RESIDUAL_WHEN))


def topic_scaled_gains(matrix: RelevanceMatrix, gains: GainMap | None = None, rest: str = "zero") -> np.ndarray:
    """(J,) trec_eval rbp's rel of each judged document: its gain (grade >= 0, or the map,
    ``rest`` the gain of the grades it does not name) over G_t where G_t > 1 (m_rbp.c). G_t
    is the largest of trec_eval's gain list for the topic: every gain the map gives, and
    the gain of each grade it does not name from 0 to the topic's largest judged grade."""
    table = normalise_gains(gains)
    judged = matrix.qrels_grade >= 0
    gain = (np.where(judged, matrix.qrels_grade, 0).astype(np.float64) if table is None
            else np.where(judged, judgment_gains(matrix, table, rest=rest), 0.0))
    largest = np.full(matrix.n_topics, -1, dtype=np.int64)  # the topic's largest judged grade
    np.maximum.at(largest, matrix.qrels_topic[judged], matrix.qrels_grade[judged])
    if table is None:
        top = np.maximum(largest, 0).astype(np.float64)
    else:
        unnamed = largest.copy()  # the largest grade <= it the map does not name
        for _ in range(len(table)):
            unnamed = np.where(np.isin(unnamed, list(table)), unnamed - 1, unnamed)
        rest_top = np.maximum(unnamed, 0).astype(np.float64) if rest == "grade" else np.zeros(matrix.n_topics)
        top = np.maximum(rest_top, max(table.values(), default=0.0))
    scale = np.where(top > 1.0, top, 1.0)[matrix.qrels_topic]
    return gain / scale


def rbp_gains(matrix: RelevanceMatrix, gains: GainMap | None = None, rest: str = "zero") -> np.ndarray:
    """(J,) rel of each judged document: 1 at or above the threshold (no map), else its
    gain over the largest gain (the map's, or a grade's it does not name with ``rest``
    ``grade``; 0 everywhere when that is 0)."""
    table = normalise_gains(gains)
    if table is None:
        return (matrix.qrels_grade >= matrix.threshold).astype(np.float64)
    gain = judgment_gains(matrix, table, rest=rest)
    top = max(max(table.values(), default=0.0), float(gain.max(initial=0.0)))
    return gain / top if top > 0 else np.zeros_like(gain)


def rank_weights(rank: np.ndarray, p: float) -> np.ndarray:
    """(1 - p) p^(i - 1) at each rank i."""
    return (1.0 - p) * np.power(p, rank.astype(np.float64) - 1.0)


def _weighted(matrix: RelevanceMatrix, cutoff: int | None, rel: np.ndarray, factor: np.ndarray, p: float) -> np.ndarray:
    """(runs, topics) sum_i rel_i factor_i (1 - p) p^(i - 1), in rank order."""
    postings = _gain_postings(matrix, rel, cutoff)
    j = postings.judgment
    return matrix.grid(postings.ordered_sums(rel[j] * factor[j] * rank_weights(postings.rank, p)))


def unscaled_gains(matrix: RelevanceMatrix, gains: GainMap | None, min_grade: int,
                   rest: str = "zero") -> np.ndarray:
    """(J,) ranx rbp's rel of each judged document: its grade (or the map's gain, ``rest``
    that of a grade it does not name) where the grade is at least ``min_grade`` (and 1), else 0."""
    floor = max(check_min_grade(min_grade), 1)
    table = normalise_gains(gains)
    gain = (matrix.qrels_grade.astype(np.float64) if table is None else judgment_gains(matrix, table, rest=rest))
    return np.where(matrix.qrels_grade >= floor, gain, 0.0)


def rbp(matrix: RelevanceMatrix, cutoff: int | None, *, p: float = PERSISTENCE,
        gains: GainMap | None = None, gain_scale: str = "threshold", min_grade: int = 1,
        gains_rest: str = "zero") -> np.ndarray:
    """RBP = (1 - p) sum_i rel_i p^(i - 1) (Moffat and Zobel 2008); (S, Q)."""
    _check_cutoff(cutoff)
    rest = check_gains_rest(gains_rest)
    scale = _word("gain_scale", GAIN_SCALES)(gain_scale)
    if check_min_grade(min_grade) != 1 and scale != "none":
        raise ValueError(f"RBP's min_grade applies with gain_scale=none (ranx's gains), not gain_scale={scale}")
    if scale == "none":
        rel = unscaled_gains(matrix, gains, min_grade, rest)
        postings = matrix.judged.top(cutoff)
        j = postings.judgment
        return matrix.grid(postings.ordered_sums(rel[j] * rank_weights(postings.rank, _persistence(p))))
    if scale == "topic_max":
        rel = topic_scaled_gains(matrix, gains, rest)
        postings = matrix.judged.top(cutoff)  # a grade below the threshold gains too
        j = postings.judgment
        return matrix.grid(postings.ordered_sums(rel[j] * rank_weights(postings.rank, _persistence(p))))
    rel = rbp_gains(matrix, gains, rest)
    return _weighted(matrix, cutoff, rel, np.ones_like(rel), _persistence(p))


def rbp_residual(matrix: RelevanceMatrix, cutoff: int | None, *, p: float = PERSISTENCE,
                 when: str = "always") -> np.ndarray:
    """RBP's residual: 1 - (1 - p) sum over judged ranks i <= n of p^(i - 1); (S, Q).
    ``when="any_unjudged"``: 0 for a list without an unjudged document (trec_eval rbp_resid)."""
    _check_cutoff(cutoff)
    p = _persistence(p)
    trec_eval = _word("when", RESIDUAL_WHEN)(when) == "any_unjudged"
    judged = matrix.judged.top(cutoff)
    if trec_eval:  # a negative grade is trec_eval's "in the pool, unjudged"
        keep = matrix.qrels_grade[judged.judgment] >= 0
        judged = type(judged)(offsets_from_counts(judged.counts_where(keep)), judged.rank[keep],
                              judged.judgment[keep])
    n = matrix.length if cutoff is None else np.minimum(matrix.length, int(cutoff))
    tail = np.power(p, n.astype(np.float64))
    # unjudged weight = ranks 1..n's (1 - p^n) less the judged ranks'; floored at 0 against rounding
    unjudged = np.maximum((1.0 - tail) - matrix.grid(judged.ordered_sums(rank_weights(judged.rank, p))), 0.0)
    residual = unjudged + tail
    if trec_eval:
        return np.where(matrix.cell_counts(judged) < n, residual, 0.0)
    return residual


def rbp_rareness(matrix: RelevanceMatrix, cutoff: int | None, *, p: float = PERSISTENCE,
                 gains: GainMap | None = None, rarity: str = LINEAR, alphas: Sequence[Alpha] = (0.0,),
                 rarity_counts: Rarity | None = None, rarity_depth: int | None = None,
                 **_: object) -> np.ndarray:
    """RBP_rareness = (1 - p) sum_i rel_i (1 + alpha R(d_i)) p^(i - 1); (A, S, Q)."""
    check_rarity_function(rarity, "RBP_rareness")
    base = rbp(matrix, cutoff, p=p, gains=gains)
    found = rarity_for(matrix, rarity_cutoff(matrix, cutoff), rarity_counts, rarity_depth)
    rel = rbp_gains(matrix, gains)
    term = _weighted(matrix, cutoff, rel, found.by_qrels_row(found.values(rarity)), _persistence(p))
    return base[None] + alpha_weights(alphas, matrix.n_relevant) * term[None]


def products_before(postings: Postings, factors: np.ndarray) -> np.ndarray:
    """(n,) at each posting, the product of its cell's ``factors`` strictly above it, in
    rank order (1 at a cell's first posting)."""
    acc = np.ones(postings.n_cells, dtype=np.float64)
    out = np.empty(len(postings), dtype=np.float64)
    for idx, c in postings.round_cells():
        out[idx] = acc[c]
        acc[c] *= factors[idx]
    return out


# 2^1000 and 2^-1000 are finite normal doubles: shifting every exponent down by
# g_max - 1000 keeps each power finite, and exact (the division is by a power of 2).
_LARGEST_EXPONENT = 1000.0


def _two_to(exponent: np.ndarray) -> np.ndarray:
    """2^e exactly for integer e <= 0 of any size (0 below 2^-1100, past the subnormals)."""
    return np.ldexp(1.0, np.maximum(exponent, -1100).astype(np.int32))


def grade_stopping_probabilities(gain: np.ndarray) -> np.ndarray:
    """(J,) ERR's R = (2^g - 1) / 2^g_max = 2^(g - g_max) - 2^-g_max for integer gains g
    (int64 grades, 0 for none), g_max the largest (Chapelle et al. 2009): exponents taken
    in integers, so any int64 grade works and grades past 2^53 stay apart. Each power is
    exact and so is their difference for g <= 53: bit for bit the textbook formula."""
    g_max = gain.max(initial=0)
    return np.where(gain > 0, _two_to(gain - g_max) - _two_to(np.asarray(-g_max)), 0.0)


def stopping_probabilities(gain: np.ndarray) -> np.ndarray:
    """(J,) ERR's R = (2^g - 1) / 2^g_max for float gains g (a gain map's), finite for
    any finite gain: (2^(g - s) - 2^-s) / 2^(g_max - s) with s = max(0, g_max - 1000), so
    no power overflows. s = 0 below g_max = 1000: the textbook formula, bit for bit; above
    it the lowest gains underflow to R = 0, their R < 2^-1000 being lost beside 1 anyway."""
    g_max = float(gain.max(initial=0.0))
    shift = max(0.0, g_max - _LARGEST_EXPONENT)
    return (np.power(2.0, gain - shift) - np.power(2.0, -shift)) / np.power(2.0, g_max - shift)  # 0 where g = 0


def check_max_grade(value: object) -> int | None:
    """ERR's ``max_grade``: None (the qrels' largest) or a whole number >= 1."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"ERR's max_grade must be a whole number >= 1, not {type(value).__name__} {value!r}")
    if not (float(value).is_integer() and value >= 1):
        raise ValueError(f"ERR's max_grade must be a whole number >= 1, not {value!r}")
    return int(value)


register_option_check("max_grade", check_max_grade)


def err(matrix: RelevanceMatrix, cutoff: int | None, *, gains: GainMap | None = None,
        max_grade: int | None = None) -> np.ndarray:
    """ERR@k = sum_{i<=k} R_i / i prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^g_max (Chapelle et al. 2009);
    ``max_grade``: g_max fixed (gdeval.pl's 4), not the qrels' largest."""
    _check_cutoff(cutoff)
    fixed = check_max_grade(max_grade)
    if fixed is not None and normalise_gains(gains) is not None:
        raise ValueError("ERR takes gains or max_grade, not both")
    if normalise_gains(gains) is None:  # the grades, where positive (as judgment_gains's)
        gain = np.where(matrix.qrels_grade >= 1, matrix.qrels_grade, 0)
        if fixed is not None:
            if gain.max(initial=0) > fixed:
                raise ValueError(f"ERR(max_grade={fixed}): the qrels hold grade {int(gain.max())}, above max_grade "
                                 f"(gdeval refuses such qrels)")
            stop = grade_stopping_probabilities(np.append(gain, fixed))[:-1]  # g_max = max_grade
        else:
            stop = grade_stopping_probabilities(gain)
    else:
        gain = judgment_gains(matrix, gains, below_threshold=True)
        stop = stopping_probabilities(gain)
    postings = _gain_postings(matrix, gain, cutoff)  # documents without a gain stop no one
    s = stop[postings.judgment]
    reach = products_before(postings, 1.0 - s)
    return matrix.grid(postings.ordered_sums(s / postings.rank.astype(np.float64) * reach))


register(MeasureDefinition("RBP", rbp, "rank-biased precision, persistence p (Moffat and Zobel 2008)",
                           options=("p", "gains", "gain_scale", "min_grade", "gains_rest"),
                           # rel <= 1: at most 1 - p^k; ranx's unscaled grades: at most the largest
                           value_range=RangeDeclaration(unbounded_with=(("gain_scale", "none"),))))

_RANX_RBP = ("p = 0.NN (ranx reads the digits after . or @ as p, never a cutoff), over the whole ranking, a judged "
             "document weighing its grade (grades >= 1; with -lN grades >= N), unscaled")
_AMBIGUOUS_RBP = ("ambiguous: write rbp.{1} for ranx's RBP(p=0.{1},gain_scale=none) (every rank, grades as gains), "
                  "RBP(p=0.{1}) for irmeta's RBP at p = 0.{1} (relevant = 1), or RBP@{1} for irmeta's "
                  "RBP(p=0.8) cut at rank {1}")
register_peer_names(
    PeerName("RBP", "trec_eval", "rbp", "RBP(p=0.9,gain_scale=topic_max)", "p = 0.9; a judged document gains its "
             "grade over its topic's largest grade when that exceeds 1", pattern="rbp", examples=same("rbp")),
    PeerName("RBP", "trec_eval", "rbp.p=x", "RBP(p={0},gain_scale=topic_max)", "gains as trec_eval's rbp",
             pattern=r"rbp[._]p=" + NUMBER, examples=(("rbp.p=0.5", "rbp.p=0.5"), ("rbp_p=0.5", "rbp.p=0.5")),
             symbols=("x",)),
    PeerName("RBP", "ranx", "rbp.NN", "RBP(p=0.{0},gain_scale=none)", _RANX_RBP, pattern=r"rbp\.(\d+)",
             examples=same("rbp.95", "rbp.8"), symbols=("NN",)),
    PeerName("RBP", "ranx", "rbp@NN", "RBP(p=0.{0},gain_scale=none)", _RANX_RBP, pattern=r"rbp@(\d+)",
             examples=same("rbp@95"), symbols=("NN",)),
    PeerName("RBP", "ranx", "rbp.NN-lN", "RBP(p=0.{1},gain_scale=none,min_grade={2})", _RANX_RBP,
             pattern=r"rbp([.@])(\d+)-l(\d+)", examples=same("rbp.95-l2", "rbp@9-l3"),
             symbols=(".", "NN", "N")),
    PeerName("RBP", "ir_measures", "RBP", "RBP", "ir_measures' RBP without rel= (trectools) weighs a judged "
             "document by its grade, unscaled: write RBP(gain_scale=none)@k for its value; its RBP(rel=t) (cwl_eval) "
             "is irmeta's RBP at threshold t", cutoff=True,
             examples=(("RBP(gain_scale=none)@10", "RBP@10"), ("RBP(p=0.9,gain_scale=none)@20", "RBP(p=0.9)@20"))),
    PeerName("RBP", "ranx", "RBP.NN, Rbp@NN", None, _AMBIGUOUS_RBP, pattern=r"(?i)(?!(?-i:RBP@))(rbp[.@])(\d+)",
             symbols=("RBP.", "NN")),
)


register(MeasureDefinition("RBP_residual", rbp_residual,
                           "RBP's residual: the weight of unjudged ranks and of the ranks past the list",
                           higher_is_better=False, options=("p", "when"), value_range=UNIT_RANGE))
register_peer_names(
    PeerName("RBP_residual", "trec_eval", "rbp_resid", "RBP_residual(p=0.9,when=any_unjudged)", "p = 0.9; 0 for a "
             "list without an unjudged document", pattern="rbp_resid", examples=same("rbp_resid")),
    PeerName("RBP_residual", "trec_eval", "rbp_resid.p=x", "RBP_residual(p={0},when=any_unjudged)", "0 for a list "
             "without an unjudged document", pattern=r"rbp_resid[._]p=" + NUMBER,
             examples=(("rbp_resid.p=0.95", "rbp_resid.p=0.95"),), symbols=("x",)),
)


register(MeasureDefinition("RBP_rareness", rbp_rareness, "RBP with rarity-weighted relevance rel (1 + alpha R)",
                           uses_alpha=True, options=("p", "gains") + RARITY_OPTION, value_range=RARENESS_RANGE))


register(MeasureDefinition("ERR", err, "expected reciprocal rank at k (Chapelle et al. 2009)",
                           options=("gains", "max_grade"), value_range=UNIT_RANGE))
register_peer_names(
    PeerName("ERR", "ir_measures", "ERR", "ERR", "ir_measures computes ERR@k with gdeval.pl, the largest grade fixed "
             "at 4 (irmeta's ERR@k takes the qrels' largest): write ERR(max_grade=4)@k for its value",
             cutoff=True, examples=(("ERR(max_grade=4)@20", "ERR@20"), ("ERR(max_grade=4)@10", "ERR@10"))),
)
