"""The paper's tables say what they could not fill and why, instead of printing empty
cells: a row (a measure at an alpha) or a collection's column no experiment table holds
is replaced by a note row, ``note: <why>``, naming the setting that was not configured
(a measure, an alpha, a method, a level, a fuzziness). A table with every cell filled is
returned as it is, so its CSV keeps its bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.artefacts.labels import alpha_display, is_baseline, measure_from_paper_label
from irmeta.measures.alpha import alpha_cell

#: How a note row's text begins (in the ``Metric`` column).
NOTE = "note: "

Reason = Callable[[Mapping[str, object]], str]


def with_notes(table: pd.DataFrame, values: Sequence[str], reason: Reason, *,
               column_reason: Callable[[str], str] | None = None, keep: Sequence[str] = ()) -> pd.DataFrame:
    """``table`` without its rows whose ``values`` columns are all missing, and (given
    ``column_reason``) without a value column missing in every row left; one note row per
    distinct reason after the rows, its ``Metric`` ``note: <reason>``, the ``keep``
    columns (e.g. ``collection``) copied from the rows it stands for."""
    values = [c for c in values if c in table.columns]
    empty = table[values].isna().all(axis=1) if values else pd.Series(False, index=table.index)
    notes = list(dict.fromkeys((*(row[c] for c in keep), reason(row))
                               for row in table[empty].to_dict("records")))
    out = table[~empty]
    if column_reason is not None and not out.empty:
        gone = [c for c in values if out[c].isna().all()]
        notes += list(dict.fromkeys((*("" for _ in keep), column_reason(c)) for c in gone))
        out = out.drop(columns=gone)
    if not notes:
        return table
    rows = pd.DataFrame([{**dict(zip(keep, note[:-1])), "Metric": NOTE + note[-1]} for note in notes])
    merged = pd.concat([out, rows], ignore_index=True)[list(out.columns)]
    for column in out.columns:
        if column in values:
            merged[column] = merged[column].astype(out[column].dtype)
        else:
            merged[column] = merged[column].fillna("")
    return merged


def _measure_and_key(row: Mapping[str, object], cutoff: int) -> tuple[str, str]:
    measure = measure_from_paper_label(str(row["Metric"]), cutoff)
    return measure, "" if is_baseline(measure) else alpha_cell(row["alpha"])


def measure_reason(frames: Sequence[pd.DataFrame], measures_key: str, alphas_key: str, cutoff: int = 100) -> Reason:
    """Why a row is empty: its measure is in none of ``frames`` (not configured under
    ``measures_key``), or its alpha is not among the measure's (``alphas_key``)."""
    def reason(row: Mapping[str, object]) -> str:
        measure, key = _measure_and_key(row, cutoff)
        label = str(row["Metric"])
        held = [f.loc[f["measure"] == measure, "alpha"].map(alpha_cell) for f in frames if "measure" in f.columns]
        if not any(len(h) for h in held):
            return f"{label}: {measure} is not configured ({measures_key})"
        if not any((h == key).any() for h in held):
            return f"{label} at alpha {alpha_display(key)}: alpha {alpha_display(key)} is not configured ({alphas_key})"
        return f"{label} at alpha {alpha_display(key)}: not computed"
    return reason


def table1_reasons(dp: Mapping[str, pd.DataFrame], method: str, levels: Sequence[float],
                   cutoff: int = 100) -> tuple[Reason, Callable[[str], str]]:
    """Table 1's reasons: the method, then the measure or alpha; a column: its level."""
    of_method = [f[f["method"] == method] for f in dp.values()]
    if not any(len(f) for f in of_method):
        def no_method(row: Mapping[str, object]) -> str:
            return f"{method} is not configured (experiments.discriminative_power.methods)"
        return no_method, lambda column: no_method({})

    def column_reason(column: str) -> str:
        label, _, percent = column.rpartition(" ")
        level = next((lv for lv in levels if f"{100 * (1 - float(lv)):g}%" == percent), None)
        held = [f for name, f in dp.items() if name == label]
        if level is not None and not any(np.isclose(f["level"].astype(float), float(level)).any()
                                         for f in of_method):
            return f"level {level:g} ({percent}) is not configured (experiments.discriminative_power.levels)"
        if held and not (held[0]["method"] == method).any():
            return f"{label}: {method} not computed"
        return f"{column}: not computed"
    return measure_reason(of_method, "measures / experiments.comparisons", "alphas", cutoff), column_reason


def table2_reasons(stability: Mapping[str, pd.DataFrame], mode: str, fuzziness: float,
                   cutoff: int = 100) -> Reason:
    """Table 2's reasons: the fuzziness setting, then the measure or alpha."""
    at = [f[(f["fuzziness_mode"].astype(str) == mode) & np.isclose(f["fuzziness"].astype(float), float(fuzziness))]
          for f in stability.values()]
    if not any(len(f) for f in at):
        return lambda row: f"fuzziness {mode} {fuzziness:g} is not configured (experiments.stability.fuzziness)"
    return measure_reason(at, "measures / experiments.comparisons", "alphas", cutoff)


def table3_reasons(subsampling: Mapping[str, pd.DataFrame], cutoff: int = 100) -> Reason:
    """Table 3's reasons, per collection: the measure or alpha of system subsampling."""
    def reason(row: Mapping[str, object]) -> str:
        frame = subsampling[str(row["collection"])]
        return measure_reason([frame], "experiments.system_subsampling.measures",
                              "experiments.system_subsampling.alpha", cutoff)(row)
    return reason
