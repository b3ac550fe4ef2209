"""Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal
19(3):256-283, 2016): how many topics a test collection needs so that a test detects a
given minimum difference between systems with a given power, from the residual
variance V_E of a pilot two-way ANOVA (:func:`irmeta.metaeval.stats.anova.residual_variance`).

Sakai computes the power with approximations (and an Excel tool); here it is exact, from
scipy's noncentral t and F distributions (:mod:`.distributions`: scipy.stats' values
without its import), so sizes can differ from his tables by a topic
where the approximations round the other way.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from irmeta.metaeval.stats.distributions import f_quantile, ncf_sf, nct_sf, t_quantile

# Largest topic set size searched: far beyond any collection; a design that needs more
# is reported as an error rather than searched for ever.
MAX_TOPICS = 2**40


def _check_design(alpha_level: float, beta: float, min_difference: float, variance_e: float) -> None:
    if not 0 < alpha_level < 1:
        raise ValueError(f"alpha_level must be in (0, 1), not {alpha_level}")
    if not 0 < beta < 1:
        raise ValueError(f"beta must be in (0, 1), not {beta}")
    if not min_difference > 0 or not math.isfinite(min_difference):
        raise ValueError(f"min_difference must be positive and finite, not {min_difference}")
    if not variance_e > 0 or not math.isfinite(variance_e):
        raise ValueError(f"variance_e must be positive and finite, not {variance_e}")


def _checked_power(power: float) -> float:
    """A power is a probability: NaN (scipy's noncentral tails can fail) must not pass
    for "too small" in a search, so it raises."""
    if not 0.0 <= power <= 1.0 + 1e-12:
        raise ArithmeticError(f"scipy returned the power {power}")
    return min(power, 1.0)


def paired_t_power(n_topics: int, alpha_level: float, min_difference: float, variance_e: float) -> float:
    """Power of the two-sided paired t-test on n topics at level alpha when the true mean
    difference is ``min_difference`` and the differences' variance is 2 V_E (Sakai 2016,
    the paired t-test's design): with df = n - 1, t_crit = t.ppf(1 - alpha / 2, df) and
    noncentrality lambda = minD sqrt(n / (2 V_E)),

        power = P(T' > t_crit) + P(T' < -t_crit),  T' ~ noncentral t(df, lambda).
    """
    if n_topics < 2:
        raise ValueError(f"the paired t-test needs at least 2 topics, not {n_topics}")
    df = n_topics - 1
    critical = t_quantile(1.0 - alpha_level / 2.0, df)
    noncentrality = min_difference * math.sqrt(n_topics / (2.0 * variance_e))
    # the lower tail as P(T'(df, -lambda) > t_crit), its mirror image: scipy's nct.cdf
    # returns NaN deep in the lower tail (e.g. df = 4, lambda = 7), where sf returns ~0
    power = nct_sf(critical, df, noncentrality) + nct_sf(critical, df, -noncentrality)
    return _checked_power(power)


def anova_power(n_topics: int, alpha_level: float, min_difference: float, variance_e: float, systems: int) -> float:
    """Power of the one-way ANOVA F test over m = ``systems`` systems of n topics each, in
    the least favourable configuration (two systems ``min_difference`` apart, the others
    at their mean; Sakai 2016, the one-way ANOVA design): with dfn = m - 1,
    dfd = m (n - 1), F_crit = f.ppf(1 - alpha, dfn, dfd) and noncentrality
    lambda = n minD^2 / (2 V_E),

        power = P(F' > F_crit),  F' ~ noncentral F(dfn, dfd, lambda).
    """
    if n_topics < 2:
        raise ValueError(f"the ANOVA design needs at least 2 topics, not {n_topics}")
    if systems < 2:
        raise ValueError(f"the ANOVA design needs at least 2 systems, not {systems}")
    dfn, dfd = systems - 1, systems * (n_topics - 1)
    critical = f_quantile(1.0 - alpha_level, dfn, dfd)
    return _checked_power(ncf_sf(critical, dfn, dfd, n_topics * min_difference**2 / (2.0 * variance_e)))


def smallest_sufficient_n(power_at: Callable[[int], float], target: float, start: int = 2) -> int:
    """The smallest n >= start with power_at(n) >= target, for a power nondecreasing in n.

    Doubling from ``start`` until the power is reached, then bisection between the last
    n that fell short and the first that did not: O(log n) power evaluations.
    """
    short, enough = start - 1, start  # invariant: short falls short (or is below start)
    while power_at(enough) < target:
        short, enough = enough, 2 * enough
        if enough > MAX_TOPICS:
            raise ValueError(f"the power {target} is not reached by {MAX_TOPICS} topics")
    while enough - short > 1:
        middle = (short + enough) // 2
        if power_at(middle) >= target:
            enough = middle
        else:
            short = middle
    return enough


def paired_t_topics(alpha_level: float, beta: float, min_difference: float, variance_e: float) -> int:
    """The smallest n >= 2 at which the two-sided paired t-test at ``alpha_level`` has
    power >= 1 - ``beta`` for a true difference ``min_difference`` (:func:`paired_t_power`;
    Sakai 2016, topic set size design based on the paired t-test)."""
    _check_design(alpha_level, beta, min_difference, variance_e)
    return smallest_sufficient_n(lambda n: paired_t_power(n, alpha_level, min_difference, variance_e), 1.0 - beta)


def anova_topics(alpha_level: float, beta: float, min_difference: float, variance_e: float, systems: int) -> int:
    """The smallest n >= 2 at which the one-way ANOVA over ``systems`` systems has power
    >= 1 - ``beta`` when the best and worst systems are ``min_difference`` apart
    (:func:`anova_power`; Sakai 2016, topic set size design based on one-way ANOVA)."""
    _check_design(alpha_level, beta, min_difference, variance_e)
    if systems < 2:
        raise ValueError(f"the ANOVA design needs at least 2 systems, not {systems}")
    return smallest_sufficient_n(lambda n: anova_power(n, alpha_level, min_difference, variance_e, systems),
                                 1.0 - beta)


def minimum_detectable_difference(n_topics: int, alpha_level: float, beta: float, variance_e: float,
                                  tolerance: float = 1e-6) -> float:
    """The smallest difference the two-sided paired t-test on ``n_topics`` topics detects
    with power >= 1 - ``beta`` (Sakai 2016's minD for a given topic set size), to
    ``tolerance``: the returned d has power >= 1 - beta and d - tolerance has not.

    Bisection on d (the power grows with the noncentrality minD sqrt(n / (2 V_E))),
    after doubling an upper bound from sqrt(V_E); it returns the upper end of the final
    bracket, so the guarantee holds whatever the rounding of the last step.
    """
    _check_design(alpha_level, beta, 1.0, variance_e)
    if n_topics < 2:
        raise ValueError(f"the paired t-test needs at least 2 topics, not {n_topics}")
    if not tolerance > 0:
        raise ValueError(f"tolerance must be positive, not {tolerance}")
    if alpha_level >= 1.0 - beta:
        # the power at difference 0 is alpha: every difference, even none, would do
        raise ValueError(f"the power 1 - beta = {1.0 - beta} must exceed alpha_level = {alpha_level}")
    target = 1.0 - beta

    def detects(difference: float) -> bool:
        return paired_t_power(n_topics, alpha_level, difference, variance_e) >= target

    low, high = 0.0, math.sqrt(variance_e)  # the power at 0 is alpha < 1 - beta: short
    while not detects(high):
        low, high = high, 2.0 * high
    while high - low > tolerance:
        middle = 0.5 * (low + high)
        if detects(middle):
            high = middle
        else:
            low = middle
    return high
