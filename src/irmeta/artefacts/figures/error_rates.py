"""Which test can I trust: the error rates of ``tables/test_error_rates.csv`` (Urbano, Lima
and Hanjalic, SIGIR 2019), one row of panels per measure.

- :func:`plot_type_1`: each test's two-tailed type I error against alpha, one panel per
  topic-set size, the nominal rate (rate = alpha) drawn, a rate of 0 on the bottom edge;
- :func:`plot_power`: each test's two-tailed power against delta at the significance
  level nearest 0.05, one panel per topic-set size;
- :func:`plot_familywise`: each test's familywise type I error against alpha, one panel
  per correction, at the largest topic-set size, k runs told apart by the line.

A test is told apart by colour and marker, named by its title in the test registry
(a test registered by a user included); axes on a log scale where the levels are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from irmeta.artefacts.figures.style import (
    legend_below,
    new_figure,
    require_columns,
    save_figure,
    styled,
)
from irmeta.metaeval.stats.registry import CORRECTIONS, name_order, name_title

#: The largest figure, inches: a page's text block (7.5 x 10).
MAX_WIDTH, MAX_HEIGHT = 7.5, 10.0
#: Each test's colour and marker, by its place in the registry's order.
COLOURS = ["#1f5fa8", "#c0392b", "#2ca02c", "#9467bd", "#e08214", "#17becf", "#8c564b", "#e377c2", "#7f7f7f"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">"]
#: Line styles of the familywise figure's group sizes k.
K_STYLES = ["-", "--", ":", "-."]
NOMINAL = {"color": "#555555", "linestyle": ":", "linewidth": 1.0}
#: The power figure's significance level: the table's nearest to this.
POWER_LEVEL = 0.05

_COLUMNS = ["measure", "n_topics", "test", "tails", "correction", "runs", "alpha", "delta", "rate", "kind"]


def _numbers(rates: pd.DataFrame) -> pd.DataFrame:
    """The table with its numbers as numbers (a CSV read with alpha as text included)."""
    require_columns(rates, _COLUMNS, "test error rates table")
    return rates.astype({"n_topics": "int64", "tails": "int64", "runs": "int64", "alpha": "float64",
                         "delta": "float64", "rate": "float64"})


def test_styles(tests: Sequence[str]) -> dict[str, dict]:
    """Colour and marker of each test, in the registry's order."""
    ordered = sorted(dict.fromkeys(tests), key=name_order)
    return {t: {"color": COLOURS[i % len(COLOURS)], "marker": MARKERS[i % len(MARKERS)]}
            for i, t in enumerate(ordered)}


def _grid(rows: int, columns: int, legend: int):
    """A figure of ``rows`` x ``columns`` panels within the page, a legend of ``legend``
    entries below."""
    width = min(MAX_WIDTH, max(4.4, 2.45 * columns))
    ncol = max(1, min(legend, int(width // 1.8)))
    legend_height = 0.19 * math.ceil(legend / ncol) + 0.2
    height = min(2.4, (MAX_HEIGHT - legend_height) / rows)
    fig, axes, _ = new_figure(rows * columns, panel_width=width / columns, height=height, per_row=columns,
                              sharey=False, min_width=width)
    return fig, axes, ncol


def _empty(stem: str | Path, message: str) -> list[Path]:
    def draw():
        fig, axes, _ = new_figure(1, panel_width=4.4, height=1.6)
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, message, ha="center", va="center", wrap=True)
        return fig

    return save_figure(styled(draw), stem)


def _measures(rates: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(rates["measure"].astype(str)))


def _handles(styles: dict[str, dict], extra: Sequence[Line2D] = ()) -> list[Line2D]:
    return [Line2D([], [], label=name_title(t), **style) for t, style in styles.items()] + list(extra)


def plot_type_1(rates: pd.DataFrame, stem: str | Path, collection: str = "") -> list[Path]:
    """Two-tailed type I error against alpha (log-log), one panel per topic-set size and
    measure, the nominal rate drawn."""
    rates = _numbers(rates)
    rows = rates[(rates["kind"] == "type_1") & (rates["tails"] == 2)]
    if rows.empty:
        return _empty(stem, "No type I trials in the table.")
    measures, sizes = _measures(rows), sorted(rows["n_topics"].unique())
    styles = test_styles(rows["test"].astype(str))

    def draw():
        handles = _handles(styles, [Line2D([], [], label="nominal (rate = alpha)", **NOMINAL)])
        fig, axes, ncol = _grid(len(measures), len(sizes), len(handles))
        alphas = np.sort(rows["alpha"].unique())
        for i, measure in enumerate(measures):
            for j, n in enumerate(sizes):
                ax = axes[i * len(sizes) + j]
                here = rows[(rows["measure"] == measure) & (rows["n_topics"] == n)]
                ax.plot(alphas, alphas, **NOMINAL)
                for test, style in styles.items():
                    line = here[here["test"] == test].sort_values("alpha")
                    if len(line):
                        ax.plot(line["alpha"], np.maximum(line["rate"], _floor(alphas)), **style)
                _log_axes(ax, alphas)
                ax.set_title(f"{measure}\n{n} topics")
                ax.set_xlabel("significance level (alpha)")
                if j == 0:
                    ax.set_ylabel("type I error rate")
        legend_below(fig, handles, ncol)
        if collection:
            fig.suptitle(f"Type I error of the paired tests, {collection} (two-tailed)")
        return fig

    return save_figure(styled(draw), stem)


def _floor(alphas: np.ndarray) -> float:
    """The bottom of a log axis of rates: a tenth of the smallest alpha, where a rate of 0
    is drawn (on the axis's edge)."""
    return float(alphas.min()) / 10


def _log_axes(ax, alphas: np.ndarray) -> None:
    """Both axes logarithmic, ticks written as plain numbers (0.001, 0.01, 0.1)."""
    from matplotlib.ticker import FuncFormatter

    if len(alphas) > 1 and alphas.min() > 0:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(_floor(alphas), 1.0)
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def power_level(alphas: Sequence[float]) -> float:
    """The level of the power figure: the table's nearest to :data:`POWER_LEVEL`."""
    values = np.asarray(sorted(set(float(a) for a in alphas)))
    return float(values[np.argmin(np.abs(values - POWER_LEVEL))])


def plot_power(rates: pd.DataFrame, stem: str | Path, collection: str = "") -> list[Path]:
    """Two-tailed power against delta at the level nearest 0.05, one panel per topic-set
    size and measure."""
    rates = _numbers(rates)
    rows = rates[(rates["kind"] == "power") & (rates["tails"] == 2)]
    if rows.empty:
        return _empty(stem, "No power trials in the table (no delta configured).")
    level = power_level(rows["alpha"])
    rows = rows[np.isclose(rows["alpha"], level)]
    measures, sizes = _measures(rows), sorted(rows["n_topics"].unique())
    styles = test_styles(rows["test"].astype(str))

    def draw():
        handles = _handles(styles)
        fig, axes, ncol = _grid(len(measures), len(sizes), len(handles))
        for i, measure in enumerate(measures):
            for j, n in enumerate(sizes):
                ax = axes[i * len(sizes) + j]
                here = rows[(rows["measure"] == measure) & (rows["n_topics"] == n)]
                for test, style in styles.items():
                    line = here[here["test"] == test].sort_values("delta")
                    if len(line):
                        ax.plot(line["delta"], line["rate"], **style)
                ax.set_ylim(-0.03, 1.03)
                ax.set_title(f"{measure}\n{n} topics")
                ax.set_xlabel("true difference in mean (delta)")
                if j == 0:
                    ax.set_ylabel(f"power at alpha {level:g}")
        legend_below(fig, handles, ncol)
        if collection:
            fig.suptitle(f"Power of the paired tests, {collection} (two-tailed)")
        return fig

    return save_figure(styled(draw), stem)


def plot_familywise(rates: pd.DataFrame, stem: str | Path, collection: str = "") -> list[Path]:
    """Familywise type I error against alpha (log-log) at the largest topic-set size, one
    panel per correction and measure, a line per test and number of runs k."""
    rates = _numbers(rates)
    rows = rates[rates["kind"] == "familywise_type_1"]
    if rows.empty:
        return _empty(stem, "No familywise trials in the table (no runs_at_once configured).")
    n = int(rows["n_topics"].max())
    rows = rows[rows["n_topics"] == n]
    measures = _measures(rows)
    corrections = sorted(rows["correction"].astype(str).unique(),
                         key=lambda c: list(CORRECTIONS).index(c) if c in CORRECTIONS else len(CORRECTIONS))
    ks = sorted(int(k) for k in rows["runs"].unique())
    dashes = {k: K_STYLES[i % len(K_STYLES)] for i, k in enumerate(ks)}
    styles = test_styles(rows["test"].astype(str))

    def draw():
        extra = [Line2D([], [], color="#333333", linestyle=dashes[k], label=f"{k} runs") for k in ks]
        handles = _handles(styles, [*extra, Line2D([], [], label="nominal (rate = alpha)", **NOMINAL)])
        fig, axes, ncol = _grid(len(measures), len(corrections), len(handles))
        alphas = np.sort(rows["alpha"].unique())
        for i, measure in enumerate(measures):
            for j, correction in enumerate(corrections):
                ax = axes[i * len(corrections) + j]
                here = rows[(rows["measure"] == measure) & (rows["correction"] == correction)]
                ax.plot(alphas, alphas, **NOMINAL)
                for test, style in styles.items():
                    for k in ks:
                        line = here[(here["test"] == test) & (here["runs"] == k)].sort_values("alpha")
                        if len(line):
                            ax.plot(line["alpha"], np.maximum(line["rate"], _floor(alphas)), linestyle=dashes[k],
                                    **style)
                _log_axes(ax, alphas)
                title = CORRECTIONS[correction].title if correction in CORRECTIONS else correction
                ax.set_title(f"{measure}\n{title}")
                ax.set_xlabel("significance level (alpha)")
                if j == 0:
                    ax.set_ylabel(f"familywise error, {n} topics")
        legend_below(fig, handles, ncol)
        if collection:
            fig.suptitle(f"Familywise type I error of each correction, {collection}")
        return fig

    return save_figure(styled(draw), stem)
