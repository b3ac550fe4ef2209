"""Family bias: the permutation test against brute-force enumeration of every labelling,
the Monte Carlo p against the exact one, a set equal to the reference, the table."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from irmeta.measures.averaging import Scores, exact_mean
from irmeta.metaeval import family_bias
from irmeta.metaeval.family_bias import (
    FAMILY_BIAS_COLUMNS,
    competition_ranks,
    family_bias_table,
    permutation_p_values,
    rank_changes,
)


def _brute_force_p(changes: list[int], codes: list[int]) -> list[float | None]:
    """Every permutation of the labels over the runs (S! of them), the statistic
    |mean_f - mean_all| in exact fractions: the share at least as extreme as observed."""
    n = len(changes)
    overall = Fraction(sum(changes), n)

    def deviation(labels, f):
        members = [c for c, label in zip(changes, labels) if label == f]
        return abs(Fraction(sum(members), len(members)) - overall)

    out = []
    for f in range(max(codes) + 1):
        if codes.count(f) < 2:
            out.append(None)
            continue
        observed = deviation(codes, f)
        labellings = list(itertools.permutations(codes))
        out.append(sum(deviation(p, f) >= observed for p in labellings) / len(labellings))
    return out


CASES = [
    ([3, -2, 0, 1, -1, -1], [0, 0, 1, 1, 1, 2]),
    ([5, 4, -3, -3, -2, -1, 0], [0, 0, 1, 1, 1, 2, 2]),
    ([0, 0, 1, -1, 2, -2], [1, 0, 0, 1, 1, 0]),
]


@pytest.mark.parametrize(("changes", "codes"), CASES)
def test_exhaustive_equals_every_permutation_enumerated(changes, codes):
    p = permutation_p_values(np.array([changes]), np.array(codes), exhaustive=True)[0]
    for got, expected in zip(p, _brute_force_p(changes, codes)):
        if expected is None:
            assert np.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("changes", "codes"), CASES)
def test_monte_carlo_is_within_sampling_error_of_the_exact_p(changes, codes):
    draws = 40_000
    exact = permutation_p_values(np.array([changes]), np.array(codes), exhaustive=True)[0]
    drawn = permutation_p_values(np.array([changes]), np.array(codes), permutations=draws, seed=11)[0]
    for e, d in zip(exact, drawn):
        if np.isnan(e):
            assert np.isnan(d)
            continue
        # (b + 1) / (B + 1) against b / B: four standard errors plus the +1's shift
        assert abs(d - e) <= 4 * np.sqrt(e * (1 - e) / draws) + 1 / draws


def test_draws_do_not_depend_on_the_chunk_and_a_seed_repeats(monkeypatch):
    rng = np.random.default_rng(3)
    changes = rng.integers(-5, 6, size=(4, 12))
    codes = np.array([0, 1, 2] * 4)
    whole = permutation_p_values(changes, codes, permutations=500, seed=5)
    monkeypatch.setattr(family_bias, "CHUNK_CELLS", 7)
    assert np.array_equal(permutation_p_values(changes, codes, permutations=500, seed=5), whole)
    assert not np.array_equal(permutation_p_values(changes, codes, permutations=500, seed=6), whole)


def test_p_is_never_zero_and_one_when_nothing_changes():
    codes = np.array([0, 0, 0, 1, 1, 1])
    p = permutation_p_values(np.array([[-3, -3, -3, 3, 3, 3]]), codes, permutations=99, seed=1)
    assert (p > 0).all() and p[0, 0] >= 1 / 100
    assert np.array_equal(permutation_p_values(np.zeros((2, 6), int), codes, permutations=50), np.ones((2, 2)))


def test_competition_ranks_share_the_best_rank_of_a_tie():
    assert competition_ranks(np.array([0.5, 0.9, 0.5, 0.1])).tolist() == [2, 1, 2, 4]
    assert rank_changes(np.array([0.3, 0.2, 0.1]), np.array([0.1, 0.2, 0.3])).tolist() == [2, 0, -2]


def _scores(means: np.ndarray, runs: list[str], measures=("P@10", "AP")) -> Scores:
    """Scores whose per-topic values are the means on each of 2 topics (means exact)."""
    per_topic = np.repeat(np.asarray(means, dtype=np.float64)[:, :, None], 2, axis=2)
    return Scores(runs=runs, topics=["1", "2"], measures=list(measures), alphas=[None] * len(measures),
                  per_topic=per_topic, means={"all_topics": exact_mean(per_topic)})


RUNS = ["a", "b", "c", "d", "e"]
FAMILIES = {"a": "bm25", "b": "neural", "c": "bm25", "d": "neural", "e": "llm"}


def test_a_set_equal_to_the_reference_changes_nothing():
    means = np.array([[0.5, 0.4, 0.3, 0.2, 0.1], [0.1, 0.3, 0.3, 0.2, 0.5]])
    reference = _scores(means, RUNS)
    table = family_bias_table(reference, {"same": _scores(means, RUNS)}, FAMILIES, permutations=200, seed=2)
    assert list(table.columns) == list(FAMILY_BIAS_COLUMNS)
    assert (table["mean_rank_change"] == 0).all() and (table["mean_score_change"] == 0).all()
    assert (table.loc[table["runs"] > 1, "p_value"] == 1).all()
    assert table.loc[table["family"] == "llm", "p_value"].isna().all()  # one run: no p


def test_the_table_reports_each_familys_mean_changes():
    reference = _scores(np.array([[0.5, 0.4, 0.3, 0.2, 0.1]]), RUNS, measures=("P@10",))
    # under the set the neural runs b and d come first: ranks b1 d2 a3 c4 e5
    alternative = _scores(np.array([[0.3, 0.6, 0.2, 0.5, 0.1]]), RUNS, measures=("P@10",))
    table = family_bias_table(reference, {"llm_judge": alternative}, FAMILIES, permutations=100, seed=0)
    rows = table.set_index("family")
    assert table["family"].tolist() == ["bm25", "neural", "llm"]  # order of their first run
    assert rows.loc["neural", "mean_rank_change"] == pytest.approx(((1 - 2) + (2 - 4)) / 2)
    assert rows.loc["bm25", "mean_rank_change"] == pytest.approx(((3 - 1) + (4 - 3)) / 2)
    assert rows.loc["neural", "mean_score_change"] == pytest.approx(((0.6 - 0.4) + (0.5 - 0.2)) / 2)
    assert rows.loc["neural", "runs"] == 2


def test_a_run_without_a_family_is_refused():
    reference = _scores(np.array([[0.5, 0.4, 0.3, 0.2, 0.1]]), RUNS, measures=("P@10",))
    with pytest.raises(ValueError, match="run e has no family"):
        family_bias_table(reference, {"x": reference}, {r: "f" for r in RUNS[:4]})
