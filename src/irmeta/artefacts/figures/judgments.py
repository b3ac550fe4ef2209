"""Bring your own judgments: how far each alternative judgment set agrees with the
reference, from :func:`irmeta.metaeval.judgment_agreement.judgment_agreement_table`.

Small multiples, a panel per measure (three side by side): the judgment sets down the
y axis in the table's order, named in words (:func:`~irmeta.artefacts.labels.judgment_set_label`),
and for each, Kendall's tau (filled circle) and tau_AP (open diamond) of the runs'
ranking against the reference's, a colour per alpha (a ramp, light to dark; a measure
without alpha in black). Under each row of measures, the share of the reference's
significant pairs whose order the set swaps. A collection with many sets or measures
gets as many pages as fit (:data:`~irmeta.artefacts.figures.style.MAX_HEIGHT`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import PercentFormatter

from irmeta.artefacts.figures.style import (
    MAX_HEIGHT,
    PAGE_WIDTH,
    alpha_ramp,
    legend_below,
    legend_columns,
    legend_rows,
    measure_order,
    new_figure,
    page_title,
    require_columns,
    save_figure,
    styled,
)
from irmeta.artefacts.labels import judgment_set_label
from irmeta.measures.alpha import alpha_cell, alpha_sort_key

_COLUMNS = ("judgments", "measure", "alpha", "kendall_tau", "tau_ap", "swapped_significant", "significant_reference")

#: Measures side by side on a page.
PER_ROW = 3
#: A panel's height: its title, ticks and axis label, then each judgment set's row (inches).
_PANEL_FRAME = 0.72
_SET_ROW = 0.14
NO_ALPHA_COLOUR = "#222222"
_STAT_COLOUR = "#777777"


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


def _measure_labels(measures: list[str]) -> dict[str, str]:
    """The names users type (``P_rareness@100``): distinct as the measures are."""
    return {m: str(m) for m in measures}


def _tau_low(frame: pd.DataFrame) -> float:
    """The tau axis' floor: 0, or the next 0.1 below the lowest coefficient."""
    values = pd.concat([frame["kendall_tau"], frame["tau_ap"]]).astype(float).dropna()
    lowest = float(values.min()) if len(values) else 0.0
    return min(0.0, np.floor(lowest * 10 - 1e-9) / 10)


def _panel_height(n_sets: int) -> float:
    return _PANEL_FRAME + _SET_ROW * max(1, n_sets)


def judgment_pages(n_sets: int, n_measures: int, reserved: float, max_height: float = MAX_HEIGHT
                   ) -> list[tuple[range, range]]:
    """(sets, measures) of each page: every set and as many rows of :data:`PER_ROW`
    measures (each a tau row and a swapped row) as fit; when one row of measures with every
    set does not fit, the sets split into pages of as many as fit."""
    room = max_height - reserved
    rows = int(room / (2 * _panel_height(n_sets)) + 1e-9)
    blocks = math.ceil(n_measures / PER_ROW)
    if rows >= 1:
        per_page = rows * PER_ROW
        return [(range(n_sets), range(m, min(n_measures, m + per_page))) for m in range(0, n_measures, per_page)]
    fit = max(1, int((room / 2 - _PANEL_FRAME) / _SET_ROW + 1e-9))
    chunks = math.ceil(n_sets / fit)
    size = math.ceil(n_sets / chunks)  # pages of balanced size
    return [(range(s, min(n_sets, s + size)), range(b * PER_ROW, min(n_measures, (b + 1) * PER_ROW)))
            for b in range(blocks) for s in range(0, n_sets, size)]


def plot_judgment_agreement(table: pd.DataFrame, png: str | Path, pdf: str | Path, *,
                            title: str | None = None) -> list[Path]:
    """Agreement of alternative judgment sets with the reference, as ``png`` (the first
    page) and ``pdf`` (every page; which must be ``<stem>.png`` and ``<stem>.pdf``: one
    atomic, deterministic save).

    ``table``: a ``judgment_agreement`` table (columns judgments, measure, alpha,
    kendall_tau, tau_ap, swapped_significant, significant_reference; ``reference`` and
    ``level`` name the axes when present). A panel per measure: tau (filled circles) and
    tau_AP (open diamonds) per set and alpha, x from min(0, lowest) to 1; below each row
    of measures, swapped_significant / significant_reference. Pages as
    :func:`judgment_pages` lays them out. Returns the two paths.
    """
    stem = _stem(png, pdf)
    frame = _prepared(table)
    if frame.empty:
        raise ValueError("plot_judgment_agreement: the table is empty")
    sets = list(dict.fromkeys(frame["judgments"].astype(str)))
    measures = sorted(frame["measure"].unique(), key=measure_order)
    labels = _measure_labels(measures)
    reference = str(frame["reference"].iloc[0]) if "reference" in frame.columns else "the reference"
    level = f" (Tukey HSD, level {float(frame['level'].iloc[0]):g})" if "level" in frame.columns else ""
    colours = alpha_ramp(sorted({a for a in frame["alpha"] if a}, key=alpha_sort_key))
    low = _tau_low(frame)
    shares = frame["_share"].dropna()
    top = max(0.05, float(shares.max()) if len(shares) else 0.0)

    handles = [Line2D([], [], linestyle="none", marker="s", color=c, label=rf"$\alpha$ = {a}")
               for a, c in colours.items()]
    if any(not a for a in frame["alpha"]):
        handles.append(Line2D([], [], linestyle="none", marker="s", color=NO_ALPHA_COLOUR, label="no alpha"))
    handles += [Line2D([], [], linestyle="none", marker="o", color=_STAT_COLOUR, label=r"Kendall $\tau$ (tau-b)"),
                Line2D([], [], linestyle="none", marker="D", color=_STAT_COLOUR, markerfacecolor="white",
                       label=r"$\tau_{AP}$")]
    ncol = legend_columns(PAGE_WIDTH, len(handles), 1.15)
    extra = 0.3 if title else 0.0
    reserved = 0.19 * legend_rows(len(handles), ncol) + extra + 0.3  # the page's title
    pages = judgment_pages(len(sets), len(measures), reserved)

    def page(number: int, set_range: range, measure_range: range) -> Figure:
        shown_sets = [sets[i] for i in set_range]
        shown = [measures[i] for i in measure_range]
        blocks = math.ceil(len(shown) / PER_ROW)
        fig, axes, ncol = new_figure(2 * PER_ROW * blocks, panel_width=PAGE_WIDTH / PER_ROW,
                                     height=_panel_height(len(shown_sets)), n_legend=len(handles),
                                     column_width=1.15, sharey=False, per_row=PER_ROW, extra_height=extra + 0.3)
        for k in range(PER_ROW * blocks):
            block, column = divmod(k, PER_ROW)
            tau_ax, share_ax = axes[2 * PER_ROW * block + column], axes[2 * PER_ROW * block + PER_ROW + column]
            if k >= len(shown):
                tau_ax.set_visible(False)
                share_ax.set_visible(False)
                continue
            rows = frame[(frame["measure"] == shown[k]) & frame["judgments"].astype(str).isin(shown_sets)]
            _draw_measure(tau_ax, share_ax, rows, shown_sets, colours)
            tau_ax.set_title(labels[shown[k]])
            tau_ax.set_xlim(low, 1.0 + 0.04 * (1.0 - low))
            tau_ax.set_xlabel(rf"$\tau$ with {reference}' ranking" if reference.endswith("s")
                              else rf"$\tau$ with {reference}'s ranking")
            share_ax.set_title("significant pairs swapped")
            share_ax.set_xlim(0.0, min(1.05, top * 1.15))
            share_ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            share_ax.set_xlabel(f"of {reference}' significant pairs" if reference.endswith("s")
                                else f"of {reference}'s significant pairs")
            for ax in (tau_ax, share_ax):
                ax.set_yticks(range(len(shown_sets)), labels=[judgment_set_label(n) for n in shown_sets])
                ax.set_ylim(len(shown_sets) - 0.5, -0.5)  # the table's first set on top
                ax.grid(axis="y", visible=False)
                if column:
                    ax.tick_params(labelleft=False)
        heading = page_title(f"Judgment sets against {reference}{level}", number, len(pages))
        fig.suptitle(f"{title}: {heading}" if title else heading)
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(lambda: [page(n, s, m) for n, (s, m) in enumerate(pages)]), stem)


def _draw_measure(tau_ax, share_ax, rows: pd.DataFrame, sets: list[str], colours: dict[str, str]) -> None:
    """One measure's sets: a dot per alpha (nudged apart down the set's row), tau filled,
    tau_AP open, the swapped share below."""
    alphas = sorted(rows["alpha"].unique(), key=alpha_sort_key)
    nudges = np.linspace(-0.22, 0.22, len(alphas)) if len(alphas) > 1 else [0.0]
    where = {name: i for i, name in enumerate(sets)}
    for alpha, nudge in zip(alphas, nudges):
        part = rows[rows["alpha"] == alpha]
        y = part["judgments"].astype(str).map(where).to_numpy(float) + nudge
        colour = colours.get(alpha, NO_ALPHA_COLOUR)
        tau_ax.scatter(part["kendall_tau"].astype(float), y, s=14, color=colour, marker="o", zorder=3,
                       label="_tau", linewidths=0)
        tau_ax.scatter(part["tau_ap"].astype(float), y, s=13, marker="D", facecolors="white", edgecolors=colour,
                       linewidths=0.8, zorder=2, label="_tau_ap")
        share_ax.scatter(part["_share"].astype(float), y, s=14, color=colour, marker="o", zorder=3,
                         label="_share", linewidths=0)
    tau_ax.axvline(1.0, color="#999999", linewidth=0.8, linestyle=":", zorder=1)
