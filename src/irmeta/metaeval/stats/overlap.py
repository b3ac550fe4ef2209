"""Rank-biased overlap with ties, of rankings of any lengths: Corsi and Urbano, "The
Treatment of Ties in Rank-Biased Overlap" (SIGIR 2024), generalising Webber, Moffat and
Zobel, "A Similarity Measure for Indefinite Rankings" (TOIS 2010).

A ranking is a sequence best first whose elements are an item or a set (``set``,
``frozenset``) of tied items, as the authors' reference implementation takes them:
``["red", {"blue", "green"}, "yellow"]``. Flattened, the items of a group of g tied items
whose first rank is t (0-based) span ranks t..b, b = t + g - 1. At depth d (1-based), the
top-d prefix holds each item with a weight, its contribution c(d):

* ``w`` (ties as equality, the items really share their rank): c = 1 once d > t; the
  agreement is A_d = 2 X_d / (|S_d| + |L_d|), |R_d| the items of R with c = 1;
* ``a`` (ties as uncertainty, the expected RBO over the tie-breaks, at random and
  independently in each ranking): c = min(max(d - t, 0), g) / g, the chance that the
  item is among the top d; A_d = X_d / d;
* ``b`` (the same weights, corrected by what the ties lose, so RBO^b(X, X) = 1):
  A_d = X_d / sqrt(sum_S c^2 sum_L c^2), the cosine of the two weight vectors;

X_d = sum_i c_S(i, d) c_L(i, d) over the items of both. Without ties every variant is
Webber's A_d = X_d / d. With S the shorter ranking (s items; L has l), the prefix is seen
to depth s for both, and from s + 1 to l with S whole (Webber's uneven lists, sec. 4.3):
there ``min`` counts no further overlap, ``max`` lets S's unseen items be L's items not
in S, in L's order, and ``ext`` adds (d - s) A_s times the mean of the non-zero weights
of L's items not in S (Webber's eq. 32 without ties). Beyond l:

* RBO_min: X_l / d at every depth d > l (Webber's eq. 11);
* RBO_max: full overlap from f = l + s - X_l on, each unseen item of either ranking
  matching the other's meanwhile;
* RBO_ext: the agreement (X_l + (l - s) A_s) / l at every depth beyond l (eq. 32);

and RBO = (1 - p)/p sum_d A_d p^d over every depth, RBO_res = RBO_max - RBO_min.

Computed in O(s + l) per pair: the weights are functions of d that change only at the
group bounds, so the overlap is a few counts (items full in both, full in one and
partial in the other, partial in both) kept as difference arrays of integers, times the
one partial group's weight at each depth. Each score is summed as 1 minus its shortfall
(1 - p)/p sum_d (1 - A_d) p^d, so identical untied rankings give exactly 1, and the
untied equal-length case is :func:`~irmeta.metaeval.stats.correlation.rbo_ext`'s
arithmetic to the last bit. Rankings sharing no item have RBO_ext = RBO_min = 0 exactly
(1 minus a shortfall of 1 rounds to +-1e-16), and a score that rounding puts a few ulps
outside [0, 1] otherwise is clipped to it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Literal, NamedTuple

import numpy as np

#: The tie-aware variants (Corsi and Urbano's RBO^w, RBO^a and RBO^b).
TIES = ("w", "a", "b")
#: The scores of :func:`rbo`, in its mapping's order.
SCORES = ("ext", "min", "max", "res")
Ties = Literal["w", "a", "b"]
# Section 3's sums are summed term by term while the terms needed (until p^k < 2^-55)
# fit this many; beyond (p within ~4e-5 of 1), by the closed form of sum_d p^d / d.
_DIRECT_TERMS = 2**20


class Flat(NamedTuple):
    """A ranking flattened: its items best first (a group's in its own order), and each
    item's group's first and last rank, 0-based."""

    items: list
    top: np.ndarray
    bottom: np.ndarray


def flatten(ranking: Iterable, depth: int | None = None) -> Flat:
    """The items of ``ranking`` (elements: an item or a set of tied items), with the
    ranks their groups span; with ``depth``, only the groups that start above rank
    ``depth`` (1-based): a group the cut crosses is kept whole, since dropping some of
    its items would break the tie (the arbitrary choice tie-aware RBO avoids).
    A repeated item or an empty group is refused."""
    if isinstance(ranking, (str, bytes, set, frozenset)) or not isinstance(ranking, Iterable):
        raise TypeError(f"a ranking is a sequence of items or sets of tied items, not {type(ranking).__name__}")
    items: list = []
    top: list[int] = []
    bottom: list[int] = []
    for element in ranking:
        if depth is not None and len(items) >= depth:
            break
        group = list(element) if isinstance(element, (set, frozenset)) else [element]
        if not group:
            raise ValueError("a ranking's tie group is empty")
        first = len(items)
        items.extend(group)
        top.extend([first] * len(group))
        bottom.extend([first + len(group) - 1] * len(group))
    if len(set(items)) != len(items):
        repeated = next(item for i, item in enumerate(items) if item in items[:i])
        raise ValueError(f"item {repeated!r} appears twice in a ranking")
    return Flat(items, np.asarray(top, dtype=np.int64), np.asarray(bottom, dtype=np.int64))


def tied_ranking(scores: Sequence[float] | np.ndarray, names: Sequence[Hashable] | None = None,
                 higher_is_better: bool = True) -> list:
    """The items ranked by ``scores``, best first, equal scores one group (a frozenset;
    an untied item as itself): the ranking :func:`rbo` reads. Items are ``names`` (by
    default the indices 0..n-1); groups in score order (the order within a group does not matter to RBO)."""
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError("scores must be a vector")
    if np.isnan(values).any():
        raise ValueError("a NaN score has no rank")
    keys = list(range(len(values))) if names is None else list(names)
    if len(keys) != len(values):
        raise ValueError("names must name every item")
    order = np.argsort(-values if higher_is_better else values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]])) if len(values) else []
    bounds = [*np.asarray(starts).tolist(), len(values)]
    ranking: list = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        group = [keys[i] for i in order[lo:hi].tolist()]
        ranking.append(group[0] if len(group) == 1 else frozenset(group))
    return ranking


def rbo(x: Iterable, y: Iterable, p: float, ties: Ties = "a", depth: int | None = None) -> dict[str, float]:
    """Rank-biased overlap of rankings ``x`` and ``y`` (elements: an item or a set of
    tied items; any lengths) at persistence ``p``, with ties read as ``ties``
    (:data:`TIES`; ``a``, the default, as the authors' reference takes it): a mapping
    with ``ext``, ``min``, ``max`` and ``res`` (the module's docstring). ``depth``: the
    rankings as seen to that rank (:func:`flatten`). NaN for every score when either
    ranking is empty. Symmetric in ``x`` and ``y``."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)) or not 0.0 < p < 1.0:
        raise ValueError(f"rbo persistence p must be in (0, 1), not {p!r}")
    if ties not in TIES:
        raise ValueError(f"rbo ties must be one of {', '.join(TIES)}, not {ties!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"rbo depth must be an integer >= 1 or None, not {depth!r}")
    fx, fy = flatten(x, depth), flatten(y, depth)
    if not fx.items or not fy.items:
        return dict.fromkeys(SCORES, math.nan)
    short, long = (fy, fx) if len(fx.items) >= len(fy.items) else (fx, fy)
    return _scores(short, long, float(p), ties)


# ------------------------------------------------------------------ the sums


def _covering(starts: np.ndarray, stops: np.ndarray, length: int) -> np.ndarray:
    """(length + 1,) for each depth d = 0..length, how many of the intervals
    [start, stop] (inclusive, empty when start > stop) hold d; integers."""
    kept = starts <= stops
    diff = np.bincount(starts[kept], minlength=length + 2) - np.bincount(stops[kept] + 1, minlength=length + 2)
    return np.cumsum(diff)[:length + 1]


class _Side(NamedTuple):
    """One ranking's weights at each depth d = 1..l (arrays of l): ``full`` the items
    with c = 1 (a, b), ``seen`` those with d > t (w), ``partial`` the weight of the one
    group the depth falls inside (0: none) and ``size`` its items."""

    full: np.ndarray
    seen: np.ndarray
    partial: np.ndarray
    size: np.ndarray


def _side(flat: Flat, length: int) -> _Side:
    n = len(flat.items)
    ones = np.full(n, length, dtype=np.int64)
    full = _covering(flat.bottom + 1, ones, length)[1:]
    seen = _covering(flat.top + 1, ones, length)[1:]
    partial = np.zeros(length)
    size = np.zeros(length)
    rank = np.arange(n)
    inside = rank < flat.bottom  # depth rank + 1 falls inside the group, before its last item
    group = (flat.bottom - flat.top + 1)[inside]
    partial[rank[inside]] = (rank[inside] + 1 - flat.top[inside]) / group
    size[rank[inside]] = group
    return _Side(full.astype(np.float64), seen.astype(np.float64), partial, size)


def _scores(short: Flat, long: Flat, p: float, ties: str) -> dict[str, float]:
    s, n_long = len(short.items), len(long.items)
    at_short = {item: i for i, item in enumerate(short.items)}
    in_short = np.array([item in at_short for item in long.items], dtype=bool)
    i_short = np.array([at_short[item] for item in long.items if item in at_short], dtype=np.int64)
    i_long = np.flatnonzero(in_short)
    ts, bs, tl, bl = short.top[i_short], short.bottom[i_short], long.top[i_long], long.bottom[i_long]
    depth = np.arange(1, n_long + 1)
    d = depth.astype(np.float64)
    end = np.full(len(i_long), n_long, dtype=np.int64)

    def count(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        return _covering(starts, stops, n_long)[1:].astype(np.float64)

    S, L = _side(short, n_long), _side(long, n_long)
    unique_top, unique_bottom = long.top[~in_short], long.bottom[~in_short]
    u_end = np.full(len(unique_top), n_long, dtype=np.int64)
    if ties == "w":
        overlap = count(np.maximum(ts, tl) + 1, end)
        unseen_max = np.minimum(depth - s, count(unique_top + 1, u_end))
        unseen_mean = np.ones(n_long)
    else:
        # an item full in both, full in one and inside the other's partial group, or inside both
        overlap = (count(np.maximum(bs, bl) + 1, end) + L.partial * count(np.maximum(bs, tl) + 1, bl)
                   + S.partial * count(np.maximum(ts, bl) + 1, bs)
                   + S.partial * L.partial * count(np.maximum(ts, tl) + 1, np.minimum(bs, bl)))
        # L's items not in S: full, and inside L's partial group, at each depth
        u_full, u_partial = count(unique_bottom + 1, u_end), count(unique_top + 1, unique_bottom)
        ones = np.minimum(depth - s, u_full)
        unseen_max = ones + np.clip(depth - s - u_full, 0, u_partial) * L.partial
        with np.errstate(invalid="ignore", divide="ignore"):  # before depth s + 1, unused
            unseen_mean = (u_full + u_partial * L.partial) / (u_full + u_partial)

    def agreement(common: np.ndarray, short_weight: np.ndarray) -> np.ndarray:
        """A_d of the overlap ``common`` with S weighing ``short_weight`` (its items
        seen at d: |S_d| for w, sum c^2 for b; d past S's end)."""
        if ties == "w":
            return 2.0 * common / (short_weight + L.seen)
        if ties == "b":
            return common / np.sqrt(short_weight * (L.full + L.partial**2 * L.size))
        return common / d

    if ties == "w":
        seen_short = np.where(depth <= s, S.seen, d)
    elif ties == "b":
        seen_short = np.where(depth <= s, S.full + S.partial**2 * S.size, d)
    else:
        seen_short = d
    a_min = agreement(overlap, seen_short)
    a_s = a_min[s - 1]
    after = depth > s  # Webber's uneven lists: S seen whole, its unseen items guessed
    a_max = np.where(after, agreement(overlap + unseen_max, seen_short), a_min)
    a_ext = np.where(after, agreement(overlap + (depth - s) * a_s * unseen_mean, seen_short), a_min)

    weight = p ** d
    c = (1.0 - p) / p
    x_l = float(overlap[-1])  # both rankings whole at depth l: a count of items, exact
    agreement_beyond = (x_l + (n_long - s) * a_s) / n_long
    tail_min, tail_max = _tail_min(n_long, x_l, p), _tail_max(n_long, s, x_l, p)
    # No item in both: every agreement of ext and min is 0, and so are they, exactly (the
    # shortfall form's 1 - 1 would round to +-1e-16)
    disjoint = not len(i_long)
    scores = {
        "ext": 0.0 if disjoint else 1.0 - c * math.fsum((1.0 - a_ext) * weight) - (1.0 - agreement_beyond) * p**n_long,
        "min": 0.0 if disjoint else 1.0 - c * (math.fsum((1.0 - a_min) * weight) + tail_min),
        "max": 1.0 - c * (math.fsum((1.0 - a_max) * weight) + tail_max),
        "res": c * (math.fsum(((a_max - a_min) * weight)[s:]) + tail_min - tail_max),
    }
    # Rounding can leave a score a few ulps outside [0, 1] (disjoint rankings: 1 - 1 =
    # -1e-16); RBO never is, so the ends are clipped, nothing else.
    return {name: float(min(max(value, 0.0), 1.0)) for name, value in scores.items()}


def _tail_min(n_long: int, x_l: float, p: float) -> float:
    """sum over d > l of (1 - X_l / d) p^d: RBO_min's shortfall beyond the rankings."""
    terms = math.ceil(55 * math.log(2) / -math.log(p)) + 1
    if terms <= _DIRECT_TERMS:
        d = np.arange(n_long + 1, n_long + 1 + terms, dtype=np.float64)
        return math.fsum((1.0 - x_l / d) * p**d)
    head = np.arange(1, n_long + 1, dtype=np.float64)
    beyond = -math.log1p(-p) - math.fsum(p**head / head)  # sum over d > l of p^d / d
    return p ** (n_long + 1) / (1.0 - p) - x_l * beyond


def _tail_max(n_long: int, s: int, x_l: float, p: float) -> float:
    """sum over d = l + 1..f of (f - d)/d p^d, f = l + s - X_l: RBO_max's shortfall
    beyond the rankings, none from depth f on (X_l an integer: at depth l every item of
    both is whole)."""
    f = n_long + s - round(x_l)
    d = np.arange(n_long + 1, f + 1, dtype=np.float64)
    return math.fsum((f - d) / d * p**d)
