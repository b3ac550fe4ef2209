"""The claims table's reusability rows: a rareness measure's leave-one-group-out tau beside
its baseline's, per rarity rule, from reusability_summary.csv as the pipeline writes it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_claims import COMPARISONS, synthetic_tables

from irmeta.artefacts.claims import claims_caption, claims_table, claims_wide
from irmeta.artefacts.figures.claims import plot_claims
from irmeta.metaeval.reusability_tables import SUMMARY_COLUMNS
from irmeta.pipeline.stored_scores import read_table

BASELINE_TAU = {"P@100": 0.95, "AP@100": 0.97}
# tau of each rareness measure per rule at alpha 1 (the largest): P's frozen is 0.011 lower
# than its baseline's (fails), joined 0.009 lower (holds); AP's both higher (hold).
RARENESS_TAU = {("P_rareness@100", "frozen"): 0.939, ("P_rareness@100", "joined"): 0.941,
                ("AP_rareness@100", "frozen"): 0.98, ("AP_rareness@100", "joined"): 0.975}


def summary_table(tmp_path) -> pd.DataFrame:
    rows = [[m, "", "none", 20, tau, -0.01, 1, 1.0, 0] for m, tau in BASELINE_TAU.items()]
    for (measure, rule), tau in RARENESS_TAU.items():
        for alpha in ("0", "0.5", "1", "1/R"):
            shift = 0.0 if alpha == "1" else 0.05  # only alpha 1's values decide
            rows.append([measure, alpha, rule, 20, min(tau + shift, 1.0), -0.01, 2, 1.0, 1])
    path = tmp_path / "reusability_summary.csv"
    pd.DataFrame(rows, columns=SUMMARY_COLUMNS).to_csv(path, index=False, lineterminator="\n")
    return read_table(path)


@pytest.mark.slow
def test_reusability_rows(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["reusability_summary"] = summary_table(tmp_path)
    two = synthetic_tables(tmp_path, "two")  # no reusability table: no rows
    table = claims_table({"One": one, "Two": two}, COMPARISONS)
    rows = table[table["claim"] == "reusability"]
    assert set(rows["collection"]) == {"One"}
    assert set(rows["protocol"]) == {"leave_one_out+frozen", "leave_one_out+joined"}
    assert len(rows) == 4 and set(rows["alpha"]) == {"1"}
    for row in rows.itertuples():
        rule = row.protocol.split("+")[1]
        tau, base = RARENESS_TAU[(row.measure, rule)], BASELINE_TAU[row.baseline]
        assert row.measure_value == pytest.approx(tau) and row.baseline_value == pytest.approx(base)
        assert row.value == pytest.approx(tau - base)
        assert row.threshold == -0.01
        assert bool(row.holds) == (tau - base >= -0.01)
    held = dict(zip(zip(rows["measure"], rows["protocol"]), rows["holds"]))
    assert not held[("P_rareness@100", "leave_one_out+frozen")]
    assert held[("P_rareness@100", "leave_one_out+joined")]
    wide = claims_wide(table, ["One", "Two"])
    assert (wide.loc[wide["claim"] == "reusability", "Two"] == "").all()
    assert "Reusability" in claims_caption(table)
    paths = plot_claims(table, tmp_path / "claims.png")
    assert all(p.stat().st_size > 0 for p in paths)


def test_a_summary_without_tau_is_refused(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["reusability_summary"] = summary_table(tmp_path).drop(columns="kendall_tau")
    with pytest.raises(ValueError, match="reusability_summary table has no column kendall_tau"):
        claims_table({"One": one}, COMPARISONS)


def test_undefined_tau_holds_nothing(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    summary = summary_table(tmp_path)
    summary.loc[summary["measure"] == "P@100", "kendall_tau"] = np.nan
    one["reusability_summary"] = summary
    table = claims_table({"One": one}, COMPARISONS)
    rows = table[(table["claim"] == "reusability") & (table["baseline"] == "P@100")]
    assert len(rows) == 2 and rows["holds"].isna().all()


@pytest.mark.slow
def test_reusability_panel_draws_bars_from_zero_at_a_readable_scale(tmp_path):
    """A 1.3e-4 gain is a flat bar from 0, the threshold a dashed line, the axis at least
    MIN_SPAN wide; the figure that holds the panel is drawn (opened, not blank)."""
    from matplotlib.figure import Figure

    from figure_checks import assert_drawn
    from irmeta.artefacts.figures.claims import MIN_SPAN, _least_span_row, _panel

    one = synthetic_tables(tmp_path, "one")
    summary = summary_table(tmp_path)
    summary.loc[summary["measure"] == "P_rareness@100", "kendall_tau"] = BASELINE_TAU["P@100"] + 1.3e-4
    one["reusability_summary"] = summary
    table = claims_table({"One": one}, COMPARISONS)
    rows = table[(table["claim"] == "reusability") & (table["measure"] == "P_rareness@100")]
    assert rows["value"].to_numpy() == pytest.approx([1.3e-4, 1.3e-4])
    ax = Figure().subplots()
    protocols = list(dict.fromkeys(rows["protocol"]))
    _panel(ax, rows, "reusability", "P_rareness@100 vs P@100", ["One"], {"One": "C0"}, protocols)
    _least_span_row([ax], "reusability", rows, protocols)
    bars = [patch for patch in ax.patches]
    assert len(bars) == 2 and all(bar.get_x() == 0 for bar in bars)  # horizontal bars from 0
    assert all(bar.get_width() == pytest.approx(1.3e-4) for bar in bars)
    low, high = ax.get_xlim()
    assert high - low >= MIN_SPAN["reusability"] and low < -0.01 < high
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [0.0, -0.01]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["frozen rarity", "joined rarity"]
    plot_claims(table, tmp_path / "claims.png")
    assert_drawn(tmp_path / "claims.png")
