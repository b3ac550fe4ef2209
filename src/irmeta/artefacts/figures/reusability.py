"""Leave-one-group-out figure: each run's full score against its score when its group did
not build the pool, and how many ranks it drops, one column per measure (rareness measures
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


def plot_reusability(table: pd.DataFrame, stem: str | Path, *, title: str | None = None) -> list[Path]:
    """``<stem>.png`` and ``<stem>.pdf``: per measure, full against left-out scores (top)
    and each run's rank drop, runs in order of their full rank (bottom). Deterministic
    as every irmeta figure (:mod:`irmeta.artefacts.figures.style`); returns both paths."""
    from irmeta.artefacts.figures.style import measure_order, new_figure, require_columns, save_figure, styled

    require_columns(table, ["measure", "alpha", "rarity", "score_full", "score_left_out", "rank_full",
                            "rank_left_out"], "reusability table")
    rows = shown_rows(table)
    measures = sorted(rows["measure"].unique(), key=measure_order)
    if not measures:
        raise ValueError("reusability table: no rows to draw")

    def draw() -> Figure:
        fig, axes, _ = new_figure(2 * len(measures), panel_width=2.6, height=2.5, sharey=False,
                                  per_row=len(measures))
        for i, measure in enumerate(measures):
            part = rows[rows["measure"] == measure]
            scatter, drops = axes[i], axes[len(measures) + i]
            alpha = part["alpha"].dropna()
            name = measure + (f", $\\alpha$ = {alpha.iloc[0]}" if len(alpha) else "")
            _scores_panel(scatter, part, name)
            _drops_panel(drops, part)
        handles: list = []
        for ax in axes:
            known = {h.get_label() for h in handles}
            handles += [line for line in ax.get_lines() if not line.get_label().startswith("_")
                        and line.get_label() not in known]
        fig.legend(handles=handles, loc="outside lower center", ncol=min(4, max(1, len(handles))))
        if title:
            fig.suptitle(title)
        return fig

    return save_figure(styled(draw), stem)


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


def _drops_panel(ax, part: pd.DataFrame) -> None:
    for rule, style in RULE_STYLES.items():
        r = part[part["rarity"] == rule].sort_values("rank_full", kind="stable")
        if len(r):
            drop = (r["rank_left_out"] - r["rank_full"]).to_numpy()
            ax.plot(np.arange(1, len(r) + 1), drop, color=style["color"], marker=style["marker"], markersize=2.5,
                    linewidth=0.9, label="_" + style["label"])
    runs = int(part.groupby("rarity").size().max())
    ax.axhline(0.05 * runs, color="#c0392b", linewidth=0.8, linestyle="--", label="rank drop of 5 % of the runs")
    ax.set_xlabel("run, by full rank")
    ax.set_ylabel("rank drop")
