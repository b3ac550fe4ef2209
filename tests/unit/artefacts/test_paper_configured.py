"""The paper's tables and the published-versus-reproduced report name what the config
measured: labels from the configured measures, a note where a measure or method is not
configured (instead of empty cells)."""

from __future__ import annotations

import pandas as pd

from irmeta.artefacts.paper.published_vs_reproduced import published_vs_reproduced

PUBLISHED = {
    "setup": {"collections": {"DLT20": {"n_topics": 45}, "TREC-8": {"n_topics": 50}}},
    "figure1_s_rare_docs_to_rank_first": {"alpha_1.0": 28},
}


def synthetic(topic: int) -> pd.DataFrame:
    return pd.DataFrame({"topic": topic, "system": ["S_rare"] * 3, "alpha": 1.0, "n_relevant": [1, 2, 3],
                         "n_relevant_retrieved": [1, 2, 3], "rank": [3.0, 1.0, 1.0]})


def rows_of(markdown: str, prefix: str) -> list[list[str]]:
    """The table rows starting ``prefix``, their cells with Markdown's escapes undone."""
    return [[c.strip().replace("\\_", "_") for c in line.strip("|").split(" | ")]
            for line in markdown.splitlines() if line.startswith(f"| {prefix} |")]


def test_figure1_rows_name_the_configured_synthetic_measure():
    reproduced = {"DLT20": {"synthetic_rare_common": synthetic(1127540)},
                  "TREC-8": {"synthetic_rare_common": synthetic(434)}}
    md = published_vs_reproduced(PUBLISHED, reproduced, {}, synthetic_measure="P_rareness@10")
    other = rows_of(md, "Figure 1 (other topic)")
    assert other and all(r[1] == "P@10_rareness: smallest D with S_rare ranked 1" for r in other)
    assert "P@100_rareness" not in other[0][1]
    published_row = rows_of(md, "Figure 1")[0]
    # another measure than the paper's: its number is listed, not set against the paper's
    assert published_row[1].startswith("P@10_rareness") and published_row[3:7] == ["DLT20", "28", "2", ""]
    assert "the paper ranked by P@100_rareness" in published_row[7]


def test_figure1_rows_with_the_papers_measure_are_compared():
    reproduced = {"DLT20": {"synthetic_rare_common": synthetic(1127540)},
                  "TREC-8": {"synthetic_rare_common": synthetic(434)}}
    for given in ("P_rareness@100", None):
        md = published_vs_reproduced(PUBLISHED, reproduced, {}, synthetic_measure=given)
        row = rows_of(md, "Figure 1")[0]
        assert row[1].startswith("P@100_rareness:") and row[3:7] == ["DLT20", "28", "2", "-26"]
        assert "the paper ranked" not in row[7]
        assert rows_of(md, "Figure 1 (other topic)")[0][1].startswith("P@100_rareness:")


# ------------------------------------------------------------ paper tables, not configured


def dp_table(measures=("P@100", "P_rareness@100", "AP@100", "AP_rareness@100"), methods=("paper_pairwise",),
             alphas=("0.5", "1"), levels=(0.05, 0.01)) -> pd.DataFrame:
    rows = [{"measure": m, "alpha": "" if "rareness" not in m else a, "method": method, "level": level,
             "significant_pairs": 10 * i + j, "total_pairs": 190}
            for method in methods for level in levels for i, m in enumerate(measures)
            for j, a in enumerate(alphas if "rareness" in m else ("",))]
    return pd.DataFrame(rows)


def stability_frame(measures=("P@100", "P_rareness@100", "AP@100", "AP_rareness@100"), alphas=("0.5", "1"),
                    fuzziness=(("absolute", 0.05), ("relative", 0.05))) -> pd.DataFrame:
    rows = [{"measure": m, "alpha": a if "rareness" in m else "", "fuzziness_mode": mode, "fuzziness": f,
             "stability": 0.5}
            for mode, f in fuzziness for m in measures for a in (alphas if "rareness" in m else ("",))]
    return pd.DataFrame(rows)


def subsampling_frame(measures=("P_rareness@100", "AP_rareness@100"), alpha="1") -> pd.DataFrame:
    return pd.DataFrame([{"measure": m, "alpha": alpha, "n_systems": n, "mean_tau": 0.9}
                         for m in measures for n in (2, 4)])


def written(tmp_path, frames) -> dict[str, str]:
    from irmeta.artefacts.paper.outputs import write_paper_tables

    stems = write_paper_tables(frames, tmp_path)
    return {stem: (tmp_path / f"{stem}.csv").read_text() for stem in stems}


def notes_of(csv: str) -> list[str]:
    return [line for line in csv.splitlines() if "note: " in line]


def test_tables_of_every_configured_cell_have_no_notes(tmp_path):
    frames = {"A": {"discriminative_power": dp_table(methods=("paper_pairwise", "tukey_hsd", "randomised_tukey_hsd")),
                    "stability": stability_frame(), "system_subsampling": subsampling_frame()}}
    csvs = written(tmp_path, frames)
    assert all(not notes_of(text) for text in csvs.values())
    assert ",," not in csvs["table1"] and ",," not in csvs["table2"] and ",," not in csvs["table3"]


def test_a_method_measure_or_alpha_not_configured_is_said_not_left_empty(tmp_path):
    frames = {"A": {"discriminative_power": dp_table(measures=("P@100", "P_rareness@100", "AP@100"), alphas=("1",)),
                    "stability": stability_frame(fuzziness=(("absolute", 0.05),)),
                    "system_subsampling": subsampling_frame(measures=("P_rareness@100",))}}
    csvs = written(tmp_path, frames)
    table1 = csvs["table1"].splitlines()
    assert table1[0] == "Metric,alpha,A 95%,A 99%"
    assert [line.split(",")[0] for line in table1[1:4]] == ["P@100", "P@100_rareness", "AP"]
    assert notes_of(csvs["table1"]) == [
        "note: P@100_rareness at alpha 0.5: alpha 0.5 is not configured (alphas),,,",
        "note: AP_rareness: AP_rareness@100 is not configured (measures / experiments.comparisons),,,"]
    # the method was not configured: the whole table is its note
    assert csvs["table1_tukey_hsd"].splitlines()[1:] == [
        "note: tukey_hsd is not configured (experiments.discriminative_power.methods),,,"]
    assert csvs["table2_relative"].splitlines()[1:] == [
        "note: fuzziness relative 0.05 is not configured (experiments.stability.fuzziness),,"]
    assert notes_of(csvs["table3"]) == [
        "A,note: AP_rareness: AP_rareness@100 is not configured (experiments.system_subsampling.measures),,,"]
    md = (tmp_path / "table1_tukey_hsd.md").read_text()
    assert "tukey_hsd is not configured" in md  # an underscore inside a word is not escaped


def test_a_level_not_configured_is_said_and_its_column_dropped(tmp_path):
    frames = {"A": {"discriminative_power": dp_table(levels=(0.05,)), "stability": stability_frame(),
                    "system_subsampling": subsampling_frame()}}
    lines = written(tmp_path, frames)["table1"].splitlines()
    assert lines[0] == "Metric,alpha,A 95%"
    assert lines[-1] == "note: level 0.01 (99%) is not configured (experiments.discriminative_power.levels),,"
    assert all(",," not in line for line in lines[1:-1])
