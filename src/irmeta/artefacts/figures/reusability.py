"""Leave-one-group-out figure: each run's full score against its score when its group did
not build the pool, and how many ranks it falls (or rises), a column per measure (rareness measures
at their largest numeric alpha, one colour per rarity rule), from ``reusability.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

RULE_STYLES = {
    "none": {"color": "#555555", "marker": "o", "label": "no rarity"},
    "frozen": {"color": "#1f5fa8", "marker": "o", "label": "frozen rarity (S - |u| runs)"},
    "joined": {"color": "#e08214", "marker": "^", "label": "joined rarity (S - |u| + 1 runs)"},
}


def shown_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows drawn: measures without alpha, and each rareness measure at its largest
    numeric alpha (``1/R`` has no place on a number line and is left out)."""
    import pandas as pd

    from irmeta.measures.alpha import alpha_cell, alpha_value

    keys = table["alpha"].map(alpha_cell)
    values = table["alpha"].map(alpha_value)
    plain = table[keys == ""]
    weighted = table[(keys != "") & values.notna()].assign(_alpha=values.astype(float))
    largest = weighted.groupby("measure")["_alpha"].transform("max")
    return pd.concat([plain, weighted[weighted["_alpha"] == largest].drop(columns="_alpha")], ignore_index=True)


#: Measures side by side: each has its scores' panel above its rank changes'.
PER_ROW = 3
#: Rows of measures a page holds (each two panels high).
MEASURE_ROWS = 2


def plot_reusability(table: pd.DataFrame, stem: str | Path, *, title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf``: per measure, full against left-out scores (above)
    and how many ranks each run falls when its group is left out, runs in order of their
    full rank (below; a rise is negative), :data:`PER_ROW` measures side by side,
    :data:`MEASURE_ROWS` rows of them a page. Deterministic as every irmeta figure
    (:mod:`irmeta.artefacts.figures.style`); returns both paths."""
    from irmeta.artefacts.figures.style import (
        legend_below,
        measure_order,
        new_figure,
        page_title,
        require_columns,
        save_figure,
        styled,
    )

    require_columns(table, ["measure", "alpha", "rarity", "score_full", "score_left_out", "rank_full",
                            "rank_left_out"], "reusability table")
    rows = shown_rows(table)
    measures = sorted(rows["measure"].unique(), key=measure_order)
    if not measures:
        raise ValueError("reusability table: no rows to draw")
    per_page = PER_ROW * MEASURE_ROWS
    chunks = [measures[i:i + per_page] for i in range(0, len(measures), per_page)]

    def draw() -> list[Figure]:
        handles = _legend_handles(rows)
        pages = []
        for number, chunk in enumerate(chunks):
            blocks = -(-len(chunk) // PER_ROW)
            fig, axes, ncol = new_figure(2 * PER_ROW * blocks, panel_width=7.0 / PER_ROW, height=1.95,
                                         sharey=False, per_row=PER_ROW, n_legend=len(handles), column_width=2.3,
                                         extra_height=0.3 if title or len(chunks) > 1 else 0.0)
            for k in range(PER_ROW * blocks):
                block, column = divmod(k, PER_ROW)
                scatter, changes = axes[2 * PER_ROW * block + column], axes[2 * PER_ROW * block + PER_ROW + column]
                if k >= len(chunk):
                    scatter.set_visible(False)
                    changes.set_visible(False)
                    continue
                part = rows[rows["measure"] == chunk[k]]
                alpha = part["alpha"].dropna()
                name = chunk[k] + (f"\n$\\alpha$ = {alpha.iloc[0]}" if len(alpha) else "")
                _scores_panel(scatter, part, name)
                _changes_panel(changes, part, name)
            heading = page_title(title, number, len(chunks))
            if heading:
                fig.suptitle(heading)
            legend_below(fig, handles, ncol)
            pages.append(fig)
        return pages

    return save_figure(styled(draw), stem)


def _legend_handles(rows: pd.DataFrame) -> list:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], linestyle="none", color=style["color"], marker=style["marker"], label=style["label"])
               for rule, style in RULE_STYLES.items() if (rows["rarity"] == rule).any()]
    handles.append(Line2D([], [], color="#bbbbbb", linewidth=0.8, label="left-out score = full score"))
    handles.append(Line2D([], [], color=THRESHOLD_COLOUR, linewidth=0.8, linestyle="--",
                          label="a fall of 5% of the runs"))
    return handles


THRESHOLD_COLOUR = "#c0392b"


def _scores_panel(ax, part: pd.DataFrame, name: str) -> None:
    low = float(min(part["score_full"].min(), part["score_left_out"].min()))
    high = float(max(part["score_full"].max(), part["score_left_out"].max()))
    ax.plot([low, high], [low, high], color="#bbbbbb", linewidth=0.8, zorder=1, label="_diagonal")
    for rule, style in RULE_STYLES.items():
        r = part[part["rarity"] == rule]
        if len(r):
            ax.plot(r["score_full"], r["score_left_out"], linestyle="none", markersize=3.2, alpha=0.8,
                    color=style["color"], marker=style["marker"], label=style["label"], zorder=2)
    ax.set_title(name)
    ax.set_xlabel("full score")
    ax.set_ylabel("left-out score")


def _changes_panel(ax, part: pd.DataFrame, name: str) -> None:
    """Ranks each run falls when left out (rank left out minus full rank; a rise is
    negative), runs in order of their full rank: points, as the runs are categories."""
    from matplotlib.ticker import MaxNLocator

    rules = [rule for rule in RULE_STYLES if (part["rarity"] == rule).any()]
    offsets = np.linspace(-0.18, 0.18, len(rules)) if len(rules) > 1 else [0.0]
    for rule, offset in zip(rules, offsets):
        style = RULE_STYLES[rule]
        r = part[part["rarity"] == rule].sort_values("rank_full", kind="stable")
        fall = (r["rank_left_out"] - r["rank_full"]).to_numpy()
        ax.plot(np.arange(1, len(r) + 1) + offset, fall, linestyle="none", color=style["color"],
                marker=style["marker"], markersize=2.6, label="_" + style["label"])
    runs = int(part.groupby("rarity").size().max())
    ax.axhline(0.0, color="#777777", linewidth=0.7, zorder=1)
    ax.axhline(0.05 * runs, color=THRESHOLD_COLOUR, linewidth=0.8, linestyle="--")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # ranks: whole numbers
    ax.set_title("ranks fallen when left out")
    ax.set_xlabel("run, by full rank")
    ax.set_ylabel("ranks fallen left out\n(below 0: risen)")
