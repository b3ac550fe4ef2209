"""The paper's claims per collection as one figure: a row of panels per comparison
(measure vs baseline), a column per claim (rank agreement, discriminative-power gain,
stability gain), bars per protocol for each collection.

Rank agreement's bars start at tau's threshold, so a bar going up is a claim that holds;
a gain's bars start at 0, the claim's threshold drawn as a labelled line (the
reusability claim's lies below 0: a small loss still holds). The discriminative-power
gain is drawn as a share of the run pairs (comparable across campaigns of 19 or 129
runs), labelled with it; every gain's axis spans at least :data:`MIN_SPAN` in its
units, so a difference of 1e-4 stays a flat bar rather than filling the panel. Output
as every figure of irmeta: PNG and PDF, atomic and byte for byte deterministic
(:func:`irmeta.artefacts.figures.style.save_figure`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from irmeta.artefacts.claims import CLAIMS, COLUMNS, format_share, format_value
from irmeta.artefacts.figures.style import (
    ALPHA_COLOURS,
    FALLBACK_COLOURS,
    legend_below,
    legend_columns,
    require_columns,
    save_figure,
    styled,
)
from irmeta.measures.alpha import alpha_sort_key, alpha_value

_PALETTE = ALPHA_COLOURS + FALLBACK_COLOURS

CLAIM_TITLES = {"rank_agreement": "rank agreement", "discriminative_power": "discriminative power gain",
                "stability": "stability gain", "reusability": "leave-one-group-out tau, gain",
                "other_judgments": "tau under other judgments, gain"}

_Y_LABELS = {"rank_agreement": r"$\tau$ vs. baseline",
             "discriminative_power": "significant pairs, gain\n(share of run pairs)",
             "stability": "stability, gain", "reusability": r"$\tau$ full vs. left out, gain",
             "other_judgments": r"$\tau$ set vs. qrels, gain"}

#: The least a gain's y axis spans (in the plotted units, around 0 and the threshold):
#: 5 points of the run pairs, 0.05 of stability or of tau.
MIN_SPAN = {"discriminative_power": 0.05, "stability": 0.05, "reusability": 0.05, "other_judgments": 0.05}


def plot_claims(table: pd.DataFrame, png: str | Path, pdf: str | Path | None = None, *,
                collections: Sequence[str] | None = None) -> list[Path]:
    """Draw :func:`irmeta.artefacts.claims.claims_table`'s ``table``; write ``png`` and
    ``pdf`` (default: ``png`` with ``.pdf``; the two share a stem) and return both paths.

    One panel per comparison and claim; in each, one group of bars per collection (in
    ``collections``' order, default the table's), a bar per protocol, coloured by
    protocol across the figure. Where the table holds several alphas of a measure, a
    panel shows the largest numeric one of each collection.
    """
    require_columns(table, COLUMNS, "claims table")
    png = Path(png)
    pdf = png.with_suffix(".pdf") if pdf is None else Path(pdf)
    if png.suffix != ".png" or pdf != png.with_suffix(".pdf"):
        raise ValueError(f"plot_claims writes <stem>.png and <stem>.pdf, not {png} and {pdf}")
    # the error-rate claims (their own figures are the experiment's) are left out
    frame = _largest_alpha(table[table["claim"].isin(CLAIM_TITLES)])
    order = list(dict.fromkeys(frame["collection"])) if collections is None else list(collections)
    comparisons = list(dict.fromkeys(zip(frame["measure"], frame["baseline"])))
    claims = [c for c in CLAIMS if (frame["claim"] == c).any()] or list(CLAIM_TITLES)
    protocols = list(dict.fromkeys(frame["protocol"]))
    colours = {p: _PALETTE[i % len(_PALETTE)] for i, p in enumerate(protocols)}

    def draw() -> Figure:
        width = 3.3 * len(claims)
        ncol = legend_columns(width, len(protocols), 1.9)
        rows = max(1, len(comparisons))
        fig = Figure(figsize=(width, 2.5 * rows + 0.2 * -(-len(protocols) // ncol)), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(rows, len(claims), squeeze=False)
        for i, (measure, baseline) in enumerate(comparisons or [("", "")]):
            for j, claim in enumerate(claims):
                panel = frame[(frame["measure"] == measure) & (frame["baseline"] == baseline)
                              & (frame["claim"] == claim)]
                _panel(axes[i][j], panel, claim, f"{measure} vs {baseline}", order, colours)
        legend_below(fig, [Patch(color=colours[p], label=p) for p in protocols], ncol)
        return fig

    return save_figure(styled(draw), png.with_suffix(""))


def _largest_alpha(table: pd.DataFrame) -> pd.DataFrame:
    """Per claim, comparison and collection, the rows at the largest numeric alpha (``1/R`` only without one)."""
    groups = list(zip(table["claim"], table["measure"], table["baseline"], table["collection"]))
    ranks = [(alpha_value(a) is not None, alpha_sort_key(a)) for a in table["alpha"]]
    best: dict[tuple, tuple] = {}
    for group, rank in zip(groups, ranks):
        best[group] = max(best.get(group, rank), rank)
    return table[np.array([rank == best[group] for group, rank in zip(groups, ranks)], dtype=bool)]


def _panel(ax, rows: pd.DataFrame, claim: str, comparison: str, order: list[str], colours: dict) -> None:
    """Bars per protocol for each collection, from the claim's line, labelled with their values."""
    alphas = list(dict.fromkeys(rows["alpha"]))
    ax.set_title(CLAIM_TITLES[claim] + (f", alpha {alphas[0]}" if len(alphas) == 1 else "") + f"\n{comparison}")
    if rows.empty:
        ax.text(0.5, 0.5, "not computed", ha="center", va="center", transform=ax.transAxes, color="#777777")
        ax.set_xticks([])
        ax.set_yticks([])
        return
    line = float(rows["threshold"].iloc[0])
    protocols = list(dict.fromkeys(rows["protocol"]))
    width = 0.8 / len(protocols)
    x = np.arange(len(order))
    base = line if claim == "rank_agreement" else 0.0  # a gain's bar is its size, from 0
    drawn = []
    for k, protocol in enumerate(protocols):
        at = rows[rows["protocol"] == protocol].set_index("collection").reindex(order)
        values = _plotted(at, claim)
        drawn.extend(values[~np.isnan(values)])
        bars = ax.bar(x - 0.4 + width * (k + 0.5), values - base, width * 0.92, bottom=base,
                      color=colours[protocol], zorder=3)
        labels = ["" if np.isnan(v) else _bar_label(claim, v) for v in values]
        ax.bar_label(bars, labels=labels, fontsize=6, padding=1.5)
    if claim != "rank_agreement":
        ax.axhline(0.0, color="#333333", linewidth=0.9, zorder=4)
    ax.axhline(line, color="#b22222" if line != base else "#333333", linewidth=0.9, zorder=4,
               linestyle="--" if line != 0.0 or claim == "rank_agreement" else "-")
    ax.set_xticks(x)
    ticks = order if len(alphas) == 1 else [f"{c}\nalpha {_alpha_of(rows, c)}" for c in order]
    ax.set_xticklabels(ticks)
    ax.set_xlim(-0.6, len(order) - 0.4)
    ax.use_sticky_edges = False  # a margin below bars that start at the line, so it stays visible
    ax.margins(y=0.18)
    if claim in MIN_SPAN:
        _least_span(ax, [0.0, line, *drawn], MIN_SPAN[claim])
    if claim == "discriminative_power":
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{100 * v:g}%")
    if line != 0.0 and claim != "rank_agreement":
        # in the panel's top corner, clear of the bars' labels, which sit on the line
        ax.text(0.99, 0.98, f"dashed: threshold {line:g}, holds at or above", transform=ax.transAxes,
                ha="right", va="top", fontsize=6, color="#b22222")
    ax.set_ylabel(_Y_LABELS[claim] + (f" (line: {line:g})" if claim == "rank_agreement" else ""))


def _plotted(at: pd.DataFrame, claim: str) -> np.ndarray:
    """The values a panel draws: the gain's share of the run pairs for discriminative
    power where the table has it (the count otherwise), else the value."""
    if claim == "discriminative_power" and "pairs_share" in at.columns and at["pairs_share"].notna().any():
        return at["pairs_share"].astype(float).to_numpy()
    return at["value"].astype(float).to_numpy()


def _bar_label(claim: str, value: float) -> str:
    return format_share(value) if claim == "discriminative_power" else format_value(claim, value)


def _least_span(ax, values: list[float], span: float) -> None:
    """Widen the y axis to at least ``span`` around ``values`` (its centre kept), so the
    panel shows a difference at the scale of the measure, not of its margin."""
    low, high = ax.get_ylim()
    low, high = min(low, *values), max(high, *values)
    if high - low < span:
        middle = (low + high) / 2
        low, high = middle - span / 2, middle + span / 2
    ax.set_ylim(low, high)


def _alpha_of(rows: pd.DataFrame, collection: str) -> str:
    return ", ".join(dict.fromkeys(rows.loc[rows["collection"] == collection, "alpha"])) or "-"
