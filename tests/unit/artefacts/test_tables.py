"""irmeta.artefacts: the table writers, the paper's table layouts and the published-versus-
reproduced report, on small synthetic inputs (no campaign data)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from campaigns import REPO
from irmeta.artefacts.labels import measure_from_paper_label, paper_label
from irmeta.artefacts.paper.published_vs_reproduced import published_vs_reproduced
from irmeta.artefacts.paper.report import load_published
from irmeta.artefacts.paper.tables import paper_swap_table, paper_table1, paper_table2, paper_table3
from irmeta.artefacts.tables import write_table
from irmeta.measures.alpha import alpha_cell
from irmeta.support.formats import latex_escape

ROOT = REPO


# ----------------------------------------------------------------------- write_table


def sample_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "Metric": ["P@100_rareness", "AP_rareness", "x|y"],
        "alpha": ["0.5", "1.0", "1/R"],
        "score": [0.123456789012345, 2 / 3, np.nan],
        "pairs": pd.array([12, None, 7], dtype="Int64"),
    })


def test_write_table_outputs(tmp_path):
    frame = sample_frame()
    paths = write_table(frame, tmp_path / "sub" / "t1", caption="Table 1: 95% of P_rareness")
    assert [p.name for p in paths] == ["t1.csv", "t1.md", "t1.tex"]

    back = pd.read_csv(paths[0], dtype={"alpha": str})
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)
    raw = paths[0].read_bytes()
    assert b"\r" not in raw and raw.endswith(b"\n")
    assert b"0.123456789012345" in raw  # full precision in the CSV

    md = paths[1].read_text(encoding="utf-8").splitlines()
    assert md[0] == "Table 1: 95% of P_rareness" and md[1] == ""  # an underscore inside a word is not markup
    assert md[2] == "| Metric | alpha | score | pairs |"
    assert md[3] == "| :--- | :--- | ---: | ---: |"
    assert md[4] == "| P@100_rareness | 0.5 | 0.123 | 12 |"
    assert md[5] == "| AP_rareness | 1.0 | 0.667 |  |"
    assert md[6] == r"| x\|y | 1/R |  | 7 |"

    tex = paths[2].read_text(encoding="utf-8")
    assert r"\begin{table}" in tex and r"\begin{tabular}{llrr}" in tex and r"\end{tabular}" in tex
    assert r"\caption{Table 1: 95\% of P\_rareness}" in tex
    assert r"P@100\_rareness & 0.5 & 0.123 & 12 \\" in tex
    assert "P@100_rareness" not in tex  # every underscore escaped

    assert not [p for p in paths[0].parent.iterdir() if p.name.endswith(".tmp")]


def test_write_table_is_deterministic_and_formats_floats(tmp_path):
    frame = sample_frame()
    first = [p.read_bytes() for p in write_table(frame, tmp_path / "a", float_format="{:.1f}")]
    second = [p.read_bytes() for p in write_table(frame, tmp_path / "a", float_format="{:.1f}")]
    assert first == second
    assert b"| 0.1 |" in first[1] and b"| 0.7 |" in first[1]
    assert not first[1].startswith(b"\n")  # no caption, no blank first line


def test_latex_escape():
    assert latex_escape("a_b%c&d#e$f{g}h~i^j\\") == (
        r"a\_b\%c\&d\#e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}")


# ------------------------------------------------------------------ names and alphas


@pytest.mark.parametrize("value, key", [(np.nan, ""), (None, ""), ("", ""), (0.0, "0"), (1.0, "1"),
                                        ("1.0", "1"), ("0.25", "0.25"), (0.5, "0.5"), ("1/R", "1/R")])
def test_alpha_key(value, key):
    assert alpha_cell(value) == key


@pytest.mark.parametrize("measure, label", [
    ("P@100", "P@100"), ("P_rareness@100", "P@100_rareness"), ("AP@100", "AP"),
    ("AP_rareness@100", "AP_rareness"), ("P_rareness_norm@100", "P'@100_rareness"),
    ("AP_rareness_norm@100", "AP'_rareness"), ("AP@10", "AP@10"),
])
def test_measure_labels_round_trip(measure, label):
    assert paper_label(measure) == label
    assert measure_from_paper_label(label) == measure


# ------------------------------------------------------------------ paper tables


def dp_table(offset: int, alpha_as_float: bool = False) -> pd.DataFrame:
    """Counts encode (measure, alpha, level, method) so each cell's source is known."""
    rows = []
    code = {"P@100": 1, "AP@100": 2, "P_rareness@100": 3, "AP_rareness@100": 4,
            "P_rareness_norm@100": 5, "AP_rareness_norm@100": 6}
    for method, m in (("paper_pairwise", 0), ("tukey_hsd", 50000)):
        for level, lv in ((0.05, 0), (0.01, 5000)):
            for measure, c in code.items():
                alphas = [np.nan] if measure in ("P@100", "AP@100") else ["0", "0.25", "0.5", "0.75", "1"]
                for a in alphas:
                    a_num = 0.0 if isinstance(a, float) else float(a)
                    rows.append({"measure": measure, "alpha": a, "method": method, "level": level,
                                 "significant_pairs": offset + m + lv + 100 * c + int(a_num * 100),
                                 "total_pairs": 190, "permutations": np.nan})
    frame = pd.DataFrame(rows)
    if alpha_as_float:
        frame["alpha"] = pd.to_numeric(frame["alpha"])
    return frame


def test_paper_table1_layout():
    out = paper_table1({"A": dp_table(0), "B": dp_table(1000, alpha_as_float=True)})
    assert list(out.columns) == ["Metric", "alpha", "A 95%", "A 99%", "B 95%", "B 99%"]
    assert out["Metric"].tolist() == ["P@100", "P@100_rareness", "P@100_rareness", "AP", "AP_rareness", "AP_rareness"]
    assert out["alpha"].tolist() == ["0.0", "0.5", "1.0", "0.0", "0.5", "1.0"]
    assert out["A 95%"].tolist() == [100, 350, 400, 200, 450, 500]
    assert out["A 99%"].tolist() == [5100, 5350, 5400, 5200, 5450, 5500]
    assert out["B 95%"].tolist() == [1100, 1350, 1400, 1200, 1450, 1500]
    assert str(out["A 95%"].dtype) == "Int64"

    other = paper_table1({"A": dp_table(0)}, method="tukey_hsd")
    assert other["A 95%"].tolist()[0] == 50100


def test_paper_table1_all_alphas_and_norm():
    out = paper_table1({"A": dp_table(0)}, alphas=None, include_norm=True)
    p_rows = out[out["Metric"] == "P@100_rareness"]
    assert p_rows["alpha"].tolist() == ["0.0", "0.25", "0.5", "0.75", "1.0"]
    assert p_rows["A 95%"].tolist() == [300, 325, 350, 375, 400]
    assert (out["Metric"] == "AP'_rareness").sum() == 5
    assert out["Metric"].tolist().index("P'@100_rareness") < out["Metric"].tolist().index("AP")


def test_paper_table1_missing_cell_is_na():
    frame = dp_table(0)
    frame = frame[~((frame["measure"] == "AP_rareness@100") & (frame["alpha"] == "1"))]
    out = paper_table1({"A": frame})
    assert out["A 95%"].isna().tolist() == [False] * 5 + [True]


def stability_table(value_of) -> pd.DataFrame:
    rows = []
    for mode in ("absolute", "relative"):
        for measure in ("P@100", "AP@100"):
            rows.append({"measure": measure, "alpha": np.nan, "fuzziness_mode": mode, "fuzziness": 0.05,
                         "topics_per_trial": 25, "trials": 10, "seed": 0, "stability": value_of(measure, "", mode)})
        for measure in ("P_rareness@100", "AP_rareness@100"):
            for a in ("0", "0.5", "1"):
                rows.append({"measure": measure, "alpha": a, "fuzziness_mode": mode, "fuzziness": 0.05,
                             "topics_per_trial": 25, "trials": 10, "seed": 0,
                             "stability": value_of(measure, a, mode)})
    return pd.DataFrame(rows)


def coded(measure: str, alpha: str, mode: str) -> float:
    base = {"P@100": 0.1, "AP@100": 0.2, "P_rareness@100": 0.3, "AP_rareness@100": 0.4}[measure]
    return base + (float(alpha) / 100 if alpha else 0.0) + (0.5 if mode == "relative" else 0.0)


def test_paper_table2_layout():
    out = paper_table2({"A": stability_table(coded), "B": stability_table(lambda *a: coded(*a) + 0.001)})
    assert list(out.columns) == ["Metric", "alpha", "A", "B"]
    assert out["A"].tolist() == pytest.approx([0.1, 0.305, 0.31, 0.2, 0.405, 0.41])
    assert out["B"].tolist() == pytest.approx([0.101, 0.306, 0.311, 0.201, 0.406, 0.411])
    rel = paper_table2({"A": stability_table(coded)}, mode="relative")
    assert rel["A"].tolist()[0] == pytest.approx(0.6)


def test_paper_table2_refuses_ambiguous_settings():
    frame = stability_table(coded)
    twice = pd.concat([frame, frame.assign(seed=1, stability=frame["stability"] + 0.01)])
    with pytest.raises(ValueError, match="select the setting"):
        paper_table2({"A": twice})


def subsampling_table() -> pd.DataFrame:
    rows = []
    for measure, c in (("P_rareness@100", 0.1), ("AP_rareness@100", 0.2)):
        for a in ("0.5", "1"):
            for n in (2, 4, 8):
                rows.append({"measure": measure, "alpha": a, "n_systems": n, "trials": 10,
                             "undefined_trials": 0, "mean_tau": c + n / 1000 + (0.5 if a == "0.5" else 0.0),
                             "sd_tau": 0.01})
    return pd.DataFrame(rows)


def test_paper_table3_layout():
    out = paper_table3({"T8": subsampling_table()}, "T8")
    assert list(out.columns) == ["Metric", "alpha", "N=2", "N=4", "N=8"]
    assert out["Metric"].tolist() == ["P@100_rareness", "AP_rareness"]
    assert out["alpha"].tolist() == ["1.0", "1.0"]
    assert out.loc[0, "N=4"] == pytest.approx(0.104)
    assert out.loc[1, "N=8"] == pytest.approx(0.208)


# ---------------------------------------------------------- published vs reproduced


PUBLISHED = {
    "setup": {"collections": {"TREC-5": {"n_topics": 50, "n_runs": 61, "total_pairs": 1830},
                              "TREC-8": {"n_topics": 50, "n_runs": 20, "total_pairs": 190}}},
    "table1_discriminative_power": {
        "P@100": {"0.0": {"TREC-5": [598, 406], "TREC-8": [100, 5100]}},
        "AP_rareness": {"1.0": {"TREC-5": [701, 467], "TREC-8": [490, 5500]}},
    },
    "table2_stability": {"P@100_rareness": {"1.0": {"TREC-5": 0.709, "TREC-8": 0.31}}},
    "table3_system_subsampling": {"n_systems": [2, 4, 16], "P@100_rareness": [0.102, 0.2, 0.9]},
    "table4_topic431_rarity": {"DOC-A": 0.81, "DOC-B": 0.08},
    "figure1_s_rare_docs_to_rank_first": {"alpha_1.0": 28},
    "figure2_facts": ["TREC-8, P@100 vs P@100_rareness: tau < 0.9 for every alpha > 0",
                      "y axis of the figure spans 0.8 to 1.0"],
}


def reproduced_trec8() -> dict:
    listing = pd.DataFrame({"qid": [431, 431, 431, 431], "docid": ["DOC-A", "DOC-B", "DOC-A", "DOC-B"],
                            "grade": 1, "depth": [100, 100, 1000, 1000], "n_retrieving": [1, 18, 4, 18],
                            "rarity": [0.95, 0.1, 0.81, 0.1], "rarity_prime": [1.0, 0.1, 0.8, 0.1]})
    kendall = pd.DataFrame({"measure": ["P_rareness@100"] * 3, "baseline": "P@100", "alpha": [0.0, 0.5, 1.0],
                            "tau": [1.0, 0.95, 0.85], "tau_ap": [1.0, 0.94, 0.8], "n_runs": 20,
                            "averaging": "all_topics"})
    synthetic = pd.DataFrame({"topic": 434, "system": "S_rare", "alpha": 1.0, "n_relevant": [1, 2, 3],
                              "n_relevant_retrieved": [1, 2, 3], "rank": [5.0, 1.5, 1.0]})
    return {"discriminative_power": dp_table(0), "stability": stability_table(coded),
            "system_subsampling": subsampling_table(), "rarity_all": listing,
            "kendall_tau": kendall, "synthetic_rare_common": synthetic}


def rows_of(markdown: str, prefix: str) -> list[list[str]]:
    """The cells of a Markdown table's rows, as a reader sees them (backslash escapes undone)."""
    out = []
    for line in markdown.splitlines():
        if line.startswith(f"| {prefix} |"):
            out.append([re.sub(r"\\(.)", r"\1", c.strip()) for c in line.strip("|").split(" | ")])
    return out


def test_published_vs_reproduced_values():
    md = published_vs_reproduced(PUBLISHED, {"TREC-8": reproduced_trec8()}, {"TREC-8": {"trials": 10}})
    t1 = rows_of(md, "Table 1")
    exact = [r for r in t1 if r[1] == "P@100 [95%]" and r[3] == "TREC-8"][0]
    assert exact[4:7] == ["100", "100", "0"]  # equal to the published count: difference 0
    ap = [r for r in t1 if r[1] == "AP_rareness [95%]" and r[3] == "TREC-8"][0]
    assert ap[4:7] == ["490", "500", "+10"]
    not_run = [r for r in t1 if r[3] == "TREC-5"]
    assert len(not_run) == 4 and all(r[5] == "not run" and r[6] == "" for r in not_run)

    t2 = [r for r in rows_of(md, "Table 2") if r[3] == "TREC-8"][0]
    assert t2[4:7] == ["0.310", "0.3100", "0"]
    assert [r for r in rows_of(md, "Table 2") if r[3] == "TREC-5"][0][5] == "not run"

    t3 = rows_of(md, "Table 3")
    assert t3[0][4:7] == ["0.102", "0.1020", "0"]
    assert t3[1][5:7] == ["0.1040", "-0.0960"]
    assert "0.102" != repr(0.1 + 2 / 1000)  # computed value off by float noise still counts as equal
    assert t3[2][5] == "not computed"  # N=16 not in the reproduced table

    t4 = rows_of(md, "Table 4")
    assert t4[0][4:7] == ["0.81", "0.810", "0"]
    assert t4[1][4:7] == ["0.08", "0.100", "+0.020"]
    assert "S_d counted at depth 1000" in t4[0][7]

    f1 = rows_of(md, "Figure 1")
    assert f1[0][3:6] == ["DLT20", "28", "not reproduced: DLT20 runs not available"]
    other = rows_of(md, "Figure 1 (other topic)")
    assert other[0][3] == "TREC-8 topic 434" and other[0][5] == "3"  # rank 1.5 is a tie, not first

    facts = rows_of(md, "Figure 2 (fact)")
    assert facts[0][5].startswith("does not hold")  # tau 0.95 at alpha 0.5 is not < 0.9
    assert "0.8500" in facts[1][5]
    assert "- Collections run: TREC-8." in md and "- Not run: TREC-5." in md
    assert "## Why they differ" in md and "## Settings" in md and "- TREC-8: trials = 10" in md


def test_figure1_reproduced_when_collection_has_topic():
    published = dict(PUBLISHED, setup={"collections": {"DLT20": {"n_topics": 45}}})
    synthetic = pd.DataFrame({"topic": 1127540, "system": ["S_rare"] * 3 + ["S_common"] * 3, "alpha": 1.0,
                              "n_relevant": [1, 2, 3] * 2, "n_relevant_retrieved": [1, 2, 3] * 2,
                              "rank": [3.0, 1.0, 1.0, 1.0, 1.0, 1.0], "rare_systems": "protocol"})
    md = published_vs_reproduced(published, {"DLT20": {"synthetic_rare_common": synthetic}}, {})
    row = rows_of(md, "Figure 1")[0]
    assert row[3:7] == ["DLT20", "28", "2", "-26"]
    assert "rare_systems = protocol" in row[7]


def test_published_vs_reproduced_nothing_run_and_deterministic():
    md = published_vs_reproduced(PUBLISHED, {}, {})
    assert "not run" in md and "- Collections run: none." in md
    assert "not reproduced: DLT20 runs not available" in md
    a = published_vs_reproduced(PUBLISHED, {"TREC-8": reproduced_trec8()}, {"TREC-8": {"b": 1, "a": [2]}})
    b = published_vs_reproduced(PUBLISHED, {"TREC-8": reproduced_trec8()}, {"TREC-8": {"a": [2], "b": 1}})
    assert a == b


def test_why_section_numbers_come_from_inputs():
    md = published_vs_reproduced(PUBLISHED, {"TREC-8": reproduced_trec8()}, {})
    why = md.split("## Why they differ")[1]
    assert "TREC-8: 3 of 4 cells equal the published count; differences range from 0 to +10." in why
    assert r"+0 pairs by paper\_pairwise" not in why and "+0 pairs" not in why
    # gain of AP_rareness at alpha 1 over AP at 95%: 500 - 200 (paper_pairwise), same by tukey_hsd
    assert "+300 pairs by paper_pairwise; +300 pairs by tukey_hsd" in why  # names as text (nothing to escape)
    assert "Counted at depth 100 the same documents give 0.950, 0.100" in why


def test_repository_copy_of_published_figures():
    published = load_published(ROOT / "config" / "published.yaml")
    assert published["table1_discriminative_power"]["P@100"]["0.0"]["TREC-8"] == [3666, 2973]
    assert published["table3_system_subsampling"]["n_systems"] == [2, 4, 8, 16, 32, 64]
    assert set(published["setup"]["collections"]) == {"TREC-5", "TREC-8", "WT14", "DLT20"}
    md = published_vs_reproduced(published, {}, {})
    assert md.count("not run") > 40


def test_swap_table_orders_measures_by_sensitivity():
    frame = pd.DataFrame({"measure": ["RR", "AP@100", "P_rareness@100"], "alpha": ["", "", "1"],
                          "sampling": "bootstrap", "confidence": 0.95, "required_difference": [0.17, 0.04, 0.06],
                          "sensitivity": [0.57, 0.86, 0.63], "comparisons": 1000})
    out = paper_swap_table({"TREC-8": frame})
    assert list(out["Metric"]) == ["AP", "P@100_rareness", "RR"]
    assert list(out["absolute diff. required"]) == [0.04, 0.06, 0.17] and list(out["alpha"]) == ["", "1.0", ""]


def test_published_vs_reproduced_names_are_text():
    hostile = "<img src=x onerror=alert(1)>_[a]"
    md = published_vs_reproduced(PUBLISHED, {hostile: reproduced_trec8()}, {hostile: {"run_groups": "<b>x|y</b>"}})
    assert not re.search(r"(?<!\\)<[A-Za-z/!?]", md)  # no tag opened: no HTML
    assert r"\<img src=x onerror=alert(1)>\_\[a\]" in md and r"\<b>x\|y\</b>" in md
