"""Achieved significance level curves (Sakai, "Evaluating evaluation metrics based on the
bootstrap", SIGIR 2006, Figures 2-5): each measure's p-values over all run pairs, sorted
ascending, one panel per paired test, from ``tables/pairwise_tests.parquet``. The more
pairs a measure's curve keeps under a significance level, the more discriminative it is
by that test.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from irmeta.artefacts.figures.style import (
    PAGE_WIDTH,
    legend_below,
    legend_label,
    line_style,
    measure_order,
    method_order,
    method_title,
    new_figure,
    require_columns,
    save_figure,
    styled,
)
from irmeta.measures.alpha import alpha_cell, alpha_sort_key, alpha_value

LEVEL_COLOUR = "#555555"
LEVEL_STYLES = ("--", ":", "-.")
Y_MAX = 0.2  # Sakai's curves: the region where the levels are; the rest rises to 1
MAX_POINTS = 2000  # points per curve: beyond a figure's resolution


def curve_alpha(alphas: Sequence[object]) -> str:
    """The alpha a measure's curve shows: none for a measure without one, else its
    largest numeric alpha (where rareness weighs most; the claims' choice)."""
    cells = sorted({alpha_cell(a) for a in alphas}, key=alpha_sort_key)
    numbers = [c for c in cells if alpha_value(c) is not None]
    if "" in cells or not numbers:
        return cells[0] if cells else ""
    return numbers[-1]


def curve_blocks(blocks: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Of the (measure, alpha) blocks of a pairwise tests table, those the curves draw: each
    measure at its :func:`curve_alpha`. A reader loads only these."""
    alphas: dict[str, list[str]] = {}
    for measure, alpha in blocks:
        alphas.setdefault(measure, []).append(alpha)
    chosen = {measure: curve_alpha(found) for measure, found in alphas.items()}
    return [(m, a) for m, found in alphas.items() for a in dict.fromkeys(found) if alpha_cell(a) == chosen[m]]


def sorted_pvalues(tests: pd.DataFrame, method: str) -> dict[str, tuple[str, np.ndarray]]:
    """Per measure, its legend label (at :func:`curve_alpha`) and the p-values of
    ``method`` over all pairs at that alpha, ascending; measures in the paper's order."""
    rows = tests[tests["method"] == method]
    by_measure = dict(list(rows.groupby("measure", sort=False, observed=True)))
    curves = {}
    for measure in sorted(by_measure, key=measure_order):
        mine = by_measure[measure]
        cells = {a: alpha_cell(a) for a in mine["alpha"].unique()}  # once per alpha, not per pair
        alpha = curve_alpha(list(cells.values()))
        keep = mine["alpha"].isin([a for a, c in cells.items() if c == alpha])
        curves[measure] = (_label(measure, alpha), np.sort(mine.loc[keep, "p_value"].to_numpy(dtype=float)))
    return curves


def curve_points(p: np.ndarray, levels: Sequence[float], most: int = MAX_POINTS) -> np.ndarray:
    """Indices of sorted p-values to draw: all of them up to ``most``, else ``most``
    evenly spaced ones plus the last pair under each level, so the line (monotone) and
    where it crosses each level are as with every pair, in a figure of bounded size
    (a 500-run campaign has 124,750 pairs per curve)."""
    if len(p) <= most:
        return np.arange(len(p))
    crossings = np.searchsorted(p, np.asarray(levels, dtype=float), side="left") - 1
    even = np.rint(np.linspace(0, len(p) - 1, most)).astype(np.int64)
    return np.unique(np.concatenate([even, crossings[crossings >= 0], crossings[crossings + 1 < len(p)] + 1]))


def _label(measure: str, alpha: str) -> str:
    return legend_label(measure) + (f", alpha {alpha}" if alpha else "")


def _curve_style(measure: str, index: int, baseline: bool) -> dict:
    """The measure's colour and line, without markers (thousands of pairs make a line); a
    baseline shares its family's colour, so it is drawn dashed, broad and translucent."""
    style = line_style(measure, index)
    if baseline:
        return {"color": style["color"], "linewidth": 2.2, "alpha": 0.5, "linestyle": "--"}
    return {"color": style["color"], "linewidth": style.get("linewidth", 1.4)}


def plot_p_value_curves(tests: pd.DataFrame, stem: str | Path, levels: Sequence[float] = (0.05, 0.01)) -> list[Path]:
    """ASL curves: x the run pairs sorted by p-value, y the p-value (raw, uncorrected),
    one line per measure, one panel per test of ``tests`` (the pairwise tests table), the
    significance ``levels`` marked as horizontal lines."""
    require_columns(tests, ["measure", "alpha", "method", "p_value"], "pairwise tests table")
    methods = sorted(tests["method"].dropna().unique(), key=method_order)
    measures = sorted(tests["measure"].unique(), key=measure_order)
    level_styles = {float(lv): LEVEL_STYLES[i % len(LEVEL_STYLES)] for i, lv in enumerate(sorted(levels, reverse=True))}

    def draw() -> Figure:
        curves = {method: sorted_pvalues(tests, method) for method in methods}
        labels = {m: label for by_measure in curves.values() for m, (label, _) in by_measure.items()}
        styles = {m: _curve_style(m, i, labels.get(m) == legend_label(m)) for i, m in enumerate(measures)}
        handles = [Line2D([], [], label=labels[m], **styles[m]) for m in measures if m in labels]
        handles += [Line2D([], [], color=LEVEL_COLOUR, linestyle=style, linewidth=0.9, label=f"level {lv:g}")
                    for lv, style in level_styles.items()]
        fig, axes, ncol = new_figure(len(methods), panel_width=PAGE_WIDTH / 3, height=2.4, n_legend=len(handles),
                                      column_width=2.6)
        for ax, method in zip(axes, methods):
            for measure, (label, p) in curves[method].items():
                x = curve_points(p, levels)
                ax.plot(x + 1, p[x], label=label, **styles[measure])
            for lv, style in level_styles.items():
                ax.axhline(lv, color=LEVEL_COLOUR, linestyle=style, linewidth=0.9)
            ax.set_ylim(0, Y_MAX)
            ax.set_xlabel("run pairs, sorted by p-value")
            ax.set_title(method_title(method))
        axes[0].set_ylabel("achieved significance level (p)")
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)
