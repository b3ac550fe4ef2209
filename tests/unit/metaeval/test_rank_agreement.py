"""Issue 42, item 3: tie-aware rank agreement, ``irmeta.metaeval.stats``'s tau_a, tau_b,
tau_ap_a, tau_ap_b (Urbano and Marrero, ICTIR 2017; ircor's names and argument order)
and rbo (Corsi and Urbano, SIGIR 2024, the w, a and b variants; Webber, Moffat and Zobel
2010 without ties).

The oracles:

* ircor's README example (to 7 decimals) and its own tests' data and values (its
  tolerance, 5e-5);
* the meaning of the a variants: the mean over every order the observer's ties could be
  broken in, enumerated, of the untied coefficient (tau_a, tau_AP-a; RBO^a of rankings
  of one length, whose scores are linear in the overlaps);
* the SIGIR 2024 reference implementation's README example (to 7 decimals);
* :func:`rbo_by_definition`, the definitions summed depth by depth with exact fractions
  (1,000 random tied rankings, to 1e-12). The reference implementation
  (julian-urbano/sigir2024-rbo, ``rbo/Python/rbo.py``) is not on PyPI and the project
  never copies it; when ``IRMETA_RBO_REFERENCE`` names a copy of that file, the same
  rankings are also checked against it (the helper's report: it agreed to 2e-14 on
  3,000 rankings, the brute force with it likewise).
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as scipy_stats

from irmeta.metaeval.stats import rbo, tau_a, tau_ap_a, tau_ap_b, tau_b, tied_ranking
from irmeta.metaeval.stats.correlation import kendall_tau, rbo_ext, tau_ap, tau_ap_symmetric
from irmeta.metaeval.stats.overlap import flatten

README_X = np.array([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94])
README_Y = np.array([0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94])


# ------------------------------------------------------------------ tau, ircor


def test_ircor_readme_example_to_seven_decimals():
    x, y = README_X, README_Y
    assert round(tau_a(x, y), 7) == 0.7777778 and round(tau_ap_a(x, y), 7) == 0.7491182  # untied: tau, tauAP
    y = np.round(y * 5) / 5  # R's round, half to even, as numpy's
    assert round(tau_a(x, y), 7) == 0.7111111
    assert round(tau_ap_a(x, y), 7) == 0.6074515
    x = np.round(x * 5) / 5
    assert round(tau_b(x, y), 7) == 0.75
    assert round(tau_ap_b(x, y), 7) == 0.6269841


# ircor's tests/testthat/helper_data.R and the values of its test_tauAP.R (tolerance 5e-5)
IRCOR_SETS = {
    "set1": ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
             [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
             [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
             [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1], .8519, .7454, .8333, .7321),
    "set2": ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
             [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
             [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
             [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6], .2504, .2692, .2880, .297),
    "set3": ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
             [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
             [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
             [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2], -.6971, -.5558, -.668, -.7047),
}


@pytest.mark.parametrize("name", IRCOR_SETS)
def test_ircor_own_test_values(name):
    x, y, x_ties, y_ties, untied, a_ties, b_untied, b_ties = IRCOR_SETS[name]
    x, y, x_ties, y_ties = map(np.array, (x, y, x_ties, y_ties))
    assert tau_ap_a(x, y) == pytest.approx(untied, abs=5e-5)
    assert tau_ap_a(x, y_ties) == pytest.approx(a_ties, abs=5e-5)
    assert tau_ap_b(x, y) == pytest.approx(b_untied, abs=5e-5)
    assert tau_ap_b(x_ties, y_ties) == pytest.approx(b_ties, abs=5e-5)
    assert tau_ap_b(y_ties, x_ties) == tau_ap_b(x_ties, y_ties)  # symmetric, bit for bit


def _tie_breaks(y: np.ndarray):
    """Every untied version of ``y`` that keeps its strict orders: each tie group's
    items given distinct offsets below the gap to the next score, in every order."""
    groups = [np.flatnonzero(y == v) for v in np.unique(y)]
    for orders in itertools.product(*(itertools.permutations(range(len(g))) for g in groups)):
        broken = y.astype(np.float64).copy()
        for g, order in zip(groups, orders):
            broken[g] = y[g] + np.asarray(order) * 1e-6
        yield broken


def _untied_tau_ap(x: np.ndarray, y: np.ndarray) -> float:
    """Yilmaz et al.'s eq. 3 as written: y's list best first, C(i) the items above i in
    that list that x also ranks above i."""
    order = np.argsort(-y)
    total = sum(sum(x[order[j]] > x[order[i]] for j in range(i)) / i for i in range(1, len(y)))
    return 2 * total / (len(y) - 1) - 1


def test_a_variants_are_the_mean_over_the_observers_tie_breaks():
    rng = np.random.default_rng(42)
    for _ in range(60):
        n = int(rng.integers(2, 8))
        x = rng.permutation(n).astype(np.float64)  # the truth, untied
        y = rng.integers(0, max(2, n - 2), n).astype(np.float64)  # an observer who ties
        breaks = list(_tie_breaks(y))
        tau_mean = np.mean([scipy_stats.kendalltau(x, b).statistic for b in breaks])
        ap_mean = np.mean([_untied_tau_ap(x, b) for b in breaks])
        assert tau_a(x, y) == pytest.approx(tau_mean, abs=1e-12)
        assert tau_ap_a(x, y) == pytest.approx(ap_mean, abs=1e-12)


def test_b_variants_are_the_tables_coefficients_bit_for_bit():
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        x, y = rng.integers(0, 6, n).astype(np.float64), rng.integers(0, 6, n).astype(np.float64)
        assert tau_b(x, y) == kendall_tau(x, y) == tau_b(y, x)
        if not (np.all(x == x[0]) or np.all(y == y[0])):
            assert tau_b(x, y) == pytest.approx(scipy_stats.kendalltau(x, y).statistic, abs=1e-12)
        assert tau_ap_b(x, y) == tau_ap_symmetric(x, y)
        assert tau_ap_b(x, y, higher_is_better=False) == tau_ap_symmetric(-x, -y)


def test_untied_every_variant_is_the_untied_coefficient():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2, 30))
        x, y = rng.permutation(n).astype(np.float64), rng.permutation(n).astype(np.float64)
        assert tau_a(x, y) == tau_b(x, y) == pytest.approx(scipy_stats.kendalltau(x, y).statistic, abs=1e-12)
        assert tau_ap_a(x, y) == tau_ap(y, x)  # ircor's x is the reference; tau_ap takes it second
        assert tau_ap_a(x, y) == pytest.approx(_untied_tau_ap(x, y), abs=1e-12)


def test_a_variants_refuse_a_tied_reference():
    with pytest.raises(ValueError, match="reference, ties items"):
        tau_a(np.array([1.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="use the b variants"):
        tau_ap_a(np.array([1.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0]))
    assert math.isnan(tau_a(np.array([1.0]), np.array([1.0])))
    assert math.isnan(tau_ap_a(np.array([1.0, np.nan]), np.array([1.0, 2.0])))
    with pytest.raises(ValueError, match="same length"):
        tau_b(np.array([1.0, 2.0]), np.array([1.0]))


# ------------------------------------------------------------------ RBO


def test_sigir2024_reference_readme_example_to_seven_decimals():
    x = ["red", {"blue", "green"}, "yellow", "pink"]
    y = [{"blue", "red"}, "white", {"yellow", "black", "purple"}, "green"]
    expected = {"a": (0.6922853, 0.3310519, 0.8930692, 0.5620173),
                "w": (0.7068257, 0.3429684, 0.9049857, 0.5620173),
                "b": (0.7207131, 0.3509163, 0.9129336, 0.5620173)}
    assert rbo(x, y, p=0.95) == rbo(x, y, p=0.95, ties="a")  # a by default, as the reference
    for ties, values in expected.items():
        got = rbo(x, y, p=0.95, ties=ties)
        assert list(got) == ["ext", "min", "max", "res"]
        assert [round(v, 7) for v in got.values()] == list(values)


def _contribution(flat, ties: str) -> dict:
    """Item -> its weight at depth d, a function, as the paper defines it."""
    out = {}
    for item, t, b in zip(flat.items, flat.top.tolist(), flat.bottom.tolist()):
        g = b - t + 1
        if ties == "w":
            out[item] = lambda d, t=t: Fraction(int(d > t))
        else:
            out[item] = lambda d, t=t, g=g: Fraction(min(max(d - t, 0), g), g)
    return out


def rbo_by_definition(x, y, p: float, ties: str) -> dict[str, float]:
    """Corsi and Urbano's RBO scores by direct summation over depths: each depth's
    weights, overlap and agreement from the definitions in exact fractions (but for
    variant b's square root), weighted by p^d in floats and summed exactly (fsum), the
    depths beyond the rankings to where p^d < 1e-18."""
    fx, fy = flatten(x), flatten(y)
    short, long = (fy, fx) if len(fx.items) >= len(fy.items) else (fx, fy)
    s, n = len(short.items), len(long.items)
    cs, cl = _contribution(short, ties), _contribution(long, ties)
    shared = [i for i in short.items if i in cl]
    unique = [i for i in long.items if i not in cs]  # L's items not in S, in L's order

    def agreement(x_d, d: int, short_sum, short_squares):
        long_sum = sum(cl[i](d) for i in long.items)
        if ties == "w":
            return 2 * x_d / (short_sum + long_sum)
        if ties == "b":
            return float(x_d) / math.sqrt(float(short_squares) * float(sum(cl[i](d) ** 2 for i in long.items)))
        return x_d / d

    seen, low, high, extrapolated = [], [], [], []
    for d in range(1, n + 1):
        x_d = sum(cs[i](d) * cl[i](d) for i in shared)
        seen.append(x_d)
        if d <= s:
            a = agreement(x_d, d, sum(cs[i](d) for i in short.items), sum(cs[i](d) ** 2 for i in short.items))
            low.append(a), high.append(a), extrapolated.append(a)
            continue
        a_s = extrapolated[s - 1]
        low.append(agreement(x_d, d, d, d))
        high.append(agreement(x_d + sum(cl[i](d) for i in unique[:d - s]), d, d, d))
        nonzero = [cl[i](d) for i in unique if cl[i](d) > 0]
        extrapolated.append(agreement(x_d + (d - s) * Fraction(a_s) * sum(nonzero) / len(nonzero), d, d, d))
    x_l = seen[-1]
    far = n + int(math.log(1e-18) / math.log(p)) + 2
    f = n + s - x_l
    beyond_min = math.fsum(float(Fraction(x_l, d)) * p**d for d in range(n + 1, far))
    beyond_max = math.fsum(float((2 * d - n - s + x_l) / Fraction(d)) * p**d for d in range(n + 1, int(f) + 1)) \
        + math.fsum(p**d for d in range(int(f) + 1, far))
    agreement_beyond = float((x_l + (n - s) * Fraction(extrapolated[s - 1])) / n)
    beyond_ext = math.fsum(agreement_beyond * p**d for d in range(n + 1, far))

    def total(agreements, beyond):
        return (1 - p) / p * (math.fsum(float(a) * p**d for d, a in enumerate(agreements, 1)) + beyond)

    low_score, high_score = total(low, beyond_min), total(high, beyond_max)
    return {"ext": total(extrapolated, beyond_ext), "min": low_score, "max": high_score,
            "res": high_score - low_score}


def _random_ranking(rng, universe: int, length: int, tie_chance: float) -> list:
    items = [f"d{v}" for v in rng.choice(universe, size=length, replace=False)]
    ranking, i = [], 0
    while i < length:
        g = 1
        while i + g < length and rng.random() < tie_chance:
            g += 1
        ranking.append(items[i] if g == 1 else set(items[i:i + g]))
        i += g
    return ranking


def _reference():
    """The reference implementation, when IRMETA_RBO_REFERENCE names a copy (never in
    the repository); None otherwise, and the brute force alone is the oracle."""
    path = os.environ.get("IRMETA_RBO_REFERENCE")
    if not path:
        return None
    spec = importlib.util.spec_from_file_location("sigir2024_rbo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_rbo_equals_its_definitions_on_1000_random_tied_rankings():
    rng = np.random.default_rng(2024)
    reference = _reference()
    for trial in range(1000):
        universe = int(rng.integers(2, 16))
        x = _random_ranking(rng, universe, int(rng.integers(1, universe + 1)), rng.choice([0.0, 0.3, 0.6]))
        y = _random_ranking(rng, universe, int(rng.integers(1, universe + 1)), rng.choice([0.0, 0.3, 0.8]))
        p = float(rng.choice([0.5, 0.8, 0.9, 0.95]))
        ties = "wab"[trial % 3]
        ours = rbo(x, y, p, ties)
        expected = rbo_by_definition(x, y, p, ties)
        for score in ours:
            assert ours[score] == pytest.approx(expected[score], abs=1e-12), (trial, score, x, y, p, ties)
            assert 0.0 <= ours[score] <= 1.0
        if reference is not None:
            theirs = reference.rbo(x, y, p, ties=ties)
            assert all(ours[k] == pytest.approx(float(theirs[k]), abs=1e-12) for k in ours), (x, y, p, ties)


def test_rbo_a_of_equal_lengths_is_the_mean_over_tie_breaks():
    # RBO^a is the expected RBO when both rankings' ties are broken at random; of
    # rankings of one length every score is linear in the overlaps, so it is the mean of
    # Webber's untied scores over every pair of tie-breaks.
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(1, 6))
        x, y = _random_ranking(rng, n + 2, n, 0.5), _random_ranking(rng, n + 2, n, 0.5)

        def breaks(ranking):
            groups = [sorted(g) if isinstance(g, set) else [g] for g in ranking]
            for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
                yield [item for order in orders for item in order]

        pairs = [(a, b) for a in breaks(x) for b in breaks(y)]
        got = rbo(x, y, 0.8, "a")
        for score in ("ext", "min", "max"):
            mean = np.mean([rbo(a, b, 0.8, "w")[score] for a, b in pairs])
            assert got[score] == pytest.approx(mean, abs=1e-12)


def test_rbo_untied_is_webbers_extrapolation_of_uneven_lists():
    # An original of 100 documents and a reproduction returning its ranks 11-20, p 0.95
    # (issue 40, item 5). s = 10, l = 100: X_d = 0 to d = 10, then min(d, 20) - 10 for
    # d = 11..100; X_s = 0, so eq. 32 is (1 - p)/p sum_{d=11..100} (min(d, 20) - 10)/d p^d
    # + (X_l / l) p^100 = 0.1745... + 0.1 * 0.95^100 = 0.181074 (the rbo package: 0.1810737112).
    original, reproduced = list(range(1, 101)), list(range(11, 21))
    by_hand = (0.05 / 0.95) * sum((min(d, 20) - 10) / d * 0.95**d for d in range(11, 101)) + 0.1 * 0.95**100
    assert round(by_hand, 6) == 0.181074
    for got in (rbo_ext(original, reproduced, 0.95), rbo(original, reproduced, 0.95, "w")["ext"],
                rbo(reproduced, original, 0.95, "b")["ext"]):
        assert got == pytest.approx(by_hand, abs=1e-15)


def test_rbo_untied_equal_lengths_is_rbo_ext_bit_for_bit_and_identical_is_one():
    rng = np.random.default_rng(5)
    for _ in range(200):
        k = int(rng.integers(1, 50))
        a, b = rng.choice(80, k, replace=False).tolist(), rng.choice(80, k, replace=False).tolist()
        p = float(rng.uniform(0.05, 0.99))
        assert all(rbo(a, b, p, ties)["ext"] == rbo_ext(a, b, p) for ties in "wab")
    x = ["a", {"b", "c", "d"}, "e", {"f", "g"}]
    assert rbo(x, x, 0.9, "b")["ext"] == 1.0 and rbo(x, x, 0.9, "w")["ext"] == 1.0
    assert rbo(x, x, 0.9, "a")["ext"] < 1.0  # two independent tie-breaks seldom agree


@pytest.mark.slow
def test_rbo_never_leaves_zero_to_one():
    rng = np.random.default_rng(9)
    for _ in range(300):
        n1, n2 = int(rng.integers(1, 300)), int(rng.integers(1, 300))
        # disjoint rankings: 1 minus a shortfall of 1, which rounds below 0 unless clipped
        x = [f"x{i}" for i in range(n1)]
        y = [f"y{i}" for i in range(n2)] if rng.random() < 0.5 else _random_ranking(rng, n2 + 5, n2, 0.4)
        p = float(rng.choice([1e-3, 0.5, 0.9, 0.95, 0.999, 0.99999]))
        for ties in "wab":
            scores = rbo(x, y, p, ties)
            assert all(0.0 <= v <= 1.0 for v in scores.values()), (scores, p, ties)
    assert rbo_ext(list(range(10)), list(range(10, 20)), 0.95) == 0.0


def test_rbo_depth_cuts_each_ranking_keeping_a_crossed_tie_whole():
    x = ["a", {"b", "c"}, "d", "e"]
    y = ["c", "a", "b", "e", "f"]
    assert rbo(x, y, 0.9, "a", depth=2) == rbo(["a", {"b", "c"}], ["c", "a"], 0.9, "a")
    assert rbo(x, y, 0.9, "w", depth=10) == rbo(x, y, 0.9, "w")


def test_rbo_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match=r"in \(0, 1\)"):
        rbo(["a"], ["a"], 1.0)
    with pytest.raises(ValueError, match="one of w, a, b"):
        rbo(["a"], ["a"], 0.9, ties="x")
    with pytest.raises(ValueError, match="appears twice"):
        rbo(["a", {"a", "b"}], ["a"], 0.9)
    with pytest.raises(ValueError, match="empty"):
        rbo(["a", set()], ["a"], 0.9)
    with pytest.raises(TypeError, match="sequence of items"):
        rbo("abc", ["a"], 0.9)
    with pytest.raises(ValueError, match="depth"):
        rbo(["a"], ["a"], 0.9, depth=0)
    assert all(math.isnan(v) for v in rbo([], ["a"], 0.9).values())


def test_tied_ranking_groups_equal_scores():
    assert tied_ranking([0.3, 0.1, 0.3, 0.2], ["r1", "r2", "r3", "r4"]) == [frozenset({"r1", "r3"}), "r4", "r2"]
    assert tied_ranking([0.3, 0.1, 0.2], higher_is_better=False) == [1, 2, 0]
    with pytest.raises(ValueError, match="NaN"):
        tied_ranking([0.1, np.nan])
