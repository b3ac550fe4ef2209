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

#: A marker per reproduced pair, on a page of the ER-Delta RI figure (more pairs: more pages).
PAIR_MARKERS = ("o", "s", "^", "v", "D", "<", ">", "p", "h", "*", "P", "X")
#: The colour of a measure without alpha; those with alphas take :func:`~irmeta.artefacts.figures.style.alpha_ramp`'s.
NO_ALPHA_COLOUR = "#222222"
IDEAL_COLOUR = "#aaaaaa"


def plotted_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows drawn: ER and Delta RI both defined; a measure with alphas at each alpha,
    named ``measure (alpha a)``."""
    rows = table[table["er"].notna() & table["delta_ri"].notna()].copy()
    alpha = rows["alpha"].fillna("").astype(str)
    rows["series"] = np.where(alpha == "", rows["measure"].astype(str),
                              rows["measure"].astype(str) + " (alpha " + alpha + ")")
    return rows


def axis_limits(values: np.ndarray, ideal: float) -> tuple[float, float]:
    """An axis' range: the middle 90% of ``values`` widened by half that span on each side
    (and to ``ideal``), padded by 8%; values beyond are far outliers, drawn at the edge."""
    values = values[np.isfinite(values)]
    if not len(values):
        return ideal - 1.0, ideal + 1.0
    low, high = np.quantile(values, [0.05, 0.95])
    span = max(high - low, 1e-9)
    low, high = max(values.min(), low - span / 2), min(values.max(), high + span / 2)
    low, high = min(low, ideal), max(high, ideal)
    pad = 0.08 * ((high - low) or 1.0)
    return float(low - pad), float(high + pad)


def plot_reproducibility(table: pd.DataFrame, stem: str | Path, *, title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf``: the ER-Delta RI plane, a panel per measure (its
    alphas on a colour ramp, :func:`~irmeta.artefacts.figures.style.alpha_ramp`), a marker per reproduced pair (advanced
    run over baseline, named in the legend; :data:`PAIR_MARKERS` pairs a page), the ideal
    reproduction (1, 0) where the grey lines cross. The axes span the bulk of the points
    (:func:`axis_limits`, shared by the panels); a far outlier sits on the edge, its value
    written beside it. Deterministic as every irmeta figure
    (:mod:`irmeta.artefacts.figures.style`); returns both paths."""
    from matplotlib.lines import Line2D

    from irmeta.artefacts.figures.style import (
        PAGE_WIDTH,
        alpha_ramp,
        legend_below,
        measure_order,
        new_figure,
        page_title,
        require_columns,
        save_figure,
        styled,
    )
    from irmeta.measures.alpha import alpha_cell, alpha_sort_key

    require_columns(table, ["measure", "alpha", "er", "delta_ri"], "reproducibility table")
    rows = plotted_rows(table)
    rows = rows.assign(alpha=rows["alpha"].map(alpha_cell), measure=rows["measure"].astype(str))
    has_pairs = {"baseline", "advanced"} <= set(rows.columns)
    rows = rows.assign(_pair=(rows["advanced"].astype(str) + " over " + rows["baseline"].astype(str))
                       if has_pairs else "every pair")
    measures = sorted(rows["measure"].unique(), key=measure_order)
    pairs = list(dict.fromkeys(rows["_pair"]))
    colours = alpha_ramp(sorted({a for a in rows["alpha"] if a}, key=alpha_sort_key))
    xlim = axis_limits(rows["er"].to_numpy(float), 1.0)
    ylim = axis_limits(rows["delta_ri"].to_numpy(float), 0.0)
    chunks = [pairs[i:i + len(PAIR_MARKERS)] for i in range(0, len(pairs), len(PAIR_MARKERS))] or [[]]

    def page(number: int, shown: list[str]) -> Figure:
        handles = [Line2D([], [], linestyle="none", color=NO_ALPHA_COLOUR, marker=PAIR_MARKERS[i], label=pair)
                   for i, pair in enumerate(shown)]
        handles += [Line2D([], [], linestyle="none", color=colour, marker="o", markersize=6,
                           label=rf"$\alpha$ = {a}") for a, colour in colours.items()]
        handles.append(Line2D([], [], color=IDEAL_COLOUR, linewidth=0.8, label="ideal: ER 1, $\\Delta$RI 0"))
        fig, axes, ncol = new_figure(max(1, len(measures)), panel_width=PAGE_WIDTH / 3, height=2.3,
                                     n_legend=len(handles), column_width=2.3, sharey=True,
                                     extra_height=0.3 if title or len(chunks) > 1 else 0.0)
        if not measures:
            axes[0].text(0.5, 0.5, "no pair with ER and Delta RI defined", transform=axes[0].transAxes,
                         ha="center")
            axes[0].set_title("reproducibility")
        for ax, measure in zip(axes, measures):
            _plane(ax, rows[(rows["measure"] == measure) & rows["_pair"].isin(shown)], shown, colours, xlim, ylim)
            ax.set_title(measure)
        for ax in axes:
            ax.set_xlabel("Effect Ratio (ER)")
        axes[0].set_ylabel(r"$\Delta$RI")
        heading = page_title(title, number, len(chunks))
        if heading:
            fig.suptitle(heading)
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(lambda: [page(n, shown) for n, shown in enumerate(chunks)]), stem)


def _plane(ax, rows: pd.DataFrame, pairs: list[str], colours: dict[str, str], xlim: tuple[float, float],
           ylim: tuple[float, float]) -> None:
    """One measure's points: a marker per pair, a colour per alpha, far outliers on the
    edge with their value."""
    ax.axvline(1.0, color=IDEAL_COLOUR, linewidth=0.8, zorder=1)
    ax.axhline(0.0, color=IDEAL_COLOUR, linewidth=0.8, zorder=1)
    for i, pair in enumerate(pairs):
        part = rows[rows["_pair"] == pair]
        if part.empty:
            continue
        x = part["er"].to_numpy(float)
        y = part["delta_ri"].to_numpy(float)
        colour = [colours.get(a, NO_ALPHA_COLOUR) for a in part["alpha"]]
        cx, cy = np.clip(x, *xlim), np.clip(y, *ylim)
        ax.scatter(cx, cy, c=colour, marker=PAIR_MARKERS[i], s=16, alpha=0.85, linewidths=0, zorder=3, clip_on=False,
                   label=f"_{pair}")
        for xi, yi, cxi, cyi in zip(x, y, cx, cy):
            if xi != cxi or yi != cyi:
                _outlier_label(ax, xi, yi, cxi, cyi, xlim)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)


def _outlier_label(ax, x: float, y: float, cx: float, cy: float, xlim: tuple[float, float]) -> None:
    """A point drawn on the edge at (cx, cy) for (x, y) beyond it: its true value beside it, inward."""
    text = ", ".join(([f"ER {x:.3g}"] if x != cx else []) + ([rf"$\Delta$RI {y:.3g}"] if y != cy else []))
    right = cx >= xlim[1]
    offset = (-4 if right else 4, -9 if y > cy else 4)
    ax.annotate(text, (cx, cy), textcoords="offset points", xytext=offset, fontsize=7, color="#444444",
                ha="right" if right else "left", annotation_clip=False)


#: Reproducibility measures of document order: one value per run, whatever the measure.
ORDER_MEASURES = ("ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval")


def degradation_series(summary: pd.DataFrame) -> list[tuple[str, str]]:
    """The (measure, alpha) pairs of ``reproducibility_degradation.csv``, in its order
    (alpha "" for a measure without one)."""
    alpha = summary["alpha"].fillna("").astype(str)
    return list(dict.fromkeys(zip(summary["measure"].astype(str), alpha)))


#: Each degradation kind (:mod:`irmeta.campaign.degrade`) and reproducibility measure in words.
KIND_WORDS = {"swap": "adjacent documents swapped", "replace": "documents replaced", "noise": "scores perturbed"}
MEASURE_WORDS = {"ktu": "KTU", "rbo": "RBO", "ktu_repro_eval": "KTU (repro_eval's form)",
                 "rbo_repro_eval": "RBO (repro_eval's form)", "rmse": "RMSE", "nrmse": "nRMSE",
                 "p_value": "p-value of the t-test", "er": "Effect Ratio", "delta_ri": r"$\Delta$RI"}
_ORDER_STYLES = (("#333333", "o"), ("#1b7837", "^"), ("#7b3294", "v"), ("#b8860b", "D"))  # apart from the measures
_ORDER = "document order"


def plot_reproducibility_degradation(summary: pd.DataFrame, stem: str | Path, *,
                                     title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf`` from ``reproducibility_degradation.csv``: a column
    per kind, the mean against the level; a first row for the document-order measures
    (the same for every measure: a line each), then a row per score measure (its own y
    scale) with a line per measure, each measure with alphas at the one
    :func:`~irmeta.artefacts.figures.topic_set_size.shown_alpha` picks (1: where rareness
    weighs most; every alpha is in the table); returns both paths."""
    from matplotlib.lines import Line2D

    from irmeta.artefacts.figures.style import (
        PAGE_WIDTH,
        legend_below,
        legend_label,
        line_style,
        measure_order,
        new_figure,
        require_columns,
        save_figure,
        styled,
    )
    from irmeta.artefacts.figures.topic_set_size import shown_alpha

    require_columns(summary, ["kind", "level", "measure", "alpha", "reproducibility_measure", "mean"],
                    "reproducibility degradation table")
    if not len(summary):
        raise ValueError("reproducibility degradation table: no rows to draw")
    rows = summary.assign(alpha=summary["alpha"].fillna("").astype(str), measure=summary["measure"].astype(str))
    kinds = list(dict.fromkeys(rows["kind"]))
    names = list(dict.fromkeys(rows["reproducibility_measure"]))
    order = [n for n in names if n in ORDER_MEASURES]
    scored = [n for n in names if n not in ORDER_MEASURES]
    panel_rows = ([_ORDER] if order else []) + scored
    shown = {m: shown_alpha(part["alpha"]) for m, part in rows.groupby("measure", sort=False)}
    measures = sorted(shown, key=measure_order)
    styles = {m: dict(line_style(m, i), linestyle="-" if shown[m] else "--") for i, m in enumerate(measures)}
    order_styles = {n: {"color": c, "marker": mk} for n, (c, mk) in zip(order, _ORDER_STYLES * len(order))}

    def label(measure: str) -> str:
        return legend_label(measure) + (rf" ($\alpha$ = {shown[measure]})" if shown[measure] else "")

    def draw() -> Figure:
        handles = [Line2D([], [], label=MEASURE_WORDS.get(n, n), **order_styles[n]) for n in order]
        handles += [Line2D([], [], label=label(m), **styles[m]) for m in measures]
        fig, axes, ncol = new_figure(len(kinds) * len(panel_rows), panel_width=PAGE_WIDTH / len(kinds), height=1.75,
                                     n_legend=len(handles), column_width=2.3, sharey=False, per_row=len(kinds),
                                     extra_height=0.3 if title else 0.0)
        # each line's points, found in one pass (a filter per panel and line costs more than the drawing)
        lines = {key: part.sort_values("level", kind="stable")
                 for key, part in rows.groupby(["kind", "reproducibility_measure", "measure", "alpha"], sort=False)}
        empty = rows.iloc[:0]
        first = measures[0] if measures else ""
        for r, name in enumerate(panel_rows):
            row_axes = axes[r * len(kinds):(r + 1) * len(kinds)]
            for c, (ax, kind) in enumerate(zip(row_axes, kinds)):
                if ax is not axes[0]:
                    ax.sharex(axes[0])
                if name == _ORDER:  # the same for every measure: the first one's
                    for n in order:
                        line = lines.get((kind, n, first, shown.get(first, "")), empty)
                        ax.plot(line["level"].to_numpy(float), line["mean"].to_numpy(float), markersize=3.5,
                                linewidth=1.0, **order_styles[n])
                else:
                    for m in measures:
                        line = lines.get((kind, name, m, shown[m]), empty)
                        ax.plot(line["level"].to_numpy(float), line["mean"].to_numpy(float), markersize=3.5,
                                **dict(styles[m], linewidth=1.0))
                ax.set_title(f"{KIND_WORDS.get(kind, kind)}:\n{MEASURE_WORDS.get(name, name)}")
                if r == len(panel_rows) - 1:
                    ax.set_xlabel("degradation level q")
                else:  # every panel has the levels of the bottom row's: their numbers once, below
                    ax.tick_params(labelbottom=False)
                if c:  # a row shares its scale: its numbers once, on the left
                    ax.tick_params(labelleft=False)
            low = min(ax.get_ylim()[0] for ax in row_axes)
            high = max(ax.get_ylim()[1] for ax in row_axes)
            for ax in row_axes:
                ax.set_ylim(low, high)
            row_axes[0].set_ylabel("mean" if name == _ORDER else f"mean {MEASURE_WORDS.get(name, name)}")
        legend_below(fig, handles, ncol)
        if title:
            fig.suptitle(title)
        return fig

    return save_figure(styled(draw), stem)
