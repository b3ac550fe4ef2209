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


def test_a_method_no_pair_can_pass_is_listed_not_judged(tmp_path):
    """randomisation+holm with 1000 draws over 190 pairs: the smallest p, 1/1001, times 190
    is above 0.05, so both counts are 0 by construction (``attainable`` False, as the
    table written and read back says it): no gain of 0 and "no" in the claims, but a row
    not filled whose note names the bound."""
    tables = every_method(tmp_path, "one")
    power = tables["discriminative_power"]
    blocked = power["method"] == "randomisation+holm"
    power = power.assign(permutations=1000, attainable=~blocked)
    path = tmp_path / "dp.csv"
    power.to_csv(path, index=False, lineterminator="\n")
    tables["discriminative_power"] = read_table(path)
    assert tables["discriminative_power"]["attainable"].dtype == bool
    table = claims_table({"One": tables}, COMPARISONS)
    unfilled = unfilled_claims(table, {"One": tables}, COMPARISONS)
    assert "randomisation+holm" not in set(table["protocol"])
    assert set(power_protocols()) - {"randomisation+holm"} <= set(table["protocol"])
    notes = unfilled[unfilled["protocol"] == "randomisation+holm"]
    assert sorted(notes["measure"]) == sorted(c["measure"] for c in COMPARISONS) and len(unfilled) == len(notes)
    assert notes["note"].str.contains(r"1/1001 = 0\.000999, and Holm over 190 pairs needs p < 0\.05/190").all()
    # the same tables with every row attainable judge it as before
    tables["discriminative_power"] = tables["discriminative_power"].assign(attainable=True)
    assert "randomisation+holm" in set(claims_table({"One": tables}, COMPARISONS)["protocol"])
