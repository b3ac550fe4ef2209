"""Shallower pools and sampled judgments as curves, from ``judgment_reduction.csv``
(:func:`irmeta.metaeval.judgment_reduction.judgment_reduction_table`): Kendall's tau
between the runs' ranking under a generated judgment set and under the full qrels,
against the pool depth (left), against the fraction of judgments kept and against the
error rate of generated assessors (Carterette and Soboroff, SIGIR 2010), one
line per measure (the shape of Buckley and Voorhees's SIGIR 2004 figures). A measure with
alphas is drawn at one (:func:`~irmeta.artefacts.figures.topic_set_size.shown_alpha`: 1,
where rareness weighs most); for fractions the mean over trials is solid, the lowest
trial dotted (for error rates too).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
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
from irmeta.measures.alpha import alpha_cell

_COLUMNS = ("kind", "value", "measure", "alpha", "kendall_tau", "kendall_tau_min")

# Panels in this order, when the table has rows of their kind.
_PANELS = (("pool_depth", "pool depth d (top d judged)", "shallower pools"),
           ("fraction", "share of each topic's judgments", "sampled judgments"),
           ("error", "error rate q (labels flipped)", "generated assessors"))
_TRIALS = ("fraction", "error")  # kinds drawn in trials: their lowest trial dotted
_FULL_COLOUR = "#999999"


def _stem(png: str | Path, pdf: str | Path) -> Path:
    png, pdf = Path(png), Path(pdf)
    if png.suffix != ".png" or pdf.suffix != ".pdf" or png.with_suffix("") != pdf.with_suffix(""):
        raise ValueError(f"png and pdf must be <stem>.png and <stem>.pdf, not {png} and {pdf}")
    return png.with_suffix("")


def _shown_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Each measure's rows at its shown alpha, ``_alpha`` the alpha cell, ``value`` a float."""
    frame = table.assign(_alpha=table["alpha"].map(alpha_cell), value=table["value"].astype(float))
    keep = {m: shown_alpha(rows["_alpha"]) for m, rows in frame.groupby("measure", sort=False)}
    return frame[frame["_alpha"] == frame["measure"].map(keep)]


def _label(measure: str, alpha: str) -> str:
    return legend_label(measure) + (rf" ($\alpha$ = {alpha})" if alpha else "")


def plot_judgment_reduction(table: pd.DataFrame, png: str | Path, pdf: str | Path, *,
                            title: str | None = None) -> list[Path]:
    """Tau against pool depth and against fraction as ``png`` and ``pdf`` (``<stem>.png``
    and ``<stem>.pdf``); one panel per kind the table has, a dotted line at tau = 1 (the
    full qrels). An empty table (no generated sets configured) draws a note saying so.
    Returns the two paths."""
    stem = _stem(png, pdf)
    require_columns(table, _COLUMNS, "judgment_reduction table")
    frame = _shown_rows(table) if len(table) else table
    panels = [panel for panel in _PANELS if (frame["kind"] == panel[0]).any()] if len(frame) else []
    measures = sorted(frame["measure"].unique(), key=measure_order) if len(frame) else []

    def style(measure: str) -> dict:
        alpha = frame.loc[frame["measure"] == measure, "_alpha"].iloc[0]
        return dict(line_style(measure, measures.index(measure)), linestyle="-" if alpha else "--",
                    label=_label(measure, alpha))

    def draw() -> Figure:
        handles = [Line2D([], [], **style(m)) for m in measures]
        if any(kind in _TRIALS for kind, *_ in panels):
            handles.append(Line2D([], [], color="black", linestyle=":", linewidth=1.0, label="lowest trial"))
        fig, axes, ncol = new_figure(max(1, len(panels)), panel_width=PAGE_WIDTH / min(3, max(1, len(panels))),
                                     height=2.8, n_legend=len(handles), column_width=2.3)
        if not panels:
            axes[0].text(0.5, 0.5, "no generated judgment sets", ha="center", va="center",
                         transform=axes[0].transAxes)
            axes[0].set_axis_off()
            axes[0].set_title("judgment sets")
        for ax, (kind, xlabel, heading) in zip(axes, panels):
            rows = frame[frame["kind"] == kind]
            for measure in measures:
                line = rows[rows["measure"] == measure].sort_values("value")
                s = style(measure)
                ax.plot(line["value"], line["kendall_tau"], zorder=3, **s)
                if kind in _TRIALS:
                    ax.plot(line["value"], line["kendall_tau_min"], color=s["color"], linestyle=":",
                            linewidth=1.0, zorder=2)
            ax.axhline(1.0, color=_FULL_COLOUR, linestyle=":", linewidth=0.8, zorder=1)
            values = sorted(rows["value"].unique())
            if kind == "pool_depth":
                ax.set_xscale("log")
                ax.minorticks_off()
            ax.set_xticks(values, labels=[f"{v:g}" for v in values])
            ax.set_xlabel(xlabel)
            ax.set_title(heading)
        if panels:
            axes[0].set_ylabel("Kendall's tau with\nthe full qrels' ranking")
        if title:
            fig.suptitle(title)
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)
