"""The claims against the collection properties: the property chosen is the one whose
ranks follow the claim's (Spearman, against scipy), ties are named, the figure is drawn,
and claims.md carries the properties table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from irmeta.artefacts.claims import COLUMNS, write_claims
from irmeta.artefacts.figures.properties import CHOICE_COLUMNS, best_properties, plot_claims_vs_properties
from irmeta.campaign.properties import PROPERTY_COLUMNS

COLLECTIONS = ["A", "B", "C", "D"]


def properties() -> pd.DataFrame:
    frame = pd.DataFrame({c: np.nan for c in PROPERTY_COLUMNS}, index=range(4))
    frame["collection"] = COLLECTIONS
    frame["runs"] = [40, 10, 30, 20]
    frame["topics"] = [50, 50, 50, 50]  # constant: never a candidate
    frame["mean_rarity"] = [0.1, 0.4, 0.2, 0.3]
    frame["judged_per_topic_mean"] = [1.0, 4.0, 3.0, 2.0]
    return frame


def claims(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = []
    for claim, ys in values.items():
        for collection, y in zip(COLLECTIONS, ys):
            rows.append({"claim": claim, "protocol": "p", "measure": "M", "baseline": "B", "alpha": "1",
                         "collection": collection, "value": y, "baseline_value": np.nan, "measure_value": np.nan,
                         "threshold": 0.0, "criterion": "gain above 0", "holds": y > 0})
    return pd.DataFrame(rows, columns=COLUMNS)


@pytest.mark.slow
def test_best_property_by_spearman(tmp_path):
    table = claims({"rank_agreement": [0.9, 0.6, 0.8, 0.7],   # falls with mean_rarity exactly
                    "stability": [0.1, 0.3, 0.4, 0.2]})       # follows judged_per_topic_mean exactly
    chosen = best_properties(table, properties()).set_index("claim")
    assert list(chosen.reset_index().columns) == CHOICE_COLUMNS
    assert chosen.loc["rank_agreement", "property"] == "runs"  # runs reverses mean_rarity's order
    assert chosen.loc["rank_agreement", "tied_with"] == "mean_rarity"
    assert chosen.loc["rank_agreement", "mean_abs_spearman"] == pytest.approx(1.0)
    assert chosen.loc["stability", "property"] == "judged_per_topic_mean"
    want = abs(spearmanr(properties()["runs"], [0.1, 0.3, 0.4, 0.2]).statistic)
    assert want < 1  # runs orders stability less well
    paths = plot_claims_vs_properties(table, properties(), tmp_path / "f.png", tmp_path / "f.pdf")
    assert paths.equals(best_properties(table, properties()))
    assert (tmp_path / "f.png").stat().st_size > 0 and (tmp_path / "f.pdf").stat().st_size > 0
    from figure_checks import assert_drawn

    assert_drawn(tmp_path / "f.png")


@pytest.mark.slow
def test_discriminative_power_is_ordered_by_its_share_of_the_run_pairs(tmp_path):
    from figure_checks import assert_drawn

    runs = properties()["runs"].to_numpy()
    pairs = runs * (runs - 1) / 2  # 780, 45, 435, 190
    shares = np.array([0.01, 0.04, 0.03, 0.02])  # follows judged_per_topic_mean exactly
    counts = np.round(shares * pairs)  # 8, 2, 13, 4: a count orders them otherwise
    assert abs(spearmanr(counts, properties()["judged_per_topic_mean"]).statistic) < 1
    table = claims({"discriminative_power": list(counts)}).assign(pairs_share=list(counts / pairs))
    chosen = best_properties(table, properties()).set_index("claim")
    assert chosen.loc["discriminative_power", "property"] == "judged_per_topic_mean"
    assert chosen.loc["discriminative_power", "mean_abs_spearman"] == pytest.approx(1.0)
    plot_claims_vs_properties(table, properties(), tmp_path / "f.png")
    assert_drawn(tmp_path / "f.png")


def test_claims_md_carries_the_properties(tmp_path):
    table = claims({"stability": [0.1, 0.3, 0.4, 0.2]})
    props = properties()
    props[["runs", "topics"]] = props[["runs", "topics"]].astype("Int64")
    paths = write_claims(table, tmp_path, collections=COLLECTIONS, properties=props)
    md = next(p for p in paths if p.suffix == ".md").read_text()
    assert "Collection properties" in md and "| collection | runs |" in md
    assert "| A | 40 |" in md
    csv = next(p for p in paths if p.suffix == ".csv").read_text()
    assert "Collection properties" not in csv  # the tidy claims alone


def test_end_of_run_summary_names_the_properties():
    from irmeta.artefacts.summary import run_summary

    props = properties()
    props.loc[0, ["relevant_per_topic_mean", "judged_per_topic_mean", "unique_run_relevant_share"]] = [2.5, 10.0, 0.25]
    text = run_summary({"a": ("A", {}), "b": ("B", {})}, paper=None, report="r", properties=props)
    lines = text.splitlines()
    first = lines[lines.index("A:") + 1]
    assert first.startswith("  properties: 40 runs, 50 topics, 2.5 relevant / 10.0 judged per topic, 25.0% of")
    assert "mean R(d) 0.100" in first and "groups" not in first  # unknown groups left out
    assert lines[lines.index("B:") + 1].startswith("  properties: 10 runs")
