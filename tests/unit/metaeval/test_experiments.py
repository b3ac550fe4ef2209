"""The paper's experiments (irmeta.metaeval): Algorithm 1, Figure 1, Figure 2, Tables 1-3.

docs/PROTOCOL.md sections "System subsampling", "Synthetic systems", "Rank
agreement", "Discriminative power", "Stability" and "Numerical care".

Expected values come from hand computation (worked in the comments), from scipy /
statsmodels applied literally, from a brute-force path (rarity recounted over the sampled
runs and every run re-scored by :func:`irmeta.measures.averaging.evaluate`; a hypothetical run
literally appended to the campaign's files), or from exact integer arithmetic (P@k
rareness at alpha = 1 scaled by k * Q * N is an integer). None is a recorded output of
the code under test.
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from scipy import stats

from campaigns import write_campaign as write_any_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.rarity import document_rarity
from irmeta.measures.averaging import evaluate, score_table
from irmeta.measures.cutoffs import relevant_count
from irmeta.measures.names import parse_measure
from irmeta.metaeval.discriminative_power import DP_METHODS, discriminative_power_table, randomised_null_shard
from irmeta.metaeval.kendall_tau import kendall_tau_table
from irmeta.metaeval.score_matrices import ScoreMatrix, mean_table, score_matrices
from irmeta.metaeval.stability import stability_shard, stability_table
from irmeta.metaeval.stats.correlation import batch_kendall_tau_b
from irmeta.metaeval.synthetic_rare_common import synthetic_rare_common
from irmeta.metaeval.system_subsampling import (
    co_retrieval,
    subsampling_shard,
    subsampling_table,
    summarise_taus,
    system_subsampling_taus,
)

TOL = 1e-12


# ---------------------------------------------------------------------------- helpers


def write_campaign(root: Path, runs: dict[str, dict[str, list[str]]], qrels: dict[str, dict[str, int]]):
    """Shared writer; every run gets a line for topic PAD (unjudged), so no file is empty."""
    return write_any_campaign(root, runs, qrels, pad_topic="PAD")


def campaign_matrix(root: Path, runs, qrels, depth=None):
    r, q = write_campaign(root, runs, qrels)
    return relevance_matrix(r, q, depth=depth)


def random_campaign(seed: int):
    """A small random campaign: 3-7 runs, 1-4 topics (some without relevant documents),
    lists of 0-9 documents drawn from a pool of 12 per topic, grades 0-2."""
    rng = np.random.default_rng(seed)
    n_runs, n_topics = int(rng.integers(3, 8)), int(rng.integers(1, 5))
    qrels, runs = {}, {f"run{s}": {} for s in range(n_runs)}
    for t in range(n_topics):
        qid = str(100 + t)
        pool = [f"q{qid}d{j:02d}" for j in range(12)]
        judged = rng.choice(12, size=int(rng.integers(1, 11)), replace=False)
        grades = rng.integers(0, 3, size=len(judged))
        if t == 0 and n_topics > 1:
            grades[:] = 0  # a topic with no relevant document (N_R = 0)
        qrels[qid] = {pool[j]: int(g) for j, g in zip(judged, grades)}
        for s in range(n_runs):
            length = int(rng.integers(0, 10))
            if length:
                runs[f"run{s}"][qid] = [pool[j] for j in rng.choice(12, size=length, replace=False)]
    return runs, qrels


def mean_over_topics(per_topic: np.ndarray) -> np.ndarray:
    return per_topic.mean(axis=-1)


def hit_matrix(matrix, k: int) -> np.ndarray:
    """(runs, qrels rows) int64: 1 where the run's top k holds that relevant judgment.

    Built by plain loops over the cells, independently of the library's rarity code."""
    n_runs, n_topics, _ = matrix.shape
    hits = np.zeros((n_runs, len(matrix.qrels_grade)), dtype=np.int64)
    depth = min(k, matrix.depth)
    for s in range(n_runs):
        rel = matrix.relevant[s, :, :depth]
        rows = matrix.judgment[s, :, :depth][rel]
        hits[s, rows] = 1
    return hits


def integer_p_rareness(hits: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """P@k_rareness at alpha = 1 of ``runs`` with rarity from ``runs`` alone, scaled by
    k * Q * N so that it is an integer: sum over retrieved relevant d of (N + N - S_d)."""
    n = len(runs)
    s_d = hits[runs].sum(axis=0)
    return hits[runs] @ (2 * n - s_d)


def rank_among(real: np.ndarray, score: float, tol: float = 1e-9) -> float:
    """Rank of ``score`` among ``real`` (1 best, ties average), with a float tolerance."""
    better = int(np.sum(real > score + tol))
    tied = int(np.sum(np.abs(real - score) <= tol))
    return 1 + better + tied / 2


# ------------------------------------------------------- 1. batch Kendall tau-b vs scipy


@settings(max_examples=200, deadline=None)
@given(hst.integers(1, 6).flatmap(lambda n: hst.tuples(
    hst.lists(hst.lists(hst.integers(0, 3), min_size=n, max_size=n), min_size=1, max_size=5),
    hst.lists(hst.lists(hst.integers(-2, 2), min_size=n, max_size=n), min_size=1, max_size=5),
)))
def test_batch_kendall_tau_b_equals_scipy_row_by_row(xy):
    xs, ys = xy
    rows = min(len(xs), len(ys))
    x = np.array(xs[:rows], dtype=np.float64)
    y = np.array(ys[:rows], dtype=np.float64)
    got = batch_kendall_tau_b(x, y)
    assert got.shape == (rows,)
    for i in range(rows):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = stats.kendalltau(x[i], y[i]).statistic if x.shape[1] > 1 else math.nan
        if math.isnan(expected):
            assert math.isnan(got[i]), (x[i], y[i], got[i])
        else:
            assert abs(got[i] - expected) <= TOL, (x[i], y[i], got[i], expected)


def test_batch_kendall_tau_b_hand_worked():
    # x = (1, 2, 2), y = (1, 2, 3): pairs (0,1) C, (0,2) C, (1,2) tied in x.
    # C - D = 2; untied in x: 2, in y: 3 -> tau_b = 2 / sqrt(6).
    # Second row: y constant -> NaN. Third: reversed -> -1. Fourth: identical -> exactly 1.
    x = np.array([[1, 2, 2], [1, 2, 3], [1, 2, 3], [3, 1, 2]], dtype=float)
    y = np.array([[1, 2, 3], [5, 5, 5], [3, 2, 1], [3, 1, 2]], dtype=float)
    got = batch_kendall_tau_b(x, y)
    assert abs(got[0] - 2 / math.sqrt(6)) <= TOL
    assert math.isnan(got[1])
    assert got[2] == -1.0
    assert got[3] == 1.0


# ------------------------------------------ 2. co-retrieval means vs brute-force re-scoring


def brute_force_means(matrix, measure: str, sample: np.ndarray, alphas) -> np.ndarray:
    """(alphas, N): rarity recounted over the sampled runs at depth k, the sampled runs
    re-scored by metrics.evaluate, mean over every qrels topic."""
    m = parse_measure(measure)
    k = min(m.cutoff, matrix.depth)
    rarity = document_rarity(matrix, depth=k, runs=sample)
    per_topic = evaluate(matrix.subset(sample), [measure], alphas=alphas, rarity_counts=rarity)[m]
    return mean_over_topics(per_topic)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("family", ["P_rareness", "AP_rareness"])
def test_co_retrieval_means_equal_brute_force_on_random_campaigns(tmp_path, seed, family):
    runs, qrels = random_campaign(seed)
    matrix = campaign_matrix(tmp_path, runs, qrels)
    rng = np.random.default_rng(1000 + seed)
    n_runs = len(matrix.runs)
    for k in sorted({3, 5, matrix.depth}):
        measure = f"{family}@{k}"
        cr = co_retrieval(matrix, measure)
        # the full sample: equals evaluate on the full matrix (rarity from all runs)
        full = mean_over_topics(evaluate(matrix, [measure], alphas=[1.0, 0.5, 0.0])[parse_measure(measure)])
        for a_index, alpha in enumerate([1.0, 0.5, 0.0]):
            got = cr.means(np.arange(n_runs)[None, :], alpha)[0]
            np.testing.assert_allclose(got, full[a_index], rtol=0, atol=TOL)
        for _ in range(6):
            n = int(rng.integers(1, n_runs + 1))
            sample = rng.choice(n_runs, n, replace=False)
            expected = brute_force_means(matrix, measure, sample, [1.0, 0.5])
            for a_index, alpha in enumerate([1.0, 0.5]):
                got = cr.means(sample[None, :], alpha)[0]
                np.testing.assert_allclose(got, expected[a_index], rtol=0, atol=TOL,
                                           err_msg=f"{measure} alpha {alpha} sample {sample}")
        # several trials at once: each row is its own sample
        samples = np.stack([rng.choice(n_runs, 2, replace=False) for _ in range(4)])
        batched = cr.means(samples, 1.0)
        for row, sample in zip(batched, samples):
            np.testing.assert_allclose(row, brute_force_means(matrix, measure, sample, [1.0])[0],
                                       rtol=0, atol=TOL)


def test_co_retrieval_rejects_other_measures(trec8_matrix):
    with pytest.raises(ValueError):
        co_retrieval(trec8_matrix, "P@100")


@pytest.mark.parametrize("measure", ["P_rareness@100", "AP_rareness@100"])
def test_co_retrieval_means_equal_brute_force_on_trec8(trec8_matrix, measure):
    cr = co_retrieval(trec8_matrix, measure)
    n_runs = len(trec8_matrix.runs)
    full = mean_over_topics(evaluate(trec8_matrix, [measure], alphas=[1.0, 0.5])[parse_measure(measure)])
    for a_index, alpha in enumerate([1.0, 0.5]):
        np.testing.assert_allclose(cr.means(np.arange(n_runs)[None, :], alpha)[0], full[a_index],
                                   rtol=0, atol=TOL)
    rng = np.random.default_rng(8)
    for n in (2, 5, 17, 64):
        sample = rng.choice(n_runs, n, replace=False)
        expected = brute_force_means(trec8_matrix, measure, sample, [1.0, 0.5])
        for a_index, alpha in enumerate([1.0, 0.5]):
            np.testing.assert_allclose(cr.means(sample[None, :], alpha)[0], expected[a_index],
                                       rtol=0, atol=TOL, err_msg=f"N={n} alpha {alpha}")


# ---------------------------------------------------------------- 3. Algorithm 1 limits


@pytest.mark.parametrize("measure", ["P_rareness@100", "AP_rareness@100"])
def test_subsampling_all_runs_gives_tau_one(trec8_matrix, measure):
    # N = S: every trial samples all runs (in a random order), recounts rarity from all of
    # them, so the ranking is the full one and tau is exactly 1 (identical runs included:
    # their ties must survive the reordering of the sums).
    cr = co_retrieval(trec8_matrix, measure)
    taus = system_subsampling_taus(cr, len(trec8_matrix.runs), range(5), seed=11)
    assert taus.tolist() == [1.0] * 5


TIE_RUNS = {
    # One topic, k = 10. Relevant: d1 d2 d3 d4; n1 is not relevant.
    # A2 is A. Full (S = 4): S_d(d1) = 3 (A, A2, C), d2 = 2, d3 = d4 = 1 (B).
    "A": {"1": ["d1", "d2"]},
    "A2": {"1": ["d1", "d2"]},
    "B": {"1": ["d3", "d4"]},
    "C": {"1": ["d1", "n1"]},
}
TIE_QRELS = {"1": {"d1": 1, "d2": 1, "d3": 1, "d4": 1, "n1": 0}}


@pytest.mark.parametrize("measure", ["P_rareness@10", "AP_rareness@10"])
def test_subsampling_two_runs_ties_are_undefined(tmp_path, measure):
    # Full ranking (alpha 1, S = 4), P@10_rareness x 10:
    #   A = A2 = (1 + 1/4) + (1 + 2/4) = 2.75; B = 2 (1 + 3/4) = 3.5; C = 1 + 1/4 = 1.25.
    # N = 2 samples, rarity from the two alone:
    #   {A, A2}: tie in both rankings            -> NaN
    #   {A, B} / {A2, B}: no shared document, S_d = 1, R = 1/2 for all four documents:
    #       A = B = 2 (1 + 1/2) = 3 -> tie in the sample ranking only -> NaN
    #   {A, C}: A = (1 + 0) + (1 + 1/2) = 2.5, C = 1 + 0 = 1; full A > C -> tau = 1
    #   {B, C}: B = 3, C = 1.5; full B > C -> 1.   {A2, C}: as {A, C} -> 1.
    # AP_rareness: the same documents at the same ranks, so the same ties and orders.
    # So tau is NaN exactly when C (index 3) is not sampled, 1 otherwise.
    matrix = campaign_matrix(tmp_path, TIE_RUNS, TIE_QRELS)
    assert matrix.runs == ["A", "A2", "B", "C"]
    cr = co_retrieval(matrix, measure)
    trials, seed = range(60), 5
    taus = system_subsampling_taus(cr, 2, trials, seed=seed)
    # trial t draws with default_rng([seed, t]) (the module's documented convention)
    drawn = [set(np.random.default_rng([seed, t]).choice(4, 2, replace=False).tolist()) for t in trials]
    undefined = [3 not in d for d in drawn]
    assert np.isnan(taus).tolist() == undefined
    assert (taus[~np.isnan(taus)] == 1.0).all()
    summary = summarise_taus(taus)
    assert summary["trials"] == 60
    assert summary["undefined_trials"] == sum(undefined) > 0
    assert summary["mean_tau"] == 1.0
    assert summary["sd_tau"] == 0.0


def test_summarise_taus_by_hand():
    s = summarise_taus(np.array([1.0, np.nan, 0.0, np.nan, -1.0 / 3]))
    # defined: 1, 0, -1/3 -> mean 2/9; sd (ddof 1): deviations 7/9, -2/9, -5/9 ->
    # (49 + 4 + 25) / 81 / 2 = 39/81 -> sqrt(39)/9
    assert s["trials"] == 5 and s["undefined_trials"] == 2
    assert abs(s["mean_tau"] - 2 / 9) <= TOL
    assert abs(s["sd_tau"] - math.sqrt(39) / 9) <= TOL
    empty = summarise_taus(np.array([np.nan]))
    assert empty["undefined_trials"] == 1 and math.isnan(empty["mean_tau"])


@pytest.fixture(scope="module")
def trec8_p_integers(trec8_matrix):
    """TREC-8, P@100_rareness at alpha 1: the (run, relevant judgment) hits of the top 100
    and the full ranking's exact integer scores (x 100 * 50 * 129)."""
    hits = hit_matrix(trec8_matrix, 100)
    full = integer_p_rareness(hits, np.arange(len(trec8_matrix.runs)))
    return hits, full


def test_subsampling_matches_exact_integer_oracle_on_trec8(trec8_matrix, trec8_p_integers):
    # P@100_rareness at alpha 1 with rarity from N runs, times k Q N, is an integer, so the
    # rankings, their ties and tau (scipy on the integers) are exact.
    hits, full_int = trec8_p_integers
    cr = co_retrieval(trec8_matrix, "P_rareness@100")
    n_runs = len(trec8_matrix.runs)
    for n in (4, 8, 32):
        seed = 21
        taus = system_subsampling_taus(cr, n, range(25), seed=seed)
        for t, got in enumerate(taus):
            sample = np.random.default_rng([seed, t]).choice(n_runs, n, replace=False)
            expected = stats.kendalltau(full_int[sample], integer_p_rareness(hits, sample)).statistic
            assert abs(got - expected) <= TOL, (n, t, got, expected)


@pytest.mark.slow
def test_subsampling_two_runs_exhaustive_ties_on_trec8(trec8_matrix, trec8_p_integers):
    """Every one of the 8256 TREC-8 pairs as an N = 2 trial of P@100_rareness.

    In a two-run sample {a, b} the score x k Q N is 2 n_a + (n_a - n_ab) (n_a relevant
    documents retrieved in the top 100 over all topics, n_ab shared), so a and b tie
    exactly when n_a = n_b: 18 TREC-8 pairs (docs/PROTOCOL.md, Numerical care: 18 pairs have exactly equal mean
    P@100). Those trials must be NaN (undefined), not +-1 from float noise."""
    hits, full_int = trec8_p_integers
    cr = co_retrieval(trec8_matrix, "P_rareness@100")
    n_runs = len(trec8_matrix.runs)
    pairs = np.array(list(itertools.combinations(range(n_runs), 2)))
    counts = hits.sum(axis=1)
    assert int(np.sum(counts[pairs[:, 0]] == counts[pairs[:, 1]])) == 18
    full = cr.means(np.arange(n_runs)[None, :], 1.0)[0]
    got = batch_kendall_tau_b(full[pairs], cr.means(pairs, 1.0))
    # sample scores x k Q N: sum over retrieved d of (4 - S_d), S_d in {1, 2}: 3 n_a - n_ab
    shared = hits @ hits.T
    a, b = pairs[:, 0], pairs[:, 1]
    g_a, g_b = 3 * counts[a] - shared[a, b], 3 * counts[b] - shared[a, b]
    for i in np.random.default_rng(0).choice(len(pairs), 20, replace=False):  # the formula, spot-checked
        assert integer_p_rareness(hits, pairs[i]).tolist() == [g_a[i], g_b[i]]
    product = (np.sign(full_int[a] - full_int[b]) * np.sign(g_a - g_b)).astype(np.float64)
    expected = np.where(product != 0, product, np.nan)
    wrong = [(trec8_matrix.runs[a], trec8_matrix.runs[b], got[i], expected[i])
             for i, (a, b) in enumerate(pairs)
             if not (got[i] == expected[i] or (np.isnan(got[i]) and np.isnan(expected[i])))]
    assert not wrong, f"{len(wrong)} N=2 trials disagree with exact arithmetic: {wrong[:5]}"


# ------------------------------------------------------------------- 4. sharding


@pytest.fixture(scope="module")
def small_matrix(tmp_path_factory):
    runs, qrels = random_campaign(7)  # 7 runs, 3 topics (one without relevant documents)
    assert len(runs) >= 5
    return campaign_matrix(tmp_path_factory.mktemp("small"), runs, qrels)


def test_subsampling_shards_concatenate_to_the_whole(small_matrix):
    measures = ["P_rareness@5", "AP_rareness@5"]
    sizes = [2, 4]
    whole = subsampling_shard(small_matrix, measures, sizes=sizes, trials=range(10), seed=3)
    parts = [subsampling_shard(small_matrix, measures, sizes=sizes, trials=r, seed=3)
             for r in (range(0, 5), range(5, 10))]
    key = ["measure", "n_systems", "trial"]
    joined = pd.concat(parts, ignore_index=True).sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(joined, whole.sort_values(key).reset_index(drop=True))
    assert len(whole) == 2 * 2 * 10
    pd.testing.assert_frame_equal(subsampling_table(parts[::-1]), subsampling_table([whole]))
    table = subsampling_table([whole])
    assert table["trials"].tolist() == [10] * 4
    # the table summarises exactly the shard's taus
    for row in table.itertuples():
        taus = whole[(whole["measure"] == row.measure) & (whole["n_systems"] == row.n_systems)]["tau"]
        defined = taus.dropna().to_numpy()
        assert row.undefined_trials == taus.isna().sum()
        if len(defined):
            assert abs(row.mean_tau - defined.mean()) <= TOL


# ------------------------------------------------------- 5. synthetic rare/common (Figure 1)

# One topic, k = 10, S = 4 real runs, so S' = 5. Relevant: a1 a2 a3 a4 b1 b2 u1 (u1 found
# by no run); n1 n2 n3 are not relevant.
#   A: a1 a2 a3 a4 n1   (4 relevant)      S_d: b1 = b2 = 3 (B, C, E)
#   B: a1 b1 b2 n2      (3)                    a1 = 2 (A, B)
#   C: b1 b2            (2)                    a2 = a3 = a4 = 1 (A)
#   E: b1 b2 n3         (2)                    u1 = 0
# Documents tied in S_d are retrieved by the same runs, so the choice among them does
# not matter. Scores below are P@10_rareness x k S' = x 50:
#   x50 = 5 c + alpha (5 c - sum S_d)  (c relevant retrieved; every R = 1 - S_d / 5).
#
# S_rare (new documents, S_d = 1): real runs keep their S_d:
#   A = 20 + 15a (sum 5), B = 15 + 7a (sum 8), C = E = 10 + 4a (sum 6)
#   e.g. A at alpha 1: P = (4 + (1 - 2/5) + 3 (1 - 1/5)) / 10 = 0.7 = 35 / 50.
#   protocol:     S_rare = D (5 + 4a)              [R = 1 - 1/5]
#   paper_script: S_rare = D (5 + 3.75a)            [R = 1 - 1/4, the script's 1 - 1/S]
#   alpha 0   (A 20, B 15, C = E 10; S_rare 5D, both variants):
#     D=1: 5 -> 5; D=2: 10 ties C, E -> 1 + 2 + 1 = 4; D=3: 15 ties B -> 2.5;
#     D=4: 20 ties A -> 1.5; D>=5 -> 1
#   alpha 0.5 (A 27.5, B 18.5, C = E 12):
#     protocol 7D:       7 -> 5; 14 -> 3; 21 -> 2; 28 -> 1; then 1
#     paper 6.875D:      6.875 -> 5; 13.75 -> 3; 20.625 -> 2; 27.5 ties A -> 1.5; 34.375 -> 1
#   alpha 1   (A 35, B 22, C = E 14):
#     protocol 9D:       9 -> 5; 18 -> 3; 27 -> 2; 36 -> 1
#     paper 8.75D:       8.75 -> 5; 17.5 -> 3; 26.25 -> 2; 35 ties A -> 1.5; 43.75 -> 1
#
# S_common (most common first: b1, b2, a1, a2, a3, a4, u1; each chosen S_d + 1):
#   D=1 {b1}: S_common 5 + a(5 - 4) = 5 + a; A 20 + 15a, B 15 + 6a, C = E 10 + 3a -> 5
#   D=2 {b1, b2} (= C's documents): 10 + 2a; B 15 + 5a, C = E 10 + 2a -> ties C, E -> 4
#   D=3 + a1 (= B's documents): 15 + a(15 - 11) = 15 + 4a; A 20 + 14a; B 15 + 4a -> 2.5
#   D=4 + a2: 20 + a(20 - 13) = 20 + 7a; A: sum 3+2+1+1 = 7 -> 20 + 13a
#        alpha 0: tie A -> 1.5; alpha 0.5: 23.5 < 26.5 -> 2; alpha 1: 27 < 33 -> 2
#   D=5 + a3: 25 + 10a vs A 20 + 12a -> 1 (alpha <= 1);  D=6 + a4: 30 + 13a vs 20 + 11a -> 1
#   D=7 + u1: 35 + 17a -> 1;  D=8: only 7 relevant documents exist -> still 7, rank 1.
SYN_RUNS = {
    "A": {"1": ["a1", "a2", "a3", "a4", "n1"]},
    "B": {"1": ["a1", "b1", "b2", "n2"]},
    "C": {"1": ["b1", "b2"]},
    "E": {"1": ["b1", "b2", "n3"]},
}
SYN_QRELS = {"1": {d: 1 for d in ["a1", "a2", "a3", "a4", "b1", "b2", "u1"]} | {"n1": 0, "n2": 0, "n3": 0}}
SYN_EXPECTED = {
    # (system, alpha): ranks for D = 1..8
    ("S_rare", 0.0): [5, 4, 2.5, 1.5, 1, 1, 1, 1],
    ("S_rare", 0.5): [5, 3, 2, 1, 1, 1, 1, 1],
    ("S_rare", 1.0): [5, 3, 2, 1, 1, 1, 1, 1],
    ("S_common", 0.0): [5, 4, 2.5, 1.5, 1, 1, 1, 1],
    ("S_common", 0.5): [5, 4, 2.5, 2, 1, 1, 1, 1],
    ("S_common", 1.0): [5, 4, 2.5, 2, 1, 1, 1, 1],
}
SYN_PAPER_RARE = {0.0: [5, 4, 2.5, 1.5, 1, 1, 1, 1], 0.5: [5, 3, 2, 1.5, 1, 1, 1, 1],
                  1.0: [5, 3, 2, 1.5, 1, 1, 1, 1]}


@pytest.fixture(scope="module")
def syn_matrix(tmp_path_factory):
    return campaign_matrix(tmp_path_factory.mktemp("syn"), SYN_RUNS, SYN_QRELS)


def test_synthetic_rare_common_by_hand(syn_matrix):
    table = synthetic_rare_common(syn_matrix, "1", cutoff=10, alphas=(0.0, 0.5, 1.0), max_relevant=8)
    assert list(table.columns) == ["topic", "system", "alpha", "n_relevant", "n_relevant_retrieved", "rank"]
    assert len(table) == 2 * 3 * 8
    for (system, alpha), ranks in SYN_EXPECTED.items():
        rows = table[(table["system"] == system) & (table["alpha"] == alpha)].sort_values("n_relevant")
        assert rows["n_relevant"].tolist() == list(range(1, 9))
        assert rows["rank"].tolist() == ranks, (system, alpha)
    common = table[table["system"] == "S_common"].sort_values(["alpha", "n_relevant"])
    # S_common never retrieves more relevant documents than the topic has (7)
    assert common["n_relevant_retrieved"].tolist() == [1, 2, 3, 4, 5, 6, 7, 7] * 3
    rare = table[table["system"] == "S_rare"]
    assert (rare["n_relevant_retrieved"] == rare["n_relevant"]).all()


def test_synthetic_paper_script_differs_only_in_rare_rows(syn_matrix):
    protocol = synthetic_rare_common(syn_matrix, "1", cutoff=10, max_relevant=8)
    paper = synthetic_rare_common(syn_matrix, "1", cutoff=10, max_relevant=8, rare_systems="paper_script")
    key = ["system", "alpha", "n_relevant"]
    protocol, paper = protocol.sort_values(key).reset_index(drop=True), paper.sort_values(key).reset_index(drop=True)
    common = protocol["system"] == "S_common"
    pd.testing.assert_frame_equal(protocol[common], paper[common])
    for alpha, ranks in SYN_PAPER_RARE.items():
        rows = paper[(paper["system"] == "S_rare") & (paper["alpha"] == alpha)]
        assert rows["rank"].tolist() == ranks, alpha
    assert not protocol[~common]["rank"].equals(paper[~common]["rank"])
    with pytest.raises(ValueError):
        synthetic_rare_common(syn_matrix, "1", rare_systems="script")
    with pytest.raises(KeyError):
        synthetic_rare_common(syn_matrix, "no such topic")


@pytest.mark.parametrize("seed", range(4))
def test_synthetic_alpha_zero_rare_and_common_rank_alike(tmp_path, seed):
    # At alpha 0 both systems score D / k (capped at N_R for S_common) and the real runs
    # their P@k: the ranks coincide while D <= N_R.
    runs, qrels = random_campaign(seed)
    matrix = campaign_matrix(tmp_path, runs, qrels)
    for topic in matrix.topics:
        n_rel = int(matrix.n_relevant[matrix.topics.index(topic)])
        table = synthetic_rare_common(matrix, topic, cutoff=5, alphas=(0.0,), max_relevant=12)
        rare = table[table["system"] == "S_rare"].sort_values("n_relevant")
        common = table[table["system"] == "S_common"].sort_values("n_relevant")
        upto = rare["n_relevant"] <= n_rel
        assert rare["rank"][upto.to_numpy()].tolist() == common["rank"][upto.to_numpy()].tolist()
        assert (common["n_relevant_retrieved"].to_numpy() == np.minimum(np.arange(1, 13), n_rel)).all()


@pytest.mark.slow
@pytest.mark.parametrize("topic", ["405", "431"])
def test_synthetic_matches_appending_the_run_on_trec8(tmp_path, trec8_matrix, topic):
    """Brute force: write the topic's top-100 lists of the 129 real runs as TREC files,
    append S_common (or S_rare, with new relevant documents added to the qrels) as a
    130th run, score everything with metrics.evaluate and rank the hypothetical run."""
    k = 100
    q = trec8_matrix.topics.index(topic)
    docid = trec8_matrix.docids.to_pylist()
    lists = {}
    for s, name in enumerate(trec8_matrix.runs):
        # the matrix keeps judged documents; an unjudged one stands in under a name no qrels judge
        rows = trec8_matrix.judgment[s, q, :min(k, int(trec8_matrix.length[s, q]))]
        lists[name] = [docid[j] if j >= 0 else f"unjudged-{s}-{r}" for r, j in enumerate(rows.tolist())]
    on_topic = np.flatnonzero(trec8_matrix.qrels_topic == q)
    judged = {docid[trec8_matrix.qrels_doc[j]]: int(trec8_matrix.qrels_grade[j]) for j in on_topic}
    relevant = [d for d, g in judged.items() if g >= 1]
    # S_d by set membership over the real runs' top 100
    tops = [set(v) for v in lists.values()]
    s_d = {d: sum(d in top for top in tops) for d in relevant}
    by_count = sorted(relevant, key=lambda d: -s_d[d])
    counts = [s_d[d] for d in by_count]
    alphas = [0.0, 0.5, 1.0]
    table = synthetic_rare_common(trec8_matrix, topic, cutoff=k, alphas=alphas, max_relevant=45)

    def hypothetical_rank(name, docs, extra_qrels):
        runs = dict(lists)
        runs[name] = docs
        matrix = campaign_matrix(tmp_path / f"{name}", {n: {topic: v} for n, v in runs.items()},
                                 {topic: judged | extra_qrels})
        scores = evaluate(matrix, [f"P_rareness@{k}"], alphas=alphas)[parse_measure(f"P_rareness@{k}")][:, :, 0]
        me = matrix.runs.index(name)
        out = []
        for a in range(len(alphas)):
            real = np.delete(scores[a], me)
            gaps = np.abs(real - scores[a, me])
            assert not ((gaps > 1e-12) & (gaps < 1e-6)).any()  # the tolerance decides nothing
            out.append(rank_among(real, scores[a, me]))
        return out

    checked = 0
    for d in (1, 3, 8, 15, 30, 45):
        # only D where the D-th and (D+1)-th most common documents differ in S_d (else
        # the choice among tied documents is the implementation's)
        if d < len(counts) and counts[d - 1] == counts[d]:
            continue
        chosen = by_count[:d]
        ranks = hypothetical_rank(f"zzcommon{d}", chosen, {})
        for alpha, rank in zip(alphas, ranks):
            row = table[(table["system"] == "S_common") & (table["alpha"] == alpha) & (table["n_relevant"] == d)]
            assert row["rank"].tolist() == [rank], (topic, d, alpha)
            assert row["n_relevant_retrieved"].tolist() == [len(chosen)]
        checked += 1
    assert checked >= 2
    for d in (1, 10, 28, 33, 44):
        new = [f"RARE{topic}-{i}" for i in range(d)]
        ranks = hypothetical_rank(f"zzrare{d}", new, {doc: 1 for doc in new})
        for alpha, rank in zip(alphas, ranks):
            row = table[(table["system"] == "S_rare") & (table["alpha"] == alpha) & (table["n_relevant"] == d)]
            assert row["rank"].tolist() == [rank], (topic, d, alpha)


# -------------------------------------------------- 6. discriminative power (Table 1)


def score_matrix(values: np.ndarray, measure: str = "P@10", alpha: str | None = None) -> ScoreMatrix:
    return ScoreMatrix(measure=measure, alpha=alpha, runs=[f"r{i}" for i in range(len(values))],
                         topics=[f"t{j}" for j in range(values.shape[1])], values=values)


def dp_counts(table: pd.DataFrame, method: str) -> dict[float, int]:
    rows = table[table["method"] == method]
    return dict(zip(rows["level"], rows["significant_pairs"]))


def test_discriminative_power_identical_and_shifted_runs():
    rng = np.random.default_rng(0)
    topic = rng.uniform(0, 1, 20)  # strong topic effects
    x = topic + rng.normal(0, 0.01, 20)
    # runs 0, 1 identical; runs 2, 3 identical, 0.3 above on every topic
    m = score_matrix(np.vstack([x, x, x + 0.3, x + 0.3]))
    null = randomised_null_shard([m], range(500), seed=1)
    table = discriminative_power_table([m], null=null)
    assert set(table["method"]) == set(DP_METHODS)
    assert (table["total_pairs"] == 6).all()
    # exactly the 4 shifted pairs, never the 2 identical ones
    assert dp_counts(table, "tukey_hsd") == {0.05: 4, 0.01: 4}
    assert dp_counts(table, "randomised_tukey_hsd") == {0.05: 4, 0.01: 4}
    assert all(v <= 4 for v in dp_counts(table, "paper_pairwise").values())
    assert table[table["method"] == "randomised_tukey_hsd"]["permutations"].tolist() == [500, 500]
    # all runs identical: nothing significant by any method
    same = score_matrix(np.vstack([x, x, x]))
    null = randomised_null_shard([same], range(200), seed=1)
    table = discriminative_power_table([same], null=null)
    assert (table["significant_pairs"] == 0).all()
    assert (table["total_pairs"] == 3).all()


def test_discriminative_power_needs_the_null_for_randomised():
    m = score_matrix(np.random.default_rng(1).uniform(size=(3, 10)))
    with pytest.raises(ValueError):
        discriminative_power_table([m])
    with pytest.raises(ValueError):
        discriminative_power_table([m], methods=["tukey"])
    table = discriminative_power_table([m], methods=["paper_pairwise", "tukey_hsd"])
    assert set(table["method"]) == {"paper_pairwise", "tukey_hsd"}


@pytest.mark.slow
def test_discriminative_power_against_statsmodels_and_scipy():
    """Counts equal an oracle: statsmodels' pairwise_tukeyhsd on each pair alone (the
    authors' protocol), a two-way ANOVA Tukey HSD written out with scipy, and the
    randomised Tukey HSD p = #{null max >= |difference|} / B."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    rng = np.random.default_rng(4)
    n_runs, n_topics = 6, 15
    values = (rng.uniform(0, 0.6, n_topics)[None, :] + np.linspace(0, 0.15, n_runs)[:, None]
              + rng.normal(0, 0.06, (n_runs, n_topics)))
    m = score_matrix(values, "AP@10")
    levels = (0.1, 0.05, 0.01)
    null = randomised_null_shard([m], range(400), seed=2)
    table = discriminative_power_table([m], levels=levels, null=null)
    pairs = list(itertools.combinations(range(n_runs), 2))
    assert (table["total_pairs"] == len(pairs)).all()

    groups = np.repeat(["a", "b"], n_topics)
    p_paper = [pairwise_tukeyhsd(np.concatenate([values[a], values[b]]), groups).pvalues[0] for a, b in pairs]
    assert all(min(abs(p - lv) for lv in levels) > 1e-6 for p in p_paper)  # no borderline pair
    assert dp_counts(table, "paper_pairwise") == {lv: sum(p < lv for p in p_paper) for lv in levels}

    residual = values - values.mean(1, keepdims=True) - values.mean(0, keepdims=True) + values.mean()
    df = (n_runs - 1) * (n_topics - 1)
    se = math.sqrt((residual ** 2).sum() / df / n_topics)
    means = values.mean(axis=1)
    p_tukey = [stats.studentized_range.sf(abs(means[a] - means[b]) / se, n_runs, df) for a, b in pairs]
    assert all(min(abs(p - lv) for lv in levels) > 1e-6 for p in p_tukey)  # no borderline pair
    assert dp_counts(table, "tukey_hsd") == {lv: sum(p < lv for p in p_tukey) for lv in levels}

    null_max = null["max_difference"].to_numpy()
    p_rand = [np.mean(null_max >= abs(means[a] - means[b]) - 1e-12) for a, b in pairs]
    assert dp_counts(table, "randomised_tukey_hsd") == {lv: sum(p < lv for p in p_rand) for lv in levels}
    for method in DP_METHODS:  # monotone in the level
        c = dp_counts(table, method)
        assert c[0.1] >= c[0.05] >= c[0.01], method
    assert 0 < dp_counts(table, "paper_pairwise")[0.1] < len(pairs)  # the example is not trivial


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hst.integers(0, 10_000), hst.integers(2, 6), hst.integers(2, 12))
def test_discriminative_power_monotone_in_level(seed, n_runs, n_topics):
    rng = np.random.default_rng(seed)
    values = rng.uniform(size=(n_runs, n_topics)) + rng.uniform(0, 0.5, (n_runs, 1))
    matrices = [score_matrix(values, "P@10"), score_matrix(values * 2, "P_rareness@10", "1")]
    null = randomised_null_shard(matrices, range(60), seed=seed)
    table = discriminative_power_table(matrices, levels=(0.2, 0.05, 0.01, 0.001), null=null)
    total = n_runs * (n_runs - 1) // 2
    assert (table["total_pairs"] == total).all()
    for (_, _, _), block in table.groupby(["measure", "alpha", "method"]):
        counts = block.sort_values("level", ascending=False)["significant_pairs"].tolist()
        assert counts == sorted(counts, reverse=True)
        assert all(0 <= c <= total for c in counts)


# -------------------------------------------------------------- 7. stability, shards


FUZZ = [{"mode": "absolute", "value": 0.05}, {"mode": "relative", "value": 0.05}]


def test_stability_table_shards_equal_whole_and_brute_force():
    rng = np.random.default_rng(7)
    values = rng.uniform(size=(5, 12)) * np.linspace(0.5, 1, 5)[:, None]
    matrices = [score_matrix(values, "P@10"), score_matrix(values * 1.7, "P_rareness@10", "1")]
    kw = dict(topics_per_trial=6, seed=9, fuzziness=FUZZ)
    whole = stability_shard(matrices, trials=range(40), **kw)
    parts = [stability_shard(matrices, trials=r, **kw) for r in (range(0, 13), range(13, 40))]
    table_whole = stability_table([whole], topics_per_trial=6, trials=40, seed=9)
    table_parts = stability_table(parts[::-1], topics_per_trial=6, trials=40, seed=9)
    pd.testing.assert_frame_equal(table_parts.sort_values(["measure", "fuzziness_mode"]).reset_index(drop=True),
                                  table_whole.sort_values(["measure", "fuzziness_mode"]).reset_index(drop=True))
    assert len(table_whole) == 4
    # brute force: trial t's topics from default_rng([seed, t]) (documented convention)
    for m in matrices:
        for setting in FUZZ:
            num = den = 0
            wins = {}
            for t in range(40):
                topics = np.random.default_rng([9, t]).choice(12, 6, replace=False)
                means = m.values[:, topics].mean(axis=1)
                for a, b in itertools.combinations(range(5), 2):
                    diff = means[a] - means[b]
                    thr = setting["value"] * (1 if setting["mode"] == "absolute"
                                              else max(abs(means[a]), abs(means[b])))
                    w = wins.setdefault((a, b), [0, 0, 0])
                    w[0 if diff > thr else 1 if diff < -thr else 2] += 1
            for w in wins.values():
                num += max(w[0], w[1])
                den += sum(w)
            row = table_whole[(table_whole["measure"] == m.measure)
                              & (table_whole["fuzziness_mode"] == setting["mode"])]
            assert row["stability"].tolist() == [pytest.approx(num / den, abs=TOL)]


def test_randomised_null_shards_concatenate_to_the_whole():
    rng = np.random.default_rng(3)
    matrices = [score_matrix(rng.uniform(size=(4, 9)), "P@10"),
                score_matrix(rng.uniform(size=(4, 9)), "AP_rareness@10", "0.5")]
    whole = randomised_null_shard(matrices, range(30), seed=4)
    parts = [randomised_null_shard(matrices, r, seed=4) for r in (range(0, 7), range(7, 30))]
    key = ["measure", "alpha", "trial"]
    joined = pd.concat(parts, ignore_index=True).sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(joined, whole.sort_values(key).reset_index(drop=True))
    # the discriminative-power table reads the shards in any order
    shuffled = pd.concat(parts[::-1], ignore_index=True)
    pd.testing.assert_frame_equal(discriminative_power_table(matrices, null=shuffled),
                                  discriminative_power_table(matrices, null=whole))
    # each max difference lies between 0 and the widest possible spread of run means
    for m in matrices:
        rows = whole[whole["measure"] == m.measure]["max_difference"]
        widest = (m.values.max(axis=0) - m.values.min(axis=0)).mean()
        assert ((rows >= 0) & (rows <= widest + TOL)).all()


# --------------------------------------------------------- 8. score matrices round trip


def test_score_matrices_round_trip(tmp_path):
    runs, qrels = random_campaign(5)
    matrix = campaign_matrix(tmp_path, runs, qrels)
    measures = ["P@5", "AP@5", "P_rareness@5", "AP_rareness@5"]
    alphas = [0.0, 0.5, 1.0]
    table = score_table(matrix, measures, alphas=alphas)
    evaluated = evaluate(matrix, measures, alphas=alphas)
    got = {m.key: m for m in score_matrices(table)}
    assert set(got) == {("P@5", ""), ("AP@5", "")} | {(m, a) for m in measures[2:] for a in ("0", "0.5", "1")}
    for measure, values in evaluated.items():
        if measure.uses_alpha:
            for a_index, label in enumerate(("0", "0.5", "1")):
                sm = got[(str(measure), label)]
                assert sm.alpha == label
                np.testing.assert_array_equal(sm.values, values[a_index])
        else:
            sm = got[(str(measure), "")]
            assert sm.alpha is None
            np.testing.assert_array_equal(sm.values, values)
        assert sm.runs == matrix.runs and sm.topics == matrix.topics
        assert sm.higher_is_better
    some = score_matrices(table, measures=["P_rareness@5", "P@5"], alphas=[0.5])
    assert {m.key for m in some} == {("P_rareness@5", "0.5"), ("P@5", "")}
    # a missing run-topic row is an error, not a NaN or a silent zero
    per_topic = table[table["averaging"].isna()]
    drop = per_topic[(per_topic["measure"] == "AP_rareness@5") & (per_topic["alpha"] == "0.5")].index[1]
    with pytest.raises(ValueError):
        score_matrices(table.drop(index=drop))


# ------------------------------------------------------------ 9. Kendall tau (Figure 2)


@pytest.fixture(scope="module")
def trec8_scores(trec8_matrix):
    return score_table(trec8_matrix, ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100"],
                       alphas=[0.0, 0.5, 1.0], averaging=("all",), per_topic=False)


COMPARISONS = [{"measure": "P_rareness@100", "baseline": "P@100"},
               {"measure": "AP_rareness@100", "baseline": "AP@100"}]


def test_kendall_tau_alpha_zero_is_exactly_one_on_trec8(trec8_scores):
    table = kendall_tau_table(trec8_scores, COMPARISONS)
    assert len(table) == 6 and (table["n_runs"] == 129).all()
    zero = table[table["alpha"] == "0"]
    assert zero["measure"].tolist() == ["AP_rareness@100", "P_rareness@100"]
    # exactly 1, not the authors' 0.99933 (float noise breaking exact ties)
    assert zero["tau"].tolist() == [1.0, 1.0]
    assert zero["tau_ap"].tolist() == [1.0, 1.0]
    others = table[table["alpha"] != "0"]
    assert (others["tau"] < 1).all() and (others["tau"] > 0.8).all()
    # tau is scipy's tau-b on the means table; tau_AP has the baseline as the reference
    means = mean_table(trec8_scores)
    for row in table.itertuples():
        baseline = "P@100" if row.measure.startswith("P_") else "AP@100"
        x, y = means[(row.measure, row.alpha)].to_numpy(), means[(baseline, "")].to_numpy()
        assert abs(row.tau - stats.kendalltau(x, y).statistic) <= TOL
        assert abs(row.tau_ap - tau_ap_loop(x, y)) <= TOL


def tau_ap_loop(x, y):
    """Yilmaz et al.'s tau_AP of the ranking by x against the reference y, as a loop:
    for each item below the top tie group of x, the fraction of the items strictly above
    it in x that y also puts strictly above it; 2 * mean - 1 (statistics.tau_ap's ties)."""
    fractions = []
    for i in range(len(x)):
        above = [j for j in range(len(x)) if x[j] > x[i]]
        if above:
            fractions.append(sum(y[j] > y[i] for j in above) / len(above))
    return 2 * math.fsum(fractions) / len(fractions) - 1


def test_p_at_100_means_keep_exact_ties_on_trec8(trec8_matrix, trec8_scores):
    """docs/PROTOCOL.md, Numerical care: 18 pairs of TREC-8 runs have exactly equal mean P@100
    (equal relevant counts over the 50 topics). The means table must keep them tied, and
    tau of P@100_rareness against P@100 must be the one exact arithmetic gives: both x k Q
    (x 2S at alpha 0.5) are integers."""
    counts = relevant_count(trec8_matrix, 100).sum(axis=1)
    means = mean_table(trec8_scores)
    order = [trec8_matrix.runs.index(r) for r in means.index]
    p100 = means[("P@100", "")].to_numpy()
    c = counts[order]
    pairs = [(a, b) for a, b in itertools.combinations(range(len(c)), 2) if c[a] == c[b]]
    assert len(pairs) == 18
    broken = [(means.index[a], means.index[b]) for a, b in pairs if p100[a] != p100[b]]
    assert not broken, f"{len(broken)} exact P@100 ties broken by float summation: {broken}"


def test_kendall_tau_at_half_equals_exact_arithmetic_on_trec8(trec8_matrix, trec8_scores):
    """Figure 2 at alpha 0.5: mean P@100 x k Q and mean P@100_rareness x 2 k Q S are
    integers, so tau has an exact value; float noise must not move it."""
    counts = relevant_count(trec8_matrix, 100).sum(axis=1)
    means = mean_table(trec8_scores)
    order = [trec8_matrix.runs.index(r) for r in means.index]
    c = counts[order]
    # x 100 * 50 * 2 * 129 at alpha 0.5: sum over retrieved relevant d of (2S + (S - S_d))
    hits = hit_matrix(trec8_matrix, 100)
    s_d = hits.sum(axis=0)
    n = len(trec8_matrix.runs)
    exact = (hits @ (3 * n - s_d))[order]
    table = kendall_tau_table(trec8_scores, COMPARISONS[:1])
    got = table[table["alpha"] == "0.5"]["tau"].item()
    assert got == pytest.approx(stats.kendalltau(exact, c).statistic, abs=TOL)


def test_subsampling_does_not_depend_on_the_block_size(small_matrix, monkeypatch):
    # Algorithm 1's co-retrieval sums go over blocks of documents; one document per block
    # gives the same table.
    from irmeta.metaeval.stats import blocks

    kw = dict(sizes=[2, 4], trials=range(6), seed=3)
    default = subsampling_shard(small_matrix, ["P_rareness@5", "AP_rareness@5"], **kw)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1)
    pd.testing.assert_frame_equal(subsampling_shard(small_matrix, ["P_rareness@5", "AP_rareness@5"], **kw),
                                  default)
