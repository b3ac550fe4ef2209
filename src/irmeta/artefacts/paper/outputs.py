"""The paper's tables across collections, written as CSV, Markdown and LaTeX with their
captions (:func:`irmeta.artefacts.tables.write_table`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from irmeta.artefacts.paper.tables import paper_swap_table, paper_table1, paper_table2, paper_table3
from irmeta.artefacts.paper.unfilled import table1_reasons, table2_reasons, table3_reasons, with_notes
from irmeta.artefacts.tables import write_table

#: The levels of Table 1's columns (95% and 99%).
TABLE1_LEVELS = (0.05, 0.01)


def paper_table3_across(subsampling: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 3 of every collection (label -> system_subsampling table) in one frame, a
    ``collection`` column first and the N columns in increasing N."""
    table3 = pd.concat([paper_table3(subsampling, label).assign(collection=label) for label in subsampling],
                       ignore_index=True)
    sizes = sorted((c for c in table3.columns if c.startswith("N=")), key=lambda c: int(c[2:]))
    return with_notes(table3[["collection", "Metric", "alpha", *sizes]], sizes, table3_reasons(subsampling),
                      keep=["collection"])


def table1_noted(dp: Mapping[str, pd.DataFrame], method: str = "paper_pairwise") -> pd.DataFrame:
    """:func:`paper_table1` with a note where a method, level, measure or alpha was not configured."""
    table = paper_table1(dp, method=method, levels=TABLE1_LEVELS)
    reason, column_reason = table1_reasons(dp, method, TABLE1_LEVELS)
    return with_notes(table, list(table.columns[2:]), reason, column_reason=column_reason)


def table2_noted(stability: Mapping[str, pd.DataFrame], mode: str = "absolute",
                 fuzziness: float = 0.05) -> pd.DataFrame:
    """:func:`paper_table2` with a note where a fuzziness, measure or alpha was not configured."""
    table = paper_table2(stability, mode=mode, fuzziness=fuzziness)
    return with_notes(table, list(table.columns[2:]), table2_reasons(stability, mode, fuzziness))


def write_paper_tables(frames: Mapping[str, Mapping[str, pd.DataFrame]], out: str | Path,
                       swap: Mapping[str, pd.DataFrame] | None = None) -> list[str]:
    """Write Tables 1 to 3 (and their variants by method and fuzziness) to ``out``, and the
    swap-method table when ``swap`` (label -> swap_sensitivity table) is given.

    ``frames``: collection label -> experiment table name -> frame. Returns the stems written.
    """
    out = Path(out)

    def each(table: str) -> dict[str, pd.DataFrame]:
        return {label: f[table] for label, f in frames.items()}

    tables = [
        (table1_noted(each("discriminative_power")), "table1",
         "Table 1: run pairs significantly different (paper_pairwise: each pair alone, Tukey HSD on two "
         "independent groups, as the authors' scripts)."),
        *((table1_noted(each("discriminative_power"), method=method), f"table1_{method}",
           f"Table 1 with {method} (one test over all runs, topics as blocks).")
          for method in ("tukey_hsd", "randomised_tukey_hsd")),
        (table2_noted(each("stability")), "table2",
         "Table 2: Buckley-Voorhees stability, absolute fuzziness 0.05 (the paper)."),
        (table2_noted(each("stability"), mode="relative"), "table2_relative",
         "Table 2 with relative fuzziness (5% of the larger score, Buckley and Voorhees 2000)."),
        (paper_table3_across(each("system_subsampling")), "table3",
         "Table 3: mean Kendall tau between N sampled runs ranked with rarity from all runs and from the N "
         "alone (alpha = 1)."),
    ]
    if swap is not None:
        tables.append((paper_swap_table(swap), "swap_sensitivity",
                       "Sensitivity by the swap method (as Sakai's Table 1): absolute difference required for a "
                       "sure comparison, share of comparisons discriminated."))
    for frame, stem, caption in tables:
        write_table(frame, out / stem, caption=caption)
    return [stem for _, stem, _ in tables]
