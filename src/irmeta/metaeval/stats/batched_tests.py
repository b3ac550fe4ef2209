"""The paired tests over a batch of trials at once: the (trials, topics) differences
d = x_a - x_b of one run pair per trial in, each trial's p-values out, one row per tail
asked for. The error-rate simulation (:mod:`irmeta.metaeval.test_error_rates`) runs
every test on 100,000 simulated pairs; the registry's functions (:mod:`.paired_tests`,
:mod:`.signed_rank`, :mod:`.resampling_tests`) test every pair of one run matrix, so a
trial would be one call on a 2-run matrix. These are the same tests, row by row: each
two-tailed p-value equals the registry's function's on the matrix ``[x_a; x_b]`` (the
same operations on the same rows; the randomised tests from the same draws, the seed
giving the same generator), which ``test_batched_tests`` checks on random matrices with
ties and zero differences.

Tails: ``2`` the registry's two-sided p-value; ``1`` the one-tailed p-value of the
alternative that x_a is better (mean(d) > 0, scipy's ``alternative='greater'``): the
t-test's P(T >= t), Wilcoxon's P(R+ >= r) by the method the two-sided test picks for
the row, the sign test's P(K >= k) of Binomial(n', 1/2), and the randomised tests' share
of draws at least as large as the observed statistic (not its absolute value), with the
tie band of the two-sided count.

Two calls, as the registry's: ``f(d, tails)``, and for a randomised test
``f(d, tails, permutations, seed, ceiling=1.0)``, each returning a (len(tails), trials)
float64 array. A randomised test draws its B = ``permutations`` sign vectors or topic
resamples once from ``Generator(PCG64(seed))`` (:func:`.resampling_tests.random_signs`,
:func:`.resampling_tests.bootstrap_resamples`: the registry's draws for that seed) and
shares them among all rows, as the registry shares them among all pairs.

``ceiling``: a randomised test stops drawing for a row once its count of draws at least
as extreme exceeds the largest count whose p is <= ``ceiling``, in every tail asked for:
that row's p-value is then only known to be above ``ceiling`` (it is the p of the draws
counted so far, above ``ceiling`` and at most the full p). Below the ceiling every
p-value is the full one. An error-rate table that asks only whether p <= alpha for alpha
up to 0.1 needs no more: under the null a row is decided after ~0.1 B / p draws, a third
of the draws on average.

``settled`` and ``group``: rows come in groups of ``group`` consecutive rows (a family of
run pairs), and after each block of draws ``settled(lower, upper)`` (:data:`Settle`) says
which groups need no more draws, from the bounds of their p-values (after c of B draws
with b counted: p(b) <= p <= p(b + B - c)). A settled group's rows return p(b), the p of
the draws counted so far: its caller must want no more than what those bounds decide
(the familywise error asks only whether each correction's smallest adjusted p is <= each
alpha, which the bounds decide once no alpha lies between the two).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from irmeta.metaeval.stats import blocks
from irmeta.metaeval.stats.distributions import binomial_sf
from irmeta.metaeval.stats.pair_differences import PAIR_BLOCK_SHARE, mean_and_variance, studentize
from irmeta.metaeval.stats.paired_tests import sign_test_pvalues
from irmeta.metaeval.stats.resampling_tests import (
    TIE_TOLERANCE,
    bootstrap_resamples,
    random_signs,
    randomised_pvalues,
    resample_counts,
)
from irmeta.metaeval.stats.signed_rank import _exact_tails, enumerated_counts, signed_rank_sums, wilcoxon_groups

#: The tails a batched test can give: 1 (x_a better, mean(d) > 0) and 2 (either way).
TAILS = (1, 2)
# Rows x draws of one block of a randomised test's statistics (8 bytes each): small
# enough for the comparisons to run in cache, large enough for the products to run at
# full speed.
_DRAW_BLOCK = 512
_ROW_BLOCK = 128
# Unit roundoffs of single and double precision.
_U32 = 2.0**-24
_U64 = 2.0**-53


def checked_differences(d: np.ndarray) -> np.ndarray:
    """The (trials, topics) float64 differences of a batched test: finite, 2 topics or more."""
    out = np.asarray(d, dtype=np.float64)
    if out.ndim != 2:
        raise ValueError(f"differences must be (trials, topics), not of shape {out.shape}")
    if out.shape[1] < 2:
        raise ValueError(f"need at least 2 topics, got {out.shape[1]}")
    if not np.isfinite(out).all():
        raise ValueError("differences must be finite")
    return out


def checked_tails(tails: Sequence[int]) -> tuple[int, ...]:
    """``tails`` as a tuple of 1s and 2s, each once, in the order given."""
    out = tuple(dict.fromkeys(int(t) for t in tails))
    if not out or set(out) - set(TAILS):
        raise ValueError(f"tails are some of {TAILS}, not {tuple(tails)!r}")
    return out


def _row_blocks(rows: int, per_row_bytes: int) -> Iterator[slice]:
    size = blocks.block_size(per_row_bytes, blocks.BLOCK_BYTES // PAIR_BLOCK_SHARE)
    for start in range(0, rows, size):
        yield slice(start, min(start + size, rows))


# ------------------------------------------------------------------ analytic tests


def paired_t(d: np.ndarray, tails: Sequence[int] = (2,)) -> np.ndarray:
    """The paired t-test of each row (:func:`.paired_tests.paired_t`): t = mean(d) /
    (sd(d) / sqrt(n)) on n - 1 df, two-tailed p = 2 P(T > |t|), one-tailed P(T >= t)
    (``scipy.stats.ttest_rel(x_a, x_b, alternative='greater')``). All-zero differences:
    t = 0, p = 1 two-tailed and 1/2 one-tailed; constant non-zero ones t = +-inf."""
    from scipy.special import stdtr

    d, tails = checked_differences(d), checked_tails(tails)
    n = d.shape[1]
    out = np.empty((len(tails), len(d)))
    for rows in _row_blocks(len(d), 3 * n * 8):
        mean, variance = mean_and_variance(d[rows])
        t = studentize(mean, np.sqrt(variance / n))
        for i, tail in enumerate(tails):
            out[i, rows] = 2.0 * stdtr(n - 1, -np.abs(t)) if tail == 2 else stdtr(n - 1, -t)
    return out


def sign(d: np.ndarray, tails: Sequence[int] = (2,)) -> np.ndarray:
    """The sign test of each row (:func:`.paired_tests.sign`): k rows with d > 0 of the n'
    with d != 0 against Binomial(n', 1/2); two-tailed as ``binomtest``, one-tailed
    P(K >= k) (``binomtest(k, n', 0.5, alternative='greater')``), evaluated once per
    distinct (k, n'). No non-zero difference: p = 1 in both."""
    d, tails = checked_differences(d), checked_tails(tails)
    positive = np.count_nonzero(d > 0, axis=1)
    nonzero = np.count_nonzero(d, axis=1)
    out = np.empty((len(tails), len(d)))
    for i, tail in enumerate(tails):
        if tail == 2:
            out[i] = sign_test_pvalues(positive, nonzero)
        else:
            combos, where = np.unique(np.stack([positive, nonzero]), axis=1, return_inverse=True)
            out[i] = binomial_sf(combos[0] - 1, combos[1], 0.5)[where.reshape(-1)]
    return out


def _wilcoxon_asymptotic(d: np.ndarray, tails: tuple[int, ...]) -> np.ndarray:
    """:func:`.signed_rank.wilcoxon_asymptotic`'s z, and P(Z >= z) for one tail."""
    from scipy.special import ndtr

    r_plus, count, ties = signed_rank_sums(d)
    mean = count * (count + 1.0) * 0.25
    se = np.sqrt((count * (count + 1.0) * (2.0 * count + 1.0) - ties / 2) / 24)
    z = (r_plus - mean) / se
    return np.stack([2 * ndtr(-np.abs(z)) if tail == 2 else ndtr(-z) for tail in tails])


def _wilcoxon_exact(d: np.ndarray, tails: tuple[int, ...]) -> np.ndarray:
    """:func:`.signed_rank.wilcoxon_exact`, and P(R+ >= r) for one tail (scipy's ``sf``)."""
    r_plus, _, _ = signed_rank_sums(d)
    sf, cdf = _exact_tails(d.shape[1])
    k = r_plus.astype(np.int64)
    return np.stack([np.clip(2 * np.minimum(sf[k], cdf[k]), 0, 1) if tail == 2 else sf[k] for tail in tails])


def _wilcoxon_enumerated(d: np.ndarray, tails: tuple[int, ...]) -> np.ndarray:
    """:func:`.signed_rank.wilcoxon_enumerated`, and #{R+* >= R+} / 2^n for one tail."""
    _, _, less, greater = enumerated_counts(d)
    flips = 2.0 ** d.shape[1]
    return np.stack([np.minimum(2.0 * np.minimum(less, greater) / flips, 1.0) if tail == 2 else greater / flips
                     for tail in tails])


_WILCOXON = {"asymptotic": _wilcoxon_asymptotic, "exact": _wilcoxon_exact, "enumerate": _wilcoxon_enumerated}


def wilcoxon(d: np.ndarray, tails: Sequence[int] = (2,)) -> np.ndarray:
    """Wilcoxon's signed-rank test of each row (:func:`.signed_rank.wilcoxon`), each row by
    the method scipy picks for it alone (:func:`.signed_rank.wilcoxon_groups`: exact for
    n <= 50 without zeros or ties, else the normal approximation without continuity
    correction, or all 2^n flips for n <= 13); one-tailed as
    ``scipy.stats.wilcoxon(x_a, x_b, alternative='greater')``. All-zero rows: p = 1."""
    d, tails = checked_differences(d), checked_tails(tails)
    n = d.shape[1]
    out = np.ones((len(tails), len(d)))
    for rows in _row_blocks(len(d), 8 * (8 * n + (3 * 2**n if n <= 13 else 0))):
        block = d[rows]
        positions = np.arange(rows.start, rows.stop)
        for method, chosen in wilcoxon_groups(block).items():
            if chosen.any():
                out[:, positions[chosen]] = _WILCOXON[method](block[chosen], tails)
    return out


# ------------------------------------------------------------------ randomised tests


def largest_count(ceiling: float, draws: int, plus_one: bool = True) -> int:
    """The largest count b of draws whose p (:func:`.resampling_tests.randomised_pvalues`)
    is <= ``ceiling``, -1 if none is; ``draws`` if every count's is."""
    b = min(draws, max(-1, int(np.floor(ceiling * (draws + 1.0 if plus_one else float(draws))))))
    while b >= 0 and randomised_pvalues(np.array([b]), draws, plus_one)[0] > ceiling:
        b -= 1
    while b < draws and randomised_pvalues(np.array([b + 1]), draws, plus_one)[0] <= ceiling:
        b += 1
    return b


def _up32(x: np.ndarray) -> np.ndarray:
    """Single-precision values >= the double-precision ``x`` (rounded up)."""
    x = np.asarray(x, dtype=np.float64)
    out = x.astype(np.float32)
    low = out.astype(np.float64) < x
    out[low] = np.nextafter(out[low], np.float32(np.inf))
    return out


def _down32(x: np.ndarray) -> np.ndarray:
    """Single-precision values <= the double-precision ``x`` (rounded down)."""
    return -_up32(-np.asarray(x, dtype=np.float64))


def _product_slack(n: int) -> float:
    """A bound, as a share of sum_j |w_j x_j|, on how far a weighted sum over n topics
    computed in single precision (x rounded to single, w exact in it) lies from the same
    sum computed in double precision: each is within gamma_(n-1) sum_j |w_j x_j| of the
    exact sum, gamma_k = k u / (1 - k u), whatever the order of the additions (Higham,
    Accuracy and Stability of Numerical Algorithms, 2nd ed., 2002, eq. 3.5), and
    rounding x to single adds u_32 sum_j |w_j x_j|; 2% over, for the gammas' denominators."""
    return 1.02 * ((n + 1) * _U32 + n * _U64)


def _sure_counts(values: np.ndarray, sure: np.ndarray, possible: np.ndarray, below: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the entries of ``values`` that surely pass a threshold (>= ``sure``, or
    <= it when ``below``) and those that possibly do (>= ``possible``, or <= it): where
    the two counts differ, an entry lies in the band where single precision cannot
    decide."""
    if below:
        return _count(values <= sure), _count(values <= possible)
    return _count(values >= sure), _count(values >= possible)


Counter = Callable[[np.ndarray, slice, np.ndarray], np.ndarray]
#: ``settled(lower, upper)``: given the bounds of each p-value of a block of groups of
#: rows, (tails, groups, group) arrays, which groups need no more draws ((groups,) bool).
Settle = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _count_draws(draws: int, counted: Counter, fixed: np.ndarray, open_: np.ndarray, *, ceiling: float,
                 plus_one: bool, settled: Settle | None = None, group: int = 1) -> np.ndarray:
    """(tails, rows) counts of draws at least as extreme: ``fixed`` where ``open_`` is
    False (decided without draws), else accumulated over blocks of draws,
    ``counted(rows, draw slice, wanted)`` giving the (tails, rows) counts of one block
    (only the ``wanted`` ones need be right). A count stops once its p is above
    ``ceiling`` (:func:`largest_count`), or when ``settled`` says its group of ``group``
    consecutive rows needs no more draws, the bounds of each p-value after c of the B
    draws counted b being p(b) and p(b + B - c); a row stops when all its counts have.
    Each block of draws goes to the rows still drawing, packed into blocks of rows, so
    that rows stopping leave no small products behind."""
    tails, rows = open_.shape
    if settled is not None and rows % group:
        raise ValueError(f"{rows} rows are not whole groups of {group}")
    limit = largest_count(ceiling, draws, plus_one)
    out = np.where(open_, 0, fixed).astype(np.int64)
    seen = np.where(open_, 0, draws).astype(np.int64)  # draws counted so far; a fixed count is complete
    wanted = open_.copy()
    for first in range(0, draws, _DRAW_BLOCK):
        active = np.flatnonzero(wanted.any(axis=0))
        if not len(active):
            break
        block = slice(first, min(first + _DRAW_BLOCK, draws))
        for start in range(0, len(active), _ROW_BLOCK):
            piece = active[start:start + _ROW_BLOCK]
            asked = wanted[:, piece]
            out[:, piece] += np.where(asked, counted(piece, block, asked), 0)
            seen[:, piece] += np.where(asked, block.stop - block.start, 0)
        wanted[:, active] &= out[:, active] <= limit
        if settled is not None and block.stop < draws:
            families = np.unique(active // group)
            members = (families[:, None] * group + np.arange(group)).reshape(-1)
            counts = out[:, members]
            lower = randomised_pvalues(counts, draws, plus_one)
            upper = randomised_pvalues(counts + (draws - seen[:, members]), draws, plus_one)
            shape = (tails, len(families), group)
            done = np.asarray(settled(lower.reshape(shape), upper.reshape(shape)), dtype=bool)
            wanted[:, members[np.repeat(done, group)]] = False
    return out


def _count(mask: np.ndarray) -> np.ndarray:
    """The True entries of each row of a (rows, width) bool array. Each row's bytes summed
    as 8-byte words, 8 counts at once (the mask's bytes are 0 or 1, so no byte of the sum
    carries into the next while it adds at most 255 words), then the 8 bytes of each
    sum: twice as fast as ``count_nonzero``."""
    rows, width = mask.shape
    if width % 8 or width > 8 * 255 or not mask.flags.c_contiguous:
        return np.count_nonzero(mask, axis=1)
    lanes = np.add.reduce(mask.view(np.uint64), axis=1)
    return lanes.view(np.uint8).reshape(rows, 8).sum(axis=1, dtype=np.int64)


def randomisation(d: np.ndarray, tails: Sequence[int] = (2,), permutations: int = 1000, seed: int = 0, *,
                  ceiling: float = 1.0, settled: Settle | None = None, group: int = 1,
                  plus_one: bool = True, single: bool = True) -> np.ndarray:
    """Fisher's paired randomisation test of each row (:func:`.resampling_tests.randomisation`)
    with B = ``permutations`` sign vectors s_b drawn from ``seed``, shared by all rows:

        b2 = #{b : |s_b.d| >= |sum d| - band},   b1 = #{b : s_b.d >= sum d - band},

    band = :data:`.resampling_tests.TIE_TOLERANCE` x sum |d|; p = (b + 1) / (B + 1), or
    b / B with ``plus_one=False``. The flipped sums of a block of rows and draws are one
    (rows, topics) x (topics, draws) product in double precision; with T = |sum d| - band
    > 0, b2 counts s_b.d >= T and s_b.d <= -T (disjoint), the first b1 when sum d >= 0;
    ``ceiling``: see the module's docstring.

    ``single`` (the default): the product in single precision, about twice as fast, and
    the same counts: a draw's single and double product lie within m =
    :func:`_product_slack` x sum |d| of each other, so a single-precision sum at least
    T + m (below T - m) is one whose double-precision sum reaches T (falls short), and a
    row with a sum in between is counted again in double precision."""
    d, tails = checked_differences(d), checked_tails(tails)
    flips = np.ascontiguousarray(random_signs(permutations, d.shape[1], seed).T)  # (topics, B)
    observed = d.sum(axis=1)
    scale = np.abs(d).sum(axis=1)
    band = TIE_TOLERANCE * scale
    both = np.abs(observed) - band
    one = observed - band
    where = {tail: i for i, tail in enumerate(tails)}
    if single:
        d32, flips32 = d.astype(np.float32), flips.astype(np.float32)  # the signs are exact in single
        # m, padded for the rounding of T +- m in double precision
        slack = _product_slack(d.shape[1]) * scale * (1 + 2.0**-40) + np.abs(observed) * 2.0**-50
        sure = {"both": _up32(both + slack), "one": _up32(one + slack)}
        maybe = {"both": _down32(both - slack), "one": _down32(one - slack)}

    def counted_single(rows: np.ndarray, draws: slice, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`counted_double`'s counts from a single-precision product, and the rows
        it cannot decide."""
        flipped = d32[rows] @ flips32[:, draws]
        width = flipped.shape[1]
        out = np.zeros((len(tails), len(rows)), dtype=np.int64)
        unsure = np.zeros(len(rows), dtype=bool)
        above, above_maybe = _sure_counts(flipped, sure["both"][rows, None], maybe["both"][rows, None])
        if 2 in where:
            positive = both[rows] > 0
            below, below_maybe = _sure_counts(flipped, -sure["both"][rows, None], -maybe["both"][rows, None], True)
            out[where[2]] = np.where(positive, above + below, width)
            unsure |= wanted[where[2]] & positive & ((above != above_maybe) | (below != below_maybe))
        if 1 in where:
            out[where[1]] = above
            asked = wanted[where[1]]
            unsure |= asked & (observed[rows] >= 0) & (above != above_maybe)
            negative = np.flatnonzero((observed[rows] < 0) & asked)
            if len(negative):
                r = rows[negative]
                hits, hits_maybe = _sure_counts(flipped[negative], sure["one"][r, None], maybe["one"][r, None])
                out[where[1], negative] = hits
                unsure[negative] |= hits != hits_maybe
        return out, unsure

    def counted(rows: np.ndarray, draws: slice, wanted: np.ndarray) -> np.ndarray:
        if not single:
            return counted_double(rows, draws, wanted)
        out, unsure = counted_single(rows, draws, wanted)
        again = np.flatnonzero(unsure)
        if len(again):
            out[:, again] = counted_double(rows[again], draws, wanted[:, again])
        return out

    def counted_double(rows: np.ndarray, draws: slice, wanted: np.ndarray) -> np.ndarray:
        flipped = d[rows] @ flips[:, draws]
        width = flipped.shape[1]
        threshold = both[rows, None]
        out = np.zeros((len(tails), len(rows)), dtype=np.int64)
        above = _count(flipped >= threshold)  # b2's upper side, and b1 where sum d >= 0
        if 2 in where:
            below = _count(flipped <= -threshold)
            out[where[2]] = np.where(threshold[:, 0] > 0, above + below, width)
        if 1 in where:
            out[where[1]] = above
            negative = np.flatnonzero((observed[rows] < 0) & wanted[where[1]])
            if len(negative):
                out[where[1], negative] = _count(flipped[negative] >= one[rows[negative], None])
        return out

    everywhere = np.ones((len(tails), len(d)), dtype=bool)
    at_least = _count_draws(permutations, counted, np.zeros(everywhere.shape, dtype=np.int64), everywhere,
                            ceiling=ceiling, plus_one=plus_one, settled=settled, group=group)
    return randomised_pvalues(at_least, permutations, plus_one)


def paired_bootstrap(d: np.ndarray, tails: Sequence[int] = (2,), permutations: int = 1000, seed: int = 0, *,
                     ceiling: float = 1.0, settled: Settle | None = None, group: int = 1,
                     plus_one: bool = True, single: bool = True) -> np.ndarray:
    """Sakai's studentised paired bootstrap test of each row
    (:func:`.resampling_tests.paired_bootstrap`) with B = ``permutations`` topic
    resamples drawn from ``seed``, shared by all rows: with c = d - mean(d) (0 where all
    differences are equal), w_b resample b's draw counts, s_b = w_b.c and Q_b = w_b.c^2,
    t*_b = sqrt(n (n - 1)) s_b / (n sqrt(Q_b - s_b^2 / n)) (0/0 := 0, x/0 := +-inf) and
    a shift |s_b| <= n :data:`.resampling_tests.TIE_TOLERANCE` max |c| =: F is 0;

        b2 = #{b : |t*_b| >= |t| - tol (|t| + 1)},   b1 = #{b : t*_b >= t - tol (|t| + 1)},

    p = (b + 1) / (B + 1), or b / B with ``plus_one=False``. For a bound L > 0, |t*_b| >= L
    is |s_b| >= sqrt(k Q_b) with k = n L^2 / (n - 1 + L^2) (and |s_b| > F), the
    registry's operations; s and Q of a block of rows and draws are two products in
    double precision, and with r = sqrt(k Q_b) two comparisons count both tails: s_b >= r
    (t*_b >= L) and s_b <= -r. Q_b >= n min c^2, so a row whose n min c^2 is above F^2 / k
    (four times over, for rounding) has r > 2F and is not checked against the floor.
    t = 0 counts every draw in both tails, t = +inf none, t = -inf every draw in one tail;
    ``ceiling``: see the module's docstring.

    ``single`` (the default): both products in single precision, and the same counts.
    The single and double s_b lie within e = :func:`_product_slack` x n max |c| of each
    other (the weights sum to n); Q_b, a sum of non-negative terms, is within
    (n + 1) u of itself, relatively, in either precision, so the single and double
    r = sqrt(k Q_b) are within a relative rho = (n + 6) u_32 / 2 + (n + 5) u_64 / 2
    (and 8 u_32 more for rounding r (1 +- rho) +- e): a single-precision s_b at least
    r (1 + rho) + e (below r (1 - rho) - e) is one whose double-precision s_b reaches
    the double-precision r (falls short), and likewise for -r. A row with a draw in
    between, or near the floor, is counted again in double precision."""
    d, tails = checked_differences(d), checked_tails(tails)
    n = d.shape[1]
    weights = np.ascontiguousarray(resample_counts(bootstrap_resamples(permutations, n, seed), n).T)  # (n, B)
    mean = d.mean(axis=1)
    centred = np.where((d == d[:, :1]).all(axis=1)[:, None], 0.0, d - mean[:, None])
    squares = centred**2
    t = studentize(mean, np.sqrt(squares.sum(axis=1) / (n - 1) / n))
    floor = n * TIE_TOLERANCE * np.abs(centred).max(axis=1)
    # the bound L on |t*| (two tails) and on t* (one tail: L on |t*| where t > 0, as equal)
    both = np.abs(t) * (1.0 - TIE_TOLERANCE) - TIE_TOLERANCE
    one = np.where(t > 0, both, t - TIE_TOLERANCE * (np.abs(t) + 1.0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale_both = n / ((n - 1) / both**2 + 1.0)  # n L^2 / (n - 1 + L^2)
        scale_one = n / ((n - 1) / one**2 + 1.0)
        near_floor = n * squares.min(axis=1) <= 4.0 * floor**2 / scale_both
    upper = (one > 0) & np.isfinite(one)  # t*_b >= L > 0: the two-tailed hits with s_b > 0
    fixed = {2: np.where(both <= 0, permutations, 0), 1: np.where(one == -np.inf, permutations, 0)}
    drawn = {2: (both > 0) & np.isfinite(both), 1: np.isfinite(one)}
    where = {tail: i for i, tail in enumerate(tails)}
    if single:
        centred32, squares32 = centred.astype(np.float32), squares.astype(np.float32)
        weights32 = weights.astype(np.float32)  # draw counts <= n: exact in single
        shift_slack = _up32(_product_slack(n) * n * np.abs(centred).max(axis=1) * (1 + 8 * _U32))
        rho = 1.02 * ((n + 6) * _U32 + (n + 5) * _U64) / 2 + 8 * _U32
        grow, shrink = _up32(np.array([1.0 + rho]))[0], _down32(np.array([1.0 - rho]))[0]
        with np.errstate(over="ignore"):
            k_both, k_one = scale_both.astype(np.float32), scale_one.astype(np.float32)

    def counted_single(rows: np.ndarray, draws: slice, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`counted_double`'s counts from single-precision products, for rows away
        from the floor, and the rows it cannot decide."""
        s = centred32[rows] @ weights32[:, draws]
        q = squares32[rows] @ weights32[:, draws]
        width = s.shape[1]
        e = shift_slack[rows, None]
        out = np.zeros((len(tails), len(rows)), dtype=np.int64)
        unsure = np.zeros(len(rows), dtype=bool)
        if 1 in where:
            lower = np.flatnonzero(~upper[rows] & wanted[where[1]])
            if len(lower):
                reach = np.sqrt(q[lower] * k_one[rows[lower], None])
                sure, maybe = reach * grow + e[lower], reach * shrink - e[lower]
                beyond, beyond_maybe = _sure_counts(s[lower], -sure, -maybe, True)
                out[where[1], lower] = width - beyond
                # s_b < -r strictly: the entries at the bounds themselves are undecided too
                unsure[lower] |= (beyond != beyond_maybe) | (_count(s[lower] == -sure) > 0)
        np.multiply(q, k_both[rows, None], out=q)
        np.sqrt(q, out=q)
        sure = q * grow
        np.add(sure, e, out=sure)
        np.multiply(q, shrink, out=q)
        np.subtract(q, e, out=q)
        above, above_maybe = _sure_counts(s, sure, q)
        np.negative(sure, out=sure)
        np.negative(q, out=q)
        below, below_maybe = _sure_counts(s, sure, q, True)
        if 2 in where:
            out[where[2]] = above + below
            unsure |= wanted[where[2]] & ((above != above_maybe) | (below != below_maybe))
        if 1 in where:
            up = upper[rows]
            out[where[1]] = np.where(up, above, out[where[1]])
            unsure |= wanted[where[1]] & up & (above != above_maybe)
        return out, unsure

    def counted(rows: np.ndarray, draws: slice, wanted: np.ndarray) -> np.ndarray:
        if not single:
            return counted_double(rows, draws, wanted)
        out = np.zeros((len(tails), len(rows)), dtype=np.int64)
        again = near_floor[rows].copy()
        away = np.flatnonzero(~again)
        if len(away):
            out[:, away], again[away] = counted_single(rows[away], draws, wanted[:, away])
        again = np.flatnonzero(again)
        if len(again):
            out[:, again] = counted_double(rows[again], draws, wanted[:, again])
        return out

    def counted_double(rows: np.ndarray, draws: slice, wanted: np.ndarray) -> np.ndarray:
        s = centred[rows] @ weights[:, draws]
        q = squares[rows] @ weights[:, draws]
        out = np.zeros((len(tails), len(rows)), dtype=np.int64)
        if 1 in where:
            # L <= 0: every draw but those with t*_b < L (negative, beyond |L| strictly)
            lower = np.flatnonzero(~upper[rows] & wanted[where[1]])
            if len(lower):
                r, shift = rows[lower], -s[lower]
                reach = np.sqrt(scale_one[r, None] * q[lower])
                out[where[1], lower] = s.shape[1] - _count((shift > reach) & (shift > floor[r, None]))
        # q := sqrt(k Q_b), the registry's operations: |t*_b| >= L where |s_b| >= it
        np.multiply(q, scale_both[rows, None], out=q)
        np.sqrt(q, out=q)
        above = _count(s >= q)  # t*_b >= L > 0
        np.negative(q, out=q)
        below = _count(s <= q)  # t*_b <= -L
        close = np.flatnonzero(near_floor[rows])
        if len(close):  # where the floor can matter, |s_b| must pass it too
            sc, reach, level = s[close], -q[close], floor[rows[close], None]
            above[close] = _count((sc >= reach) & (sc > level))
            below[close] = _count((-sc >= reach) & (-sc > level))
        if 2 in where:
            out[where[2]] = above + below
        if 1 in where:
            out[where[1]] = np.where(upper[rows], above, out[where[1]])
        return out

    at_least = _count_draws(permutations, counted, np.stack([fixed[tail] for tail in tails]),
                            np.stack([drawn[tail] for tail in tails]), ceiling=ceiling, plus_one=plus_one,
                            settled=settled, group=group)
    return randomised_pvalues(at_least, permutations, plus_one)


def randomisation_count(d: np.ndarray, tails: Sequence[int] = (2,), permutations: int = 1000, seed: int = 0, *,
                        ceiling: float = 1.0, settled: Settle | None = None, group: int = 1,
                        single: bool = True) -> np.ndarray:
    """:func:`randomisation` in its count form, p = b / B (``randomisation_count``)."""
    return randomisation(d, tails, permutations, seed, ceiling=ceiling, settled=settled, group=group,
                         plus_one=False, single=single)


def paired_bootstrap_count(d: np.ndarray, tails: Sequence[int] = (2,), permutations: int = 1000, seed: int = 0, *,
                           ceiling: float = 1.0, settled: Settle | None = None, group: int = 1,
                           single: bool = True) -> np.ndarray:
    """:func:`paired_bootstrap` in its count form, p = b / B (``paired_bootstrap_count``)."""
    return paired_bootstrap(d, tails, permutations, seed, ceiling=ceiling, settled=settled, group=group,
                            plus_one=False, single=single)
