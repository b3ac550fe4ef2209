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
    return [[c.strip() for c in line.strip("|").split(" | ")]
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
