"""Breuer et al.'s ER-Delta RI plane (SIGIR 2020, Figure 2), from ``reproducibility.csv``:
one point per reproduced pair (baseline, advanced run) and measure, Effect Ratio on the x
axis, Delta RI on the y axis, the ideal reproduction (1, 0) marked. Rows whose ER or
Delta RI is undefined (empty) are not drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def plotted_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows drawn: ER and Delta RI both defined; a measure with alphas at each alpha,
    named ``measure (alpha a)``."""
    rows = table[table["er"].notna() & table["delta_ri"].notna()].copy()
    alpha = rows["alpha"].fillna("").astype(str)
    rows["series"] = np.where(alpha == "", rows["measure"].astype(str),
                              rows["measure"].astype(str) + " (alpha " + alpha + ")")
    return rows


def plot_reproducibility(table: pd.DataFrame, stem: str | Path, *, title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf``: the ER-Delta RI plane, a colour and marker per
    measure (and alpha), the point (1, 0) and the axes through it; deterministic as every
    irmeta figure (:mod:`irmeta.artefacts.figures.style`); returns both paths."""
    from irmeta.artefacts.figures.style import legend_below, new_figure, require_columns, save_figure, styled

    require_columns(table, ["measure", "alpha", "er", "delta_ri"], "reproducibility table")
    rows = plotted_rows(table)
    series = list(dict.fromkeys(rows["series"]))

    def draw() -> Figure:
        fig, axes, ncol = new_figure(1, panel_width=4.6, height=3.6, n_legend=len(series) + 1, column_width=2.4)
        ax = axes[0]
        ax.axvline(1.0, color="#bbbbbb", linewidth=0.8, zorder=1)
        ax.axhline(0.0, color="#bbbbbb", linewidth=0.8, zorder=1)
        handles = [ax.plot([1.0], [0.0], linestyle="none", marker="*", markersize=11, color="#c0392b", zorder=3,
                           label="ideal reproduction (1, 0)")[0]]
        for i, name in enumerate(series):
            part = rows[rows["series"] == name]
            handles += ax.plot(part["er"].to_numpy(float), part["delta_ri"].to_numpy(float), linestyle="none",
                               marker=MARKERS[i % len(MARKERS)], markersize=4, alpha=0.8, label=name, zorder=2)
        if not series:
            ax.text(0.5, 0.5, "no pair with ER and Delta RI defined", transform=ax.transAxes, ha="center")
        ax.set_xlabel("Effect Ratio (ER)")
        ax.set_ylabel(r"$\Delta$RI")
        legend_below(fig, handles, ncol)
        if title:
            fig.suptitle(title)
        return fig

    return save_figure(styled(draw), stem)


def plot_reproducibility_degradation(summary: pd.DataFrame, stem: str | Path, *,
                                     title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf`` from ``reproducibility_degradation.csv``: one
    panel per kind, each reproducibility measure's mean against the level, for the
    table's first measure (and alpha); returns both paths."""
    from irmeta.artefacts.figures.style import legend_below, new_figure, require_columns, save_figure, styled

    require_columns(summary, ["kind", "level", "measure", "alpha", "reproducibility_measure", "mean"],
                    "reproducibility degradation table")
    if not len(summary):
        raise ValueError("reproducibility degradation table: no rows to draw")
    first = summary.iloc[0]
    rows = summary[(summary["measure"] == first["measure"]) & (summary["alpha"].fillna("").astype(str)
                                                               == str("" if first["alpha"] != first["alpha"]
                                                                      else first["alpha"]))]
    kinds = list(dict.fromkeys(rows["kind"]))
    names = list(dict.fromkeys(rows["reproducibility_measure"]))

    def draw() -> Figure:
        fig, axes, ncol = new_figure(len(kinds), panel_width=3.0, height=2.8, n_legend=len(names), sharey=True)
        handles: list = []
        for ax, kind in zip(axes, kinds):
            part = rows[rows["kind"] == kind]
            for i, name in enumerate(names):
                line = part[part["reproducibility_measure"] == name].sort_values("level")
                drawn = ax.plot(line["level"].to_numpy(float), line["mean"].to_numpy(float),
                                marker=MARKERS[i % len(MARKERS)], markersize=3.5, linewidth=1.0, label=name)
                if ax is axes[0]:
                    handles += drawn
            ax.set_title(kind)
            ax.set_xlabel("degradation level q")
        axes[0].set_ylabel(f"mean over runs and trials ({first['measure']})")
        legend_below(fig, handles, ncol)
        if title:
            fig.suptitle(title)
        return fig

    return save_figure(styled(draw), stem)
