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


#: Reproducibility measures of document order: one value per run, whatever the measure.
ORDER_MEASURES = ("ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval")


def degradation_series(summary: pd.DataFrame) -> list[tuple[str, str]]:
    """The (measure, alpha) pairs of ``reproducibility_degradation.csv``, in its order
    (alpha "" for a measure without one)."""
    alpha = summary["alpha"].fillna("").astype(str)
    return list(dict.fromkeys(zip(summary["measure"].astype(str), alpha)))


def plot_reproducibility_degradation(summary: pd.DataFrame, stem: str | Path, *,
                                     title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf`` from ``reproducibility_degradation.csv``: a row
    of panels per reproducibility measure (its own y scale), a column per kind, the mean
    against the level with one line per measure (and alpha), each its colour and marker;
    the document-order measures, the same for every measure, one line; returns both paths."""
    from irmeta.artefacts.figures.style import (
        legend_below,
        line_style,
        new_figure,
        require_columns,
        save_figure,
        styled,
    )

    require_columns(summary, ["kind", "level", "measure", "alpha", "reproducibility_measure", "mean"],
                    "reproducibility degradation table")
    if not len(summary):
        raise ValueError("reproducibility degradation table: no rows to draw")
    rows = summary.assign(alpha=summary["alpha"].fillna("").astype(str), measure=summary["measure"].astype(str))
    kinds = list(dict.fromkeys(rows["kind"]))
    names = list(dict.fromkeys(rows["reproducibility_measure"]))
    series = degradation_series(summary)
    styles = {item: dict(line_style(item[0], i), marker=MARKERS[i % len(MARKERS)]) for i, item in enumerate(series)}

    def label(measure: str, alpha: str) -> str:
        return f"{measure} (alpha {alpha})" if alpha else measure

    def draw() -> Figure:
        fig, axes, ncol = new_figure(len(kinds) * len(names), panel_width=2.6, height=1.9,
                                     n_legend=len(series) + 1, sharey=False, per_row=len(kinds))
        handles: dict[str, object] = {}
        # each line's points, found in one pass (a filter per panel and line costs more than the drawing)
        lines = {key: part.sort_values("level", kind="stable")
                 for key, part in rows.groupby(["kind", "reproducibility_measure", "measure", "alpha"], sort=False)}
        empty = rows.iloc[:0]
        for r, name in enumerate(names):
            row_axes = axes[r * len(kinds):(r + 1) * len(kinds)]
            for c, (ax, kind) in enumerate(zip(row_axes, kinds)):
                if ax is not axes[0]:
                    ax.sharex(axes[0])
                drawn_series = series[:1] if name in ORDER_MEASURES else series
                for item in drawn_series:
                    line = lines.get((kind, name, *item), empty)
                    style = dict(color="0.25", marker=".") if name in ORDER_MEASURES else styles[item]
                    text = "document order (every measure)" if name in ORDER_MEASURES else label(*item)
                    drawn = ax.plot(line["level"].to_numpy(float), line["mean"].to_numpy(float), markersize=3.5,
                                    **dict(dict(linewidth=1.0), **style), label=text)
                    handles.setdefault(text, drawn[0])
                ax.set_title(f"{kind}: {name}", fontsize="small")
                if r == len(names) - 1:
                    ax.set_xlabel("degradation level q")
                else:  # every panel has the levels of the bottom row's: their numbers once, below
                    ax.tick_params(labelbottom=False)
                if c:  # a row shares its scale: its numbers once, on the left
                    ax.tick_params(labelleft=False)
            low = min(ax.get_ylim()[0] for ax in row_axes)
            high = max(ax.get_ylim()[1] for ax in row_axes)
            for ax in row_axes:
                ax.set_ylim(low, high)
            row_axes[0].set_ylabel(f"mean {name}", fontsize="small")
        legend_below(fig, list(handles.values()), ncol)
        if title:
            fig.suptitle(title)
        return fig

    return save_figure(styled(draw), stem)
