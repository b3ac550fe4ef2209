"""The paired tests over a batch of trials (irmeta.metaeval.stats.batched_tests): each
two-tailed p-value is the registry's own function's on that trial's 2-run matrix, ties,
zero and constant differences included; each one-tailed p-value scipy's
``alternative='greater'`` or, for the randomised tests, a draw-by-draw count; a ceiling
changes no p-value at or below it; and each correction's smallest adjusted p of a family
is the smallest of its adjusted p-values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from irmeta.metaeval.stats import batched_tests as bt
from irmeta.metaeval.stats.registry import CORRECTIONS, SHIPPED, TESTS, registered_tests, resolve
from irmeta.metaeval.stats.resampling_tests import bootstrap_resamples, random_signs


def _pairs(n: int, seed: int, rows: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """Two runs' scores per row: continuous, on a 0.1 grid (ties, zeros), identical,
    shifted by a constant, equal on a few topics, equal but for one topic."""
    rng = np.random.default_rng(seed)
    a, b = rng.random((rows, n)), rng.random((rows, n)) - 0.05
    a[:16], b[:16] = np.round(a[:16], 1), np.round(b[:16], 1)
    b[16] = a[16]
    b[17] = a[17] - 0.1
    b[18, : n // 3] = a[18, : n // 3]
    b[19] = a[19]
    b[19, 0] += 0.25
    a[20:24], b[20:24] = np.round(a[20:24] * 4) / 4, np.round(b[20:24] * 4) / 4
    return a, b


PAIRED = [t.name for t in SHIPPED if t.paired]


@pytest.mark.parametrize("n", [5, 12, 25, 60])
@pytest.mark.parametrize("name", PAIRED)
def test_two_tailed_pvalues_are_the_registrys_for_each_trial(name, n):
    """Wilcoxon at n = 5 and 12 enumerates with ties, is exact at 25 without them and
    normal at 60: each row by the method scipy picks for it alone."""
    test = TESTS[name]
    a, b = _pairs(n, seed=n)
    batched = resolve(test.batched)
    if test.randomised:
        got = batched(a - b, (2,), 300, 11)
        expected = [test.compute()(np.vstack([x, y]), 300, 11).p_value[0] for x, y in zip(a, b)]
    else:
        got = batched(a - b, (2,))
        expected = [test.compute()(np.vstack([x, y])).p_value[0] for x, y in zip(a, b)]
    assert got.shape == (1, len(a))
    assert got[0].tolist() == expected
    assert len(set(expected)) > (3 if n == 5 else 10)


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 12, 25, 60])
def test_one_tailed_pvalues_are_scipys_greater_alternative(n):
    from scipy import stats

    a, b = _pairs(n, seed=100 + n)
    informative = [i for i in range(len(a)) if (a[i] != b[i]).any() and len(set(a[i] - b[i])) > 1]
    if n == 12:  # scipy enumerates 2^12 flips a tied row, seconds each: one row with zeros, the rest untied
        informative = [18] + [i for i in informative if i >= 24]
    d = (a - b)[informative]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = [stats.ttest_rel(x, y, alternative="greater").pvalue for x, y in zip(a[informative], b[informative])]
        w = [stats.wilcoxon(x, y, alternative="greater").pvalue for x, y in zip(a[informative], b[informative])]
    s = [stats.binomtest(int((x > 0).sum()), int((x != 0).sum()), 0.5, alternative="greater").pvalue for x in d]
    np.testing.assert_allclose(bt.paired_t(d, (1,))[0], t, rtol=1e-13, atol=0)
    assert bt.wilcoxon(d, (1,))[0].tolist() == w
    assert bt.sign(d, (1,))[0].tolist() == s


def _direct_bootstrap_one_tailed(d: np.ndarray, resamples: np.ndarray) -> int:
    """#{b : t*_b >= t - 1e-9 (|t| + 1)}, resample by resample from c = d - mean(d) (0 if
    all d are equal), t* the mean of the drawn c over its standard error, a drawn sum of c
    within 1e-9 n max |c| of 0 being 0, 0/0 := 0 and x/0 := +-inf."""
    n = len(d)
    c = np.zeros(n) if (d == d[0]).all() else d - d.mean()
    sd = c.std(ddof=1)
    t = 0.0 if d.mean() == 0 else (math.copysign(math.inf, d.mean()) if sd == 0 else d.mean() / (sd / math.sqrt(n)))
    bound = t - 1e-9 * (abs(t) + 1)
    noise = 1e-9 * n * np.abs(c).max()
    counted = 0
    for drawn in c[resamples]:
        shift, spread = drawn.sum(), drawn.std(ddof=1)
        if abs(shift) <= noise:
            star = 0.0
        elif spread == 0:
            star = math.copysign(math.inf, shift)
        else:
            star = (shift / n) / (spread / math.sqrt(n))
        counted += star >= bound
    return counted


@pytest.mark.parametrize("n", [6, 25])
def test_one_tailed_randomised_pvalues_count_each_draw(n):
    a, b = _pairs(n, seed=200 + n, rows=30)
    d = a - b
    draws = 200
    signs = random_signs(draws, n, 4)
    band = 1e-9 * np.abs(d).sum(axis=1)
    flips = [int((signs @ x >= x.sum() - e).sum()) for x, e in zip(d, band)]
    assert bt.randomisation(d, (1,), draws, 4)[0].tolist() == [(f + 1) / (draws + 1) for f in flips]
    assert bt.randomisation_count(d, (1,), draws, 4)[0].tolist() == [f / draws for f in flips]
    resamples = bootstrap_resamples(draws, n, 4)
    counts = [_direct_bootstrap_one_tailed(x, resamples) for x in d]
    assert bt.paired_bootstrap(d, (1,), draws, 4)[0].tolist() == [(c + 1) / (draws + 1) for c in counts]
    assert len(set(counts)) > 5


def test_bootstrap_resamples_of_topics_at_the_mean_are_no_shift():
    """d = (1, 3, 2, 2, 2, 2, 1, 3) / 8 has mean 2/8 exactly, four topics at it (c = 0): a
    resample of those alone has s_b = Q_b = 0, t* = 0/0 := 0, below any positive bound;
    the floor check does that, in both tails, as the registry and a draw-by-draw count."""
    from irmeta.metaeval.stats.resampling_tests import paired_bootstrap

    base = np.array([1.0, 3, 2, 2, 2, 2, 1, 3]) / 8
    d = np.vstack([base, base + 1 / 16, -base, base * [1, 1, 1, 1, 1, 1, 1, 1.5]])
    draws = 4000
    resamples = bootstrap_resamples(draws, 8, 6)
    assert ((d[0] - d[0].mean())[resamples] == 0).all(axis=1).sum() > 5  # such resamples are drawn
    two = bt.paired_bootstrap(d, (2, 1), draws, 6)
    expected = [paired_bootstrap(np.vstack([x, np.zeros(8)]), draws, 6).p_value[0] for x in d]
    assert two[0].tolist() == expected
    counts = [_direct_bootstrap_one_tailed(x, resamples) for x in d]
    assert two[1].tolist() == [(c + 1) / (draws + 1) for c in counts]


def test_both_tails_at_once_are_each_alone_and_follow_the_order_asked():
    a, b = _pairs(25, seed=7)
    d = a - b
    for function in (bt.paired_t, bt.wilcoxon, bt.sign):
        both = function(d, (1, 2))
        assert both[0].tolist() == function(d, (1,))[0].tolist()
        assert both[1].tolist() == function(d, (2,))[0].tolist()
        assert function(d, (2, 1))[::-1].tolist() == both.tolist()
    for function in (bt.randomisation, bt.paired_bootstrap):
        both = function(d, (1, 2), 150, 3)
        assert both[0].tolist() == function(d, (1,), 150, 3)[0].tolist()
        assert both[1].tolist() == function(d, (2,), 150, 3)[0].tolist()


@pytest.mark.slow
@pytest.mark.parametrize("function", [bt.randomisation, bt.paired_bootstrap])
def test_a_ceiling_changes_no_pvalue_at_or_below_it(function):
    """Above the ceiling a p-value is only known to be above it; at or below, it is the
    full one, in each tail (B = 1,200 draws: a row stops within the third block)."""
    rng = np.random.default_rng(5)
    d = np.vstack([rng.normal(0.0, 0.2, (300, 30)), rng.normal(0.08, 0.2, (100, 30)),
                   np.round(rng.normal(0.0, 0.2, (100, 30)), 1)])
    full = function(d, (1, 2), 1200, 9)
    for ceiling in (0.01, 0.1, 0.5):
        cut = function(d, (1, 2), 1200, 9, ceiling=ceiling)
        assert (cut[full <= ceiling] == full[full <= ceiling]).all()
        assert (cut[full > ceiling] > ceiling).all()
        assert (cut <= full).all()
        assert (full <= ceiling).sum() > 10 and (full > ceiling).sum() > 10


def test_largest_count_is_the_last_significant_one():
    for draws in (1, 99, 1000, 10_000):
        for ceiling in (1e-6, 0.001, 0.01, 0.05, 0.1, 0.999, 1.0):
            for plus_one in (True, False):
                b = bt.largest_count(ceiling, draws, plus_one)
                p = [(k + 1) / (draws + 1) if plus_one else k / draws for k in (b, b + 1)]
                assert b == draws or p[1] > ceiling
                assert b == -1 or p[0] <= ceiling


def test_bad_differences_and_tails_are_one_line():
    with pytest.raises(ValueError, match="finite"):
        bt.paired_t(np.array([[0.1, np.nan]]))
    with pytest.raises(ValueError, match="at least 2 topics"):
        bt.sign(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="trials, topics"):
        bt.wilcoxon(np.zeros(4))
    with pytest.raises(ValueError, match="tails are some of"):
        bt.paired_t(np.zeros((2, 3)), (3,))


def test_every_shipped_paired_test_has_a_batched_form_with_both_tails():
    for name in registered_tests(kind="paired") + ["randomisation_count", "paired_bootstrap_count"]:
        test = TESTS[name]
        assert test.batched is not None and tuple(test.tails) == (1, 2), name
        assert callable(resolve(test.batched))
    assert all(t.batched is None for t in SHIPPED if not t.paired)


@pytest.mark.parametrize("correction", list(CORRECTIONS))
def test_each_families_smallest_adjusted_pvalue_is_its_adjusted_minimum(correction):
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 0.2, (200, 10))
    p[:20] = np.round(p[:20], 2)  # ties
    p[20, :] = 1.0
    p[21, :] = 0.0
    p[22, 3] = 1.0
    known = CORRECTIONS[correction]
    expected = [float(np.min(known.adjust(row))) for row in p]
    assert known.family_smallest(p).tolist() == expected


def _simulated_differences(n: int, kind: str, rows: int, seed: int) -> np.ndarray:
    """Rows of differences like the simulation's: AP-like, P@10-like (a 0.1 grid: exact
    ties with the observed statistic), a strong effect, or many zero differences."""
    rng = np.random.default_rng(seed)
    if kind == "grid":
        a = rng.integers(0, 11, (rows, n)) / 10
        return np.clip(a + rng.integers(-3, 4, (rows, n)) / 10, 0, 1) - a
    a = rng.beta(0.7, 2.5, (rows, n))
    if kind == "effect":
        return np.clip(a + 0.08 + rng.normal(0, 0.05, (rows, n)), 0, 1) - a
    b = np.clip(a + rng.normal(0, 0.12, (rows, n)), 0, 1)
    if kind == "zeros":
        b = np.where(rng.random((rows, n)) < 0.6, a, b)
    return b - a


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 25, 100])
@pytest.mark.parametrize("function", [bt.randomisation, bt.paired_bootstrap, bt.randomisation_count,
                                      bt.paired_bootstrap_count])
def test_single_precision_products_count_as_double_precision_ones(function, n):
    """The single-precision path decides each draw as the double-precision path would, or
    counts the row again in double precision: the same p-values, whatever the data, for
    single pairs and for families that stop drawing together."""
    for kind in ("continuous", "grid", "effect", "zeros"):
        d = _simulated_differences(n, kind, 96, seed=n)
        fast = function(d, (1, 2), 1200, 5, ceiling=0.1, single=True)
        assert fast.tolist() == function(d, (1, 2), 1200, 5, ceiling=0.1, single=False).tolist(), kind
        settle = family_settle_for_test()
        fast = function(d, (2,), 1200, 5, ceiling=0.1, settled=settle, group=4, single=True)
        assert fast.tolist() == function(d, (2,), 1200, 5, ceiling=0.1, settled=settle, group=4,
                                         single=False).tolist(), kind


def family_settle_for_test():
    from irmeta.metaeval.test_error_rates import DEFAULT_ALPHAS, family_settle

    return family_settle(DEFAULT_ALPHAS)


@pytest.mark.parametrize("n", [5, 50, 400])
def test_the_single_precision_slack_bounds_the_products_difference(n):
    """|single - double product| <= _product_slack(n) x sum_j |w_j x_j| for sign flips and
    resample counts, the bound the single-precision path rests on; it is not loose by
    orders of magnitude."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=(64, n)) * rng.uniform(0.01, 1, (64, 1))
    for weights in (1.0 - 2.0 * rng.integers(0, 2, (n, 512)), rng.multinomial(n, np.full(n, 1 / n), 512).T * 1.0):
        double = x @ weights
        single = (x.astype(np.float32) @ weights.astype(np.float32)).astype(np.float64)
        scale = np.abs(x) @ np.abs(weights)
        ratio = np.abs(single - double) / scale
        assert ratio.max() <= bt._product_slack(n)
        assert ratio.max() > bt._product_slack(n) / (10 * n)
