"""irmeta.artefacts.claims and its figure: the paper's claims side by side per collection.

Synthetic tables carry the pipeline's exact column layout (headers copied from the
``results/<c>/tables/*.csv`` it writes) and go through CSV as the pipeline reads them;
one test computes the tables of a TREC-8 subset through the public API.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.artefacts.claims import COLUMNS, WIDE_KEYS, claims_table, claims_wide, write_claims
from irmeta.artefacts.figures.claims import plot_claims
from irmeta.pipeline.stored_scores import read_table

KENDALL_HEADER = ["measure", "baseline", "alpha", "tau", "tau_ap", "n_runs", "averaging"]
POWER_HEADER = ["measure", "alpha", "method", "level", "significant_pairs", "total_pairs", "permutations"]
STABILITY_HEADER = ["measure", "alpha", "fuzziness_mode", "fuzziness", "topics_per_trial", "trials", "seed",
                    "stability"]
COMPARISONS = [{"measure": "P_rareness@100", "baseline": "P@100"},
               {"measure": "AP_rareness@100", "baseline": "AP@100"}]
ALPHAS = ["0", "0.5", "1", "1/R"]
METHODS = ("paper_pairwise", "tukey_hsd", "randomised_tukey_hsd")
FUZZINESS = (("absolute", 0.05), ("relative", 0.05))


def _pairs(measure: str, alpha: str, method: str, level: float, shift: int) -> int:
    """Significant pairs: the baseline's, plus a gain that grows with alpha and differs by method."""
    base = {"P@100": 100, "AP@100": 120}[measure.replace("_rareness", "")] - (20 if level == 0.01 else 0)
    if not alpha:
        return base
    step = {"paper_pairwise": 30, "tukey_hsd": -5, "randomised_tukey_hsd": 2}[method] + shift
    return base + round(step * (0.5 if alpha == "1/R" else float(alpha)))


def _stability(measure: str, alpha: str, mode: str) -> float:
    base = {"P@100": 0.5, "AP@100": 0.6}[measure.replace("_rareness", "")] + (0.3 if mode == "relative" else 0.0)
    if not alpha:
        return base
    gain = 0.125 if mode == "absolute" else -0.0625
    return base + gain * (0.5 if alpha == "1/R" else float(alpha))


def synthetic_tables(tmp_path, name: str, *, shift: int = 0, taus: dict | None = None,
                     methods=METHODS, fuzziness=FUZZINESS) -> dict[str, pd.DataFrame]:
    """One collection's three tables, written as the pipeline writes them and read back."""
    taus = taus or {"0": 1.0, "0.5": 0.95, "1": 0.91, "1/R": 0.97}
    kendall, power, stability = [], [], []
    for comparison in COMPARISONS:
        measure, baseline = comparison["measure"], comparison["baseline"]
        for a in ALPHAS:
            kendall.append([measure, baseline, a, taus[a], taus[a] - 0.02, 20, "all_topics"])
        for m, alphas in ((baseline, [""]), (measure, ALPHAS)):
            for a in alphas:
                for method in methods:
                    for level in (0.05, 0.01):
                        perms = 200 if method == "randomised_tukey_hsd" else ""
                        power.append([m, a, method, level, _pairs(m, a, method, level, shift), 190, perms])
                for mode, value in fuzziness:
                    stability.append([m, a, mode, value, 10, 200, 20230402, _stability(m, a, mode)])
    tables = {}
    for table, header, rows in (("kendall_tau", KENDALL_HEADER, kendall), ("discriminative_power", POWER_HEADER, power),
                                ("stability", STABILITY_HEADER, stability)):
        path = tmp_path / name / f"{table}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows, columns=header).to_csv(path, index=False, lineterminator="\n")
        tables[table] = read_table(path)
    return tables


@pytest.fixture
def two_collections(tmp_path):
    return {"One": synthetic_tables(tmp_path, "one"), "Two": synthetic_tables(tmp_path, "two", shift=-40)}


def _row(table: pd.DataFrame, claim: str, protocol: str, measure: str, collection: str, alpha: str = "1"):
    rows = table[(table["claim"] == claim) & (table["protocol"] == protocol) & (table["measure"] == measure)
                 & (table["collection"] == collection) & (table["alpha"] == alpha)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_gains_are_the_hand_computed_differences(two_collections):
    table = claims_table(two_collections, COMPARISONS)
    assert list(table.columns) == COLUMNS
    # Per-pair at alpha 1: P 100 -> 130 (+30) in One; with shift -40, 100 -> 90 (-10) in Two.
    row = _row(table, "discriminative_power", "paper_pairwise", "P_rareness@100", "One")
    assert (row["baseline_value"], row["measure_value"], row["value"], row["holds"]) == (100, 130, 30, True)
    row = _row(table, "discriminative_power", "paper_pairwise", "P_rareness@100", "Two")
    assert (row["baseline_value"], row["measure_value"], row["value"], row["holds"]) == (100, 90, -10, False)
    # the gain as a share of the 190 run pairs (20 runs) the tables say they tested
    assert row["pairs_share"] == pytest.approx(-10 / 190)
    assert pd.isna(_row(table, "stability", "absolute 0.05", "P_rareness@100", "One")["pairs_share"])
    assert _row(table, "discriminative_power", "tukey_hsd", "AP_rareness@100", "One")["value"] == 115 - 120
    assert _row(table, "discriminative_power", "randomised_tukey_hsd", "AP_rareness@100", "One")["value"] == 2
    # Stability at alpha 1: absolute 0.5 -> 0.625, relative 0.8 -> 0.7375.
    row = _row(table, "stability", "absolute 0.05", "P_rareness@100", "One")
    assert (row["baseline_value"], row["measure_value"], row["value"]) == (0.5, 0.625, 0.625 - 0.5)
    assert row["holds"]
    row = _row(table, "stability", "relative 0.05", "AP_rareness@100", "Two")
    assert row["value"] == pytest.approx(-0.0625) and not row["holds"]
    # Rank agreement: the tau at the largest numeric alpha (1, not 1/R), against 0.9.
    row = _row(table, "rank_agreement", "kendall_tau", "P_rareness@100", "One")
    assert row["value"] == 0.91 and row["holds"] and np.isnan(row["baseline_value"])
    assert _row(table, "rank_agreement", "tau_ap", "P_rareness@100", "One")["value"] == pytest.approx(0.89)
    assert not _row(table, "rank_agreement", "tau_ap", "P_rareness@100", "One")["holds"]
    assert set(table["alpha"]) == {"1"}
    assert set(table["protocol"]) == {"kendall_tau", "tau_ap", *METHODS, "absolute 0.05", "relative 0.05"}
    # 2 collections x 2 comparisons x (2 taus + 3 methods + 2 fuzziness settings)
    assert len(table) == 2 * 2 * 7


@pytest.mark.slow
def test_level_threshold_and_alphas_are_settings(two_collections):
    at_99 = claims_table(two_collections, COMPARISONS, level=0.01)
    row = _row(at_99, "discriminative_power", "paper_pairwise", "P_rareness@100", "One")
    assert (row["baseline_value"], row["measure_value"]) == (80, 110)
    assert set(at_99.loc[at_99["claim"] == "discriminative_power", "criterion"]) == {
        "gain above 0, pairs at p below 0.01"}
    strict = claims_table(two_collections, COMPARISONS, tau_threshold=0.95)
    row = _row(strict, "rank_agreement", "kendall_tau", "P_rareness@100", "One")
    assert not row["holds"] and row["threshold"] == 0.95 and row["criterion"] == "tau at least 0.95"
    every = claims_table(two_collections, COMPARISONS, alphas="all")
    assert list(dict.fromkeys(every["alpha"])) == ALPHAS
    assert _row(every, "rank_agreement", "kendall_tau", "P_rareness@100", "One", "0")["value"] == 1.0
    assert _row(every, "discriminative_power", "tukey_hsd", "P_rareness@100", "One", "0")["value"] == 0
    assert _row(every, "stability", "absolute 0.05", "P_rareness@100", "One", "1/R")["value"] == 0.0625
    with pytest.raises(ValueError, match="largest"):
        claims_table(two_collections, COMPARISONS, alphas="smallest")


def test_an_absent_method_or_fuzziness_is_absent(tmp_path):
    tables = {"Full": synthetic_tables(tmp_path, "full"),
              "Part": synthetic_tables(tmp_path, "part", methods=("tukey_hsd",), fuzziness=(("absolute", 0.05),))}
    table = claims_table(tables, COMPARISONS)
    part = table[table["collection"] == "Part"]
    assert set(part["protocol"]) == {"kendall_tau", "tau_ap", "tukey_hsd", "absolute 0.05"}
    wide = claims_wide(table)
    row = wide[(wide["protocol"] == "paper_pairwise") & (wide["comparison"] == "P_rareness@100 vs P@100")]
    assert row[["Full", "Part"]].values.tolist() == [["+30 = +15.79% of pairs (yes)", ""]]
    # A comparison whose measure a collection never scored gives no rows, not an error.
    extra = claims_table(tables, [*COMPARISONS, {"measure": "P_rareness_norm@100", "baseline": "P@100"}])
    assert len(extra) == len(table)


def test_a_missing_table_or_column_names_the_collection(two_collections):
    broken = {**two_collections, "Two": {k: v for k, v in two_collections["Two"].items() if k != "stability"}}
    with pytest.raises(ValueError, match="'Two' has no stability table"):
        claims_table(broken, COMPARISONS)
    no_level = {**two_collections,
                "One": {**two_collections["One"],
                        "discriminative_power": two_collections["One"]["discriminative_power"].drop(columns="level")}}
    with pytest.raises(ValueError, match="'One': the discriminative_power table has no column level"):
        claims_table(no_level, COMPARISONS)


def test_an_undefined_tau_holds_nothing(tmp_path):
    taus = {"0": 1.0, "0.5": 0.95, "1": float("nan"), "1/R": 0.97}
    table = claims_table({"Ties": synthetic_tables(tmp_path, "ties", taus=taus)}, COMPARISONS)
    row = _row(table, "rank_agreement", "kendall_tau", "P_rareness@100", "Ties")
    assert pd.isna(row["holds"])
    wide = claims_wide(table)
    assert wide.loc[wide["protocol"] == "kendall_tau", "Ties"].tolist() == ["n/a", "n/a"]


def test_wide_view_one_column_per_collection_in_order(two_collections):
    table = claims_table(two_collections, COMPARISONS)
    wide = claims_wide(table)
    assert list(wide.columns) == [*WIDE_KEYS, "One", "Two"]
    assert list(claims_wide(table, ["Two", "One"]).columns) == [*WIDE_KEYS, "Two", "One"]
    reordered = claims_table({"Two": two_collections["Two"], "One": two_collections["One"]}, COMPARISONS)
    assert list(claims_wide(reordered).columns) == [*WIDE_KEYS, "Two", "One"]
    assert len(wide) == len(table) // 2
    assert list(dict.fromkeys(wide["claim"])) == ["rank_agreement", "discriminative_power", "stability"]
    cells = wide.set_index(["protocol", "comparison"])
    assert cells.loc[("paper_pairwise", "P_rareness@100 vs P@100"), "Two"] == "-10 = -5.26% of pairs (no)"
    assert cells.loc[("kendall_tau", "P_rareness@100 vs P@100"), "One"] == "0.910 (yes)"
    assert cells.loc[("absolute 0.05", "AP_rareness@100 vs AP@100"), "One"] == "+0.125 (yes)"
    assert all(text.isascii() for text in wide[["One", "Two"]].to_numpy().ravel())


def test_write_claims_is_deterministic(two_collections, tmp_path):
    table = claims_table(two_collections, COMPARISONS)
    out = tmp_path / "out"
    out.mkdir()
    paths = write_claims(table, out)
    assert [p.name for p in paths] == ["claims.csv", "claims.md", "claims.tex"]
    first = [p.read_bytes() for p in paths]
    assert [p.read_bytes() for p in write_claims(table, out)] == first
    assert [p.read_bytes() for p in write_claims(table, tmp_path / "elsewhere" / "claims")] == first
    back = pd.read_csv(paths[0], dtype={"alpha": str})
    pd.testing.assert_frame_equal(back.drop(columns="holds"), table.drop(columns="holds"), check_dtype=False)
    assert back["holds"].tolist() == table["holds"].tolist()
    md = paths[1].read_text(encoding="utf-8")
    assert "holds if tau at least 0.9" in md and "paper_pairwise (the authors' script" in md
    assert "| claim | protocol | comparison | alpha | holds if | One | Two |" in md
    assert r"\begin{tabular}{lllllll}" in paths[2].read_text(encoding="utf-8")


@pytest.mark.slow
def test_figure_is_written_twice_identically(two_collections, tmp_path):
    table = claims_table(two_collections, COMPARISONS, alphas="all")
    paths = plot_claims(table, tmp_path / "claims.png", tmp_path / "claims.pdf")
    assert [p.name for p in paths] == ["claims.png", "claims.pdf"]
    first = [p.read_bytes() for p in paths]
    assert first[0].startswith(b"\x89PNG\r\n\x1a\n") and first[1].startswith(b"%PDF")
    assert [p.read_bytes() for p in plot_claims(table, tmp_path / "claims.png")] == first
    with pytest.raises(ValueError, match="stem"):
        plot_claims(table, tmp_path / "a.png", tmp_path / "b.pdf")


@pytest.mark.slow
def test_trec8_subset_through_the_api(shared_data):
    data = shared_data / "trec8_adhoc"
    runs = sorted((data / "runs").glob("*.gz"))[:30]
    scores = irmeta.evaluate(data / "qrels.txt", runs, ["P@100", "P_rareness@100"], depth=100, alphas=[0, 1])
    power = irmeta.discriminative_power_table(scores, permutations=200)
    stability = irmeta.stability_table(scores, trials=200)
    tables = {"TREC-8 (30 runs)": {"kendall_tau": irmeta.kendall_tau_table(scores, [("P_rareness@100", "P@100")]),
                                   "discriminative_power": power, "stability": stability}}
    table = claims_table(tables, [COMPARISONS[0]], alphas="all")
    tau = table[table["claim"] == "rank_agreement"]
    assert tau.loc[tau["alpha"] == "0", "value"].tolist() == [1.0, 1.0]  # P_rareness at alpha 0 is P@100
    for row in table[table["claim"] != "rank_agreement"].itertuples():
        if row.claim == "discriminative_power":
            source = power[(power["method"] == row.protocol) & (power["level"] == 0.05)]
            column = "significant_pairs"
        else:
            mode, value = row.protocol.split()
            source = stability[(stability["fuzziness_mode"] == mode) & (stability["fuzziness"] == float(value))]
            column = "stability"
        ours = source.loc[(source["measure"] == "P_rareness@100") & (source["alpha"] == row.alpha), column]
        theirs = source.loc[source["measure"] == "P@100", column]
        assert row.value == ours.item() - theirs.item()
        assert row.holds == (row.value > 0)
        if row.alpha == "0":
            assert row.value == 0
    assert len(table) == 2 * (2 + 3 + 2)


@pytest.mark.slow
def test_no_claim_to_show_still_writes(two_collections, tmp_path):
    table = claims_table(two_collections, [{"measure": "nDCG@10", "baseline": "P@100"}])
    assert table.empty and list(table.columns) == COLUMNS
    assert list(claims_wide(table, ["One", "Two"]).columns) == [*WIDE_KEYS, "One", "Two"]
    assert all(p.is_file() for p in write_claims(table, tmp_path / "claims", ["One", "Two"]))
    assert all(p.is_file() for p in plot_claims(table, tmp_path / "claims.png"))


def test_share_of_pairs_is_appended_to_the_csv_and_absent_without_total_pairs(two_collections, tmp_path):
    table = claims_table(two_collections, COMPARISONS)
    csv = write_claims(table, tmp_path / "claims")[0]
    assert csv.read_text().splitlines()[0].endswith(",holds,pairs_share")
    power = two_collections["One"]["discriminative_power"].drop(columns="total_pairs")
    without = claims_table({"One": {**two_collections["One"], "discriminative_power": power}}, COMPARISONS)
    gains = without[without["claim"] == "discriminative_power"]
    assert len(gains) and gains["pairs_share"].isna().all()
    assert claims_wide(without)["One"].str.fullmatch(r"[+-]\d+ \((yes|no)\)").sum() == len(gains)
