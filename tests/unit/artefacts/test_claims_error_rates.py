"""The claims table's error-rate rows (issue 41), from test_error_rates.csv as the pipeline
writes it: per collection, measure and paired test whether the two-tailed type I error
stays within [0.8 alpha, 1.2 alpha] at 0.05 and from which topic-set size it does not;
per comparison and test, the rareness measure's type I rate and power beside its
baseline's; a user's test among them with no other change."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_claims import COMPARISONS, synthetic_tables

from irmeta.artefacts.claims import claims_caption, claims_table, claims_wide
from irmeta.artefacts.figures.claims import plot_claims
from irmeta.metaeval.test_error_rates import COLUMNS
from irmeta.pipeline.stored_scores import read_table

SIZES = (25, 50, 100)
# Two-tailed type I rates at alpha 0.05 by test and topic-set size, for every measure but
# P_rareness's: paired_t keeps its level; wilcoxon leaves the band from 50 topics (the
# paper's inflation); "never" (a user's test, never significant) is below it from 25.
TYPE_1 = {"paired_t": (0.050, 0.049, 0.052), "wilcoxon": (0.055, 0.072, 0.097), "never": (0.0, 0.0, 0.0)}
# P_rareness(alpha=1)@100's paired t-test errs too often from 100 topics only.
RARENESS_T = (0.051, 0.058, 0.065)
# Power at delta 0.05 and 50 topics: the rareness measures' against their baselines'.
POWER = {"P@100": 0.40, "P_rareness(alpha=1)@100": 0.45, "AP@100": 0.60, "AP_rareness(alpha=1)@100": 0.55}
MEASURES = tuple(POWER)


def _type_1(measure: str, test: str, i: int) -> float:
    return RARENESS_T[i] if (measure, test) == ("P_rareness(alpha=1)@100", "paired_t") else TYPE_1[test][i]


def rates_table(tmp_path) -> pd.DataFrame:
    rows = []
    for measure in MEASURES:
        for i, n in enumerate(SIZES):
            for test in TYPE_1:
                for alpha in (0.01, 0.05):
                    rate = _type_1(measure, test, i) * alpha / 0.05
                    rows.append([measure, n, test, 2, "none", 2, alpha, np.nan, rate, "type_1", 1000, 0.007])
                    rows.append([measure, n, test, 1, "none", 2, alpha, np.nan, 0.5, "type_1", 1000, 0.016])
                    for delta in (0.01, 0.05, 0.1):
                        power = 0.0 if test == "never" else POWER[measure] * delta / 0.05 * (1 + (n - 50) / 100)
                        rows.append([measure, n, test, 2, "none", 2, alpha, delta, power, "power", 1000, 0.01])
                        rows.append([measure, n, test, 2, "none", 2, alpha, delta, 0.001, "type_3", 1000, 0.001])
                rows.append([measure, n, "paired_t", 2, "holm", 5, 0.05, np.nan, 0.04, "familywise_type_1", 1000,
                             0.006])
    path = tmp_path / "test_error_rates.csv"
    pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(path, index=False, lineterminator="\n")
    return read_table(path)


def test_nominal_level_rows_say_which_test_keeps_its_level_and_from_which_size_it_does_not(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["test_error_rates"] = rates_table(tmp_path)
    two = synthetic_tables(tmp_path, "two")  # the experiment off there: no rows
    table = claims_table({"One": one, "Two": two}, COMPARISONS)
    rows = table[table["claim"] == "nominal_level"]
    assert set(rows["collection"]) == {"One"}
    assert len(rows) == len(MEASURES) * len(TYPE_1)
    assert list(rows["protocol"].drop_duplicates()) == ["paired_t", "wilcoxon", "never"]  # registry's, then yours
    by = {(r.measure, r.alpha, r.protocol): r for r in rows.itertuples()}
    t = by[("AP@100", "", "paired_t")]
    assert bool(t.holds) and np.isnan(t.value) and t.measure_value == pytest.approx(0.052) and t.threshold == 0.05
    w = by[("AP_rareness@100", "1", "wilcoxon")]
    assert not w.holds and w.value == 50 and w.measure_value == pytest.approx(0.072)
    never = by[("P@100", "", "never")]
    assert not never.holds and never.value == 25 and never.measure_value == 0
    late = by[("P_rareness@100", "1", "paired_t")]
    assert not late.holds and late.value == 100 and late.measure_value == pytest.approx(0.065)
    assert "[0.04, 0.06] at alpha 0.05 at every topic-set size (25, 50, 100)" in t.criterion
    wide = claims_wide(table, ["One", "Two"])
    cells = wide.loc[wide["claim"] == "nominal_level", "One"].tolist()
    assert "0.072 from 50 topics (no)" in cells and "0.052 (yes)" in cells
    assert (wide.loc[wide["claim"] == "nominal_level", "Two"] == "").all()


@pytest.mark.slow
def test_each_comparison_shows_both_measures_type_1_rate_and_power_under_each_test(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["test_error_rates"] = rates_table(tmp_path)
    table = claims_table({"One": one}, COMPARISONS)
    for claim in ("type_1_error", "power"):
        rows = table[table["claim"] == claim]
        assert len(rows) == len(COMPARISONS) * len(TYPE_1), claim
        assert set(rows["alpha"]) == {"1"} and set(rows["baseline"]) == {"P@100", "AP@100"}
    type_1 = {(r.measure, r.protocol): r for r in table[table["claim"] == "type_1_error"].itertuples()}
    t = type_1[("P_rareness@100", "paired_t")]  # at 50 topics, the size nearest 50
    assert t.measure_value == pytest.approx(0.058) and t.baseline_value == pytest.approx(0.049)
    assert t.value == pytest.approx(0.009) and bool(t.holds) and t.threshold == pytest.approx(0.06)
    assert not type_1[("AP_rareness@100", "wilcoxon")].holds  # 0.072 > 1.2 alpha
    power = {(r.measure, r.protocol): r for r in table[table["claim"] == "power"].itertuples()}
    p = power[("P_rareness@100", "paired_t")]  # delta 0.05, 50 topics
    assert p.measure_value == pytest.approx(0.45) and p.baseline_value == pytest.approx(0.40) and bool(p.holds)
    assert not power[("AP_rareness@100", "paired_t")].holds
    assert not power[("AP_rareness@100", "never")].holds  # 0 vs 0: no gain
    assert "alpha 0.05, 50 topics, delta 0.05" in p.criterion
    wide = claims_wide(table, ["One"])
    assert "0.450 vs 0.400 (yes)" in wide.loc[wide["claim"] == "power", "One"].tolist()
    caption = claims_caption(table)
    assert "Nominal level" in caption and "Power (simulated)" in caption
    paths = plot_claims(table, tmp_path / "claims.png")
    assert all(p.stat().st_size > 0 for p in paths)


def test_a_rates_table_without_a_column_the_claims_read_is_refused(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["test_error_rates"] = rates_table(tmp_path).drop(columns="kind")
    with pytest.raises(ValueError, match="test_error_rates table has no column kind"):
        claims_table({"One": one}, COMPARISONS)
