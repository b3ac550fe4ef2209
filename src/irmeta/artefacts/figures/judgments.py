"""Bring your own judgments: how far each alternative judgment set agrees with the
reference, from :func:`irmeta.metaeval.judgment_agreement.judgment_agreement_table`.

Two panels over the same x axis, one slot per measure and alpha (grouped by measure,
alphas in order, ``1/R`` included: the axis is categorical): Kendall's tau and tau_AP
against the reference's ranking, and the reference's significant pairs whose order the
alternative swaps, as a share. One colour and marker per alternative judgment set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import PercentFormatter

from irmeta.artefacts.figures.style import (
    legend_below,
    legend_columns,
    measure_order,
    require_columns,
    save_figure,
    styled,
)
from irmeta.measures.alpha import alpha_cell, alpha_sort_key

_COLUMNS = ("judgments", "measure", "alpha", "kendall_tau", "tau_ap", "swapped_significant", "significant_reference")

# One colour and marker per judgment set, in the table's order (cycled past seven).
_SET_COLOURS = ("#1f5fa8", "#c0392b", "#1b7837", "#e08214", "#542788", "#555555", "#17becf")
_SET_MARKERS = ("o", "s", "^", "D", "v", "P", "X")

# Horizontal gap between measure groups, in slots.
_GROUP_GAP = 0.7


def _stem(png: str | Path, pdf: str | Path) -> Path:
    """The one stem :func:`save_figure` writes both files from: ``<stem>.png``, ``<stem>.pdf``."""
    png, pdf = Path(png), Path(pdf)
    if png.suffix != ".png" or pdf.suffix != ".pdf" or png.with_suffix("") != pdf.with_suffix(""):
        raise ValueError(f"png and pdf must be <stem>.png and <stem>.pdf, not {png} and {pdf}")
    return png.with_suffix("")


def _prepared(table: pd.DataFrame) -> pd.DataFrame:
    """The table with alpha as text keys and ``_share``, swapped / significant (NaN for 0/0)."""
    require_columns(table, _COLUMNS, "judgment_agreement table")
    frame = table.assign(alpha=table["alpha"].map(alpha_cell))
    significant = frame["significant_reference"].astype(float)
    swapped = frame["swapped_significant"].astype(float)
    return frame.assign(_share=np.where(significant > 0, swapped / significant.where(significant > 0), np.nan))


def _slot_positions(frame: pd.DataFrame) -> tuple[dict[tuple[str, str], float], list[tuple[str, float]]]:
    """x of each (measure, alpha) slot, grouped by measure with a gap between groups, and
    each group's measure and centre."""
    positions: dict[tuple[str, str], float] = {}
    groups = []
    x = 0.0
    for measure in sorted(frame["measure"].unique(), key=measure_order):
        alphas = sorted(frame.loc[frame["measure"] == measure, "alpha"].unique(), key=alpha_sort_key)
        start = x
        for alpha in alphas:
            positions[(measure, alpha)] = x
            x += 1.0
        groups.append((measure, (start + x - 1.0) / 2))
        x += _GROUP_GAP
    return positions, groups


def _measure_labels(measures: list[str]) -> dict[str, str]:
    """The names users type (``P_rareness@100``): distinct as the measures are."""
    return {m: str(m) for m in measures}


def _set_style(index: int) -> dict:
    return {"color": _SET_COLOURS[index % len(_SET_COLOURS)], "marker": _SET_MARKERS[index % len(_SET_MARKERS)]}


def _tau_low(frame: pd.DataFrame) -> float:
    """The tau axis' floor: 0, or the next 0.1 below the lowest coefficient."""
    values = pd.concat([frame["kendall_tau"], frame["tau_ap"]]).astype(float).dropna()
    lowest = float(values.min()) if len(values) else 0.0
    return min(0.0, np.floor(lowest * 10 - 1e-9) / 10)


def _draw_set(tau_ax, share_ax, rows: pd.DataFrame, positions: dict, offset: float, width: float,
              style: dict) -> None:
    """One judgment set: tau (solid, filled) and tau_AP (dashed, open) per measure group,
    the swapped share as bars."""
    for _, group in rows.groupby("measure", sort=False):
        group = group.assign(_x=[positions[(m, a)] + offset for m, a in zip(group["measure"], group["alpha"])])
        group = group.sort_values("_x")
        tau_ax.plot(group["_x"], group["kendall_tau"], linestyle="-", zorder=3, **style)
        tau_ax.plot(group["_x"], group["tau_ap"], linestyle="--", linewidth=1.1, markerfacecolor="white",
                    zorder=2, **style)
        shown = group[group["_share"].notna()]
        share_ax.bar(shown["_x"], shown["_share"], width=width, color=style["color"], zorder=3)


def _x_axis(ax, positions: dict, groups: list[tuple[str, float]], labels: dict[str, str]) -> None:
    """Slot ticks (alpha, or the measure's name when it has none) and, below them, the
    names of the measures with alphas (matplotlib's nested-ticks recipe, a secondary axis)."""
    ticks = sorted(positions.items(), key=lambda item: item[1])
    ax.set_xticks([x for _, x in ticks], labels=[rf"$\alpha$={a}" if a else labels[m] for (m, a), _ in ticks])
    weighted = [(m, x) for m, x in groups if any(a for (mm, a) in positions if mm == m)]
    if weighted:
        below = ax.secondary_xaxis("bottom")
        below.set_xticks([x for _, x in weighted], labels=["\n" + labels[m] for m, _ in weighted])
        below.tick_params(axis="x", length=0)
        below.spines["bottom"].set_visible(False)
    ax.set_xlim(min(positions.values()) - 0.6, max(positions.values()) + 0.6)


def _legend(sets: list[str]) -> list[Line2D]:
    handles = [Line2D([], [], linestyle="none", label=str(name), **_set_style(i)) for i, name in enumerate(sets)]
    handles.append(Line2D([], [], color="black", marker="o", linestyle="-", label=r"Kendall $\tau$ (tau-b)"))
    handles.append(Line2D([], [], color="black", marker="o", markerfacecolor="white", linestyle="--",
                          linewidth=1.1, label=r"$\tau_{AP}$"))
    return handles


def plot_judgment_agreement(table: pd.DataFrame, png: str | Path, pdf: str | Path, *,
                            title: str | None = None) -> list[Path]:
    """Agreement of alternative judgment sets with the reference, as ``png`` and ``pdf``
    (which must be ``<stem>.png`` and ``<stem>.pdf``: one atomic, deterministic save).

    ``table``: a ``judgment_agreement`` table (columns judgments, measure, alpha,
    kendall_tau, tau_ap, swapped_significant, significant_reference; ``reference`` and
    ``level`` name the axes when present). Top panel: tau (solid, filled markers) and
    tau_AP (dashed, open markers) per measure and alpha, one colour and marker per
    judgment set, y from min(0, lowest) to 1. Bottom panel: swapped_significant /
    significant_reference. Returns the two paths.
    """
    stem = _stem(png, pdf)
    frame = _prepared(table)
    if frame.empty:
        raise ValueError("plot_judgment_agreement: the table is empty")
    sets = list(dict.fromkeys(frame["judgments"].astype(str)))
    positions, groups = _slot_positions(frame)
    labels = _measure_labels(list(dict.fromkeys(frame["measure"])))
    reference = str(frame["reference"].iloc[0]) if "reference" in frame.columns else "the reference"
    level = f", level {float(frame['level'].iloc[0]):g}" if "level" in frame.columns else ""
    low = _tau_low(frame)
    spread = min(0.7, 0.22 * len(sets))  # of a slot, shared by the sets' markers and bars
    width = spread / len(sets)
    shares = frame["_share"].dropna()
    top = max(0.05, float(shares.max()) if len(shares) else 0.0)

    def draw() -> Figure:
        handles = _legend(sets)
        fig_width = max(4.4, 0.55 * len(positions) * max(1.0, len(sets) / 3) + 1.6)
        ncol = legend_columns(fig_width, len(handles), 1.7)
        rows = -(-len(handles) // ncol)
        fig = Figure(figsize=(fig_width, 5.2 + 0.19 * rows), layout="constrained")
        FigureCanvasAgg(fig)
        tau_ax, share_ax = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
        for i, name in enumerate(sets):
            offset = (i - (len(sets) - 1) / 2) * width
            _draw_set(tau_ax, share_ax, frame[frame["judgments"].astype(str) == name], positions, offset,
                      width, _set_style(i))
        tau_ax.axhline(1.0, color="#999999", linewidth=0.8, linestyle=":", zorder=1)
        tau_ax.set_ylim(low, 1.0 + 0.03 * (1.0 - low))
        tau_ax.set_ylabel(f"correlation with\n{reference}'s ranking")
        tau_ax.tick_params(axis="x", labelbottom=False)
        share_ax.set_ylim(0.0, min(1.05, top * 1.15))
        share_ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        share_ax.set_ylabel(f"{reference}'s significant\npairs swapped")
        share_ax.set_title(f"two-way Tukey HSD{level}", fontsize="small", loc="right")
        _x_axis(share_ax, positions, groups, labels)
        if title:
            fig.suptitle(title)
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)
