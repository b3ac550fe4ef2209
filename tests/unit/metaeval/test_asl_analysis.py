"""The ASL paper's analyses (irmeta.metaeval.asl_analysis): RRIE (eq. 11-12), the histograms
of Figures 5-6, the re-ordering analysis of Table 2 (by hand and on TREC-8)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from campaigns import asl_campaign
from irmeta.measures.asl import asl, atomized_search_lengths
from irmeta.measures.precision import average_precision
from irmeta.metaeval.asl_analysis import (
    MetricVariant,
    asl_difference_histogram,
    asl_histogram,
    better_counts,
    decade_edges,
    delta_sort,
    paired_t_pvalues,
    reordering_row,
    reordering_table,
    rrie,
)


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    return asl_campaign(tmp_path_factory.mktemp("asl"))


def test_rrie_reproduces_table_1():
    # eq. 12 on the paper's rounded ASLs: (ASL_a - 1 - (ASL_b - 1)) / (ASL_a - 1)
    assert rrie(14, 5) == pytest.approx(9 / 13)  # 69%
    assert round(100 * rrie(51, 6)) == 90  # 45/50
    assert round(100 * rrie(39, 27)) == 32  # 12/38 = 31.6%
    assert rrie(264, 215) == pytest.approx(49 / 263)  # 18.6% (19% in the paper, from unrounded ASLs)
    # eq. 11: ((1 - P_a) - (1 - P_b)) / (1 - P_a)
    assert round(100 * rrie(0.456, 0.594, higher_is_better=True)) == 25  # .138/.544
    assert round(100 * rrie(0.517, 0.706, higher_is_better=True)) == 39  # .189/.483
    assert round(100 * rrie(0.401, 0.543, higher_is_better=True)) == 24  # .142/.599
    assert round(100 * rrie(0.400, 0.572, higher_is_better=True)) == 29  # .172/.6
    # arrays broadcast; no error to reduce -> NaN; a worse b -> negative
    out = rrie(np.array([3.0, 1.0, 2.0]), np.array([2.0, 1.0, 3.0]))
    assert out[0] == 0.5 and math.isnan(out[1]) and out[2] == -1.0


def test_histograms_count_every_document(matrix):
    per_doc = atomized_search_lengths(matrix).values  # [[1, 3, 3, 3, 3], [1, 1, 1, 4, 0]]
    counts, edges = asl_histogram(per_doc[0], bins=2)  # [1, 3] in two bins: [1, 2), [2, 3]
    assert counts.tolist() == [1, 4] and edges.tolist() == [1.0, 2.0, 3.0]
    # explicit edges are open-ended: 0 joins the first bin, 4 the last:
    # [1, 2) holds 1 1 1 1 and 0; [2, 3] holds 3 3 3 3 and 4
    counts, _ = asl_histogram(per_doc, bins=[1, 2, 3])
    assert counts.tolist() == [5, 5] and counts.sum() == per_doc.size
    # differences A - B: [0, 2, 2, -1, 3] -> decade buckets <=-1, 0, >=1 (max |diff| 3 < 9.5)
    counts, edges = asl_difference_histogram(per_doc[0], per_doc[1])
    assert edges.tolist() == [-9.5, -0.5, 0.5, 9.5]
    assert counts.tolist() == [1, 1, 3]
    assert decade_edges(1234).tolist() == [-9999.5, -999.5, -99.5, -9.5, -0.5, 0.5, 9.5, 99.5, 999.5, 9999.5]
    with pytest.raises(ValueError, match="same documents"):
        asl_difference_histogram(per_doc[0], per_doc[1][:3])


@pytest.mark.slow
def test_trec8_histograms_sum_to_document_counts(trec8_matrix):
    found = atomized_search_lengths(trec8_matrix)
    n_docs = int(trec8_matrix.n_relevant.sum())
    assert found.values.shape == (len(trec8_matrix.runs), n_docs)
    for bins in (10, np.arange(0, 1001, 100)):
        counts, _ = asl_histogram(found.values[0], bins)
        assert counts.sum() == n_docs
    counts, edges = asl_difference_histogram(found.values[0], found.values[1])
    assert counts.sum() == n_docs
    assert edges[0] < -999 and edges[-1] > 999 or np.abs(found.values[0] - found.values[1]).max() < 999.5


def variant(name, per_topic, higher_is_better):
    x = np.asarray(per_topic, dtype=np.float64)
    v = x.mean(axis=1)
    return MetricVariant(name, x, v, higher_is_better, v if higher_is_better else 1 / v)


def test_delta_sort_by_hand():
    # old (higher better): run 0 far above runs 1 and 2 (paired differences ~0.3, tiny
    # spread: p << 0.05); runs 1 and 2 within 10% of each other. n0 = [0, 1, 1].
    old = variant("old", [[0.50, 0.60, 0.55, 0.65],
                          [0.20, 0.30, 0.25, 0.33],
                          [0.21, 0.29, 0.26, 0.31]], True)
    # new (lower better): runs 0 and 1 within 10% (11.5 vs 11.675); run 2 far worse
    # (differences ~20 on every topic). n1 = [0, 0, 2].
    new = variant("new", [[10, 12, 11, 13],
                          [10.5, 12, 11, 13.2],
                          [30, 32, 31, 35]], False)
    assert better_counts(old.per_topic, old.value, True).tolist() == [0, 1, 1]
    assert better_counts(new.per_topic, new.value, False).tolist() == [0, 0, 2]
    # Delta Sort_s = 100 |n0 - n1| / |S| = [0, 100/3, 100/3]
    assert delta_sort(old, new).tolist() == pytest.approx([0, 100 / 3, 100 / 3], abs=1e-12)
    row = reordering_row(old, new, runs=["r0", "r1", "r2"])
    assert row["delta_sort_max"] == pytest.approx(100 / 3) and row["delta_sort_run"] == "r1"
    # both rankings are r0 > r1 > r2 (ASL oriented lower-first): tau = 1
    assert row["kendall_tau"] == 1.0
    # Delta Value: (1/ASL) / old, per system
    want = (1 / new.value) / old.value
    assert row["delta_value_mean"] == pytest.approx(want.mean())
    # unchanged metric: no re-ordering
    same = reordering_row(old, old)
    assert same["delta_sort_max"] == 0 and same["kendall_tau"] == 1.0 and same["delta_value_mean"] == 1.0


def test_ten_percent_boundary_and_t_test():
    # a constant shift is certain (p = 0): 9 is exactly 10% below 10 and counts; 9.1 does not
    lower = np.array([[10.0, 10.0, 10.0], [9.0, 9.0, 9.0], [9.1, 9.1, 9.1]])
    assert better_counts(lower, lower.mean(axis=1), False).tolist() == [1, 0, 0]
    # the same gap but noisy enough that the paired t-test fails: not better
    noisy = np.array([[10.0, 20.0, 30.0], [1.0, 40.0, 20.0]])
    assert paired_t_pvalues(noisy)[0, 1] > 0.05
    assert better_counts(noisy, noisy.mean(axis=1), False).tolist() == [0, 0]


def test_t_test_matches_scipy():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(5, 12))
    p = paired_t_pvalues(x)
    q = paired_t_pvalues(x, "independent")
    for a in range(5):
        assert p[a, a] == 1.0
        for b in range(a + 1, 5):
            assert p[a, b] == p[b, a] == pytest.approx(stats.ttest_rel(x[a], x[b]).pvalue, rel=1e-10)
            assert q[a, b] == pytest.approx(stats.ttest_ind(x[a], x[b]).pvalue, rel=1e-10)
    assert paired_t_pvalues(np.ones((2, 4)))[0, 1] == 1.0  # identical: no evidence


def test_reordering_table_trec8(trec8_matrix):
    m = trec8_matrix
    ap = average_precision(m, None)
    # eq. 3 gives ASL 0 on TREC-8 (READWARE returns only relevant documents for 6 topics),
    # and the precision-space steps cannot take 1/0
    paper = atomized_search_lengths(m)
    assert (paper.values == 0).any()
    with pytest.raises(ValueError, match="plus_one"):
        reordering_table(ap, per_doc_asl=paper.values, doc_topic=paper.topic)
    found = atomized_search_lengths(m, unretrieved="plus_one")
    per_topic = asl(m, asl_unretrieved="plus_one")
    table = reordering_table(ap, per_topic, per_doc_asl=found.values, doc_topic=found.topic, runs=m.runs)
    assert table["step"].tolist() == ["atomize_P", "harmonic_mean_within_topic",
                                      "harmonic_mean_across_topics", "cumulative"]
    assert table["old"].tolist() == ["MAP", "atomized_P", "harmonic_within_topic", "MAP"]
    assert table["new"].tolist() == ["atomized_P", "harmonic_within_topic", "harmonic_across_topics", "ASL"]
    assert table["kendall_tau"].between(-1, 1).all()
    assert table["delta_sort_max"].between(0, 100).all()
    assert (table["n_runs"] == 129).all() and (table["n_topics"] == 50).all()
    # 1/ASL in precision space is below AP for almost every system (the paper's 0.004-0.06x)
    cumulative = table.set_index("step").loc["cumulative"]
    assert 0 < cumulative["delta_value_mean"] < 0.1
    # per-topic ASL alone: the cumulative row, identical
    alone = reordering_table(ap, per_topic, runs=m.runs)
    pd.testing.assert_series_equal(alone.iloc[0], table.iloc[3], check_names=False)
    # the cumulative tau is the tau of MAP against -ASL (equivalently 1/ASL: the harmonic
    # mean across topics orders systems as ASL does)
    map_means, asl_means = ap.mean(axis=1), per_topic.mean(axis=1)
    assert cumulative["kendall_tau"] == pytest.approx(stats.kendalltau(map_means, -asl_means).statistic, abs=1e-12)
    assert cumulative["kendall_tau"] == pytest.approx(stats.kendalltau(map_means, 1 / asl_means).statistic, abs=1e-12)
    with pytest.raises(ValueError, match="topic means"):
        reordering_table(ap, per_topic + 1, per_doc_asl=found.values, doc_topic=found.topic)
