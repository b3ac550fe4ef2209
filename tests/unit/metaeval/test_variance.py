"""irmeta.metaeval.variance: anova.csv, topic_set_size.csv and
minimum_detectable_difference.csv of the tabulate_variance rule, on TREC-8 scores,
against statsmodels' anova_lm and the library's topic set size functions (Sakai 2016);
and the experiments.topic_set_size section of the configuration."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import score_arrays
from irmeta.metaeval.stats.anova import residual_variance
from irmeta.metaeval.stats.topic_set_size import anova_topics, paired_t_power, paired_t_topics
from irmeta.metaeval.variance import (
    minimum_detectable_difference_table,
    residual_variances,
    topic_set_size_table,
    variance_tables,
)
from irmeta.pipeline.config_checks import validate_config
from irmeta.pipeline.config_schema import ConfigError

DESIGN = {"alpha_level": 0.05, "beta": 0.2, "min_differences": [0.02, 0.05, 0.1], "systems": [2, 10, 50]}
STATSMODELS_ROWS = {"system": "C(system)", "topic": "C(topic)", "residual": "Residual"}


@pytest.fixture(scope="module")
def scores(shared_data):
    """P@100, AP@100 and P_rareness@100 at alphas 0.5 and 1 of every 4th TREC-8 run (33 x 50)."""
    folder = shared_data / "trec8_adhoc"
    files = sorted((folder / "runs").glob("*.gz"))[::4]
    matrix = relevance_matrix(read_runs(files, depth=100), read_qrels(folder / "qrels.txt"), depth=100)
    return score_arrays(matrix, ["P@100", "AP@100", "P_rareness@100"], alphas=[0.5, 1], averaging=["all"])


@pytest.fixture(scope="module")
def tables(scores) -> dict[str, pd.DataFrame]:
    return variance_tables(scores, **DESIGN)


def _statsmodels(values: np.ndarray) -> pd.DataFrame:
    n_runs, n_topics = values.shape
    data = pd.DataFrame({"score": values.reshape(-1), "system": np.repeat(np.arange(n_runs), n_topics),
                         "topic": np.tile(np.arange(n_topics), n_runs)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anova_lm(smf.ols("score ~ C(system) + C(topic)", data).fit())


def _keys(scores) -> list[tuple[str, str | None]]:
    return list(zip(scores.measures, scores.alphas))


@pytest.mark.slow
def test_the_tables_have_the_issues_columns(tables):
    assert list(tables["anova"].columns) == ["measure", "alpha", "source", "ss", "df", "ms", "f", "p",
                                             "omega_squared"]
    assert list(tables["topic_set_size"].columns) == ["measure", "alpha", "design", "alpha_level", "beta",
                                                      "min_difference", "systems", "n_topics", "variance_e"]
    assert list(tables["minimum_detectable_difference"].columns) == ["measure", "alpha", "n_topics", "alpha_level",
                                                                     "beta", "variance_e", "min_difference"]


@pytest.mark.slow
def test_anova_rows_equal_statsmodels_anova_lm(scores, tables):
    anova = tables["anova"]
    assert len(anova) == 4 * len(_keys(scores))
    for i, (measure, alpha) in enumerate(_keys(scores)):
        rows = anova[(anova["measure"] == measure) & (anova["alpha"].fillna("") == (alpha or ""))].set_index("source")
        assert list(rows.index) == ["system", "topic", "residual", "total"]
        ref = _statsmodels(scores.per_topic[i])
        for source, name in STATSMODELS_ROWS.items():
            for ours, theirs in (("ss", "sum_sq"), ("df", "df"), ("ms", "mean_sq")):
                np.testing.assert_allclose(rows.loc[source, ours], ref.loc[name, theirs], rtol=1e-9)
        for source in ("system", "topic"):
            name = STATSMODELS_ROWS[source]
            np.testing.assert_allclose(rows.loc[source, "f"], ref.loc[name, "F"], rtol=1e-9)
            np.testing.assert_allclose(rows.loc[source, "p"], ref.loc[name, "PR(>F)"], rtol=1e-6, atol=1e-300)
            ss, df, ms_e = rows.loc[source, "ss"], rows.loc[source, "df"], rows.loc["residual", "ms"]
            expected = (ss - df * ms_e) / (rows.loc["total", "ss"] + ms_e)
            np.testing.assert_allclose(rows.loc[source, "omega_squared"], expected, rtol=1e-12)
        np.testing.assert_allclose(rows.loc["total", "ss"], ref["sum_sq"].sum(), rtol=1e-9)


def test_topic_set_size_rows_equal_the_library(scores, tables):
    sizes = tables["topic_set_size"]
    assert len(sizes) == len(_keys(scores)) * 3 * (1 + 3)
    assert set(sizes.loc[sizes["design"] == "paired_t", "systems"]) == {2}
    for i, (measure, alpha) in enumerate(_keys(scores)):
        v_e = residual_variance(scores.per_topic[i])
        mine = sizes[(sizes["measure"] == measure) & (sizes["alpha"].fillna("") == (alpha or ""))]
        assert (mine["variance_e"] == v_e).all()
        for row in mine.itertuples():
            expected = (paired_t_topics(0.05, 0.2, row.min_difference, v_e) if row.design == "paired_t"
                        else anova_topics(0.05, 0.2, row.min_difference, v_e, row.systems))
            assert row.n_topics == expected, row


def test_more_systems_or_a_smaller_difference_need_more_topics(tables):
    sizes = tables["topic_set_size"]
    anova = sizes[sizes["design"] == "anova"]
    by_systems = anova.pivot_table(index=["measure", anova["alpha"].fillna(""), "min_difference"],
                                   columns="systems", values="n_topics")
    assert (by_systems[2] <= by_systems[10]).all() and (by_systems[10] <= by_systems[50]).all()
    paired = sizes[sizes["design"] == "paired_t"]
    by_difference = paired.pivot_table(index=["measure", paired["alpha"].fillna("")], columns="min_difference",
                                       values="n_topics")
    assert (by_difference[0.02] > by_difference[0.05]).all() and (by_difference[0.05] > by_difference[0.1]).all()


def test_the_minimum_detectable_difference_is_detected_and_1e6_less_is_not(scores, tables):
    detectable = tables["minimum_detectable_difference"]
    assert len(detectable) == len(_keys(scores))
    assert (detectable["n_topics"] == 50).all()
    for row, block in zip(detectable.itertuples(), scores.per_topic):
        assert row.variance_e == residual_variance(block)
        assert paired_t_power(50, 0.05, row.min_difference, row.variance_e) >= 0.8
        assert paired_t_power(50, 0.05, row.min_difference - 1e-6, row.variance_e) < 0.8
        # at 50 topics the paired design needs no more than 50 topics for this difference
        assert paired_t_topics(0.05, 0.2, row.min_difference, row.variance_e) <= 50


def test_an_exactly_additive_matrix_detects_everything_from_two_topics():
    values = np.add.outer([0.1, 0.3, 0.2], [0.0, 0.4, 0.5, 0.1])  # V_E = 0
    variances = pd.DataFrame({"measure": ["X"], "alpha": [None], "n_topics": [4],
                              "variance_e": [residual_variance(values)]})
    assert variances["variance_e"].iloc[0] == pytest.approx(0.0, abs=1e-30)
    variances["variance_e"] = 0.0
    assert set(topic_set_size_table(variances, 0.05, 0.2, [0.05], [10])["n_topics"]) == {2}
    assert minimum_detectable_difference_table(variances, 0.05, 0.2)["min_difference"].iloc[0] == 0.0


def test_residual_variances_name_each_block(scores):
    variances = residual_variances(scores)
    assert list(zip(variances["measure"], variances["alpha"].fillna(""))) == [(m, a or "") for m, a in _keys(scores)]


def test_the_configuration_defaults_are_the_issues():
    config = validate_config({"measures": ["P@100", "AP@100"],
                              "experiments": {"comparisons": [{"measure": "AP@100", "baseline": "P@100"}],
                                              "swap": {"measures": []}}})
    assert config["experiments"]["topic_set_size"] == DESIGN


def test_the_configuration_refuses_a_power_at_or_below_alpha():
    experiments = {"comparisons": [{"measure": "AP@100", "baseline": "P@100"}], "swap": {"measures": []},
                   "topic_set_size": {"alpha_level": 0.5, "beta": 0.5}}
    with pytest.raises(ConfigError, match="topic_set_size"):
        validate_config({"measures": ["P@100", "AP@100"], "experiments": experiments})
    with pytest.raises(ValueError, match="systems"):
        validate_config({"measures": ["P@100", "AP@100"],
                         "experiments": dict(experiments, topic_set_size={"systems": [1]})})
