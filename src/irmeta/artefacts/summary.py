"""The few lines a person reads when a run ends: what ran, where its tables, figures
and report are, and per collection the headline numbers (rank agreement at the largest
alpha, significant pairs per method, stability under each fuzziness)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from irmeta.measures.alpha import alpha_cell, alpha_sort_key
from irmeta.metaeval.stats.registry import TESTS


def run_summary(collections: Mapping[str, tuple[str, Mapping[str, pd.DataFrame]]], *, paper: str | None,
                report: str, claims: str | None = None, skipped: Mapping[str, Mapping[str, str]] | None = None,
                properties: pd.DataFrame | None = None) -> str:
    """``collections``: name -> (label, {table name -> DataFrame}) for each collection that
    ran; ``paper``: the folder of the paper's tables (None when not made); ``report``: how
    to get the HTML report; ``claims``: the claims table (None when not made);
    ``skipped``: name -> experiment -> why it was skipped; ``properties``: the collection
    properties (one line per collection under its label)."""
    names = ", ".join(f"{label} ({name})" for name, (label, _) in collections.items())
    lines = [f"irmeta: done, {len(collections)} collection{'s' if len(collections) != 1 else ''}: {names}"]
    if claims:
        lines.append(f"  {claims}: do the paper's claims hold, per collection (and its figure)")
    for name in collections:
        lines.append(f"  results/{name}/tables/*.csv, results/{name}/figures/*.png and *.pdf")
        for experiment, reason in (skipped or {}).get(name, {}).items():
            lines.append(f"    skipped {experiment}: {reason}")
    if paper:
        lines.append(f"  {paper}: the paper's Tables 1-3, Figure 2, published_vs_reproduced.md")
    lines.append(f"  report: {report}")
    described = {} if properties is None else {str(r["collection"]): r for _, r in properties.iterrows()}
    for label, tables in collections.values():
        lines.append(f"{label}:")
        if label in described:
            lines.append("  " + property_line(described[label]))
        lines += ["  " + line for line in collection_headlines(tables)]
    return "\n".join(lines) + "\n"


def property_line(row: pd.Series) -> str:
    """One collection's properties in a line: size, judging, rarity (empty ones left out)."""
    def known(key: str) -> bool:
        return key in row and not pd.isna(row[key])

    parts = [f"{int(row[k])} {k}" for k in ("runs", "groups", "topics") if known(k)]
    if known("relevant_per_topic_mean"):
        parts.append(f"{row['relevant_per_topic_mean']:.1f} relevant / {row['judged_per_topic_mean']:.1f} judged "
                     f"per topic")
    if known("unique_run_relevant_share"):
        parts.append(f"{row['unique_run_relevant_share']:.1%} of relevant found by one run alone"
                     + (f" ({row['unique_group_relevant_share']:.1%} by one group)"
                        if known("unique_group_relevant_share") else ""))
    if known("mean_rarity"):
        parts.append(f"mean R(d) {row['mean_rarity']:.3f}")
    if known("pool_depth"):
        parts.append(f"pool depth {int(row['pool_depth'])}"
                     + (f" (runs wholly judged to a median {row['judged_depth_median']:g})"
                        if known("judged_depth_median") else ""))
    return "properties: " + ", ".join(parts)


def collection_headlines(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """Per comparison: tau (and tau_AP) at the largest alpha; then significant pairs at
    95% and stability for the baseline and the measure at that alpha."""
    tau = tables.get("kendall_tau")
    if tau is None or tau.empty:
        return ["(no Kendall tau table)"]
    lines = []
    for (measure, baseline), rows in tau.groupby(["measure", "baseline"], sort=False):
        top = rows.loc[rows["alpha"].map(alpha_sort_key).idxmax()]
        at = _at(top["alpha"])
        lines.append(f"{measure}{at} vs {baseline}: tau {top['tau']:.3f}, tau_AP {top['tau_ap']:.3f} "
                     f"({int(top['n_runs'])} runs)")
        for name, cells in (("significant pairs at 95%", _pairs(tables.get("discriminative_power"), baseline,
                                                                 measure, top["alpha"])),
                            ("stability", _stability(tables.get("stability"), baseline, measure, top["alpha"]))):
            if cells:
                lines.append(f"  {name}: {'; '.join(cells)}")
    return lines


def _at(alpha: object) -> str:
    text = alpha_cell(alpha)
    return f" (alpha {text})" if text else ""


def _rows(frame: pd.DataFrame, measure: str, alpha: object) -> pd.DataFrame:
    return frame[(frame["measure"] == measure) & (frame["alpha"].map(alpha_cell) == alpha_cell(alpha))]


def _pairs(frame: pd.DataFrame | None, baseline: str, measure: str, alpha: object) -> list[str]:
    if frame is None:
        return []
    cells = []
    for method, short in ((t.name, t.short) for t in TESTS.values() if t.short):
        counts = []
        for name, a in ((baseline, ""), (measure, alpha)):
            rows = _rows(frame, name, a)
            rows = rows[(rows["method"] == method) & (rows["level"].astype(float).round(6) == 0.05)]
            counts.append(str(int(rows["significant_pairs"].iloc[0])) if len(rows) else "-")
        if counts != ["-", "-"]:
            cells.append(f"{short} {counts[0]} -> {counts[1]}")
    return cells


def _stability(frame: pd.DataFrame | None, baseline: str, measure: str, alpha: object) -> list[str]:
    if frame is None:
        return []
    cells = []
    for (mode, fuzziness), _ in frame.groupby(["fuzziness_mode", "fuzziness"], sort=False):
        values = []
        for name, a in ((baseline, ""), (measure, alpha)):
            rows = _rows(frame, name, a)
            rows = rows[(rows["fuzziness_mode"] == mode) & (rows["fuzziness"] == fuzziness)]
            values.append(f"{rows['stability'].iloc[0]:.3f}" if len(rows) else "-")
        cells.append(f"{mode} {fuzziness:g}: {values[0]} -> {values[1]}")
    return cells


def summary_tables() -> Sequence[str]:
    """The tables :func:`collection_headlines` reads."""
    return ("kendall_tau", "discriminative_power", "stability")
