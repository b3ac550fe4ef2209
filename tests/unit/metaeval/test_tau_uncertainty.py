"""Issue 21, "uncertainty of the correlation": tau's bootstrap interval over topics and
rank-biased overlap in the Kendall tau table (docs/PROTOCOL.md, Rank agreement).

Expected values come from the definitions applied literally (RBO's prefixes listed and
intersected, eq. 30 of Webber, Moffat and Zobel 2010; one bootstrap sample at a time
with scipy's kendalltau), from hand computation worked in the comments, and from the
settings' meaning (a measure against itself, a seed, a chunk size).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import irmeta
from irmeta.measures.averaging import Scores, block_means, score_arrays
from irmeta.metaeval import kendall_tau as kt
from irmeta.metaeval.kendall_tau import kendall_tau_table
from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.metaeval.stats import rbo, tied_ranking
from irmeta.metaeval.stats import tau_ap_b as stats_tau_ap_b
from irmeta.metaeval.stats.correlation import (
    batch_kendall_tau_b,
    batch_kendall_tau_b_against,
    pair_order,
    percentile_interval,
    rank_biased_overlap,
    rbo_ext,
)
from irmeta.pipeline.config_checks import validate_config
from irmeta.pipeline.config_schema import ConfigError

TOL = 1e-12
P100 = [{"measure": "P_rareness@100", "baseline": "P@100"}]


# ------------------------------------------------------------------------------ RBO


def rbo_literal(a: list, b: list, p: float) -> float:
    """Eq. 30, prefix by prefix: X_d = |a[:d] & b[:d]|."""
    k = len(a)
    overlap = [len(set(a[:d]) & set(b[:d])) for d in range(1, k + 1)]
    return overlap[-1] / k * p**k + (1 - p) / p * sum(x / d * p**d for d, x in enumerate(overlap, start=1))


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_rbo_ext_equals_the_formula_prefix_by_prefix(p):
    rng = np.random.default_rng(21)
    for k in [1, 2, 3, 7, 30, 129]:
        for _ in range(20):
            a = rng.permutation(k).tolist()
            b = rng.permutation(k).tolist()
            assert rbo_ext(a, b, p) == pytest.approx(rbo_literal(a, b, p), abs=TOL)
            assert rbo_ext(a, b, p) == rbo_ext(b, a, p)  # symmetric, bit for bit
    # lists of the same length over different items (eq. 30 is not limited to one set)
    a, b = list("abcdef"), list("xbyaez")
    assert rbo_ext(a, b, p) == pytest.approx(rbo_literal(a, b, p), abs=TOL)


def test_rbo_ext_by_hand():
    # 12345 vs 23415, p = 0.9: X_d = 0, 1, 2, 4, 5; A_d = 0, 1/2, 2/3, 1, 1;
    # sum A_d p^d = 0.405 + 0.486 + 0.6561 + 0.59049 = 2.13759; / 9 = 0.23751;
    # + A_5 p^5 = 0.59049: 0.828.
    assert rbo_ext([1, 2, 3, 4, 5], [2, 3, 4, 1, 5], 0.9) == pytest.approx(0.828, abs=TOL)
    # abc vs cba, p = 0.5: A_d = 0, 1/2, 1; 1 * 0.125 + (0 + 0.5 * 0.25 + 0.125) = 0.375.
    assert rbo_ext(list("abc"), list("cba"), 0.5) == pytest.approx(0.375, abs=TOL)


def test_rbo_of_identical_rankings_is_exactly_one():
    for k in [1, 2, 50, 129]:
        for p in [0.1, 0.9, 0.999]:
            assert rbo_ext(list(range(k)), list(range(k)), p) == 1.0
    assert rank_biased_overlap(np.array([0.3, 0.1, 0.3, 0.2]), np.array([0.3, 0.1, 0.3, 0.2])) == 1.0
    # a swap at the top costs more than at the bottom, a reversal more than either
    top, bottom = rbo_ext([1, 0, 2, 3, 4], list(range(5))), rbo_ext([0, 1, 2, 4, 3], list(range(5)))
    assert rbo_ext(list(range(5))[::-1], list(range(5))) < top < bottom < 1.0


def test_rbo_ties_are_broken_by_name_in_both_rankings():
    x, y = np.array([0.5, 0.5, 0.1]), np.array([0.6, 0.5, 0.1])
    # names r1, r2: x's tie ordered r1 first, as y orders them: the rankings agree
    assert rank_biased_overlap(x, y, names=["r1", "r2", "r3"]) == 1.0
    # the tied items named the other way round: x ranks r1 (the second item) first, y r2
    got = rank_biased_overlap(x, y, 0.8, names=["r2", "r1", "r3"])
    assert got == pytest.approx(rbo_literal(["r1", "r2", "r3"], ["r2", "r1", "r3"], 0.8), abs=TOL) and got < 1
    # lower is better: the same rankings, reversed scores
    assert rank_biased_overlap(-x, -y, 0.8, higher_is_better=False, names=["r2", "r1", "r3"]) == got
    # the order items are listed in does not matter, only their names
    perm = [2, 0, 1]
    assert rank_biased_overlap(x[perm], y[perm], 0.8, names=[["r2", "r1", "r3"][i] for i in perm]) == got


def test_rbo_ext_of_uneven_rankings_extrapolates_the_shorter():
    # Webber et al.'s eq. 32 (s = 2, l = 3): 12 vs 213, p = 0.5. X_1 = 0, X_2 = 2, X_3 = 2
    # (the shorter's items in the longer's top 3); A_1 = 0, A_2 = 1, A_3 = (2 + 1 * 2/2)/3 = 1;
    # (1 - p)/p sum A_d p^d = 0.25 + 0.125 = 0.375, + [(X_3 - X_2)/3 + X_2/2] p^3 = 0.125: 0.5.
    assert rbo_ext([1, 2], [2, 1, 3], 0.5) == pytest.approx(0.5, abs=TOL)
    assert rbo_ext([2, 1, 3], [1, 2], 0.5) == rbo_ext([1, 2], [2, 1, 3], 0.5)
    assert math.isnan(rbo_ext([], [1], 0.5))


def test_rbo_refuses_what_it_cannot_compare():
    with pytest.raises(ValueError, match=r"in \(0, 1\)"):
        rbo_ext([1, 2], [2, 1], 1.0)
    with pytest.raises(ValueError, match="repeated"):
        rbo_ext([1, 1], [2, 1])
    assert math.isnan(rank_biased_overlap(np.array([1.0, np.nan]), np.array([1.0, 2.0])))


# ---------------------------------------------------------------- vectorised tau, interval


def test_tau_b_against_a_pair_order_is_batch_tau_b_bit_for_bit():
    rng = np.random.default_rng(4)
    x = np.round(rng.random((40, 31)), 1)  # many ties in both
    y = np.round(x + rng.random((40, 31)), 1)
    y[0] = 0.5  # constant reference: undefined
    got = batch_kendall_tau_b_against(x, pair_order(y))
    assert np.array_equal(got, batch_kendall_tau_b(x, y), equal_nan=True) and np.isnan(got[0])
    for row in range(1, 40):
        assert got[row] == pytest.approx(stats.kendalltau(x[row], y[row]).statistic, abs=TOL)


def test_percentile_interval_is_numpys_linear_quantile():
    assert percentile_interval(np.arange(101.0)) == pytest.approx((2.5, 97.5), abs=TOL)
    samples = np.random.default_rng(2).random(1000)
    assert percentile_interval(samples) == tuple(np.percentile(samples, [2.5, 97.5]))
    # 0..9: position 0.025 * 9 = 0.225 and 0.975 * 9 = 8.775, interpolated
    assert percentile_interval(np.arange(10.0)) == pytest.approx((0.225, 8.775), abs=TOL)
    assert percentile_interval(np.array([np.nan, *samples])) == percentile_interval(samples)  # undefined left out
    assert all(math.isnan(b) for b in percentile_interval(np.full(5, np.nan)))


def test_bootstrap_draws_are_each_samples_own_stream():
    draws = kt.bootstrap_draws(50, 10, 99)
    assert draws.shape == (10, 50) and draws.min() >= 0 and draws.max() < 50
    for b in range(10):
        assert np.array_equal(draws[b], np.random.default_rng([99, b]).integers(0, 50, 50))
    assert np.array_equal(kt.bootstrap_draws(50, range(3, 7), 99), draws[3:7])
    assert len(np.unique(draws, axis=0)) == 10  # with replacement, different per sample
    assert any(len(set(row)) < 50 for row in draws)


def test_resampled_means_count_repeats_and_keep_ties():
    rng = np.random.default_rng(5)
    values = rng.random((4, 6))
    values[1] = values[0][[5, 4, 3, 2, 1, 0]]  # run 1: run 0's scores on other topics
    draws = np.array([[0, 0, 1, 2, 3, 4], [5, 5, 5, 5, 0, 5], [0, 1, 2, 3, 4, 5]])
    matrix = ScoreMatrix("AP@100", None, list("abcd"), list("123456"), values)
    got = kt.resampled_means(matrix, draws)
    assert got.shape == (3, 4)
    for b, row in enumerate(draws):
        assert got[b] == pytest.approx(values[:, row].mean(axis=1), abs=TOL)
    assert got[2, 0] == got[2, 1]  # the same multiset on every topic: the same bits
    assert np.array_equal(got[2], block_means(values[None], ["AP@100"], [None], 4)[0])  # as the pipeline's means
    lower = ScoreMatrix("ASL", None, list("abcd"), list("123456"), values, higher_is_better=False)
    assert np.array_equal(kt.resampled_means(lower, draws), -got)


# ------------------------------------------------------------------------- on TREC-8


@pytest.fixture(scope="module")
def trec8(trec8_matrix) -> Scores:
    return score_arrays(trec8_matrix, ["P@100", "P_rareness@100"], alphas=[0.0, 0.5, 1.0], averaging=("all",))


def brute_force_interval(scores: Scores, measure: str, alpha: str | None, baseline: str, samples: int,
                         seed: int) -> tuple[float, float]:
    """One sample at a time: its topics (over the topics sorted by id), every run's mean
    by the pipeline's definition, scipy's tau-b, then numpy's percentiles."""
    order = np.argsort(scores.topics, kind="stable")
    m = scores.per_topic[scores.block(measure, alpha)][:, order]
    base = scores.per_topic[scores.block(baseline)][:, order]
    n_runs, n_topics = m.shape
    taus = []
    for b in range(samples):
        topics = np.random.default_rng([seed + kt.SEED_OFFSET, b]).integers(0, n_topics, n_topics)
        x = block_means(m[None][:, :, topics], [measure], [alpha], n_runs)[0]
        y = block_means(base[None][:, :, topics], [baseline], [None], n_runs)[0]
        taus.append(stats.kendalltau(x, y).statistic)
    low, high = np.percentile(taus, [2.5, 97.5])
    return float(low), float(high)


def test_the_identity_sample_gives_the_pipelines_means_bit_for_bit(trec8):
    matrices = kt._per_topic(trec8, P100, list(trec8.runs))  # topics sorted by id: not the scores' order
    assert matrices[("P@100", "")].topics == sorted(trec8.topics)
    every_topic_once = np.arange(len(trec8.topics))[None]
    for (measure, alpha), matrix in matrices.items():
        got = kt.resampled_means(matrix, every_topic_once)[0]
        assert np.array_equal(got, trec8.means["all_topics"][trec8.block(measure, alpha or None)]), (measure, alpha)


def test_interval_equals_one_sample_at_a_time_and_contains_tau(trec8):
    table = kendall_tau_table(trec8, P100, bootstrap_samples=60, seed=7).set_index("alpha")
    for alpha in ["0.5", "1"]:
        row = table.loc[alpha]
        want = brute_force_interval(trec8, "P_rareness@100", alpha, "P@100", 60, 7)
        assert (row["tau_ci_low"], row["tau_ci_high"]) == pytest.approx(want, abs=1e-12)
        assert -1 <= row["tau_ci_low"] < row["tau"] < row["tau_ci_high"] <= 1
    # alpha 0 ranks as P@100 on every topic set: tau is 1 on every sample
    assert (table.loc["0", "tau_ci_low"], table.loc["0", "tau_ci_high"]) == (1.0, 1.0)


def test_default_interval_on_trec8(trec8):
    table = kendall_tau_table(trec8, P100)  # 1000 samples, the pipeline's default seed
    assert table.columns.tolist() == ["measure", "baseline", "alpha", "tau", "tau_ap", "tau_ci_low", "tau_ci_high",
                                      "rbo", "n_runs", "averaging"]
    inside = (table["tau_ci_low"] <= table["tau"]) & (table["tau"] <= table["tau_ci_high"])
    width = table["tau_ci_high"] - table["tau_ci_low"]
    assert inside.all() and (width[table["alpha"] != "0"] > 0.01).all() and (width[table["alpha"] == "0"] == 0).all()
    # rbo from the means, ties by run name (18 exact P@100 ties on TREC-8)
    means = trec8.mean_frame()
    for row in table.itertuples():
        x, y = means[(row.measure, row.alpha)].to_numpy(), means[("P@100", "")].to_numpy()
        assert row.rbo == rank_biased_overlap(x, y, 0.9, names=trec8.runs)
        assert row.rbo == 1.0 if row.alpha == "0" else 0.5 < row.rbo < 1.0


def test_same_seed_same_table_other_seed_other_interval(trec8):
    kw = dict(bootstrap_samples=100)
    first, again = kendall_tau_table(trec8, P100, seed=3, **kw), kendall_tau_table(trec8, P100, seed=3, **kw)
    pd.testing.assert_frame_equal(first, again)
    other = kendall_tau_table(trec8, P100, seed=4, **kw)
    interval = ["tau_ci_low", "tau_ci_high"]
    pd.testing.assert_frame_equal(first.drop(columns=interval), other.drop(columns=interval))
    assert not first[interval].iloc[1:].equals(other[interval].iloc[1:])


def test_chunks_give_the_interval_of_one_go(trec8, monkeypatch):
    matrices = kt._per_topic(trec8, P100, list(trec8.runs))
    whole = kt.tau_intervals(matrices, P100, 50, 11, chunk=50)
    assert kt.tau_intervals(matrices, P100, 50, 11, chunk=7) == whole
    monkeypatch.setattr(kt, "CHUNK_BYTES", 1)  # one sample a chunk by default
    assert kt.tau_intervals(matrices, P100, 50, 11) == whole


def test_samples_are_paired_and_shared_across_comparisons(trec8):
    # against itself, paired samples give tau 1 on every sample
    self_row = kendall_tau_table(trec8, [{"measure": "P@100", "baseline": "P@100"}], bootstrap_samples=40)
    assert (self_row["tau_ci_low"].item(), self_row["tau_ci_high"].item()) == (1.0, 1.0)
    # a comparison's interval does not depend on the others computed with it
    both = [{"measure": "P@100", "baseline": "P@100"}, *P100]
    together = kendall_tau_table(trec8, both, bootstrap_samples=40)
    alone = kendall_tau_table(trec8, P100, bootstrap_samples=40)
    pd.testing.assert_frame_equal(together[together["measure"] == "P_rareness@100"].reset_index(drop=True), alone)


def test_the_interval_depends_on_the_runs_and_topics_not_their_order(trec8):
    rng = np.random.default_rng(8)
    runs, topics = rng.permutation(len(trec8.runs)), rng.permutation(len(trec8.topics))
    shuffled = Scores(runs=[trec8.runs[i] for i in runs], topics=[trec8.topics[t] for t in topics],
                      measures=trec8.measures, alphas=trec8.alphas, per_topic=trec8.per_topic[:, runs][:, :, topics],
                      means={k: v[:, runs] for k, v in trec8.means.items()})
    pd.testing.assert_frame_equal(kendall_tau_table(shuffled, P100, bootstrap_samples=40),
                                  kendall_tau_table(trec8, P100, bootstrap_samples=40))


def test_no_samples_or_no_per_topic_scores_leave_the_interval_empty(trec8, trec8_matrix):
    none = kendall_tau_table(trec8, P100, bootstrap_samples=0)
    assert none[["tau_ci_low", "tau_ci_high"]].isna().all().all()
    means_only = score_arrays(trec8_matrix, ["P@100", "P_rareness@100"], alphas=[0.0, 0.5, 1.0],
                              averaging=("all",)).to_frame(per_topic=False)
    table = kendall_tau_table(means_only, P100)
    assert table[["tau_ci_low", "tau_ci_high"]].isna().all().all()
    pd.testing.assert_frame_equal(table, none)  # the same taus and rbo


@pytest.mark.parametrize("given, message", [
    (dict(bootstrap_samples=-1), "bootstrap_samples"), (dict(bootstrap_samples=True), "bootstrap_samples"),
    (dict(bootstrap_samples=10.0), "bootstrap_samples"), (dict(rbo_p=1.0), "rbo_p"), (dict(rbo_p=0), "rbo_p"),
    (dict(seed=-1), "seed"), (dict(averaging="returned_topics"), "bootstrap_samples=0"),
])
def test_bad_settings_are_refused(trec8, given, message):
    with pytest.raises(ValueError, match=message):
        kendall_tau_table(trec8, P100, **given)


def test_the_api_passes_the_settings_through(trec8):
    pairs = [("P_rareness@100", "P@100")]
    default = irmeta.kendall_tau_table(trec8, pairs, bootstrap_samples=50)
    pd.testing.assert_frame_equal(default, kendall_tau_table(trec8, P100, bootstrap_samples=50, seed=20230402))
    assert irmeta.kendall_tau_table(trec8, pairs, bootstrap_samples=0)["tau_ci_low"].isna().all()
    other = irmeta.kendall_tau_table(trec8, pairs, bootstrap_samples=50, seed=1, rbo_p=0.5)
    assert not other["tau_ci_low"].iloc[1:].equals(default["tau_ci_low"].iloc[1:])
    assert (other["rbo"].iloc[1:] != default["rbo"].iloc[1:]).all()


# --------------------------------------------------------------------------- config


def test_config_defaults_and_ranges():
    section = validate_config({})["experiments"]["kendall_tau"]
    assert section["bootstrap_samples"] == 1000 and section["rbo_p"] == 0.9
    assert validate_config({"experiments": {"kendall_tau": {"bootstrap_samples": 0}}}
                           )["experiments"]["kendall_tau"]["bootstrap_samples"] == 0
    for bad in ({"bootstrap_samples": -1}, {"bootstrap_samples": 1.5}, {"rbo_p": 1}, {"rbo_p": 0}):
        with pytest.raises(ConfigError, match="|".join(bad)):
            validate_config({"experiments": {"kendall_tau": bad}})


def test_a_measure_equal_to_its_baseline_has_tau_one_without_resampling_it():
    """alpha 0: the shortcut gives what resampling both would (1, or NaN when all runs tie)."""
    rng = np.random.default_rng(3)
    values = rng.random((6, 9)).round(1)
    base = ScoreMatrix("P@10", None, list("abcdef"), [str(j) for j in range(9)], values)
    same = ScoreMatrix("P_rareness@10", "0", base.runs, base.topics, values.copy())
    tied = ScoreMatrix("AP@10", None, base.runs, base.topics, np.zeros((6, 9)))
    tied_too = ScoreMatrix("AP_rareness@10", "0", base.runs, base.topics, np.zeros((6, 9)))
    matrices = {m.key: m for m in (base, same, tied, tied_too)}
    draws = kt.bootstrap_draws(9, 40, 5)
    got = kt.bootstrap_taus(matrices, [(same.key, base.key), (tied_too.key, tied.key)], draws)
    x = kt.resampled_means(same, draws)
    want = batch_kendall_tau_b(x, kt.resampled_means(base, draws))
    np.testing.assert_array_equal(got[0], want)
    assert np.isnan(got[1]).all()


def test_ties_add_the_tie_aware_variants_beside_todays_columns(trec8):
    # issue 42: P@100's means tie 18 times on TREC-8; ties names the tie-aware variants,
    # each its own column after today's, which do not change
    today = kendall_tau_table(trec8, P100, bootstrap_samples=0)
    table = kendall_tau_table(trec8, P100, bootstrap_samples=0, ties=["w", "a", "b"])
    assert table.columns.tolist() == [*today.columns, "tau_a", "tau_ap_a", "rbo_a", "tau_ap_b", "rbo_b", "rbo_w"]
    pd.testing.assert_frame_equal(table[today.columns], today)
    means = trec8.mean_frame()
    baseline = means[("P@100", "")].to_numpy()
    assert len(np.unique(baseline)) < len(baseline)
    for row in table.itertuples():
        x = means[(row.measure, row.alpha)].to_numpy()
        assert np.isnan(row.tau_a) and np.isnan(row.tau_ap_a)  # the baseline ties: it is no true ranking
        assert row.tau_ap_b == stats_tau_ap_b(baseline, x) == row.tau_ap_b
        for variant in "wab":
            want = rbo(tied_ranking(baseline, trec8.runs), tied_ranking(x, trec8.runs), 0.9, variant)["ext"]
            assert getattr(row, f"rbo_{variant}") == want
        if row.alpha == "0":  # the same means: tied identically
            assert row.rbo_w == row.rbo_b == row.tau_ap_b == 1.0 and row.rbo_a < 1.0
    with pytest.raises(ValueError, match=r"kendall_tau ties must be some of a, b, w \(each once\), not \['c'\]"):
        kendall_tau_table(trec8, P100, bootstrap_samples=0, ties=["c"])
    assert validate_config({})["experiments"]["kendall_tau"]["ties"] == []
    assert validate_config({"experiments": {"kendall_tau": {"ties": ["a", "w"]}}})["experiments"]["kendall_tau"][
        "ties"] == ["a", "w"]
    for bad in (["c"], ["a", "a"], "a"):
        with pytest.raises(ConfigError, match="ties"):
            validate_config({"experiments": {"kendall_tau": {"ties": bad}}})
