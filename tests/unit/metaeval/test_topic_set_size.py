"""irmeta.metaeval.stats.topic_set_size (Sakai, "Topic set size design", IRJ 2016).

The power functions are checked against statsmodels' (``TTestPower``, ``FTestAnovaPower``:
other code, the same textbook formulas), and the searches against a brute-force linear
scan over n that reads statsmodels' power, so neither side shares code with the module.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from irmeta.metaeval.stats.topic_set_size import (
    anova_power,
    anova_topics,
    minimum_detectable_difference,
    paired_t_power,
    paired_t_topics,
    smallest_sufficient_n,
)


def reference_t_power(n: int, alpha: float, difference: float, variance_e: float) -> float:
    """Paired t: the one-sample test on differences of variance 2 V_E, Cohen's d = minD / sqrt(2 V_E).

    Two one-sided powers at alpha / 2, for d and -d (the lower tail by symmetry):
    statsmodels' two-sided power reads the lower tail from ``nctdtr``, which returns NaN
    there for large noncentralities (n = 2, minD = 2, V_E = 0.01)."""
    effect = difference / math.sqrt(2 * variance_e)
    power = sum(float(TTestPower().power(effect_size=e, nobs=n, alpha=alpha / 2, alternative="larger"))
                for e in (effect, -effect))
    assert math.isfinite(power)
    return power


def reference_anova_power(n: int, alpha: float, difference: float, variance_e: float, systems: int) -> float:
    """statsmodels' one-way ANOVA power on m n observations in m groups: its noncentrality
    f^2 m n equals Sakai's n minD^2 / (2 V_E) for f^2 = minD^2 / (2 m V_E)."""
    f = difference / math.sqrt(2 * systems * variance_e)
    power = float(FTestAnovaPower().power(effect_size=f, nobs=systems * n, alpha=alpha, k_groups=systems))
    assert math.isfinite(power)
    return power


def brute_force_n(power_at, target: float) -> int:
    n = 2
    while power_at(n) < target:
        n += 1
    return n


T_GRID = list(itertools.product([0.05, 0.01], [0.2, 0.1], [0.05, 0.1, 0.25], [0.01, 0.04]))


@pytest.mark.parametrize("n", [2, 3, 10, 57, 400])
@pytest.mark.parametrize("difference,variance_e", [(0.05, 0.01), (0.2, 0.04), (0.01, 0.03)])
def test_paired_t_power_equals_statsmodels(n, difference, variance_e):
    for alpha in (0.05, 0.01):
        assert paired_t_power(n, alpha, difference, variance_e) == pytest.approx(
            reference_t_power(n, alpha, difference, variance_e), rel=1e-9, abs=1e-12)


def test_paired_t_power_is_a_monotone_probability_where_scipys_lower_tail_fails():
    """scipy 1.17's nct.cdf(-t_crit, 4, lambda) is NaN for lambda ~ 7 (d ~ 0.88 here); the
    power must stay a number, nondecreasing in the difference and in n."""
    powers = np.array([paired_t_power(5, 0.01, d, 0.04) for d in np.linspace(0.01, 3, 300)])
    assert np.isfinite(powers).all() and (np.diff(powers) >= -1e-12).all() and powers[-1] > 0.999
    assert paired_t_power(5, 0.01, 0.8837791947986998, 0.04) == pytest.approx(
        reference_t_power(5, 0.01, 0.8837791947986998, 0.04), abs=1e-12)
    by_n = [paired_t_power(n, 0.05, 0.1, 0.02) for n in range(2, 200)]
    assert (np.diff(by_n) >= 0).all()


@pytest.mark.parametrize("n", [2, 5, 30, 200])
@pytest.mark.parametrize("systems", [2, 3, 10, 40])
def test_anova_power_equals_statsmodels(n, systems):
    for alpha, difference, variance_e in ((0.05, 0.1, 0.02), (0.01, 0.05, 0.005)):
        assert anova_power(n, alpha, difference, variance_e, systems) == pytest.approx(
            reference_anova_power(n, alpha, difference, variance_e, systems), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("alpha,beta,difference,variance_e", T_GRID)
def test_paired_t_topics_equals_brute_force(alpha, beta, difference, variance_e):
    expected = brute_force_n(lambda n: reference_t_power(n, alpha, difference, variance_e), 1 - beta)
    assert paired_t_topics(alpha, beta, difference, variance_e) == expected


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.2), (0.01, 0.1)])
@pytest.mark.parametrize("difference,variance_e", [(0.1, 0.01), (0.25, 0.04), (0.05, 0.005)])
@pytest.mark.parametrize("systems", [2, 5, 20])
def test_anova_topics_equals_brute_force(alpha, beta, difference, variance_e, systems):
    expected = brute_force_n(lambda n: reference_anova_power(n, alpha, difference, variance_e, systems), 1 - beta)
    assert anova_topics(alpha, beta, difference, variance_e, systems) == expected


def test_two_system_anova_needs_about_the_paired_t_sample():
    """With two systems the F test is the unpaired t-test on 2(n - 1) df: the sizes agree
    to within the df difference, a sanity check of the least-favourable configuration."""
    t = paired_t_topics(0.05, 0.2, 0.1, 0.02)
    f = anova_topics(0.05, 0.2, 0.1, 0.02, 2)
    assert abs(t - f) <= 2 and t > 20


def test_more_systems_need_more_topics():
    sizes = [anova_topics(0.05, 0.2, 0.1, 0.02, m) for m in (2, 5, 10, 50)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]


@pytest.mark.parametrize("n_topics", [2, 5, 25, 50, 300])
@pytest.mark.parametrize("alpha,beta,variance_e", [(0.05, 0.2, 0.01), (0.01, 0.1, 0.04)])
def test_minimum_detectable_difference_brackets_the_power(n_topics, alpha, beta, variance_e):
    d = minimum_detectable_difference(n_topics, alpha, beta, variance_e)
    assert reference_t_power(n_topics, alpha, d, variance_e) >= 1 - beta
    assert reference_t_power(n_topics, alpha, d - 1e-6, variance_e) < 1 - beta
    # and the design at that difference needs no more topics than given
    assert paired_t_topics(alpha, beta, d, variance_e) <= n_topics


def test_search_is_exact_on_a_step_function():
    """The doubling-then-bisection search on a monotone step with known threshold."""
    for threshold in (2, 3, 4, 5, 17, 64, 65, 1000, 123457):
        calls = []

        def power_at(n, threshold=threshold, calls=calls):
            calls.append(n)
            return 1.0 if n >= threshold else 0.0

        assert smallest_sufficient_n(power_at, 0.8) == threshold
        assert len(calls) <= 2 * math.ceil(math.log2(threshold)) + 2  # O(log n) evaluations


@pytest.mark.parametrize("call", [
    lambda: paired_t_topics(0.0, 0.2, 0.1, 0.01),
    lambda: paired_t_topics(0.05, 1.0, 0.1, 0.01),
    lambda: paired_t_topics(0.05, 0.2, 0.0, 0.01),
    lambda: paired_t_topics(0.05, 0.2, 0.1, 0.0),
    lambda: anova_topics(0.05, 0.2, 0.1, 0.01, 1),
    lambda: minimum_detectable_difference(1, 0.05, 0.2, 0.01),
    lambda: minimum_detectable_difference(10, 0.5, 0.6, 0.01),
    lambda: paired_t_power(1, 0.05, 0.1, 0.01),
])
def test_invalid_designs_raise(call):
    with pytest.raises(ValueError):
        call()
