"""Did the reproduction reproduce? The reproducibility measures of Breuer, Ferro, Fuhr,
Maistro, Sakai, Schaer and Soboroff, "How to Measure the Reproducibility of
System-oriented IR Experiments" (SIGIR 2020), for one original run and its reproduction
(or, for ER and Delta RI, a baseline b and an advanced run a, each original and
reproduced):

* document order (same collection only), per topic: Kendall's tau Union (:func:`ktu`,
  the paper's; :func:`ktu_repro_eval`, ``repro_eval`` 0.5.0's) and rank-biased overlap
  (:func:`rbo`, Webber's extrapolated RBO_ext, uneven lengths extrapolated (eq. 32);
  :func:`rbo_repro_eval`, Clarke's normalised finite-depth form that ``repro_eval`` uses);
* scores (same collection only): :func:`rmse`, :func:`nrmse`;
* effects (both settings): :func:`effect_ratio`, :func:`delta_ri`;
* significance: :func:`t_test_p`, paired (same collection) or unpaired (another one);
* the tie-aware document order (:func:`tied_document_order`, issue 42): KTU and RBO with
  the runs' equal scores tied, where :func:`ktu` and :func:`rbo` break them by document id.

Every function returns NaN where its value is undefined (a 0 denominator, a measure
outside [0, 1] for nRMSE); the tables write NaN as an empty cell. ``repro_eval`` is the
oracle of the tests (``tests/unit/metaeval/test_reproducibility.py``), never imported here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from irmeta.metaeval.stats.correlation import rbo_ext
from irmeta.metaeval.stats.overlap import rbo as tied_rbo
from irmeta.metaeval.stats.overlap import tied_ranking
from irmeta.metaeval.stats.paired_tests import run_test
from irmeta.metaeval.stats.rank_agreement import tau_a
from irmeta.metaeval.tied_agreement import order_columns

#: repro_eval's defaults: runs cut at 1,000 documents, RBO at p 0.95 to depth 1,000.
KTU_CUTOFF = 1000
RBO_P = 0.95
RBO_DEPTH = 1000


def _positions(ranking: Sequence[str], limit: int) -> dict[str, int]:
    """0-based position of each of the first ``limit`` documents."""
    return {doc: i for i, doc in enumerate(ranking[:limit])}


def ktu(original: Sequence[str], reproduced: Sequence[str], cutoff: int = KTU_CUTOFF) -> float:
    """Kendall's tau Union (Breuer et al. 2020, section 4.1) of the two top-``cutoff``
    rankings of one topic: Kendall's tau-b (Kendall 1945) over the union U of their
    documents, each document ranked by its position in a ranking, the documents a ranking
    lacks tied after its last one (the paper leaves their place implicit; this is irmeta's
    reading). Identical rankings give 1; NaN when U has fewer than two documents."""
    o, r = _positions(original, cutoff), _positions(reproduced, cutoff)
    union = list(dict.fromkeys([*o, *r]))
    x = np.array([o.get(d, len(o)) for d in union], dtype=np.int64)
    y = np.array([r.get(d, len(r)) for d in union], dtype=np.int64)
    return kendall_tau_b(x, y)


def ktu_repro_eval(original: Sequence[str], reproduced: Sequence[str], cutoff: int = KTU_CUTOFF) -> float:
    """``repro_eval`` 0.5.0's KTU (``measure/document_order.py``): both rankings cut at
    ``cutoff``, each document replaced by its place in the *sorted* union of document ids,
    and Kendall's tau between the two sequences position by position (the i-th document
    of one against the i-th of the other). Defined only for rankings of equal length
    (scipy refuses others: NaN here); NaN for fewer than two documents."""
    o, r = list(original[:cutoff]), list(reproduced[:cutoff])
    if len(o) != len(r):
        return math.nan
    place = {doc: i for i, doc in enumerate(sorted(set(o) | set(r)))}
    return kendall_tau_b(np.array([place[d] for d in o], dtype=np.int64),
                         np.array([place[d] for d in r], dtype=np.int64))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two integer vectors in O(n log^2 n) (scipy's ``kendalltau``
    without importing scipy.stats, a second per command; Knight 1966's counting):
    tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)), C - D = n0 - n1 - n2 + n3 - 2D, D the
    strict inversions of y once the pairs are sorted by (x, y), n1, n2, n3 the pairs tied
    in x, in y, in both. NaN when fewer than two items or either vector is constant."""
    n = len(x)
    if n < 2:
        return math.nan
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    n0 = n * (n - 1) // 2
    n1, n2 = _tied_pairs(x), _tied_pairs(np.sort(y))
    n3 = _tied_pairs(x * (int(y.max()) + 1) + y)  # sorted by (x, y): joint ties are adjacent
    if n0 == n1 or n0 == n2:
        return math.nan
    concordance = n0 - n1 - n2 + n3 - 2 * _inversions(y - y.min())
    return concordance / math.sqrt((n0 - n1) * (n0 - n2))


def _tied_pairs(sorted_values: np.ndarray) -> int:
    """Pairs of equal values in a sorted vector: sum of t(t - 1)/2 over runs of t."""
    _, counts = np.unique(sorted_values, return_counts=True)
    return int(np.sum(counts * (counts - 1) // 2))


def _inversions(values: np.ndarray) -> int:
    """Pairs i < j with values[i] > values[j] (non-negative integers), by bottom-up merge
    sort, each level at once: every element of a right half counts the elements of its
    left half greater than it (``searchsorted`` on block-offset keys)."""
    n, span = len(values), int(values.max()) + 1
    index = np.arange(n)
    current = values.astype(np.int64)
    total, width = 0, 1
    while width < n:
        block = index // (2 * width)
        right = (index // width) % 2 == 1
        key = block * span + current
        left_keys = key[~right]  # sorted: blocks ascending, each left half sorted
        ends = np.searchsorted(left_keys, (block[right] + 1) * span, side="left")
        total += int(np.sum(ends - np.searchsorted(left_keys, key[right], side="right")))
        current = np.sort(key) - block * span  # each block of 2 * width now sorted
        width *= 2
    return total


def rbo(original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P, depth: int = RBO_DEPTH) -> float:
    """Webber, Moffat and Zobel's extrapolated RBO_ext (TOIS 2010, eq. 32) of the two
    rankings, each cut at ``depth`` (:func:`~irmeta.metaeval.stats.correlation.rbo_ext`).
    A reproduction that returns fewer documents than the original is the shorter list of
    eq. 32: what it lacks is extrapolated from what it returned, the original is not cut
    to its length (which would compare the reproduction with the original's top few, and
    give 0 where it returned the original's ranks 11-20). In [0, 1]; NaN for an empty ranking."""
    return rbo_ext(list(original[:depth]), list(reproduced[:depth]), p)


#: Depths RBO's finite-depth form sums every term of, as given (arrays of 8 MB at most).
RBO_SUMMED_AS_GIVEN = 1 << 20
#: The most terms it sums past that depth (rankings' length and the weights' fall).
RBO_TERMS_LIMIT = 10_000_000


def rbo_terms(p: float, depth: int, longest: int) -> int:
    """How many terms of RBO's finite-depth form (:func:`rbo_repro_eval`) to sum for
    ``depth`` when the longer ranking holds ``longest`` documents: all of them up to
    :data:`RBO_SUMMED_AS_GIVEN`; past it, the ranking's length and then k more ranks, k
    the fewest with p^k / (1 - p) <= 2^-60. Past both rankings X_d stops growing, so each
    later term is at most a weight times the last summed term's share, and the weights
    after k more ranks add up to less than 2^-60 of either sum: the value is the deeper
    sum's to rounding, in memory for those terms (``rbo_depth`` 10^9 at repro_eval's p 0.95
    sums the rankings and 870 ranks more). The rankings' length alone would not do: the
    form's terms past both rankings still count, each with all they hold. Refused, naming
    ``rbo_depth``, when more than :data:`RBO_TERMS_LIMIT` terms remain (p within about
    5e-6 of 1)."""
    if depth <= RBO_SUMMED_AS_GIVEN:
        return depth
    fall = math.ceil((60 * math.log(2) - math.log1p(-p)) / -math.log(p)) + 1
    terms = min(depth, longest + fall)
    if terms > RBO_TERMS_LIMIT:
        raise ValueError(f"rbo_depth {depth} at rbo_p {p}: RBO's finite-depth form (repro_eval's) would sum "
                         f"{terms:,} terms before its weights fall below 2^-60, more than the {RBO_TERMS_LIMIT:,} "
                         f"irmeta sums; give an rbo_depth of at most {RBO_TERMS_LIMIT:,} (or a smaller rbo_p)")
    return terms


def rbo_repro_eval(original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P,
                   depth: int = RBO_DEPTH) -> float:
    """``repro_eval`` 0.5.0's RBO, Clarke et al.'s normalised finite-depth form (TOIS 2021,
    the TREC Health Misinformation track's): sum_{d=1..depth} p^(d-1) X_d / d divided by
    sum_{d=1..depth} p^(d-1), X_d the documents in both top-d prefixes (a ranking shorter
    than d contributes all it has). Identical rankings of at least ``depth`` documents give 1.
    A depth past 2^20 is summed as far as its terms count (:func:`rbo_terms`)."""
    o, r = _positions(original, depth), _positions(reproduced, depth)
    depth = rbo_terms(p, depth, max(len(o), len(r)))
    joins = [max(i, r[doc]) for doc, i in o.items() if doc in r]  # both prefixes hold doc from depth max + 1
    overlap = np.cumsum(np.bincount(np.asarray(joins, dtype=np.int64), minlength=depth)[:depth])
    weight = np.cumprod(np.concatenate([[1.0], np.full(depth - 1, float(p))]))  # 1, p, p^2... as repro_eval
    return float(np.sum(weight * overlap / np.arange(1, depth + 1)) / np.sum(weight))


def tied_cut(scores: np.ndarray, cutoff: int) -> int:
    """How many of a ranking's documents (scores in trec_eval's order, descending) its top
    ``cutoff`` holds with tie groups whole: past ``cutoff``, those scoring as the last kept
    (cutting a group would break its tie by document id, what the variants avoid)."""
    if len(scores) <= cutoff:
        return len(scores)
    return cutoff + int(np.count_nonzero(scores[cutoff:] == scores[cutoff - 1]))


def _levels(scores: np.ndarray) -> np.ndarray:
    """0 for the best score, 1 for the next distinct one...: equal scores share a level."""
    return np.unique(-np.asarray(scores, dtype=np.float64), return_inverse=True)[1].astype(np.int64).ravel()


def tied_document_order(original: Sequence[str], original_scores: np.ndarray, reproduced: Sequence[str],
                        reproduced_scores: np.ndarray, ties: Sequence[str], cutoff: int = KTU_CUTOFF,
                        p: float = RBO_P, depth: int = RBO_DEPTH) -> dict[str, float]:
    """The tie-aware document-order columns ``ties`` names
    (:func:`~irmeta.metaeval.tied_agreement.order_columns`) for one topic: each ranking's
    documents in trec_eval's order with their scores, equal scores tied, tie groups kept
    whole at ``cutoff`` and ``depth`` (:func:`tied_cut`).

    * ``ktu_b``: :func:`ktu` with score ties: Kendall's tau-b over the union of the two
      top-``cutoff`` lists, each document ranked by its score, the documents a list lacks
      tied below its last; :func:`ktu` itself where no score ties;
    * ``ktu_a``: tau-a (``ircor``'s ``tau_a``) of that union, the original's ranking the
      truth and the reproduction the observer who may tie, pairs it ties not credited; NaN
      where the original ties (equal scores, or documents of the reproduction it lacks);
    * ``rbo_w``, ``rbo_a``, ``rbo_b``: Corsi and Urbano's RBO^w_ext, RBO^a_ext, RBO^b_ext
      (:func:`~irmeta.metaeval.stats.overlap.rbo`) of the two lists to ``depth``, a
      shorter list extrapolated as :func:`rbo` does (eq. 32 without ties).

    NaN for tau with fewer than two documents in the union, as :func:`ktu`."""
    o_scores = np.asarray(original_scores, dtype=np.float64)
    r_scores = np.asarray(reproduced_scores, dtype=np.float64)
    out: dict[str, float] = {}
    columns = order_columns(ties)
    if {"ktu_a", "ktu_b"} & set(columns):
        no, nr = tied_cut(o_scores, cutoff), tied_cut(r_scores, cutoff)
        o = dict(zip(original[:no], _levels(o_scores[:no]).tolist()))
        r = dict(zip(reproduced[:nr], _levels(r_scores[:nr]).tolist()))
        union = list(dict.fromkeys([*o, *r]))
        below_o, below_r = max(o.values(), default=-1) + 1, max(r.values(), default=-1) + 1
        x = np.array([o.get(d, below_o) for d in union], dtype=np.int64)
        y = np.array([r.get(d, below_r) for d in union], dtype=np.int64)
        truth = len(x) >= 2 and len(np.unique(x)) == len(x)
        if "ktu_a" in columns:
            out["ktu_a"] = tau_a(-x, -y) if truth else math.nan  # tau_a: higher is better
        if "ktu_b" in columns:
            out["ktu_b"] = kendall_tau_b(x, y)
    if any(c.startswith("rbo") for c in columns):
        no, nr = tied_cut(o_scores, depth), tied_cut(r_scores, depth)
        x_list = tied_ranking(o_scores[:no], list(original[:no]))
        y_list = tied_ranking(r_scores[:nr], list(reproduced[:nr]))
        for column in (c for c in columns if c.startswith("rbo")):
            out[column] = tied_rbo(x_list, y_list, p, column[-1], depth)["ext"]  # type: ignore[arg-type]
    return {c: out[c] for c in columns}


def rmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """Root mean square error of the per-topic scores, sqrt(mean((x_o - x_r)^2)) (Breuer
    et al. 2020, eq. 2), topics paired."""
    o, r = _paired(original, reproduced)
    return math.sqrt(float(np.mean(np.square(o - r))))


def nrmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """RMSE divided by the largest RMSE the original's per-topic scores allow in [0, 1],
    sqrt(mean(max(x_o, 1 - x_o)^2)) (``repro_eval``'s ``nRMSE``). NaN when an original
    score is outside [0, 1] (ASL, a plugin's unbounded measure): the bound does not hold."""
    o, r = _paired(original, reproduced)
    if np.any((o < 0) | (o > 1)):
        return math.nan
    largest = math.sqrt(float(np.mean(np.square(np.maximum(o, 1.0 - o)))))
    return rmse(o, r) / largest


def _paired(original: np.ndarray, reproduced: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    o, r = np.asarray(original, dtype=np.float64), np.asarray(reproduced, dtype=np.float64)
    if o.shape != r.shape or o.ndim != 1 or len(o) == 0:
        raise ValueError(f"paired per-topic scores need the same topics: {o.shape} and {r.shape}")
    return o, r


def mean_improvement(advanced: np.ndarray, baseline: np.ndarray) -> float:
    """mean over topics of a - b (Breuer et al. 2020, eq. 4's numerator and denominator)."""
    return float(np.mean(np.asarray(advanced, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)))


def effect_ratio(original_a: np.ndarray, original_b: np.ndarray, reproduced_a: np.ndarray,
                 reproduced_b: np.ndarray) -> float:
    """Effect Ratio ER = mean(a' - b') / mean(a - b) (Breuer et al. 2020, eq. 4), the
    reproduced improvement over the original's; 1 reproduces the effect exactly. NaN when
    the original improvement is 0 (a baseline scoring as the advanced run)."""
    original = mean_improvement(original_a, original_b)
    if original == 0:
        return math.nan
    return mean_improvement(reproduced_a, reproduced_b) / original


def relative_improvement(advanced: np.ndarray, baseline: np.ndarray) -> float:
    """RI = (mean(a) - mean(b)) / mean(b); NaN when mean(b) is 0."""
    mean_b = float(np.mean(np.asarray(baseline, dtype=np.float64)))
    if mean_b == 0:
        return math.nan
    return (float(np.mean(np.asarray(advanced, dtype=np.float64))) - mean_b) / mean_b


def delta_ri(original_a: np.ndarray, original_b: np.ndarray, reproduced_a: np.ndarray,
             reproduced_b: np.ndarray) -> float:
    """Delta Relative Improvement, RI - RI' (Breuer et al. 2020, eq. 5): 0 reproduces the
    relative improvement exactly. NaN when either baseline's mean is 0."""
    return relative_improvement(original_a, original_b) - relative_improvement(reproduced_a, reproduced_b)


def t_test_p(original: np.ndarray, reproduced: np.ndarray, *, paired: bool) -> float:
    """Two-sided p of Student's t-test between the original and reproduced per-topic
    scores: ``paired`` (same collection, topics paired; the registry's ``paired_t``,
    scipy's ``ttest_rel``) or unpaired with pooled variance (another collection, scipy's
    ``ttest_ind`` default). Identical scores (t = 0/0) give p = 1, as ``repro_eval``
    reports them; a difference with no spread gives p = 0."""
    if paired:
        o, r = _paired(original, reproduced)
        return float(run_test("paired_t", np.vstack([o, r])).p_value[0])
    return unpaired_t_p(np.asarray(original, dtype=np.float64), np.asarray(reproduced, dtype=np.float64))


def unpaired_t_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided p of the equal-variance two-sample t-test, t = (mean x - mean y) /
    sqrt(s^2 (1/n + 1/m)), s^2 the pooled variance, n + m - 2 df (Student 1908; scipy's
    ``ttest_ind(x, y)``); 0/0 gives 1 and d/0 gives 0. NaN with fewer than 3 values."""
    from scipy.special import stdtr

    n, m = len(x), len(y)
    if n < 1 or m < 1 or n + m < 3:
        return math.nan
    df = n + m - 2
    pooled = (np.sum(np.square(x - x.mean())) + np.sum(np.square(y - y.mean()))) / df
    difference = float(x.mean() - y.mean())
    se = math.sqrt(pooled * (1.0 / n + 1.0 / m))
    if se == 0:
        return 1.0 if difference == 0 else 0.0
    return float(2.0 * stdtr(df, -abs(difference / se)))
