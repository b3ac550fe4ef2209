"""irmeta.metaeval.stats.anova: the two-way ANOVA without replication in closed form,
checked against statsmodels' least-squares fit (``anova_lm(ols(...))``, type I) on real
TREC-8 score matrices and random ones, and on hand-built degenerate matrices."""

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
from irmeta.measures.averaging import evaluate
from irmeta.metaeval.stats.anova import ANOVA_COLUMNS, residual_variance, two_way_anova

RTOL = 1e-9


@pytest.fixture(scope="module")
def trec8_scores(shared_data) -> dict[str, np.ndarray]:
    """AP@100 and P@100 of every 8th TREC-8 run (17 runs x 50 topics)."""
    folder = shared_data / "trec8_adhoc"
    files = sorted((folder / "runs").glob("*.gz"))[::8]
    matrix = relevance_matrix(read_runs(files, depth=100), read_qrels(folder / "qrels.txt"), depth=100)
    return {str(k): v for k, v in evaluate(matrix, ["AP@100", "P@100"]).items()}


def statsmodels_anova(scores: np.ndarray) -> pd.DataFrame:
    """The reference: OLS of score on system and topic dummies, type I ANOVA table."""
    n_runs, n_topics = scores.shape
    data = pd.DataFrame({"score": scores.reshape(-1), "system": np.repeat(np.arange(n_runs), n_topics),
                         "topic": np.tile(np.arange(n_topics), n_runs)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns on near-singular toy designs
        return anova_lm(smf.ols("score ~ C(system) + C(topic)", data).fit())


def assert_matches_statsmodels(scores: np.ndarray) -> None:
    ours = two_way_anova(scores).set_index("source")
    ref = statsmodels_anova(scores)
    for source, row in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
        np.testing.assert_allclose(ours.loc[source, "ss"], ref.loc[row, "sum_sq"], rtol=RTOL, atol=1e-300)
        assert ours.loc[source, "df"] == ref.loc[row, "df"]
        np.testing.assert_allclose(ours.loc[source, "ms"], ref.loc[row, "mean_sq"], rtol=RTOL, atol=1e-300)
    for source, row in (("system", "C(system)"), ("topic", "C(topic)")):
        np.testing.assert_allclose(ours.loc[source, "f"], ref.loc[row, "F"], rtol=RTOL)
        # p is steep in F (d log p / d log F ~ F df / 2): F's 1e-12 relative error is
        # amplified, so p agrees to 1e-9 relative once F does to ~1e-12
        np.testing.assert_allclose(ours.loc[source, "p"], ref.loc[row, "PR(>F)"], rtol=RTOL, atol=1e-300)
    total = ours.loc["total"]
    np.testing.assert_allclose(total["ss"], ref["sum_sq"].sum(), rtol=RTOL)
    assert total["df"] == ref["df"].sum()
    np.testing.assert_allclose(residual_variance(scores), ref.loc["Residual", "mean_sq"], rtol=RTOL)


@pytest.mark.slow
@pytest.mark.parametrize("measure", ["AP@100", "P@100"])
def test_two_way_anova_equals_statsmodels_on_trec8(trec8_scores, measure):
    scores = trec8_scores[measure]
    assert scores.shape == (17, 50)
    assert_matches_statsmodels(scores)
    table = two_way_anova(scores).set_index("source")
    assert table.loc["system", "p"] < 1e-6  # TREC-8 runs differ: the test must see it


@pytest.mark.slow
@pytest.mark.parametrize("seed,shape", [(0, (2, 2)), (1, (3, 7)), (2, (12, 5)), (3, (30, 40)), (4, (2, 60))])
def test_two_way_anova_equals_statsmodels_on_random_matrices(seed, shape):
    rng = np.random.default_rng(seed)
    scores = rng.beta(2, 5, shape[0])[:, None] + rng.normal(0, 0.2, shape[1])[None, :] + rng.normal(0, 0.1, shape)
    assert_matches_statsmodels(scores)


def test_table_layout_and_omega_squared_by_definition(trec8_scores):
    scores = trec8_scores["AP@100"]
    table = two_way_anova(scores)
    assert tuple(table.columns) == ANOVA_COLUMNS
    assert table["source"].tolist() == ["system", "topic", "residual", "total"]
    t = table.set_index("source")
    n_runs, n_topics = scores.shape
    grand = scores.mean()
    ss_total = ((scores - grand) ** 2).sum()
    ms_e = t.loc["residual", "ms"]
    # ss add up, and the residual is summed from residuals, not by subtraction
    np.testing.assert_allclose(t.loc[["system", "topic", "residual"], "ss"].sum(), ss_total, rtol=1e-12)
    for source, ss, df in (("system", n_topics * ((scores.mean(axis=1) - grand) ** 2).sum(), n_runs - 1),
                           ("topic", n_runs * ((scores.mean(axis=0) - grand) ** 2).sum(), n_topics - 1)):
        np.testing.assert_allclose(t.loc[source, "omega_squared"], (ss - df * ms_e) / (ss_total + ms_e), rtol=1e-12)
        assert 0 < t.loc[source, "omega_squared"] < 1
    assert t.loc[["residual", "total"], ["f", "p", "omega_squared"]].isna().all().all()
    assert np.isnan(t.loc["total", "ms"])


def test_additive_matrix_has_no_residual():
    """x_ij = run_i + topic_j exactly (dyadic values, so sums are exact): SS_E = 0, the
    system and topic F are d/0, left missing (no table holds an infinity) with p = 0, a
    factor without variation has F = 0."""
    runs, topics = np.array([0.0, 0.25, 0.5]), np.array([0.0, 0.125, 0.5, 0.75])
    table = two_way_anova(runs[:, None] + topics[None, :]).set_index("source")
    assert table.loc["residual", "ss"] == 0
    assert residual_variance(runs[:, None] + topics[None, :]) == 0
    assert np.isnan(table.loc["system", "f"]) and table.loc["system", "p"] == 0
    flat = two_way_anova(np.zeros((3, 1)) + topics[None, :]).set_index("source")
    assert flat.loc["system", "f"] == 0 and flat.loc["system", "p"] == 1
    assert np.isnan(flat.loc["topic", "f"]) and flat.loc["topic", "p"] == 0
    constant = two_way_anova(np.full((3, 4), 0.5)).set_index("source")
    assert constant.loc["system", "omega_squared"] == 0 and constant.loc["topic", "p"] == 1


def test_rejects_too_small_matrices():
    with pytest.raises(ValueError):
        two_way_anova(np.zeros((1, 5)))
    with pytest.raises(ValueError):
        residual_variance(np.zeros((4, 1)))
    with pytest.raises(ValueError):
        two_way_anova(np.array([[0.1, np.nan], [0.2, 0.3]]))
