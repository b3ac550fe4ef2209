"""Randomised p-values a reviewer accepts: the randomisation and bootstrap tests report
(b + 1) / (B + 1) (Phipson and Smyth 2010), b / B by name from the same draws; exhaustive
draws give exact enumeration's counts; and where 1 / (B + 1) cannot pass a correction at a
level the registry, the discriminative-power table and its counts agree that no pair can be
significant. References are brute force (every sign vector in Python integers, the
corrections run on the families themselves), not the functions' own formulas."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from irmeta.metaeval.discriminative_power import attainable_rows, discriminative_power_table
from irmeta.metaeval.pairwise_tests import pairwise_tests_table
from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.metaeval.stats.multiple_testing import benjamini_hochberg, bonferroni, holm
from irmeta.metaeval.stats.paired_tests import pairwise_tests, run_test
from irmeta.metaeval.stats.registry import (
    CORRECTIONS,
    TESTS,
    attainable,
    draws_needed,
    registered_tests,
    smallest_adjusted_pvalue,
    unattainable_note,
)
from irmeta.metaeval.stats.resampling_tests import paired_bootstrap, randomisation, randomisation_count

ADJUST = {"holm": holm, "bh": benjamini_hochberg, "bonferroni": bonferroni}


def brute_force_count(d: list[int]) -> int:
    """#{s in {+-1}^n : |s.d| >= |sum d|}, sign vector by sign vector, in integers."""
    return sum(abs(sum(s * x for s, x in zip(signs, d))) >= abs(sum(d))
               for signs in itertools.product((1, -1), repeat=len(d)))


def test_every_sign_vector_drawn_gives_exact_enumerations_b_plus_one_over_b_plus_one():
    """n = 7 topics, B = 2^7 = 128: every sign vector once. Differences in multiples of
    1/8 (exact in binary, ties included): p = (b + 1) / (B + 1) with b the exact count,
    and the count form b / B, the exact permutation p-value."""
    n = 7
    rng = np.random.default_rng(11)
    eighths = rng.integers(0, 9, size=(6, n))
    eighths[1] = eighths[0]  # identical runs: every flip ties, b = B
    eighths[2] = eighths[0] + 2  # a constant shift: only all-plus and all-minus reach it
    scores = eighths / 8.0
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
    assert len(signs) == 2**n and len({tuple(s) for s in signs}) == 2**n
    a, b = np.triu_indices(len(scores), 1)
    counts = [brute_force_count([int(x) for x in eighths[i] - eighths[j]]) for i, j in zip(a, b)]
    assert counts[0] == 2**n and counts[1] == 2 and len(set(counts)) > 4
    assert randomisation(scores, signs=signs).p_value.tolist() == [(k + 1) / (2**n + 1) for k in counts]
    assert randomisation_count(scores, signs=signs).p_value.tolist() == [k / 2**n for k in counts]


@pytest.mark.parametrize("test", ["randomisation", "paired_bootstrap"])
def test_the_count_form_is_the_same_draws_b_over_b(test):
    """``<test>_count`` by name: b / B where ``<test>`` gives (b + 1) / (B + 1), the same b."""
    noise = np.random.default_rng(5).uniform(size=(7, 15))
    scores = np.vstack([noise, noise[0] + 0.5 + noise[1] / 10])  # far above run 0 on every topic
    draws = 300
    plus_one = run_test(test, scores, draws, 9).p_value
    count = run_test(f"{test}_count", scores, draws, 9).p_value
    b = np.rint(count * draws)
    assert np.array_equal(count, b / draws) and np.array_equal(plus_one, (b + 1) / (draws + 1))
    assert plus_one.min() >= 1 / (draws + 1) and (count == 0).any()  # some pair no draw reaches


def test_count_forms_run_only_when_named():
    assert "randomisation_count" not in registered_tests(kind="paired")
    assert "paired_bootstrap_count" not in registered_tests(default_only=True)
    assert TESTS["randomisation_count"].form_of == "randomisation" and TESTS["randomisation"].plus_one
    scores = np.random.default_rng(1).uniform(size=(4, 6))
    default = pairwise_tests(scores, list("abcd"), permutations=20)
    assert "randomisation_count" not in set(default["method"])
    named = pairwise_tests(scores, list("abcd"), ["randomisation_count"], permutations=20)
    assert set(named["method"]) == {"randomisation_count"}


def test_bootstrap_degenerate_pairs_in_both_forms():
    x = np.arange(10) / 16.0
    scores = np.vstack([x, x, x + 0.25])
    result = paired_bootstrap(scores, 40, 2)
    assert result.p_value.tolist()[:2] == [1.0, 1 / 41]  # t = 0: b = B; t = -inf: b = 0
    assert paired_bootstrap(scores, 40, 2, plus_one=False).p_value.tolist()[:2] == [1.0, 0.0]


# ------------------------------------------------------------------ what B draws can show


@pytest.mark.parametrize("correction", ["none", *CORRECTIONS])
@pytest.mark.parametrize("pairs", [1, 2, 15, 66, 8256])
def test_the_registrys_bound_is_the_corrections_own_smallest(correction, pairs):
    """The smallest adjusted p the registry states is what the correction gives a family
    of ``pairs`` p-values all at 1 / (B + 1), and no family of p >= 1 / (B + 1) goes below it."""
    draws = 1000
    name = "randomisation" if correction == "none" else f"randomisation+{correction}"
    bound = smallest_adjusted_pvalue(name, draws, pairs)
    floor = np.full(pairs, 1 / (draws + 1))
    adjust = ADJUST.get(correction, lambda p: p)
    assert adjust(floor).min() == bound
    rng = np.random.default_rng(pairs)
    for _ in range(20):
        family = np.maximum(floor, rng.uniform(0, 0.01, pairs) ** 3)
        assert adjust(family).min() >= bound


@pytest.mark.parametrize("name", ["randomisation+holm", "paired_bootstrap+bonferroni", "randomisation+bh",
                                  "paired_bootstrap"])
@pytest.mark.parametrize("level,pairs", [(0.05, 8256), (0.01, 8256), (0.05, 105), (0.01, 3)])
def test_draws_needed_is_where_the_correction_first_finds_a_pair(name, level, pairs):
    """With B = draws_needed every pair at 1 / (B + 1) is significant after the correction;
    with B - 1 none is: the registry's verdict is the corrections' own, at the boundary."""
    needed = draws_needed(name, level, pairs)
    correction = name.partition("+")[2]
    adjust = ADJUST.get(correction, lambda p: p)
    for draws, expected in ((needed, True), (needed - 1, False)):
        family = np.full(pairs, 1.0) / (draws + 1.0)
        assert bool((adjust(family) < level).any()) is expected
        assert attainable(name, level, draws, pairs) is expected
        assert (unattainable_note(name, level, draws, pairs) == "") is expected


def test_the_count_form_and_analytic_tests_are_always_attainable():
    assert attainable("randomisation_count+holm", 0.01, 10, 8256)
    assert attainable("paired_t+bonferroni", 0.01, None, 8256)
    assert not attainable("randomisation+holm", 0.05, 1000, 8256)
    note = unattainable_note("randomisation+holm", 0.05, 1000, 8256)
    assert "1/1001" in note and "Holm over 8256 pairs" in note and "165120 draws could" in note


# ------------------------------------------------------------------ the table


def separated(n_runs: int = 12, n_topics: int = 20) -> list[ScoreMatrix]:
    """Runs far apart on every topic: no sign flip or resample reaches a pair's difference."""
    rng = np.random.default_rng(4)
    values = np.arange(n_runs)[:, None] * 10.0 + rng.uniform(0, 0.01, (n_runs, n_topics))
    runs, topics = [f"r{i:02d}" for i in range(n_runs)], [str(t) for t in range(n_topics)]
    return [ScoreMatrix("AP@10", "", runs, topics, values)]


def test_the_table_says_which_counts_no_pair_could_reach():
    """12 runs (66 pairs), 100 draws, every pair with b = 0: raw p = 1/101 passes 0.05 and
    0.01; Holm and Bonferroni need p < level/66, out of reach (0 by construction, attainable
    False); BH keeps every pair (all at 1/101); the count form b / B = 0 passes everything."""
    matrices = separated()
    methods = ["randomisation", "randomisation_count", "paired_t"]
    pairwise = pairwise_tests_table(matrices, methods, 100, 3)
    table = discriminative_power_table(matrices, methods=methods, pairwise=pairwise, permutations=100,
                                       corrections=["none", "holm", "bh", "bonferroni"])
    assert list(table.columns)[-1] == "attainable"
    got = {(r.method, r.level): (r.significant_pairs, r.attainable) for r in table.itertuples()}
    for level in (0.05, 0.01):
        assert got[("randomisation", level)] == (66, True)
        assert got[("randomisation+bh", level)] == (66, True)
        assert got[("randomisation+holm", level)] == (0, False)
        assert got[("randomisation+bonferroni", level)] == (0, False)
        assert got[("randomisation_count+holm", level)] == (66, True)
        assert got[("paired_t+holm", level)][1] is True
    assert attainable_rows(table).tolist() == table["attainable"].tolist()


def test_the_randomised_tukey_hsd_plus_one_is_checked_against_its_draws():
    matrices = separated(4, 6)
    table = discriminative_power_table(matrices, methods=["tukey_hsd", "randomised_tukey_hsd"], permutations=50,
                                       randomised_p="plus_one", null=_null(matrices, 50))
    assert list(table.columns)[-2:] == ["randomised_p", "attainable"]
    rows = table[table["method"] == "randomised_tukey_hsd"].set_index("level")
    assert rows.loc[0.05, "attainable"] and not rows.loc[0.01, "attainable"]  # 1/51 = 0.0196
    assert rows.loc[0.01, "significant_pairs"] == 0
    assert table.loc[table["method"] == "tukey_hsd", "attainable"].all()


def _null(matrices: list[ScoreMatrix], trials: int) -> pd.DataFrame:
    from irmeta.metaeval.discriminative_power import randomised_null_shard

    return randomised_null_shard(matrices, range(trials), 1)


def test_a_table_from_before_the_column_reads_as_attainable():
    old = pd.DataFrame({"method": ["randomisation+holm"], "level": [0.05]})
    assert attainable_rows(old).tolist() == [True]
    read_back = pd.DataFrame({"attainable": ["True", "False", True, False]})
    assert attainable_rows(read_back).tolist() == [True, False, True, False]
