"""Protocol choices of the experiments, each named in config (docs/PROTOCOL.md):

- ``rarity_depth`` for system subsampling and the synthetic systems (S_d counted at the
  rarity depth, as scoring counts it; null: the cutoff k, as before the setting);
- ``experiments.discriminative_power.randomised_p``: the randomised Tukey HSD's p-value,
  count / B (default) or (count + 1) / (B + 1);
- ``experiments.kendall_tau.tau_ap``: tau_AP with the baseline as the reference (default)
  and/or the symmetric form.

Each default gives the table it gave before the setting existed (same columns, same
values); each other value is checked against a direct computation: rarity recounted over
the sampled runs at the depth and the runs rescored by
:func:`irmeta.measures.averaging.evaluate`, a hypothetical run appended to the campaign's
files, p-values counted trial by trial, tau_AP computed both ways round.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from campaigns import write_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.rarity import document_rarity
from irmeta.measures.averaging import evaluate, exact_mean, score_table
from irmeta.measures.names import parse_measure
from irmeta.metaeval.discriminative_power import discriminative_power_table, randomised_null_shard
from irmeta.metaeval.kendall_tau import kendall_tau_table
from irmeta.metaeval.score_matrices import ScoreMatrix, mean_table
from irmeta.metaeval.stats.correlation import tau_ap, tau_ap_symmetric
from irmeta.metaeval.stats.tukey_hsd import randomised_tukey_hsd_null, randomised_tukey_hsd_pvalues
from irmeta.metaeval.synthetic_rare_common import synthetic_rare_common, synthetic_rare_common_table
from irmeta.metaeval.system_subsampling import (
    co_retrieval,
    subsampling_shard,
    subsampling_table,
    system_subsampling_taus,
)

TOL = 1e-12


def campaign_matrix(root, runs, qrels):
    r, q = write_campaign(root, runs, qrels, pad_topic="PAD")
    return relevance_matrix(r, q)


# ------------------------------------------------- 1. system subsampling at the rarity depth


@pytest.fixture(scope="module")
def trec8_subset(trec8_matrix):
    """17 TREC-8 runs (every eighth), read to depth 1000."""
    return trec8_matrix.subset(np.arange(0, len(trec8_matrix.runs), 8))


def rescored_means(matrix, measure, sample, alphas, depth):
    """(alphas, N): rarity recounted over the sampled runs at ``depth``, the sampled runs
    rescored by evaluate, the mean over every qrels topic."""
    rarity = document_rarity(matrix, depth=depth, runs=sample)
    per_topic = evaluate(matrix.subset(sample), [measure], alphas=alphas, rarity_counts=rarity)[parse_measure(measure)]
    return per_topic.mean(axis=-1)


@pytest.mark.parametrize("measure", ["P_rareness@100", "AP_rareness@100"])
def test_subsampling_at_rarity_depth_equals_rescoring(trec8_subset, measure):
    matrix, n_runs = trec8_subset, len(trec8_subset.runs)
    cr = co_retrieval(matrix, measure, rarity_depth=1000)
    # all runs: the scores irmeta scores with rarity_depth 1000
    scored = evaluate(matrix, [measure], alphas=[1.0, 0.5], rarity_depth=1000)[parse_measure(measure)]
    for a_index, alpha in enumerate([1.0, 0.5]):
        np.testing.assert_allclose(cr.means(np.arange(n_runs)[None, :], alpha)[0], scored[a_index].mean(axis=-1),
                                   rtol=0, atol=TOL)
    rng = np.random.default_rng(3)
    for n in (2, 3, 6, 11):
        sample = rng.choice(n_runs, n, replace=False)
        expected = rescored_means(matrix, measure, sample, [1.0, 0.5], 1000)
        for a_index, alpha in enumerate([1.0, 0.5]):
            np.testing.assert_allclose(cr.means(sample[None, :], alpha)[0], expected[a_index], rtol=0, atol=TOL,
                                       err_msg=f"N={n} alpha {alpha}")


@pytest.mark.parametrize("measure", ["P_rareness@100", "AP_rareness@100"])
def test_subsampling_rarity_depth_null_is_the_cutoff_and_1000_differs(trec8_subset, measure):
    at_cutoff = co_retrieval(trec8_subset, measure)
    same = co_retrieval(trec8_subset, measure, rarity_depth=100)
    for field in ("base", "own", "pair"):
        np.testing.assert_array_equal(getattr(same, field), getattr(at_cutoff, field))
    deep = co_retrieval(trec8_subset, measure, rarity_depth=1000)
    np.testing.assert_array_equal(deep.own, at_cutoff.own)  # the scores' own weights: the top k
    assert (deep.pair >= at_cutoff.pair).all() and (deep.pair > at_cutoff.pair).any()
    # beyond the depth the runs were read to, S_d counts as at that depth
    np.testing.assert_array_equal(co_retrieval(trec8_subset, measure, rarity_depth=5000).pair, deep.pair)
    taus = [system_subsampling_taus(cr, 4, range(200), seed=7) for cr in (at_cutoff, deep)]
    assert not np.array_equal(taus[0], taus[1], equal_nan=True)
    with pytest.raises(ValueError, match="shallower than the scoring cutoff"):
        co_retrieval(trec8_subset, measure, rarity_depth=50)


def test_subsampling_records_a_set_rarity_depth(trec8_subset):
    measures, kw = ["P_rareness@100", "AP_rareness@100"], dict(sizes=[2, 4], trials=range(20), seed=3)
    default = subsampling_shard(trec8_subset, measures, **kw)
    assert list(default.columns) == ["measure", "alpha", "n_systems", "trial", "tau"]
    assert list(subsampling_table([default]).columns) == ["measure", "alpha", "n_systems", "trials",
                                                          "undefined_trials", "mean_tau", "sd_tau"]
    deep = subsampling_shard(trec8_subset, measures, rarity_depth=1000, **kw)
    assert list(deep.columns) == [*default.columns, "rarity_depth"] and (deep["rarity_depth"] == 1000).all()
    for measure in measures:
        for n in (2, 4):
            rows = deep[(deep["measure"] == measure) & (deep["n_systems"] == n)]
            expected = system_subsampling_taus(co_retrieval(trec8_subset, measure, 1000), n, range(20),
                                               seed=3 * 1000 + n)
            np.testing.assert_array_equal(rows["tau"].to_numpy(), expected)
    table = subsampling_table([deep.iloc[: len(deep) // 2], deep.iloc[len(deep) // 2:]])
    assert list(table.columns) == [*subsampling_table([default]).columns, "rarity_depth"]
    assert table["rarity_depth"].tolist() == [1000] * 4
    assert not table["mean_tau"].equals(subsampling_table([default])["mean_tau"])


# ------------------------------------------------- 2. synthetic systems at the rarity depth

# One topic, k = 3, rarity depth 6. Relevant a b c d u (u found by no run); x y z w not.
#   S_d at 3: a = 2 (A, C), b = 1 (B), c = 1 (C), d = u = 0
#   S_d at 6: a = 3 (A, B, C), b = 2 (A, B), c = 2 (A, C), d = 1 (E), u = 0
DEEP_RUNS = {
    "A": {"1": ["a", "x", "y", "b", "c"]},
    "B": {"1": ["b", "z", "w", "a"]},
    "C": {"1": ["c", "a", "x"]},
    "E": {"1": ["x", "y", "z", "d"]},
}
DEEP_QRELS = {"1": {d: 1 for d in "abcdu"} | {d: 0 for d in "xyzw"}}


def appended_rank(root, runs, qrels, name, docs, extra, *, k, depth, alphas):
    """Rank of run ``name`` (listing ``docs``, with ``extra`` qrels) among the real runs by
    P_rareness@k with S_d counted at ``depth``: the campaign written with it and scored."""
    all_runs = dict(runs) | {name: {"1": docs}}
    matrix = campaign_matrix(root / name, all_runs, {"1": qrels["1"] | extra})
    measure = f"P_rareness@{k}"
    scores = evaluate(matrix, [measure], alphas=alphas, rarity_depth=depth)[parse_measure(measure)]
    scores = scores[:, :, matrix.topics.index("1")]
    me = matrix.runs.index(name)
    ranks = []
    for row in scores:
        real, mine = np.delete(row, me), row[me]
        close = np.abs(real - mine) <= 1e-9
        ranks.append(1 + int(np.count_nonzero((real > mine) & ~close)) + int(np.count_nonzero(close)) / 2)
    return ranks


@pytest.mark.parametrize("depth", [None, 6])
def test_synthetic_at_rarity_depth_equals_appending_the_run(tmp_path, depth):
    matrix = campaign_matrix(tmp_path / "real", DEEP_RUNS, DEEP_QRELS)
    alphas = [0.0, 0.5, 1.0]
    table = synthetic_rare_common(matrix, "1", cutoff=3, alphas=alphas, max_relevant=3, rarity_depth=depth)
    most_common = ["a", "b", "c"]  # at either depth; b and c tie, so D = 2 is the implementation's choice
    for d in (1, 3):
        ranks = appended_rank(tmp_path, DEEP_RUNS, DEEP_QRELS, f"common{d}", most_common[:d], {}, k=3,
                              depth=depth, alphas=alphas)
        got = table[(table["system"] == "S_common") & (table["n_relevant"] == d)].sort_values("alpha")
        assert got["rank"].tolist() == ranks, (depth, d)
    for d in (1, 2, 3):
        new = [f"new{i}" for i in range(d)]
        ranks = appended_rank(tmp_path, DEEP_RUNS, DEEP_QRELS, f"rare{d}", new, dict.fromkeys(new, 1), k=3,
                              depth=depth, alphas=alphas)
        got = table[(table["system"] == "S_rare") & (table["n_relevant"] == d)].sort_values("alpha")
        assert got["rank"].tolist() == ranks, (depth, d)


def test_synthetic_rarity_depth_changes_ranks_and_is_recorded(tmp_path):
    matrix = campaign_matrix(tmp_path, DEEP_RUNS, DEEP_QRELS)
    settings = {"measure": "P_rareness@3", "alphas": [0.0, 1.0], "max_relevant": 3,
                "rare_systems": ["protocol", "paper_script"]}
    default = synthetic_rare_common_table(matrix, "1", settings)
    assert list(default.columns) == ["topic", "system", "alpha", "n_relevant", "n_relevant_retrieved", "rank",
                                     "rare_systems", "n_systems"]
    at_cutoff = synthetic_rare_common_table(matrix, "1", settings, rarity_depth=3)  # set: recorded
    assert (at_cutoff.pop("rarity_depth") == 3).all()
    pd.testing.assert_frame_equal(at_cutoff, default)
    deep = synthetic_rare_common_table(matrix, "1", settings, rarity_depth=6)
    assert list(deep.columns) == [*default.columns, "rarity_depth"] and (deep["rarity_depth"] == 6).all()
    assert not deep["rank"].equals(default["rank"])
    pd.testing.assert_frame_equal(deep.drop(columns="rarity_depth")[deep["alpha"] == 0.0],
                                  default[default["alpha"] == 0.0])  # alpha 0 is P@k: no rarity at all
    with pytest.raises(ValueError, match="shallower"):
        synthetic_rare_common_table(matrix, "1", settings, rarity_depth=2)


# ------------------------------------------------------ 3. randomised Tukey HSD's p-value


def scores_with_a_leader(seed=0, n_runs=6, n_topics=15):
    rng = np.random.default_rng(seed)
    values = rng.uniform(0, 1, n_topics)[None, :] + rng.normal(0, 0.05, (n_runs, n_topics))
    values[0] += 0.5  # a run far above the others: no permutation reaches its differences
    return ScoreMatrix(measure="P@10", alpha=None, runs=[f"r{i}" for i in range(n_runs)],
                       topics=[f"t{j}" for j in range(n_topics)], values=values)


def counted_by_hand(m, null):
    """Per pair (a < b): trials whose max difference reaches |mean_a - mean_b| (1e-12 below counts)."""
    means = exact_mean(m.values)
    out = []
    for a in range(len(means)):
        for b in range(a + 1, len(means)):
            observed = abs(means[a] - means[b])
            out.append(sum(1 for x in null if x >= observed - 1e-12))
    return np.array(out)


@pytest.mark.parametrize("trials", [19, 200])
def test_plus_one_pvalues_are_count_plus_one_over_b_plus_one(trials):
    m = scores_with_a_leader()
    null = randomised_tukey_hsd_null(m.values, range(trials), seed=5)
    count = counted_by_hand(m, null)
    assert (randomised_tukey_hsd_pvalues(m.values, null) == count / trials).all()
    assert (randomised_tukey_hsd_pvalues(m.values, null, plus_one=True) == (count + 1) / (trials + 1)).all()


def test_randomised_p_setting_in_the_table():
    m = scores_with_a_leader()
    null = randomised_null_shard([m], range(19), seed=5)
    levels = [0.05, 0.2]
    default = discriminative_power_table([m], levels=levels, null=null)
    assert list(default.columns) == ["measure", "alpha", "method", "level", "significant_pairs", "total_pairs",
                                     "permutations", "attainable"]
    pd.testing.assert_frame_equal(discriminative_power_table([m], levels=levels, null=null, randomised_p="count"),
                                  default)
    plus = discriminative_power_table([m], levels=levels, null=null, randomised_p="plus_one")
    assert list(plus.columns) == [*default.columns[:-1], "randomised_p", "attainable"]
    randomised = plus["method"] == "randomised_tukey_hsd"
    assert (plus.loc[randomised, "randomised_p"] == "plus_one").all()
    assert plus.loc[~randomised, "randomised_p"].isna().all()  # empty in the CSV
    pd.testing.assert_frame_equal(plus.loc[~randomised, default.columns], default.loc[~randomised])
    count = counted_by_hand(m, null["max_difference"].to_numpy())
    for level in levels:
        row = plus[randomised & (plus["level"] == level)]
        assert row["significant_pairs"].item() == int(np.sum((count + 1) / 20 < level))
    # B = 19: the leader's 5 pairs never reached give p = 0 (count) but 1/20 = 0.05 (plus one)
    at_05 = {name: t[(t["method"] == "randomised_tukey_hsd") & (t["level"] == 0.05)]["significant_pairs"].item()
             for name, t in (("count", default), ("plus_one", plus))}
    assert at_05["count"] >= 5 and at_05["plus_one"] == 0
    # and no pair could have been: 1/20 is not below 0.05, which the table says; b / B could
    assert plus.loc[randomised, "attainable"].tolist() == [False, True] and default["attainable"].all()
    with pytest.raises(ValueError, match="randomised_p"):
        discriminative_power_table([m], null=null, randomised_p="plus-one")


# ------------------------------------------------------------------ 4. symmetric tau_AP


@pytest.fixture(scope="module")
def subset_scores(trec8_subset):
    return score_table(trec8_subset, ["P@100", "AP@100", "P_rareness@100"], alphas=[0.0, 0.5, 1.0],
                       averaging=("all",), per_topic=False)


COMPARISONS = [{"measure": "P_rareness@100", "baseline": "P@100"}, {"measure": "AP@100", "baseline": "P@100"}]


def test_symmetric_tau_ap_column(subset_scores):
    default = kendall_tau_table(subset_scores, COMPARISONS)
    assert list(default.columns) == ["measure", "baseline", "alpha", "tau", "tau_ap", "tau_ci_low", "tau_ci_high",
                                     "rbo", "n_runs", "averaging"]
    pd.testing.assert_frame_equal(kendall_tau_table(subset_scores, COMPARISONS, tau_ap_forms=["reference"]), default)
    both = kendall_tau_table(subset_scores, COMPARISONS, tau_ap_forms=["symmetric", "reference"])
    assert list(both.columns) == ["measure", "baseline", "alpha", "tau", "tau_ap", "tau_ap_symmetric", "tau_ci_low",
                                  "tau_ci_high", "rbo", "n_runs", "averaging"]
    pd.testing.assert_frame_equal(both.drop(columns="tau_ap_symmetric"), default)
    means = mean_table(subset_scores)
    for row in both.itertuples():
        x, y = means[(row.measure, row.alpha)].to_numpy(), means[(row.baseline, "")].to_numpy()
        assert row.tau_ap_symmetric == tau_ap_symmetric(x, y)
        assert row.tau_ap_symmetric == pytest.approx((tau_ap(x, y) + tau_ap(y, x)) / 2, abs=TOL)
        assert -1.0 <= row.tau_ap_symmetric <= 1.0
    only = kendall_tau_table(subset_scores, COMPARISONS, tau_ap_forms=["symmetric"])
    assert "tau_ap" not in only.columns
    pd.testing.assert_series_equal(only["tau_ap_symmetric"], both["tau_ap_symmetric"])
    for wrong in ([], ["reverse"]):
        with pytest.raises(ValueError, match="tau_ap forms"):
            kendall_tau_table(subset_scores, COMPARISONS, tau_ap_forms=wrong)


def test_symmetric_tau_ap_does_not_depend_on_which_is_the_baseline(subset_scores):
    forms = ["reference", "symmetric"]
    one = kendall_tau_table(subset_scores, [{"measure": "AP@100", "baseline": "P@100"}], tau_ap_forms=forms)
    other = kendall_tau_table(subset_scores, [{"measure": "P@100", "baseline": "AP@100"}], tau_ap_forms=forms)
    assert one["tau_ap_symmetric"].item() == other["tau_ap_symmetric"].item()
    assert one["tau"].item() == other["tau"].item()
    assert one["tau_ap"].item() != other["tau_ap"].item()  # the reference form is not symmetric
    assert one["tau_ap_symmetric"].item() == pytest.approx((one["tau_ap"].item() + other["tau_ap"].item()) / 2,
                                                           abs=TOL)
