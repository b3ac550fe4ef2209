"""The paper's claims per collection as one figure: a row of panels per comparison
(measure vs baseline), a column per claim (rank agreement, discriminative-power gain,
stability gain), bars per protocol for each collection.

Each bar starts at the claim's line (tau's threshold, or zero for a gain) and is labelled
with its value, so a bar going up is a claim that holds and one going down a claim that
does not. Output as every figure of irmeta: PNG and PDF, atomic and byte for byte
deterministic (:func:`irmeta.artefacts.figures.style.save_figure`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from irmeta.artefacts.claims import CLAIMS, COLUMNS, format_value
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

_Y_LABELS = {"rank_agreement": r"$\tau$ vs. baseline", "discriminative_power": "significant pairs, gain",
             "stability": "stability, gain", "reusability": r"$\tau$ full vs. left out, gain",
             "other_judgments": r"$\tau$ set vs. qrels, gain"}


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
    frame = _largest_alpha(table)
    order = list(dict.fromkeys(frame["collection"])) if collections is None else list(collections)
    comparisons = list(dict.fromkeys(zip(frame["measure"], frame["baseline"])))
    claims = [c for c in CLAIMS if (frame["claim"] == c).any()] or list(CLAIMS)
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
    for k, protocol in enumerate(protocols):
        at = rows[rows["protocol"] == protocol].set_index("collection").reindex(order)
        values = at["value"].astype(float).to_numpy()
        bars = ax.bar(x - 0.4 + width * (k + 0.5), values - line, width * 0.92, bottom=line,
                      color=colours[protocol], zorder=3)
        labels = ["" if np.isnan(v) else format_value(claim, v) for v in values]
        ax.bar_label(bars, labels=labels, fontsize=6, padding=1.5)
    ax.axhline(line, color="#333333", linewidth=0.9, zorder=4,
               linestyle="--" if claim == "rank_agreement" else "-")
    ax.set_xticks(x)
    ticks = order if len(alphas) == 1 else [f"{c}\nalpha {_alpha_of(rows, c)}" for c in order]
    ax.set_xticklabels(ticks)
    ax.set_xlim(-0.6, len(order) - 0.4)
    ax.use_sticky_edges = False  # a margin below bars that start at the line, so it stays visible
    ax.margins(y=0.18)
    ax.set_ylabel(_Y_LABELS[claim] + (f" (line: {line:g})" if claim == "rank_agreement" else ""))


def _alpha_of(rows: pd.DataFrame, collection: str) -> str:
    return ", ".join(dict.fromkeys(rows.loc[rows["collection"] == collection, "alpha"])) or "-"
