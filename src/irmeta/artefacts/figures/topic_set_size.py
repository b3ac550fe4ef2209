"""Topic set size design as a figure (Sakai, "Topic set size design", Information
Retrieval Journal 19(3), 2016): the topics each design needs against the minimum
difference to detect, one panel per design, from ``topic_set_size.csv``,
``minimum_detectable_difference.csv`` and ``anova.csv``.

Measures have different units and spreads (P@100 in [0, 1], P_rareness@100 above 1 at
alpha 1), so a difference of 0.05 is large for one and small for another. The figure
puts them on a common footing: the difference on x is relative to each measure's spread
across runs, the standard deviation of the runs' mean scores,
sqrt(MS_system / T) from its two-way ANOVA (SS_system = T sum_i (xbar_i. - xbar)^2 over
S - 1 degrees of freedom; Sakai 2016 standardises by the residual variance instead,
which says how noisy a topic is, not how far apart runs are). 1 on x is a difference as
large as a typical run's distance from the others.
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
from irmeta.measures.alpha import alpha_cell, alpha_value

OWN_TOPICS_COLOUR = "#777777"
DETECTABLE_MARKER = "*"


def shown_alpha(alphas: pd.Series) -> str:
    """The alpha a measure's line shows: none for a measure without alpha, else 1 (the
    paper's largest, where rareness weighs most) or, without 1, the largest number."""
    cells = [alpha_cell(a) for a in alphas]
    if "" in cells:
        return ""
    numbers = {c: value for c in cells if (value := alpha_value(c)) is not None}
    if "1" in numbers:
        return "1"
    return max(numbers, key=lambda c: numbers[c]) if numbers else cells[0]


def _one_alpha_per_measure(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of each measure's :func:`shown_alpha`, the column ``_alpha`` the alpha cell."""
    frame = frame.assign(_alpha=frame["alpha"].map(alpha_cell))
    keep = {m: shown_alpha(rows["_alpha"]) for m, rows in frame.groupby("measure", sort=False)}
    return frame[frame["_alpha"] == frame["measure"].map(keep)]


def _panels(sizes: pd.DataFrame) -> list[tuple[str, int]]:
    """(design, systems) of each panel: the paired t-test first, then ANOVA by systems."""
    pairs = sizes[["design", "systems"]].drop_duplicates().itertuples(index=False, name=None)
    return sorted(((str(d), int(m)) for d, m in pairs), key=lambda p: (p[0] != "paired_t", p[1]))


def _title(design: str, systems: int) -> str:
    return "paired t-test" if design == "paired_t" else f"one-way ANOVA, {systems} systems"


def _label(measure: str, alpha: str) -> str:
    return legend_label(measure) + (rf" ($\alpha$ = {alpha})" if alpha else "")


X_LABEL = "minimum difference to detect\n/ SD of the runs' mean scores"


def run_spread(anova: pd.DataFrame, detectable: pd.DataFrame) -> pd.DataFrame:
    """Per measure and alpha cell (``_alpha``), ``spread``: the standard deviation of the
    runs' mean scores, sqrt(MS_system / T), from ``anova`` (``anova.csv``) and the topic
    count T of ``detectable`` (``minimum_detectable_difference.csv``)."""
    require_columns(anova, ["measure", "alpha", "source", "ms"], "anova table")
    system = anova[anova["source"].astype(str) == "system"]
    spread = pd.DataFrame({"measure": system["measure"].astype(str), "_alpha": system["alpha"].map(alpha_cell),
                           "ms": system["ms"].astype(float)})
    topics = detectable.assign(_alpha=detectable["alpha"].map(alpha_cell))[["measure", "_alpha", "n_topics"]]
    spread = spread.merge(topics.astype({"measure": str}), on=["measure", "_alpha"], how="inner")
    spread["spread"] = (spread["ms"] / spread["n_topics"].astype(float)) ** 0.5
    return spread[["measure", "_alpha", "spread"]]


def _relative(frame: pd.DataFrame, spread: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s min_difference divided by its measure's spread; rows of a measure
    without a positive spread (every run alike) are left out, as no difference is relative
    to nothing."""
    out = frame.merge(spread, on=["measure", "_alpha"], how="left")
    out = out[out["spread"] > 0]
    return out.assign(min_difference=out["min_difference"].astype(float) / out["spread"])


def plot_topic_set_size(sizes: pd.DataFrame, detectable: pd.DataFrame, stem: str | Path,
                        label: str = "", *, anova: pd.DataFrame) -> list[Path]:
    """n_topics (log scale) against min_difference relative to each measure's spread
    across runs (:func:`run_spread` of ``anova``), one panel per design of ``sizes``
    (``topic_set_size.csv``), one line per measure (alpha 1, or none; measures without
    alpha dashed); a grey line at the collection's own topic count and, on the paired
    t-test's panel, each measure's minimum detectable difference there (from
    ``detectable``, ``minimum_detectable_difference.csv``) as a point on that line."""
    require_columns(sizes, ["measure", "alpha", "design", "min_difference", "systems", "n_topics"],
                    "topic_set_size table")
    require_columns(detectable, ["measure", "alpha", "n_topics", "min_difference"],
                    "minimum_detectable_difference table")
    spread = run_spread(anova, detectable)
    sizes, detectable = _one_alpha_per_measure(sizes), _one_alpha_per_measure(detectable)
    sizes, detectable = _relative(sizes, spread), _relative(detectable, spread)
    measures = sorted(sizes["measure"].unique(), key=measure_order)
    panels = _panels(sizes)
    own = sorted(detectable["n_topics"].unique())

    def style(measure: str) -> dict:
        alpha = sizes.loc[sizes["measure"] == measure, "_alpha"].iloc[0]
        return dict(line_style(measure, measures.index(measure)), linestyle="-" if alpha else "--",
                    label=_label(measure, alpha))

    def draw() -> Figure:
        handles = [Line2D([], [], **style(m)) for m in measures]
        handles.append(Line2D([], [], color=OWN_TOPICS_COLOUR, linestyle=":", label=f"{label} topics".strip()))
        handles.append(Line2D([], [], color=OWN_TOPICS_COLOUR, linestyle="none", marker=DETECTABLE_MARKER,
                              markersize=9, markeredgecolor="black", markeredgewidth=0.5,
                              label="minimum detectable difference (paired t)"))
        fig, axes, ncol = new_figure(len(panels), panel_width=PAGE_WIDTH / 2, height=2.7, n_legend=len(handles),
                                     column_width=2.4)
        for ax, (design, systems) in zip(axes, panels):
            rows = sizes[(sizes["design"] == design) & (sizes["systems"] == systems)]
            for measure in measures:
                line = rows[rows["measure"] == measure].sort_values("min_difference")
                ax.plot(line["min_difference"], line["n_topics"], zorder=3, **style(measure))
            for n in own:
                ax.axhline(n, color=OWN_TOPICS_COLOUR, linestyle=":", linewidth=1.0, zorder=1)
            if design == "paired_t":
                _mark_detectable(ax, detectable, measures, style)
            ax.set_yscale("log")
            ax.set_title(_title(design, systems))
            ax.set_xlabel(X_LABEL)
        axes[0].set_ylabel("topics needed")
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)


def _mark_detectable(ax, detectable: pd.DataFrame, measures: list[str], style) -> None:
    """Each measure's minimum detectable difference at the collection's topic count: where
    its paired t-test curve crosses the grey line."""
    for measure in measures:
        point = detectable[detectable["measure"] == measure]
        s = style(measure)
        ax.plot(point["min_difference"], point["n_topics"], linestyle="none", marker=DETECTABLE_MARKER,
                color=s["color"], markersize=9, markeredgecolor="black", markeredgewidth=0.5, zorder=4)
