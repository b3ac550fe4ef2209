"""irmeta.metaeval.stats: rank correlations, discriminative power, stability.

Hand-worked cases (expected values derived in the comments), cross-checks against
statsmodels and scipy, obviously-correct loop implementations of the definitions, and
the shard invariance of the seeded experiments.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from irmeta.metaeval.stats.blocks import block_size, run_pairs
from irmeta.metaeval.stats.correlation import kendall_tau, tau_ap, tau_ap_symmetric
from irmeta.metaeval.stats.stability_trials import (
    draw_topic_subsets,
    stability,
    stability_counts,
    topics_per_trial_default,
)
from irmeta.metaeval.stats.swap_trials import draw_topic_pairs, swap_counts, swap_sensitivity
from irmeta.metaeval.stats.tukey_hsd import (
    count_significant,
    paper_pairwise_pvalues,
    randomised_tukey_hsd_null,
    randomised_tukey_hsd_null_many,
    randomised_tukey_hsd_pvalues,
    tukey_hsd_pvalues,
    tukey_hsd_significant,
    tukey_hsd_statistics,
)


def realistic_scores(n_runs: int, n_topics: int, seed: int) -> np.ndarray:
    """AP-like per-topic scores: run effect + topic effect + noise, clipped to [0, 1]."""
    rng = np.random.default_rng(seed)
    run = rng.beta(2, 5, n_runs)[:, None]
    topic = rng.normal(0, 0.15, n_topics)[None, :]
    return np.clip(run + topic + rng.normal(0, 0.1, (n_runs, n_topics)), 0, 1)


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# --------------------------------------------------------------------------- Kendall tau


def test_kendall_tau_hand_worked(no_warnings):
    x = np.array([4.0, 3.0, 2.0, 1.0])  # a > b > c > d
    assert kendall_tau(x, x) == 1.0
    assert kendall_tau(x, -x) == -1.0
    # one swapped pair out of 6, wherever it is: (5 - 1) / 6
    assert kendall_tau(np.array([3.0, 4.0, 2.0, 1.0]), x) == pytest.approx(2 / 3)
    assert kendall_tau(np.array([4.0, 3.0, 1.0, 2.0]), x) == pytest.approx(2 / 3)


def test_kendall_tau_is_tau_b_and_nan_when_undefined(no_warnings):
    x = np.array([2.0, 1.0, 1.0])
    y = np.array([3.0, 2.0, 1.0])
    # pairs: 2 concordant, 1 tied in x only: 2 / sqrt((3 - 1) * 3)
    assert kendall_tau(x, y) == pytest.approx(2 / math.sqrt(6))
    assert math.isnan(kendall_tau(np.ones(4), np.arange(4.0)))  # constant: NaN, no warning
    assert math.isnan(kendall_tau(np.array([1.0]), np.array([2.0])))


# --------------------------------------------------------------------------- tau_AP


def tau_ap_loop(x, y, higher_is_better=True):
    """The definition, item by item: C(i) over items strictly above in x that y also
    puts strictly above; i - 1 -> items strictly above; the top tie group left out."""
    sign = 1 if higher_is_better else -1
    terms = []
    for i in range(len(x)):
        above = [j for j in range(len(x)) if sign * x[j] > sign * x[i]]
        if above:
            terms.append(sum(sign * y[j] > sign * y[i] for j in above) / len(above))
    return 2 * sum(terms) / len(terms) - 1 if terms else math.nan


def tau_ap_yilmaz(x, y):
    """Yilmaz et al. eq. 3 by positions, for lists without ties."""
    order = np.argsort(-np.asarray(x))
    n = len(x)
    total = 0.0
    for i in range(1, n):  # 0-based position i is rank i + 1
        item = order[i]
        total += sum(y[order[j]] > y[item] for j in range(i)) / i
    return 2 / (n - 1) * total - 1


def test_tau_ap_hand_worked():
    truth = np.array([4.0, 3.0, 2.0, 1.0])  # a > b > c > d
    assert tau_ap(truth, truth) == 1.0
    assert tau_ap(-truth, truth) == -1.0  # C(i) = 0 everywhere: 0 - 1
    # swap at the top, b > a > c > d: a has {b} above, wrong (0/1); c: 2/2; d: 3/3
    #   2/3 * (0 + 1 + 1) - 1 = 1/3
    top_swap = np.array([3.0, 4.0, 2.0, 1.0])
    assert tau_ap(top_swap, truth) == pytest.approx(1 / 3)
    # swap at the bottom, a > b > d > c: b: 1/1; d: 2/2; c: {a, b, d}, d wrong: 2/3
    #   2/3 * (1 + 1 + 2/3) - 1 = 7/9
    bottom_swap = np.array([4.0, 3.0, 1.0, 2.0])
    assert tau_ap(bottom_swap, truth) == pytest.approx(7 / 9)
    # Kendall's tau cannot tell the two apart
    assert kendall_tau(top_swap, truth) == kendall_tau(bottom_swap, truth)


def test_tau_ap_ties():
    # ties in x only, x = (2, 1, 1), y = (3, 2, 1): the tied items each have {0}
    # strictly above, which y confirms: 2 * (1 + 1) / 2 - 1 = 1
    assert tau_ap(np.array([2.0, 1.0, 1.0]), np.array([3.0, 2.0, 1.0])) == 1.0
    # ties in y only: item 2 has {0, 1} above, y ties 1 and 2: 2 * (1 + 1/2) / 2 - 1
    assert tau_ap(np.array([3.0, 2.0, 1.0]), np.array([2.0, 1.0, 1.0])) == 0.5
    # symmetric = tau_AP-b: (1 + 0.5) / 2
    assert tau_ap_symmetric(np.array([2.0, 1.0, 1.0]), np.array([3.0, 2.0, 1.0])) == 0.75
    tied = np.array([0.3, 0.3, 0.1, 0.5, 0.1])
    assert tau_ap(tied, tied) == 1.0
    assert tau_ap_symmetric(tied, tied) == 1.0
    assert math.isnan(tau_ap(np.ones(3), np.arange(3.0)))  # no order at all in x
    assert math.isnan(tau_ap(np.array([1.0]), np.array([1.0])))


def test_tau_ap_lower_is_better_flips_both_orders():
    rng = np.random.default_rng(3)
    x, y = rng.random(30), rng.random(30)
    assert tau_ap(-x, -y, higher_is_better=False) == tau_ap(x, y)
    assert tau_ap(x, y, higher_is_better=False) == pytest.approx(tau_ap_loop(x, y, higher_is_better=False))


vectors = st.integers(2, 9).flatmap(
    lambda n: st.tuples(*(st.lists(st.integers(0, 4), min_size=n, max_size=n) for _ in range(2)))
)


@settings(max_examples=150, deadline=None)
@given(vectors)
def test_tau_ap_matches_definition_with_ties(xy):
    x, y = (np.array(v, dtype=float) for v in xy)
    expected = tau_ap_loop(x, y)
    got = tau_ap(x, y)
    assert (math.isnan(expected) and math.isnan(got)) or got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_tau_ap_without_ties_is_yilmaz_eq3(n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.permutation(n).astype(float), rng.permutation(n).astype(float)
    assert tau_ap(x, y) == pytest.approx(tau_ap_yilmaz(x, y), abs=1e-12)
    assert tau_ap_symmetric(x, y) == pytest.approx((tau_ap_yilmaz(x, y) + tau_ap_yilmaz(y, x)) / 2, abs=1e-12)


# --------------------------------------------------------------------------- significance: shared


def test_count_significant_is_strict():
    p = np.array([0.0, 0.005, 0.01, 0.03, 0.05, 0.2])
    assert count_significant(p) == {0.05: 4, 0.01: 2}
    assert count_significant(p, levels=(0.1,)) == {0.1: 5}


def test_studentized_range_with_two_means_is_a_t_test():
    # the identity paper_pairwise_pvalues relies on: Q(k=2) = sqrt(2) |t|
    q = np.linspace(0.05, 8, 40)
    for df in (18, 98, 250):
        t_form = 2 * stats.t.sf(q / np.sqrt(2), df)
        assert np.allclose(stats.studentized_range.sf(q, 2, df), t_form, rtol=1e-8, atol=1e-12)


# --------------------------------------------------------------------------- the paper's pairwise test


def test_paper_pairwise_equals_statsmodels_on_sampled_pairs(monkeypatch):
    import statsmodels.sandbox.stats.multicomp as multicomp
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    # q_crit depends only on (k, df, alpha), equal for every pair: memoise it (the same
    # function, unchanged) so 60 calls take 2 s rather than 25
    monkeypatch.setattr(multicomp, "get_tukeyQcrit2", functools.lru_cache(maxsize=None)(multicomp.get_tukeyQcrit2))
    scores = realistic_scores(40, 50, seed=1)
    p = paper_pairwise_pvalues(scores)
    a, b = run_pairs(len(scores))
    sampled = np.random.default_rng(2).choice(len(a), 30, replace=False)
    groups = np.repeat([0, 1], scores.shape[1])
    decisions = {0.05: [], 0.01: []}
    for k in sampled:
        endog = np.concatenate([scores[a[k]], scores[b[k]]])
        for level in decisions:
            res = pairwise_tukeyhsd(endog, groups, alpha=level)
            # statsmodels' p is scipy's studentized_range.sf, a numerical integral that
            # test_studentized_range_with_two_means_is_a_t_test finds within 1e-8 of the
            # t form (measured here: ~2e-14); the statistics differ only by summation order
            assert res.pvalues[0] == pytest.approx(p[k], abs=1e-8)
            assert bool(res.reject[0]) == (p[k] < level)
            decisions[level].append(bool(res.reject[0]))
    for level, rejected in decisions.items():  # the sample holds both outcomes
        assert 0 < sum(rejected) < len(rejected), level


def test_paper_pairwise_is_the_pooled_two_sample_t_test():
    scores = realistic_scores(7, 20, seed=4)
    a, b = run_pairs(7)
    expected = stats.ttest_ind(scores[a], scores[b], axis=1, equal_var=True).pvalue
    assert np.allclose(paper_pairwise_pvalues(scores), expected, rtol=1e-10, atol=1e-14)


def test_paper_pairwise_ignores_topic_pairing_and_shift_significance_depends_on_spread():
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 1, 20)
    shifted = np.vstack([base, base + 0.05])
    # unpaired: t = 0.05 / sqrt(2 s^2 / 20) with s ~ 0.29, t ~ 0.55: not significant
    assert paper_pairwise_pvalues(shifted)[0] > 0.05
    # ... and topic order within a run does not matter (no blocking)
    scrambled = np.vstack([base, rng.permutation(base + 0.05)])
    assert paper_pairwise_pvalues(scrambled)[0] == pytest.approx(paper_pairwise_pvalues(shifted)[0], rel=1e-12)
    # the same shift over a narrow spread is significant
    narrow = 0.5 + 0.01 * (base - 0.5)
    assert paper_pairwise_pvalues(np.vstack([narrow, narrow + 0.05]))[0] < 0.01


def test_paper_pairwise_identical_runs_never_significant():
    scores = realistic_scores(4, 15, seed=6)
    scores[1] = scores[0]
    scores[3] = 0.25  # a constant run, and below...
    with_constant = np.vstack([scores, np.full(15, 0.25)])  # ...its identical twin
    p = paper_pairwise_pvalues(with_constant)
    a, b = run_pairs(5)
    assert p[(a == 0) & (b == 1)] == 1.0
    assert p[(a == 3) & (b == 4)] == 1.0  # 0/0: no difference, no evidence
    assert np.all((p >= 0) & (p <= 1))


# --------------------------------------------------------------------------- Tukey HSD, all runs


def test_tukey_hsd_matches_statsmodels_two_way_anova():
    import statsmodels.formula.api as smf

    scores = realistic_scores(6, 12, seed=7)
    n_runs, n_topics = scores.shape
    long = pd.DataFrame(
        {
            "score": scores.ravel(),
            "run": np.repeat(np.arange(n_runs), n_topics),
            "topic": np.tile(np.arange(n_topics), n_runs),
        }
    )
    fit = smf.ols("score ~ C(run) + C(topic)", data=long).fit()
    q, k, df = tukey_hsd_statistics(scores)
    assert (k, df) == (n_runs, int(fit.df_resid)) == (6, 55)
    means = scores.mean(axis=1)
    a, b = run_pairs(n_runs)
    expected_q = np.abs(means[a] - means[b]) / np.sqrt(fit.mse_resid / n_topics)
    assert np.allclose(q, expected_q, rtol=1e-10)
    p = tukey_hsd_pvalues(scores)
    assert np.allclose(p, stats.studentized_range.sf(expected_q, n_runs, fit.df_resid), rtol=1e-8)
    significant = tukey_hsd_significant(scores)
    for level, mask in significant.items():
        assert np.array_equal(mask, p < level)
    assert count_significant(p) == {level: int(mask.sum()) for level, mask in significant.items()}
    assert 0 < significant[0.05].sum() < len(p)  # a meaningful case


def test_tukey_hsd_with_two_runs_is_the_paired_t_test():
    # S = 2: MSE = var(d) / 2 with d the per-topic differences, so q / sqrt(2) is the
    # paired t statistic and studentized_range(k=2) the two-sided t distribution
    scores = realistic_scores(2, 25, seed=8)
    expected = stats.ttest_rel(scores[0], scores[1]).pvalue
    assert tukey_hsd_pvalues(scores)[0] == pytest.approx(expected, rel=1e-7)


def test_tukey_hsd_constant_shift_always_significant_identical_never():
    rng = np.random.default_rng(9)
    base = rng.uniform(0, 1, 20)
    # two runs differing by a constant: zero residual (up to rounding, ~1e-17), so q is
    # huge and p ~ 0 at any spread
    assert tukey_hsd_pvalues(np.vstack([base, base + 0.001]))[0] < 1e-10
    assert tukey_hsd_pvalues(np.vstack([base, base + 0.5]))[0] < 1e-10
    assert tukey_hsd_pvalues(np.vstack([base, base]))[0] == 1.0
    scores = realistic_scores(5, 20, seed=10)
    scores[2] = scores[0]
    p = tukey_hsd_pvalues(scores)
    a, b = run_pairs(5)
    assert p[(a == 0) & (b == 2)] == 1.0
    assert not any(mask[(a == 0) & (b == 2)][0] for mask in tukey_hsd_significant(scores).values())


# --------------------------------------------------------------------------- randomised Tukey HSD


def randomised_null_loop(scores, trials, seed):
    """The documented randomness, one topic at a time."""
    n_runs, n_topics = scores.shape
    out = []
    for trial in trials:
        keys = np.random.default_rng([seed, trial]).random((n_topics, n_runs))
        permuted = np.empty_like(scores)
        for topic in range(n_topics):
            permuted[:, topic] = scores[np.argsort(keys[topic], kind="stable"), topic]
        means = np.array([math.fsum(row) / n_topics for row in permuted])
        out.append(means.max() - means.min())
    return np.array(out)


def test_randomised_null_follows_its_definition():
    scores = realistic_scores(6, 9, seed=11)
    null = randomised_tukey_hsd_null(scores, range(20), seed=3)
    assert np.allclose(null, randomised_null_loop(scores, range(20), 3), rtol=0, atol=1e-14)


def test_randomised_null_is_shard_invariant_and_seeded():
    scores = realistic_scores(8, 20, seed=12)
    whole = randomised_tukey_hsd_null(scores, range(1000), seed=42)
    halves = np.concatenate(
        [randomised_tukey_hsd_null(scores, range(500), 42), randomised_tukey_hsd_null(scores, range(500, 1000), 42)]
    )
    assert np.array_equal(whole, halves)
    assert np.array_equal(randomised_tukey_hsd_null(scores, np.array([999, 3]), 42), whole[[999, 3]])
    assert np.array_equal(randomised_tukey_hsd_null(scores, range(1000), 42), whole)
    other = randomised_tukey_hsd_null(scores, range(1000), 43)
    assert not np.array_equal(other, whole)
    assert abs(np.median(other) - np.median(whole)) < 0.1 * np.median(whole)  # same distribution


def test_randomised_pvalues_count_over_trials():
    scores = realistic_scores(5, 10, seed=13)
    null = np.array([0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.5])
    observed = np.abs(np.subtract(*[scores.mean(1)[i] for i in run_pairs(5)]))
    p = randomised_tukey_hsd_pvalues(scores, null)
    expected = np.array([(null >= d).sum() for d in observed]) / len(null)
    assert np.array_equal(p, expected)
    plus = randomised_tukey_hsd_pvalues(scores, null, plus_one=True)
    assert np.allclose(plus, (expected * 10 + 1) / 11)


def test_randomised_constant_shift_significant_identical_never():
    rng = np.random.default_rng(14)
    base = rng.uniform(0, 1, 20)
    shifted = np.vstack([base, base + 0.01])
    # a permuted trial reaches the observed 0.01 only if every topic swaps alike:
    # probability 2 / 2^20, so none of 1000 trials does
    null = randomised_tukey_hsd_null(shifted, range(1000), seed=1)
    assert randomised_tukey_hsd_pvalues(shifted, null)[0] == 0.0
    assert randomised_tukey_hsd_pvalues(shifted, null, plus_one=True)[0] == 1 / 1001
    scores = realistic_scores(5, 20, seed=15)
    scores[3] = scores[1]
    null = randomised_tukey_hsd_null(scores, range(200), seed=1)
    a, b = run_pairs(5)
    assert randomised_tukey_hsd_pvalues(scores, null)[(a == 1) & (b == 3)] == 1.0


def test_randomised_pvalue_of_the_widest_pair_counts_the_identity():
    # with 2 runs and 1 topic there are 2 permutations, both giving the observed gap
    scores = np.array([[0.3], [0.7]])
    null = randomised_tukey_hsd_null(scores, range(50), seed=0)
    assert np.all(null == 0.7 - 0.3)
    assert randomised_tukey_hsd_pvalues(scores, null)[0] == 1.0


# --------------------------------------------------------------------------- stability


def test_topics_per_trial_default_uses_python_round():
    assert topics_per_trial_default(45) == 22  # 22.5 -> 22 (half to even)
    assert topics_per_trial_default(47) == 24  # 23.5 -> 24
    assert topics_per_trial_default(50) == 25
    assert topics_per_trial_default(49) == 24  # 24.5 -> 24


def test_topic_subsets_distinct_seeded_and_shard_invariant():
    whole = draw_topic_subsets(50, 25, range(100), seed=5)
    assert whole.shape == (100, 25)
    assert all(len(set(row)) == 25 for row in whole)
    assert whole.min() >= 0 and whole.max() < 50
    split = np.vstack([draw_topic_subsets(50, 25, range(40), 5), draw_topic_subsets(50, 25, range(40, 100), 5)])
    assert np.array_equal(whole, split)
    assert not np.array_equal(whole, draw_topic_subsets(50, 25, range(100), seed=6))


def test_stability_dominated_run_and_identical_runs():
    base = np.random.default_rng(16).uniform(0, 0.8, 30)
    wins_a, wins_b, ties = stability_counts(np.vstack([base + 0.1, base]), 15, range(200), seed=0)
    assert (wins_a.tolist(), wins_b.tolist(), ties.tolist()) == ([200], [0], [0])
    assert stability(wins_a, wins_b, ties) == 1.0
    # lower is better: the same run now always loses
    wins_a, wins_b, ties = stability_counts(np.vstack([base + 0.1, base]), 15, range(200), 0, higher_is_better=False)
    assert (wins_a.tolist(), wins_b.tolist(), ties.tolist()) == ([0], [200], [0])
    # identical runs tie in every trial, even with no fuzziness at all
    wins_a, wins_b, ties = stability_counts(np.vstack([base, base]), 15, range(200), 0, fuzziness=0.0)
    assert (wins_a.tolist(), wins_b.tolist(), ties.tolist()) == ([0], [0], [200])
    assert stability(wins_a, wins_b, ties) == 0.0  # ties count against stability


def test_stability_three_topics_by_hand():
    # A = (0.5, 0.2, 0.3), B = (0.3, 0.3, 0.3), two topics a trial:
    #   {0, 1}: 0.35 vs 0.30, diff  0.05    {0, 2}: 0.40 vs 0.30, diff 0.10
    #   {1, 2}: 0.25 vs 0.30, diff -0.05
    scores = np.array([[0.5, 0.2, 0.3], [0.3, 0.3, 0.3]])
    subsets = [frozenset(row) for row in draw_topic_subsets(3, 2, range(300), seed=9)]
    n = {s: subsets.count(s) for s in (frozenset({0, 1}), frozenset({0, 2}), frozenset({1, 2}))}
    assert sum(n.values()) == 300 and min(n.values()) > 50
    # fuzziness 0.05: only {0, 2} exceeds it; the two exact 0.05s are ties
    wins_a, wins_b, ties = stability_counts(scores, 2, range(300), seed=9, fuzziness=0.05)
    assert (wins_a[0], wins_b[0], ties[0]) == (n[frozenset({0, 2})], 0, n[frozenset({0, 1})] + n[frozenset({1, 2})])
    # fuzziness 0.01: A wins on {0, 1} and {0, 2}, B on {1, 2}
    wins_a, wins_b, ties = stability_counts(scores, 2, range(300), seed=9, fuzziness=0.01)
    assert (wins_a[0], wins_b[0], ties[0]) == (n[frozenset({0, 1})] + n[frozenset({0, 2})], n[frozenset({1, 2})], 0)
    assert stability(wins_a, wins_b, ties) == max(wins_a[0], wins_b[0]) / 300


def test_stability_boundary_is_read_in_real_arithmetic():
    scores = np.array([[0.8], [0.75]])  # 0.8 - 0.75 = 0.050000000000000044 in float64
    assert stability_counts(scores, 1, range(3), 0, fuzziness=0.05)[2].tolist() == [3]  # a tie
    assert stability_counts(scores, 1, range(3), 0, fuzziness=0.05, tolerance=0.0)[0].tolist() == [3]


def test_stability_relative_fuzziness():
    base = np.random.default_rng(17).uniform(0.2, 0.8, 20)
    # 4% better: the difference is 0.04 / 1.04 = 3.8% of the larger mean, a tie at 5%
    counts = stability_counts(np.vstack([1.04 * base, base]), 10, range(100), 0, mode="relative")
    assert [c.tolist() for c in counts] == [[0], [0], [100]]
    # 6% better: 5.7% of the larger mean, always a win
    counts = stability_counts(np.vstack([1.06 * base, base]), 10, range(100), 0, mode="relative")
    assert [c.tolist() for c in counts] == [[100], [0], [0]]
    with pytest.raises(ValueError):
        stability_counts(np.vstack([base, base]), 10, range(5), 0, mode="percent")  # type: ignore[arg-type]


def test_stability_counts_shard_invariant_and_in_pair_order():
    scores = realistic_scores(12, 40, seed=18)
    whole = stability_counts(scores, 20, range(400), seed=3)
    parts = [stability_counts(scores, 20, r, seed=3) for r in (range(150), range(150, 400))]
    for total, first, second in zip(whole, *parts):
        assert np.array_equal(total, first + second)
    assert np.all(whole[0] + whole[1] + whole[2] == 400)
    # pair order: one pair alone gives the same counts as its slot in the full result
    a, b = run_pairs(12)
    k = 17
    alone = stability_counts(scores[[a[k], b[k]]], 20, range(400), seed=3)
    assert [c[0] for c in alone] == [c[k] for c in whole]


def test_stability_formula():
    assert stability(np.array([3, 0]), np.array([1, 2]), np.array([0, 2])) == 5 / 8
    assert math.isnan(stability(np.zeros(2, int), np.zeros(2, int), np.zeros(2, int)))


# --------------------------------------------------------------------- swap method


def test_swap_method_identical_runs_are_never_discriminated():
    rng = np.random.default_rng(0)
    row = rng.random(20)
    bins, comparisons, swaps = swap_counts(np.stack([row, row, row]), range(50), 1)
    assert list(bins) == [-1] and comparisons.sum() == 3 * 50 and swaps.sum() == 0
    result = swap_sensitivity(bins, comparisons, swaps)
    assert result["sensitivity"] == 0.0 and math.isnan(result["required_difference"])


def test_swap_method_a_dominating_run_never_swaps():
    rng = np.random.default_rng(1)
    base = rng.random(30) * 0.2
    scores = np.stack([base + 0.5, base])  # run 0 better by 0.5 on every topic
    bins, comparisons, swaps = swap_counts(scores, range(100), 2, sampling="disjoint")
    assert swaps.sum() == 0 and list(bins) == [50]  # |d| = 0.5 exactly: bin 50 of width 0.01
    result = swap_sensitivity(bins, comparisons, swaps)
    assert result["sensitivity"] == 1.0 and result["required_difference"] == pytest.approx(0.5)


def test_swap_method_hand_worked_rates():
    # Bins and swaps given directly: rates 2/4, 1/10, 0/10, 1/30 (>= 5% until bin 2... then 3.3%).
    bins = np.array([-1, 0, 1, 2, 3])
    comparisons = np.array([6, 4, 10, 10, 30])
    swaps = np.array([0, 2, 1, 0, 1])
    result = swap_sensitivity(bins, comparisons, swaps, bin_width=0.01, confidence=0.95)
    # Last bin at or above 5%: bin 1 (10%); required = bin 2's lower edge; 40 of 60 reach it.
    assert result["required_difference"] == pytest.approx(0.02)
    assert result["sensitivity"] == pytest.approx(40 / 60) and result["comparisons"] == 60


@pytest.mark.parametrize("sampling", ["bootstrap", "disjoint"])
def test_swap_counts_add_up_over_shards_and_respect_direction(sampling):
    rng = np.random.default_rng(3)
    scores = rng.random((6, 24)) + np.linspace(0, 0.3, 6)[:, None]
    whole = swap_counts(scores, range(40), 9, sampling=sampling)
    parts = [swap_counts(scores, r, 9, sampling=sampling) for r in (range(0, 15), range(15, 40))]
    merged: dict[int, list[int]] = {}
    for bins, comparisons, swaps in parts:
        for b, c, s in zip(bins, comparisons, swaps):
            merged.setdefault(int(b), [0, 0])
            merged[int(b)][0] += int(c)
            merged[int(b)][1] += int(s)
    assert merged == {int(b): [int(c), int(s)] for b, c, s in zip(*whole)}
    # Lower-is-better on the negated scores gives the same counts.
    flipped = swap_counts(-scores, range(40), 9, sampling=sampling, higher_is_better=False)
    assert all((x == y).all() for x, y in zip(whole, flipped))


def test_disjoint_topic_sets_do_not_overlap():
    first, second = draw_topic_pairs(10, range(20), 4, "disjoint")
    assert first.shape == second.shape == (20, 5)
    for a, b in zip(first, second):
        assert not set(a) & set(b)
    with pytest.raises(ValueError):
        draw_topic_pairs(10, range(2), 4, "disjoint", topic_set_size=6)


# ------------------------------------------------------------- block (chunk) size


def test_results_do_not_depend_on_the_block_size(monkeypatch):
    """Trials and pairs go in blocks of BLOCK_BYTES; any budget, down to one item per
    block, gives the same null, the same stability and swap counts, the same p-values."""
    from irmeta.metaeval.asl_analysis import paired_t_pvalues
    from irmeta.metaeval.stats import blocks

    scores = realistic_scores(9, 30, seed=21)
    stack = np.stack([scores, scores ** 2])

    def everything():
        return {
            "null": randomised_tukey_hsd_null_many(stack, range(37), seed=5),
            "stability": stability_counts(scores, 15, range(53), seed=6, mode="relative"),
            "swaps": swap_counts(scores, range(41), 7, sampling="disjoint"),
            "paired_t": paired_t_pvalues(scores),
        }

    default = everything()
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1)  # one trial (or pair) per block
    assert block_size(8 * 30) == 1
    tiny = everything()
    assert np.array_equal(default["null"], tiny["null"])
    assert np.array_equal(default["paired_t"], tiny["paired_t"])
    for key in ("stability", "swaps"):
        assert all(np.array_equal(x, y) for x, y in zip(default[key], tiny[key]))


@pytest.mark.parametrize("seed", range(6))
def test_spearman_rho_is_scipys_to_the_last_bit(seed):
    from irmeta.metaeval.stats.correlation import average_ranks, spearman_rho

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    x = rng.integers(0, 5, n) * 0.1 if seed % 2 else rng.standard_normal(n)  # ties, or none
    y = np.round(rng.standard_normal(n) + x, int(rng.integers(0, 3)))
    np.testing.assert_array_equal(average_ranks(x), stats.rankdata(x))
    expected = stats.spearmanr(x, y).statistic
    assert spearman_rho(x, y) == expected or (np.isnan(expected) and np.isnan(spearman_rho(x, y)))
    assert np.isnan(spearman_rho(np.ones(4), np.arange(4.0))) and np.isnan(spearman_rho(np.ones(1), np.ones(1)))
