"""Agreement on conclusions (irmeta.metaeval.conclusion_agreement) on small random score
matrices: decisions against brute force (scipy's paired t-test pair by pair, Holm's
correction written out, the counts in plain loops), the discriminative power's own counts
for every paired test, and the identities of a set against itself."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irmeta.measures.averaging import Scores, exact_mean
from irmeta.metaeval.conclusion_agreement import (
    CONCLUSION_AGREEMENT_COLUMNS,
    conclusion_agreement_table,
    decision_counts,
    pair_decisions,
)
from irmeta.metaeval.pairwise_tests import pairwise_tests_table
from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.metaeval.stats.paired_tests import count_significant_pairs
from irmeta.metaeval.stats.registry import corrected_names, registered_tests

LEVELS = (0.05, 0.01)
CORRECTIONS = ("none", "holm", "bh")
PAIRED = tuple(registered_tests(kind="paired"))


def scores_of(per_topic: np.ndarray, runs: list[str], measures: list[str], alphas: list) -> Scores:
    return Scores(runs=runs, topics=[f"t{i}" for i in range(per_topic.shape[2])], measures=measures,
                  alphas=alphas, per_topic=per_topic, means={"all_topics": exact_mean(per_topic)})


def random_scores(seed: int, n_runs: int = 7, n_topics: int = 12) -> Scores:
    """Runs of different strength (some pairs significant), two measures, one lower-is-better."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(0.0, 0.5, n_runs)[rng.permutation(n_runs)]
    p = np.clip(strength[:, None] + rng.normal(0, 0.15, (n_runs, n_topics)), 0, 1)
    asl = 1.0 - p + rng.normal(0, 0.05, p.shape)
    runs = [f"run{c}" for c in "gdafbechij"[:n_runs]]  # not in name order
    return scores_of(np.stack([p, asl]), runs, ["P@10", "ASL@100"], [None, None])


def perturbed(scores: Scores, seed: int, noise: float = 0.15) -> Scores:
    rng = np.random.default_rng(seed)
    return scores_of(scores.per_topic + rng.normal(0, noise, scores.per_topic.shape), scores.runs,
                     scores.measures, scores.alphas)


def brute_decisions(values: np.ndarray, runs: list[str], higher: bool, level: float, holm: bool) -> dict:
    """(run a, run b), a < b by name -> +1 / -1 / 0, scipy's ttest_rel per pair, Holm by hand."""
    order = sorted(range(len(runs)), key=lambda i: runs[i])
    pairs = list(itertools.combinations(order, 2))
    p = [stats.ttest_rel(values[a], values[b]).pvalue for a, b in pairs]
    if holm:
        ranked = sorted(range(len(p)), key=lambda k: p[k])
        adjusted, running = [0.0] * len(p), 0.0
        for rank, k in enumerate(ranked):
            running = max(running, min(1.0, (len(p) - rank) * p[k]))
            adjusted[k] = running
        p = adjusted
    out = {}
    for (a, b), pk in zip(pairs, p):
        difference = np.mean(values[a] - values[b]) * (1 if higher else -1)
        out[(runs[a], runs[b])] = int(np.sign(difference)) if pk < level else 0
    return out


def brute_counts(ref: dict, alt: dict) -> dict:
    counts = dict.fromkeys(["same_decision", "significant_reference", "significant_judgments",
                            "both_significant_same_direction", "lost", "gained", "reversed"], 0)
    for pair, d in ref.items():
        e = alt[pair]
        counts["same_decision"] += d == e
        counts["significant_reference"] += d != 0
        counts["significant_judgments"] += e != 0
        counts["both_significant_same_direction"] += d != 0 and d == e
        counts["lost"] += d != 0 and e == 0
        counts["gained"] += d == 0 and e != 0
        counts["reversed"] += d != 0 and e == -d
    return {"pairs": len(ref), **counts}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_paired_t_counts_equal_brute_force(seed):
    reference = random_scores(seed)
    alternative = perturbed(reference, 100 + seed)
    table = conclusion_agreement_table(reference, {"other": alternative}, methods=["paired_t"],
                                       corrections=["none", "holm"], levels=LEVELS)
    assert list(table.columns) == list(CONCLUSION_AGREEMENT_COLUMNS)
    assert len(table) == 2 * 2 * 2
    for row in table.itertuples(index=False):
        i = reference.block(row.measure)
        higher = row.measure != "ASL@100"
        holm = row.method == "paired_t+holm"
        ref = brute_decisions(reference.per_topic[i], reference.runs, higher, row.level, holm)
        alt = brute_decisions(alternative.per_topic[i], reference.runs, higher, row.level, holm)
        got = {c: getattr(row, c) for c in brute_counts(ref, alt)}
        assert got == brute_counts(ref, alt)
        assert row.same_decision + row.lost + row.gained + row.reversed == row.pairs


def test_decision_counts_equal_loops_on_random_decisions():
    rng = np.random.default_rng(5)
    for _ in range(50):
        ref, alt = rng.integers(-1, 2, 30).astype(np.int8), rng.integers(-1, 2, 30).astype(np.int8)
        as_dict = lambda d: {k: int(v) for k, v in enumerate(d)}  # noqa: E731
        assert decision_counts(ref, alt) == brute_counts(as_dict(ref), as_dict(alt))


def test_the_reference_decisions_count_as_discriminative_power_does():
    """Every paired test and correction: the reference's significant pairs are those of the
    discriminative power's pairwise table (same dispatch, same seed)."""
    reference = random_scores(11, n_runs=8, n_topics=15)
    table = conclusion_agreement_table(reference, {"same": reference}, methods=PAIRED, corrections=CORRECTIONS,
                                       levels=LEVELS, permutations=200, seed=42)
    matrix = ScoreMatrix("P@10", None, reference.runs, reference.topics, reference.per_topic[0])
    pairwise = pairwise_tests_table([matrix], PAIRED, permutations=200, seed=42)
    for method in PAIRED:
        counts = count_significant_pairs(pairwise[pairwise["method"] == method],
                                         corrected_names(method, CORRECTIONS), LEVELS)
        for row in counts.itertuples(index=False):
            mine = table[(table["measure"] == "P@10") & (table["method"] == row.test) & (table["level"] == row.level)]
            assert mine["significant_reference"].tolist() == [row.significant]


def test_a_set_equal_to_the_reference_changes_no_decision():
    reference = random_scores(2)
    copy = dataclasses.replace(reference, per_topic=reference.per_topic.copy())
    table = conclusion_agreement_table(reference, {"copy": copy}, methods=PAIRED, corrections=CORRECTIONS,
                                       levels=LEVELS, permutations=100)
    assert len(table) == 2 * len(PAIRED) * len(CORRECTIONS) * len(LEVELS)
    assert (table["same_decision"] == table["pairs"]).all() and (table["pairs"] == 21).all()
    assert (table[["lost", "gained", "reversed"]] == 0).all().all()
    assert (table["significant_reference"] == table["both_significant_same_direction"]).all()
    assert table["significant_reference"].sum() > 0


def test_a_reversed_ranking_reverses_every_significant_pair():
    reference = random_scores(4)
    order = np.arange(len(reference.runs))[::-1]
    flipped = dataclasses.replace(reference, per_topic=reference.per_topic[:, order])
    # the runs' names stay: run i now has run n-1-i's scores
    table = conclusion_agreement_table(reference, {"flipped": flipped}, methods=["paired_t"], corrections=["holm"])
    for row in table.itertuples(index=False):
        i = reference.block(row.measure)
        higher = row.measure != "ASL@100"
        ref = brute_decisions(reference.per_topic[i], reference.runs, higher, 0.05, True)
        alt = brute_decisions(flipped.per_topic[i], reference.runs, higher, 0.05, True)
        assert row.reversed == brute_counts(ref, alt)["reversed"]
    assert table["reversed"].sum() > 0


def test_same_seed_same_table_and_decisions_follow_the_orientation():
    reference = random_scores(7)
    alternative = perturbed(reference, 8)
    args = dict(methods=PAIRED, corrections=CORRECTIONS, levels=LEVELS, permutations=100, seed=3)
    first = conclusion_agreement_table(reference, {"x": alternative}, **args)
    pd.testing.assert_frame_equal(first, conclusion_agreement_table(reference, {"x": alternative}, **args))
    values = reference.per_topic[0]
    up = pair_decisions(values, reference.runs, methods=["paired_t"], corrections=["none"])
    down = pair_decisions(values, reference.runs, higher_is_better=False, methods=["paired_t"], corrections=["none"])
    assert np.array_equal(up[("paired_t", 0.05)], -down[("paired_t", 0.05)])


def test_the_topics_compared_are_those_both_sets_judged():
    reference = random_scores(9, n_topics=14)
    fewer = scores_of(reference.per_topic[:, :, :10], reference.runs, reference.measures, reference.alphas)
    table = conclusion_agreement_table(reference, {"fewer": fewer}, methods=["paired_t"], corrections=["none"])
    # on its 10 topics the set equals the reference restricted to them
    assert (table["same_decision"] == table["pairs"]).all()
    with pytest.raises(ValueError, match="topic"):
        none_shared = dataclasses.replace(fewer, topics=[f"x{i}" for i in range(10)])
        conclusion_agreement_table(reference, {"apart": none_shared})
