"""irmeta.metaeval.stats.paired_tests and .multiple_testing: the five paired tests over
all run pairs, their effect sizes and intervals, and the corrections.

References: scipy (``ttest_rel``, ``wilcoxon``, ``binomtest``) and statsmodels
(``multipletests``) called pair by pair on real TREC-8 scores; for the two randomised
tests, exact p-values by complete enumeration (all 2^n sign vectors, all n^n resamples
grouped by their draw counts) in exact integer arithmetic, which the functions must hit
exactly when given the complete draws, and within a binomial tolerance when sampling.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import evaluate
from irmeta.metaeval.stats.anova import residual_variance
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.multiple_testing import adjusted_pvalue_columns, benjamini_hochberg, bonferroni, holm
from irmeta.metaeval.stats.pair_differences import pair_blocks
from irmeta.metaeval.stats.paired_tests import (
    TABLE_COLUMNS,
    count_significant_pairs,
    pair_summary,
    paired_t,
    pairwise_tests,
    run_test,
    sign,
    sign_test_pvalues,
    t_quantile,
)
from irmeta.metaeval.stats.registry import parse_test_name
from irmeta.metaeval.stats.resampling_tests import (
    bootstrap_resamples,
    paired_bootstrap,
    paired_bootstrap_count,
    random_signs,
    randomisation,
    randomisation_count,
)
from irmeta.metaeval.stats.signed_rank import wilcoxon
from resampling_reference import all_sign_vectors, compositions, exact_bootstrap_count, exact_randomisation_count

TOL = 1e-12
# identical rankings (the data's README): all-zero differences
IDENTICAL = [("Mer8Adtd1", "Mer8Adtd2"), ("isa25t", "isa50t")]

METHODS = ("paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap")  # the shipped paired tests


@pytest.fixture(scope="module")
def trec8(shared_data) -> dict[str, tuple[np.ndarray, list[str]]]:
    """AP@100 and P@100 of 22 TREC-8 runs (every 7th, plus two pairs of identical
    rankings) over the 50 topics: measure -> (scores, run names)."""
    folder = shared_data / "trec8_adhoc"
    files = sorted((folder / "runs").glob("*.gz"))
    chosen = sorted(set(files[::7]) | {folder / "runs" / f"{r}.gz" for pair in IDENTICAL for r in pair})
    matrix = relevance_matrix(read_runs(chosen, depth=100), read_qrels(folder / "qrels.txt"), depth=100)
    scores = evaluate(matrix, ["AP@100", "P@100"])
    return {str(k): (v, list(matrix.runs)) for k, v in scores.items()}


def integer_scores(scores: np.ndarray, measure: str) -> np.ndarray:
    """The scores as exact integers on a common scale (object array of Python ints):
    P@100 as hits (x 100, its true rational values), AP as the floats' exact dyadic values."""
    if measure == "P@100":
        return np.round(scores * 100).astype(np.int64).astype(object)
    fractions = [Fraction(float(x)) for x in scores.reshape(-1)]
    scale = max(f.denominator for f in fractions)  # powers of two: the largest is the lcm
    return np.array([int(f * scale) for f in fractions], dtype=object).reshape(scores.shape)


def topic_subset(n_topics: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).choice(50, size=n_topics, replace=False))


def scipy_reference(test, x: np.ndarray, y: np.ndarray):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on all-zero differences
        return test(x, y)


# ----------------------------------------------------------------- scipy equality


@pytest.mark.slow
@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
def test_paired_t_equals_ttest_rel_on_trec8(trec8, measure):
    scores, runs = trec8[measure]
    result = paired_t(scores)
    a, b = run_pairs(len(scores))
    zero = []
    for i, (x, y) in enumerate(zip(a, b)):
        ref = scipy_reference(stats.ttest_rel, scores[x], scores[y])
        if (scores[x] == scores[y]).all():
            zero.append(i)
            assert np.isnan(ref.pvalue) and result.p_value[i] == 1 and result.statistic[i] == 0
            continue
        np.testing.assert_allclose([result.statistic[i], result.p_value[i]], [ref.statistic, ref.pvalue],
                                   rtol=TOL, atol=0)
    assert sorted(tuple(sorted((runs[a[i]], runs[b[i]]))) for i in zero) == IDENTICAL
    assert result.p_value.min() < 1e-6  # some TREC-8 pairs differ clearly


def wilcoxon_cases(scores: np.ndarray) -> tuple[int, int]:
    """Pairs scipy tests exactly (no zero or tied |d|) and the others."""
    a, b = run_pairs(len(scores))
    d = scores[a] - scores[b]
    tied = (np.diff(np.sort(np.abs(d), axis=1), axis=1) == 0).any(axis=1)
    clean = ~tied & (d != 0).all(axis=1)
    return int(clean.sum()), int((~clean).sum())


def assert_wilcoxon_equals_scipy(scores: np.ndarray) -> None:
    result = wilcoxon(scores)
    a, b = run_pairs(len(scores))
    for i, (x, y) in enumerate(zip(a, b)):
        if (scores[x] == scores[y]).all():
            assert result.p_value[i] == 1 and result.statistic[i] == 0
            continue
        ref = scipy_reference(stats.wilcoxon, scores[x], scores[y])
        np.testing.assert_allclose([result.statistic[i], result.p_value[i]], [ref.statistic, ref.pvalue],
                                   rtol=TOL, atol=0)


@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
def test_wilcoxon_equals_scipy_on_trec8(trec8, measure):
    scores, _ = trec8[measure]
    assert_wilcoxon_equals_scipy(scores)


def test_trec8_exercises_both_wilcoxon_methods(trec8):
    exact, approximate = wilcoxon_cases(trec8["AP@100"][0])
    assert exact > 0 and approximate > 0


@pytest.mark.slow
@pytest.mark.parametrize("n_topics,n_runs", [(2, 6), (6, 12), (10, 4), (13, 3), (14, 12), (30, 12), (51, 12),
                                             (80, 12), (400, 6)])
def test_wilcoxon_equals_scipy_on_every_method_scipy_picks(n_topics, n_runs):
    """n <= 13 with zeros or ties: scipy enumerates the 2^n flips (slowly: few runs
    there); n <= 50 without: exact distribution; otherwise the normal approximation.
    Half the rows are rounded to make zeros and ties, half are continuous."""
    rng = np.random.default_rng(n_topics)
    scores = rng.beta(2, 5, (n_runs, n_topics))
    scores[: n_runs // 2 + 1] = np.round(scores[: n_runs // 2 + 1], 1)
    if n_runs > 4:
        scores[1] = scores[0]  # an all-zero pair
    exact, approximate = wilcoxon_cases(scores)
    assert exact > 0 and approximate > 0
    assert_wilcoxon_equals_scipy(scores)


@pytest.mark.parametrize("n", [1, 2, 5, 13, 14, 31, 50])
def test_wilcoxon_exact_is_scipys_to_the_last_bit(n):
    """The exact null distribution's tails, summed as scipy sums them: every R+ from 0 to
    n(n + 1)/2 (each side of the mean), p-values and statistics equal, not close."""
    from irmeta.metaeval.stats.signed_rank import wilcoxon_exact

    rng = np.random.default_rng(n)
    d = rng.permuted(np.tile(np.arange(1.0, n + 1), (400, 1)), axis=1)  # distinct |d| 1..n
    d *= rng.choice([-1.0, 1.0], size=d.shape)
    d[0], d[1] = np.arange(1.0, n + 1), -np.arange(1.0, n + 1)  # R+ at both ends
    ours, scipys = wilcoxon_exact(d), stats.wilcoxon(d, axis=1, method="exact")
    assert ours.p_value.tobytes() == np.asarray(scipys.pvalue, dtype=np.float64).tobytes()
    assert ours.statistic.tobytes() == np.asarray(scipys.statistic, dtype=np.float64).tobytes()


@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
def test_sign_equals_binomtest_on_trec8(trec8, measure):
    scores, _ = trec8[measure]
    result = sign(scores)
    a, b = run_pairs(len(scores))
    for i, (x, y) in enumerate(zip(a, b)):
        d = scores[x] - scores[y]
        k, n = int((d > 0).sum()), int((d != 0).sum())
        if n == 0:
            assert result.p_value[i] == 1 and result.statistic[i] == 0.5
            continue
        ref = stats.binomtest(k, n, 0.5)
        assert result.p_value[i] == ref.pvalue and result.statistic[i] == ref.statistic


def test_sign_test_pvalues_equal_binomtest_for_every_k_and_n():
    k, n = zip(*[(k, n) for n in [*range(1, 41), 99, 100, 500] for k in range(n + 1)])
    ours = sign_test_pvalues(np.array(k), np.array(n))
    assert ours.tolist() == [stats.binomtest(kk, nn, 0.5).pvalue for kk, nn in zip(k, n)]
    assert sign_test_pvalues(np.array([0]), np.array([0])).tolist() == [1.0]


@pytest.mark.slow
def test_corrections_equal_statsmodels(trec8):
    rng = np.random.default_rng(3)
    families = [run_test(method, trec8[measure][0], 200, 1).p_value for method in METHODS for measure in trec8]
    families += [np.round(rng.uniform(size=500), 2), np.array([0.0, 1.0, 0.5, 0.5, 1e-300]), rng.uniform(size=1)]
    for p in families:
        columns = adjusted_pvalue_columns(p)
        for column, method in (("p_adjusted_holm", "holm"), ("p_adjusted_bh", "fdr_bh"),
                               ("p_adjusted_bonferroni", "bonferroni")):
            np.testing.assert_allclose(columns[column], multipletests(p, method=method)[1], rtol=TOL, atol=0)
    p = families[0]
    assert (holm(p) >= p).all() and (bonferroni(p) >= holm(p)).all() and (holm(p) >= benjamini_hochberg(p)).all()


# ----------------------------------------------------------- exact enumeration


@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
@pytest.mark.parametrize("n_topics", [6, 7, 8])
def test_randomisation_with_every_sign_vector_is_the_exact_test(trec8, measure, n_topics):
    scores, _ = trec8[measure]
    topics = topic_subset(n_topics, n_topics)
    sub, exact_scores = scores[:, topics], integer_scores(scores[:, topics], measure)
    signs = all_sign_vectors(n_topics)
    a, b = run_pairs(len(sub))
    counts = [exact_randomisation_count(exact_scores[x] - exact_scores[y]) for x, y in zip(a, b)]
    # every sign vector drawn once, B = 2^n: the default is (b + 1) / (B + 1) of the exact b
    # (Phipson and Smyth 2010), the count form b / B the exact permutation p-value
    assert randomisation(sub, signs=signs).p_value.tolist() == [(k + 1) / (2**n_topics + 1) for k in counts]
    assert randomisation_count(sub, signs=signs).p_value.tolist() == [k / 2**n_topics for k in counts]
    assert len(set(counts)) > 5  # the subsets give a spread of p-values, not only ties at 1


@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
@pytest.mark.parametrize("n_topics", [6, 7, 8])
def test_randomisation_monte_carlo_is_within_binomial_tolerance_of_exact(trec8, measure, n_topics):
    scores, _ = trec8[measure]
    topics = topic_subset(n_topics, 10 + n_topics)
    sub, exact_scores = scores[:, topics], integer_scores(scores[:, topics], measure)
    permutations = 4000
    result = randomisation(sub, permutations, seed=n_topics)
    a, b = run_pairs(len(sub))
    exact = np.array([exact_randomisation_count(exact_scores[x] - exact_scores[y]) for x, y in zip(a, b)])
    exact = exact / 2**n_topics
    assert np.all(np.abs(result.p_value - exact) <= 5 * np.sqrt(exact * (1 - exact) / permutations) + TOL)


@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
def test_bootstrap_with_every_index_vector_is_the_exact_test(trec8, measure):
    n_topics = 6
    scores, _ = trec8[measure]
    topics = topic_subset(n_topics, 1)
    sub, exact_scores = scores[:, topics], integer_scores(scores[:, topics], measure)
    everything = np.array(list(itertools.product(range(n_topics), repeat=n_topics)))
    counts, weights = compositions(n_topics)
    assert sum(weights) == len(everything) == n_topics**n_topics
    a, b = run_pairs(len(sub))
    exact = [exact_bootstrap_count(exact_scores[x] - exact_scores[y], counts, weights) for x, y in zip(a, b)]
    assert paired_bootstrap(sub, resamples=everything).p_value.tolist() == [(k + 1) / (len(everything) + 1)
                                                                              for k in exact]
    assert paired_bootstrap_count(sub, resamples=everything).p_value.tolist() == [k / len(everything) for k in exact]
    assert len(set(exact)) > 5


@pytest.mark.slow
@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
@pytest.mark.parametrize("n_topics", [7, 8])
def test_bootstrap_monte_carlo_is_within_binomial_tolerance_of_exact(trec8, measure, n_topics):
    scores, _ = trec8[measure]
    topics = topic_subset(n_topics, 20 + n_topics)
    sub, exact_scores = scores[:, topics], integer_scores(scores[:, topics], measure)
    permutations = 4000
    result = paired_bootstrap(sub, permutations, seed=n_topics)
    counts, weights = compositions(n_topics)
    a, b = run_pairs(len(sub))
    for i in range(0, len(a), 5):  # every 5th pair: exact integer enumeration is slow in Python
        exact = exact_bootstrap_count(exact_scores[a[i]] - exact_scores[b[i]], counts, weights) / n_topics**n_topics
        assert abs(result.p_value[i] - exact) <= 5 * math.sqrt(exact * (1 - exact) / permutations) + TOL


# ------------------------------------------------------------- degenerate pairs


def test_degenerate_pairs_get_numbers_not_nan():
    """Rows: x, x again (all-zero differences), x + 1/4 (a constant shift, exact in
    binary), and a noisy row. Documented values: no evidence for the identical pair,
    certainty for the shifted one where the statistic is studentised."""
    n = 16
    x = np.arange(n) / 32.0
    scores = np.vstack([x, x, x + 0.25, x[::-1]])
    signs = all_sign_vectors(n)
    by_method = {m: run_test(m, scores, 500, 0) for m in METHODS}
    by_method["randomisation"] = randomisation(scores, signs=signs)
    identical, shifted = 0, 1  # pairs (0, 1) and (0, 2) in run_pairs order
    for method, result in by_method.items():
        assert np.isfinite(result.p_value).all() and not np.isnan(result.statistic).any(), method
        assert result.p_value[identical] == 1, method
    assert by_method["paired_t"].statistic[identical] == 0 and by_method["wilcoxon"].statistic[identical] == 0
    assert by_method["sign"].statistic[identical] == 0.5 and by_method["paired_bootstrap"].statistic[identical] == 0
    # x - (x + 1/4) = -1/4 on every topic
    assert by_method["paired_t"].statistic[shifted] == -np.inf and by_method["paired_t"].p_value[shifted] == 0
    assert by_method["paired_bootstrap"].statistic[shifted] == -np.inf
    # no resample reaches t = -inf (b = 0): the smallest p of 500 draws, 0 in the count form
    assert by_method["paired_bootstrap"].p_value[shifted] == 1 / 501
    assert run_test("paired_bootstrap_count", scores, 500, 0).p_value[shifted] == 0
    # only all-plus and all-minus reach 4: b = 2 of 2^n
    assert by_method["randomisation"].p_value[shifted] == 3 / (2**n + 1)
    assert randomisation_count(scores, signs=signs).p_value[shifted] == 2 / 2**n
    assert by_method["sign"].p_value[shifted] == stats.binomtest(0, n).pvalue
    assert by_method["wilcoxon"].p_value[shifted] == stats.wilcoxon(x, x + 0.25).pvalue
    summary = pair_summary(scores)
    assert summary.effect_size_dz[identical] == 0 and summary.effect_size_dz[shifted] == -np.inf
    assert summary.ci_low[shifted] == summary.ci_high[shifted] == -0.25


# ------------------------------------------------------------------- the table


def test_table_columns_order_and_orientation():
    rng = np.random.default_rng(7)
    names = ["b", "B", "a", "é", "Z", "a1"]
    scores = rng.beta(2, 5, (6, 25))
    table = pairwise_tests(scores, names, permutations=100, seed=2)
    assert tuple(table.columns) == TABLE_COLUMNS
    assert table["method"].unique().tolist() == list(METHODS)
    assert len(table) == len(METHODS) * 15
    assert all(a.encode() < b.encode() for a, b in zip(table["run_a"], table["run_b"]))
    assert table.groupby("method").apply(lambda g: len(set(zip(g.run_a, g.run_b))), include_groups=False).eq(15).all()
    row = {name: scores[i] for i, name in enumerate(names)}
    ttest = table[table["method"] == "paired_t"]
    for _, r in ttest.iterrows():
        d = row[r.run_a] - row[r.run_b]
        ref = stats.ttest_rel(row[r.run_a], row[r.run_b])
        assert r.mean_difference == pytest.approx(d.mean(), rel=TOL, abs=1e-15)
        assert r.p_value == pytest.approx(ref.pvalue, rel=TOL) and r.statistic == pytest.approx(ref.statistic, rel=TOL)
        interval = ref.confidence_interval(0.95)
        assert (r.ci_low, r.ci_high) == pytest.approx((interval.low, interval.high), rel=TOL, abs=1e-15)
        assert r.effect_size_dz == pytest.approx(d.mean() / d.std(ddof=1), rel=TOL)
        assert r.effect_size_e == pytest.approx(d.mean() / math.sqrt(residual_variance(scores)), rel=TOL)
    for _, family in table.groupby("method"):
        np.testing.assert_allclose(family["p_adjusted_holm"], multipletests(family["p_value"], method="holm")[1],
                                   rtol=TOL, atol=0)
    assert not table.drop(columns=["method", "run_a", "run_b"]).isna().any().any()


def frame_bytes(table: pd.DataFrame) -> list[bytes]:
    return [table[c].to_numpy().tobytes() if pd.api.types.is_numeric_dtype(table[c]) else
            "\0".join(table[c]).encode() for c in table.columns]


def test_same_seed_gives_identical_bytes_whatever_the_block_size(trec8):
    scores, runs = trec8["P@100"]
    first = pairwise_tests(scores, runs, permutations=300, seed=5)
    again = pairwise_tests(scores, runs, permutations=300, seed=5)
    small_blocks = pairwise_tests(scores, runs, permutations=300, seed=5, budget=3000)  # a few pairs a block
    assert frame_bytes(first) == frame_bytes(again) == frame_bytes(small_blocks)
    other = pairwise_tests(scores, runs, permutations=300, seed=6)
    for method in METHODS:
        changed = not np.array_equal(first.loc[first.method == method, "p_value"],
                                     other.loc[other.method == method, "p_value"])
        assert changed == (method in ("randomisation", "paired_bootstrap")), method


def test_draws_are_the_seeded_generators():
    signs, resamples = random_signs(50, 9, 4), bootstrap_resamples(50, 9, 4)
    assert set(np.unique(signs)) == {-1.0, 1.0} and resamples.min() >= 0 and resamples.max() < 9
    assert np.array_equal(signs, random_signs(50, 9, 4)) and not np.array_equal(signs, random_signs(50, 9, 5))
    scores = np.random.default_rng(1).uniform(size=(5, 9))
    assert randomisation(scores, 50, 4).p_value.tolist() == randomisation(scores, signs=signs).p_value.tolist()
    resampled = paired_bootstrap(scores, resamples=resamples)
    assert paired_bootstrap(scores, 50, 4).p_value.tolist() == resampled.p_value.tolist()


def test_pair_blocks_cover_every_pair_once_in_order():
    for budget in (1, 100, 10**9):
        seen = [(w, a, b) for w, a, b in pair_blocks(9, 40, budget)]
        a = np.concatenate([x[1] for x in seen])
        b = np.concatenate([x[2] for x in seen])
        assert np.array_equal(a, run_pairs(9)[0]) and np.array_equal(b, run_pairs(9)[1])
        assert [w.start for w, _, _ in seen] == sorted(w.start for w, _, _ in seen)
    assert len(list(pair_blocks(9, 40, 80))) == 18  # two pairs a block


# ------------------------------------------------------------ naming and counts


def test_parse_test_name():
    def parsed(name):
        test, correction = parse_test_name(name)
        return test.name, correction

    assert parsed("paired_t") == ("paired_t", None)
    assert parsed("wilcoxon+holm") == ("wilcoxon", "holm")
    assert parsed("paired_bootstrap+bh") == ("paired_bootstrap", "bh")
    for bad in ("paired_t+", "ttest", "paired_t+sidak", "paired_t+holm+bh", "+holm", ""):
        with pytest.raises(ValueError):
            parse_test_name(bad)


def test_count_significant_pairs_counts_the_named_column(trec8):
    scores, runs = trec8["AP@100"]
    table = pairwise_tests(scores, runs, methods=["paired_t", "sign"], permutations=10)
    names = ["paired_t", "paired_t+holm", "paired_t+bh", "paired_t+bonferroni", "sign+bh"]
    counts = count_significant_pairs(table, names, levels=(0.05, 0.01))
    assert counts.columns.tolist() == ["test", "level", "significant", "pairs"]
    t = table[table.method == "paired_t"]
    expected = {"paired_t": t.p_value, "paired_t+holm": t.p_adjusted_holm, "paired_t+bh": t.p_adjusted_bh,
                "paired_t+bonferroni": t.p_adjusted_bonferroni,
                "sign+bh": table[table.method == "sign"].p_adjusted_bh}
    for row in counts.itertuples():
        assert row.significant == int((expected[row.test] < row.level).sum()) and row.pairs == 231
    got = counts.set_index(["test", "level"])["significant"]
    assert got["paired_t", 0.05] >= got["paired_t+bh", 0.05] >= got["paired_t+holm", 0.05] \
        >= got["paired_t+bonferroni", 0.05] > 0
    with pytest.raises(ValueError):
        count_significant_pairs(table, ["paired_t+fdr"])


# ------------------------------------------------------------------ validation


def test_invalid_inputs_raise():
    scores = np.random.default_rng(0).uniform(size=(4, 6))
    with pytest.raises(ValueError):
        pairwise_tests(scores, ["a", "b", "c"])
    with pytest.raises(ValueError):
        pairwise_tests(scores, ["a", "b", "c", "a"])
    with pytest.raises(ValueError):
        pairwise_tests(scores, list("abcd"), methods=["t_test"])
    with pytest.raises(ValueError):
        paired_t(scores[:, :1])
    with pytest.raises(ValueError):
        randomisation(scores, signs=np.ones((10, 5)))
    with pytest.raises(ValueError):
        paired_bootstrap(scores, resamples=np.full((10, 6), 6))
    with pytest.raises(ValueError):
        run_test("randomisation", scores, permutations=0)
    with pytest.raises(ValueError):
        adjusted_pvalue_columns(np.array([0.5, np.nan]))


@pytest.mark.parametrize("df", [-1, 0, 1, 2, 9, 49, 1000])
def test_t_quantile_is_scipy_stats_t_ppf_bit_for_bit(df):
    # the interval's quantile skips scipy.stats' import; it must not move any interval
    q = [0.0, 1e-300, 0.025, 0.5, 0.975, 0.995, 1 - 2**-53, 0.5 + (1 - 1e-16) / 2, 1.0, -0.5, 1.5, math.nan]
    q += list(np.random.default_rng(df + 2).uniform(0, 1, 200))
    for value in q:
        expected, got = float(stats.t.ppf(value, df)), t_quantile(value, df)
        assert (math.isnan(expected) and math.isnan(got)) or (got == expected and type(got) is float), (value, df)
