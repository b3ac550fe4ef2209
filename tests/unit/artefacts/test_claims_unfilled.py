"""The claims say which rows they could not fill and why (claims.csv's note rows, the
list under claims.md), and a complete table keeps claims.csv's bytes."""

from __future__ import annotations

import pandas as pd
from test_claims import COMPARISONS, synthetic_tables
from test_claims_reusability import summary_table

from irmeta.artefacts.claims import COLUMNS, claims_table, filled_claims, power_protocols, write_claims
from irmeta.artefacts.claims_unfilled import unfilled_claims
from irmeta.pipeline.stored_scores import read_table


def every_method(tmp_path, name: str) -> dict[str, pd.DataFrame]:
    """A collection's tables with every power protocol (paper_pairwise's counts under each name)."""
    tables = synthetic_tables(tmp_path, name, methods=("paper_pairwise",))
    power = tables["discriminative_power"]
    tables["discriminative_power"] = pd.concat([power.assign(method=m) for m in power_protocols()], ignore_index=True)
    return tables


def test_a_complete_table_has_nothing_unfilled_and_keeps_its_csv(tmp_path):
    tables = {"One": every_method(tmp_path, "one")}
    table = claims_table(tables, COMPARISONS)
    unfilled = unfilled_claims(table, tables, COMPARISONS)
    assert unfilled.empty
    write_claims(table, tmp_path / "with", unfilled=unfilled)
    write_claims(table, tmp_path / "without")
    for suffix in (".csv", ".md", ".tex"):
        assert (tmp_path / f"with{suffix}").read_bytes() == (tmp_path / f"without{suffix}").read_bytes()
    assert (tmp_path / "with.csv").read_text().splitlines()[0] == ",".join(COLUMNS)


def test_methods_fuzziness_and_reusability_not_configured_are_listed(tmp_path):
    one = synthetic_tables(tmp_path, "one", methods=("paper_pairwise",), fuzziness=(("absolute", 0.05),))
    one["reusability_summary"] = summary_table(tmp_path)
    two = synthetic_tables(tmp_path, "two", methods=("paper_pairwise", "tukey_hsd"))
    tables = {"One": one, "Two": two}
    table = claims_table(tables, COMPARISONS)
    unfilled = unfilled_claims(table, tables, COMPARISONS)
    notes = set(zip(unfilled["claim"], unfilled["protocol"], unfilled["collection"], unfilled["note"]))
    assert ("discriminative_power", "tukey_hsd", "One",
            "tukey_hsd is not configured (experiments.discriminative_power.methods / corrections)") in notes
    assert ("discriminative_power", "tukey_hsd", "Two") not in {n[:3] for n in notes}
    missing_methods = {n[1] for n in notes if n[0] == "discriminative_power" and n[2] == "Two"}
    assert missing_methods == set(power_protocols()) - {"paper_pairwise", "tukey_hsd"}
    assert ("stability", "relative 0.05", "One",
            "fuzziness relative 0.05 not computed for One (experiments.stability.fuzziness)") in notes
    assert ("reusability", "leave_one_out+frozen", "Two",
            "Two has no reusability table (no run groups, or scores only)") in notes
    # every unfilled row is absent from the claims, every (comparison, collection) once per reason
    keys = set(zip(table["claim"], table["protocol"], table["measure"], table["collection"]))
    assert not keys & set(zip(unfilled["claim"], unfilled["protocol"], unfilled["measure"], unfilled["collection"]))
    assert set(unfilled["measure"]) == {c["measure"] for c in COMPARISONS}

    paths = write_claims(table, tmp_path / "claims", unfilled=unfilled)
    csv = read_table(paths[0], "claims")
    assert list(csv.columns) == [*COLUMNS, "note"] and len(csv) == len(table) + len(unfilled)
    assert csv["note"].isna().sum() == len(table) and csv.loc[csv["note"].notna(), "value"].isna().all()
    back = filled_claims(csv)
    assert list(back.columns) == COLUMNS and len(back) == len(table)
    assert back["value"].tolist() == table["value"].tolist()
    md = paths[1].read_text()
    assert "Not filled: the claims these tables could not fill, and why." in md
    assert "tukey\\_hsd is not configured" in md or "tukey_hsd is not configured" in md
    assert "Two has no reusability table" in paths[2].read_text()


def test_a_comparison_whose_measure_no_table_holds_is_one_note(tmp_path):
    tables = {"One": every_method(tmp_path, "one")}
    comparisons = [*COMPARISONS, {"measure": "P_rareness_norm@100", "baseline": "P@100"}]
    table = claims_table(tables, comparisons)
    unfilled = unfilled_claims(table, tables, comparisons)
    assert unfilled[["claim", "measure", "collection"]].values.tolist() == [["all", "P_rareness_norm@100", "One"]]
    assert "P_rareness_norm@100 is in none of the collection's tables" in unfilled["note"].iloc[0]
    assert isinstance(unfilled, pd.DataFrame)
