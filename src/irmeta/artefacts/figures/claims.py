"""The paper's claims per collection as one figure: a column of panels per comparison
(measure vs baseline), a row per claim (rank agreement, discriminative-power gain,
stability gain, reusability, other judgments), in each panel a horizontal bar per
protocol (named in words down the row's first panel) and collection (a colour each).

Every bar starts at 0: rank agreement's at tau 0, on an axis from 0 to 1 with tau's
threshold (0.9) a dashed line, so a tau of 0.667 is a shorter bar, not a long one below
the line; its value is written right of its end (of 0 for a loss), each row's axis
widened until every value lies inside its panel; a gain's bar is its size, the claim's
threshold a dashed line when it is not 0 (the reusability claim's lies below 0: a small
loss still holds). The
discriminative-power gain is drawn as a share of the run pairs (comparable across
campaigns of 19 or 129 runs), labelled with it; every gain's axis spans at least
:data:`MIN_SPAN` in its units, so a difference of 1e-4 stays a flat bar rather than
filling the panel. A row's panels share their axis. More comparisons than
:data:`COMPARISONS_PER_PAGE` go on further pages. Output as every figure of irmeta: PNG
(the first page) and PDF, atomic and byte for byte deterministic
(:func:`irmeta.artefacts.figures.style.save_figure`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from irmeta.artefacts.claims import CLAIMS, COLUMNS, format_share, format_value
from irmeta.artefacts.figures.style import (
    ALPHA_COLOURS,
    FALLBACK_COLOURS,
    MAX_HEIGHT,
    PAGE_WIDTH,
    legend_below,
    legend_columns,
    legend_rows,
    page_title,
    require_columns,
    save_figure,
    styled,
)
from irmeta.artefacts.labels import protocol_label
from irmeta.measures.alpha import alpha_sort_key, alpha_value

_PALETTE = ALPHA_COLOURS + FALLBACK_COLOURS

CLAIM_TITLES = {"rank_agreement": "rank agreement", "discriminative_power": "discriminative power gain",
                "stability": "stability gain", "reusability": "leave-one-group-out tau, gain",
                "other_judgments": "tau under other judgments, gain"}

#: A panel's title in the grid (the row's claim, short enough for a narrow panel).
_PANEL_TITLES = {"rank_agreement": "rank agreement", "discriminative_power": "discriminative power",
                 "stability": "stability", "reusability": "reusability", "other_judgments": "other judgments"}

_X_LABELS = {"rank_agreement": r"$\tau$ vs. baseline", "discriminative_power": "gain, of run pairs",
             "stability": "stability gain", "reusability": r"$\tau$ gain, left out",
             "other_judgments": r"$\tau$ gain, other sets"}

#: The least a gain's axis spans (in the plotted units, around 0 and the threshold):
#: 5 points of the run pairs, 0.05 of stability or of tau.
MIN_SPAN = {"discriminative_power": 0.05, "stability": 0.05, "reusability": 0.05, "other_judgments": 0.05}

#: Comparisons side by side on a page (a column each).
COMPARISONS_PER_PAGE = 4
THRESHOLD_COLOUR = "#b22222"
_BAR = 0.13  # a bar's height (inches)
_FRAME = 0.62  # a panel's title, ticks and axis label (inches)


def plot_claims(table: pd.DataFrame, png: str | Path, pdf: str | Path | None = None, *,
                collections: Sequence[str] | None = None) -> list[Path]:
    """Draw :func:`irmeta.artefacts.claims.claims_table`'s ``table``; write ``png`` and
    ``pdf`` (default: ``png`` with ``.pdf``; the two share a stem) and return both paths.

    One panel per comparison and claim; in each, a bar per protocol and collection (in
    ``collections``' order, default the table's), a colour per collection across the
    figure. Where the table holds several alphas of a measure, a panel shows the largest
    numeric one of each collection (said in its column's title).
    """
    require_columns(table, COLUMNS, "claims table")
    png = Path(png)
    pdf = png.with_suffix(".pdf") if pdf is None else Path(pdf)
    if png.suffix != ".png" or pdf != png.with_suffix(".pdf"):
        raise ValueError(f"plot_claims writes <stem>.png and <stem>.pdf, not {png} and {pdf}")
    # the error-rate claims (their own figures are the experiment's) are left out
    frame = _largest_alpha(table[table["claim"].isin(CLAIM_TITLES)])
    order = list(dict.fromkeys(frame["collection"])) if collections is None else list(collections)
    comparisons = list(dict.fromkeys(zip(frame["measure"], frame["baseline"]))) or [("", "")]
    claims = [c for c in CLAIMS if (frame["claim"] == c).any()] or list(CLAIM_TITLES)
    protocols = {c: list(dict.fromkeys(frame.loc[frame["claim"] == c, "protocol"])) or [""] for c in claims}
    colours = {c: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(order)}
    pages = [comparisons[i:i + COMPARISONS_PER_PAGE] for i in range(0, len(comparisons), COMPARISONS_PER_PAGE)]

    def page(number: int, shown: list[tuple[str, str]]) -> Figure:
        handles = [Patch(color=colours[c], label=c) for c in order]
        handles.append(Line2D([], [], color=THRESHOLD_COLOUR, linewidth=0.9, linestyle="--",
                              label="the claim's threshold: holds at or beyond it"))
        ncol = legend_columns(PAGE_WIDTH, len(handles), 1.6)
        heights = [_FRAME + _BAR * max(1, len(order)) * len(protocols[c]) + 0.08 * len(protocols[c])
                   for c in claims]
        height = sum(heights) + 0.45 + 0.19 * legend_rows(len(handles), ncol) + 0.3
        fig = Figure(figsize=(PAGE_WIDTH, min(height, MAX_HEIGHT)), layout="constrained")
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(len(claims), COMPARISONS_PER_PAGE if number else len(shown), height_ratios=heights)
        rows = []
        for i, claim in enumerate(claims):
            first = None
            for j, (measure, baseline) in enumerate(shown):
                ax = fig.add_subplot(grid[i, j], sharex=first, sharey=first)
                first = first or ax
                panel = frame[(frame["measure"] == measure) & (frame["baseline"] == baseline)
                              & (frame["claim"] == claim)]
                _panel(ax, panel, claim, f"{measure} vs {baseline}", order, colours, protocols[claim])
                if j:
                    ax.tick_params(labelleft=False)
                if i == 0:
                    alphas = list(dict.fromkeys(frame.loc[(frame["measure"] == measure)
                                                          & (frame["baseline"] == baseline), "alpha"]))
                    head = f"{measure}\nvs {baseline}" + (rf" ($\alpha$ = {alphas[0]})" if len(alphas) == 1 else "")
                    ax.set_title(head + "\n" + _PANEL_TITLES[claim], fontsize=7.5)
            rows.append(fig.axes[-len(shown):])
            _least_span_row(rows[-1], claim, frame, protocols[claim])
        fig.suptitle(page_title("Do the paper's claims hold?", number, len(pages)))
        legend_below(fig, handles, ncol)
        _fit_bar_labels(fig, rows)
        return fig

    return save_figure(styled(lambda: [page(n, shown) for n, shown in enumerate(pages)]), png.with_suffix(""))


def _largest_alpha(table: pd.DataFrame) -> pd.DataFrame:
    """Per claim, comparison and collection, the rows at the largest numeric alpha (``1/R`` only without one)."""
    groups = list(zip(table["claim"], table["measure"], table["baseline"], table["collection"]))
    ranks = [(alpha_value(a) is not None, alpha_sort_key(a)) for a in table["alpha"]]
    best: dict[tuple, tuple] = {}
    for group, rank in zip(groups, ranks):
        best[group] = max(best.get(group, rank), rank)
    return table[np.array([rank == best[group] for group, rank in zip(groups, ranks)], dtype=bool)]


def _protocol_tick(protocol: str) -> str:
    """A protocol's name down a row of the grid, in words and short
    (:func:`~irmeta.artefacts.labels.protocol_label`)."""
    text = protocol_label(protocol)
    return text.replace("leave one group out, ", "").replace(", mean of trials", " (mean)").replace(
        " (baseline as reference)", "")


def _panel(ax, rows: pd.DataFrame, claim: str, comparison: str, order: list[str], colours: dict,
           protocols: Sequence[str] | None = None) -> None:
    """A bar per protocol (down the panel, ``protocols``' order) and collection, from 0,
    labelled with its value ("no value" where the claim is unfilled); the claim's threshold
    a dashed line where it is not 0."""
    protocols = list(protocols or dict.fromkeys(rows["protocol"])) or [""]
    ax.set_title(_PANEL_TITLES[claim], fontsize=7.5)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=3))
    ax.set_yticks(range(len(protocols)), labels=[_protocol_tick(p) for p in protocols], fontsize=7)
    ax.set_ylim(len(protocols) - 0.5, -0.5)  # the first protocol on top
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(_X_LABELS[claim], fontsize=7.5)
    ax.tick_params(axis="x", labelsize=7)
    if rows.empty:
        ax.text(0.5, 0.5, "not computed", ha="center", va="center", transform=ax.transAxes, color="#777777",
                fontsize=7)
        if claim == "rank_agreement":
            ax.set_xlim(0.0, 1.0)
        return
    line = float(rows["threshold"].iloc[0])
    height = 0.8 / max(1, len(order))
    for k, collection in enumerate(order):
        at = rows[rows["collection"] == collection].set_index("protocol").reindex(protocols)
        values = _plotted(at, claim)
        y = np.arange(len(protocols)) - 0.4 + height * (k + 0.5)
        ax.barh(y, values, height * 0.9, left=0.0, color=colours[collection], zorder=3)
        for value, at_y in zip(values, y):  # right of the bar's end, or of 0 for a loss: room on one side only
            missing = np.isnan(value)  # unfilled (the tables' note says why), not a bar of 0
            ax.annotate("no value" if missing else _bar_label(claim, value), (0.0 if missing else max(value, 0.0),
                        at_y), xytext=(2.0, 0.0), textcoords="offset points", ha="left", va="center", fontsize=7,
                        zorder=5, color="#777777" if missing else "black")
    ax.axvline(0.0, color="#333333", linewidth=0.9, zorder=4)
    if line != 0.0:
        ax.axvline(line, color=THRESHOLD_COLOUR, linewidth=0.9, linestyle="--", zorder=4)
    if claim == "discriminative_power":
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{100 * v:g}%")


def _least_span_row(axes: list, claim: str, frame: pd.DataFrame, protocols: list[str]) -> None:
    """The row's shared value axis: tau from 0 (or below, for a negative tau) to 1, a
    gain's over every value, 0 and the threshold, at least :data:`MIN_SPAN` wide; room for
    the bars' labels on the right (:func:`_fit_bar_labels` widens it to what they need)."""
    rows = frame[frame["claim"] == claim]
    if rows.empty:
        return
    values = [v for p in protocols for v in _plotted(rows[rows["protocol"] == p].reset_index(drop=True), claim)
              if not np.isnan(v)]
    if claim == "rank_agreement":
        axes[0].set_xlim(min([0.0, *values]), 1.15)
        axes[0].set_xticks([t for t in (-1.0, -0.5, 0.0, 0.5, 1.0) if t >= min([0.0, *values]) - 1e-9])
        return
    line = float(rows["threshold"].iloc[0])
    low, high = min([0.0, line, *values]), max([0.0, line, *values])
    if high - low < MIN_SPAN.get(claim, 0.0):
        middle = (low + high) / 2
        low, high = middle - MIN_SPAN[claim] / 2, middle + MIN_SPAN[claim] / 2
    axes[0].set_xlim(low - 0.05 * (high - low), high + 0.3 * (high - low))


def _fit_bar_labels(fig: Figure, rows: list[list]) -> None:
    """Widen each row's shared value axis until every bar's label lies inside its panel
    (a narrow panel's long label, as -19.57%, would run over the axis or the next panel):
    measured on the laid-out figure, again until nothing moves (a wider axis gives a
    label's points more of its units, so each pass widens by the overshoot and half again)."""
    pad = 8.0  # pixels between a label and the panel's edge
    for _ in range(12):
        moved = False
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for axes in rows:
            low, high = axes[0].get_xlim()
            left = right = 0.0
            for ax in axes:
                inverse = ax.transData.inverted()
                for text in ax.texts:
                    box = text.get_window_extent(renderer)
                    (x0, _), (x1, _) = inverse.transform([(box.x0 - pad, box.y0), (box.x1 + pad, box.y1)])
                    left, right = max(left, low - x0), max(right, x1 - high)
            if left > 1e-9 * (high - low) or right > 1e-9 * (high - low):
                axes[0].set_xlim(low - 1.5 * left, high + 1.5 * right)
                moved = True
        if not moved:
            return


def _plotted(at: pd.DataFrame, claim: str) -> np.ndarray:
    """The values a panel draws: the gain's share of the run pairs for discriminative
    power where the table has it (the count otherwise), else the value."""
    if claim == "discriminative_power" and "pairs_share" in at.columns and at["pairs_share"].notna().any():
        return at["pairs_share"].astype(float).to_numpy()
    return at["value"].astype(float).to_numpy()


def _bar_label(claim: str, value: float) -> str:
    return format_share(value) if claim == "discriminative_power" else format_value(claim, value)


def _alpha_of(rows: pd.DataFrame, collection: str) -> str:
    return ", ".join(dict.fromkeys(rows.loc[rows["collection"] == collection, "alpha"])) or "-"
