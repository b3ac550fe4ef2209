"""No table holds an infinity: where a statistic or an effect size is d/0 (every
difference the same non-zero value; an additive model that fits exactly), the tables
leave it missing and the p-value says 0; the writers refuse any infinity that slips by."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

import irmeta
from irmeta.metaeval.stats.anova import two_way_anova
from irmeta.metaeval.stats.pair_differences import finite_or_missing
from irmeta.metaeval.stats.paired_tests import pairwise_tests


def test_finite_or_missing_keeps_numbers_and_drops_infinities():
    out = finite_or_missing(np.array([0.0, -np.inf, 2.5, np.inf, np.nan]))
    assert out[0] == 0.0 and out[2] == 2.5 and np.isnan(out[[1, 3, 4]]).all()


def test_a_constant_shift_leaves_its_statistic_missing_and_its_p_value_zero():
    x = np.arange(16) / 32.0
    table = pairwise_tests(np.vstack([x, x + 0.25, x[::-1]]), ["a", "b", "c"], permutations=50)
    numbers = table.select_dtypes("number").to_numpy()
    assert not np.isinf(numbers).any()
    shifted = table[(table["run_a"] == "a") & (table["run_b"] == "b")].set_index("method")
    assert shifted.loc["paired_t", "p_value"] == 0 and np.isnan(shifted.loc["paired_t", "statistic"])
    assert np.isnan(shifted["effect_size_dz"]).all() and (shifted["mean_difference"] == -0.25).all()


def test_compare_writes_a_constant_shift_with_an_empty_effect_size():
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d1": 1, "d2": 1}}
    runs = {"a": {"q1": {"d1": 2, "x": 1}, "q2": {"d1": 2, "x": 1}},
            "b": {"q1": {"x": 2, "d1": 1}, "q2": {"x": 2, "d1": 1}}}
    from irmeta.comparison import compare_plan, compare_scores, render

    scored = irmeta.score(qrels, runs, ["P@1"])
    tsv = render(compare_scores(scored.scores, compare_plan(correction="none")), "tsv")
    read = pd.read_csv(io.StringIO(tsv), sep="\t")
    assert read["effect_size_dz"].isna().all() and (read["p_value"] == 0).all()
    assert "inf" not in tsv


def test_an_exact_additive_fit_leaves_f_missing():
    scores = np.add.outer(np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.25]))  # runs + topics, no residual
    table = two_way_anova(scores)
    system = table.set_index("source").loc["system"]
    assert np.isnan(system["f"]) and system["p"] == 0
    assert not np.isinf(table.select_dtypes("number").to_numpy()).any()
