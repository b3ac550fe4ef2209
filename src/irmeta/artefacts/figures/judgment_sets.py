"""Figures of judgment sets against the reference (issue 27): the grade confusion of each
set (``label_confusion.csv``), each run's rank under the reference against its rank under
a set, coloured by the run's family (``family_bias``'s ranks), and label agreement
(Cohen's kappa, ``label_agreement.csv``) against ranking agreement (Kendall's tau,
``judgment_agreement.csv``) per set and measure.

A collection may have a hundred generated sets (``fraction_<f>_trial_<t>``, ...): the
per-set figures show the alternative sets and the first trial of each generated set
(:func:`shown_sets`), at most :data:`MAX_SETS`, in the tables' order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from irmeta.artefacts.figures.judgments import _measure_labels, _stem
from irmeta.artefacts.figures.style import (
    PAGE_WIDTH,
    keep_inside,
    legend_below,
    measure_order,
    new_figure,
    new_pages,
    page_title,
    require_columns,
    save_figure,
    styled,
)
from irmeta.artefacts.labels import judgment_set_label
from irmeta.measures.alpha import alpha_cell, alpha_sort_key

MAX_SETS = 6
#: Measures side by side in the rank figure: a set's measures wrap into rows of these.
FAMILY_PER_ROW = 3
_LATER_TRIAL = re.compile(r"_trial_(?!0$)\d+$")
_COLOURS = ("#1f5fa8", "#c0392b", "#1b7837", "#e08214", "#542788", "#555555", "#17becf", "#b8860b")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")  # one fewer than the colours: no two of the first 56 alike


def shown_sets(names: Sequence[str], limit: int = MAX_SETS) -> list[str]:
    """The sets a per-set figure draws: every set but the later trials of a generated one
    (``..._trial_<t>``, t > 0), the first ``limit`` in order."""
    return [n for n in dict.fromkeys(map(str, names)) if not _LATER_TRIAL.search(n)][:limit]


def _middle_alpha(frame: pd.DataFrame) -> pd.DataFrame:
    """Each measure at one alpha: none, or the middle one of its alphas (by value)."""
    keep = []
    for measure in frame["measure"].unique():
        alphas = sorted(frame.loc[frame["measure"] == measure, "alpha"].unique(), key=alpha_sort_key)
        keep.append((measure, alphas[(len(alphas) - 1) // 2]))
    keys = pd.MultiIndex.from_frame(frame[["measure", "alpha"]])
    return frame[keys.isin(keep)]


def plot_label_confusion(confusion: pd.DataFrame, png: str | Path, pdf: str | Path, *,
                         title: str | None = None) -> list[Path]:
    """Per set (:func:`shown_sets`), the counts of (reference grade, set grade) on the
    pairs both judged as a heatmap, each cell's count written in it; colour the share of
    the reference grade's row (row-normalised), so sets of different sizes compare."""
    require_columns(confusion, ("judgments", "reference_grade", "judgments_grade", "count"), "label_confusion table")
    sets = shown_sets(confusion["judgments"])
    if not sets:
        raise ValueError("plot_label_confusion: the table is empty")
    grades = sorted(set(confusion["reference_grade"].astype(int)) | set(confusion["judgments_grade"].astype(int)))
    index = {g: i for i, g in enumerate(grades)}
    size = 1.0 + 0.45 * len(grades)

    def draw():
        fig, axes, _ = new_figure(len(sets), panel_width=min(PAGE_WIDTH / 3, size + 0.4), height=size + 0.5,
                                  sharey=False, per_row=3)
        image = None
        for ax, name in zip(axes, sets):
            rows = confusion[confusion["judgments"].astype(str) == name]
            counts = np.zeros((len(grades), len(grades)), dtype=np.int64)
            for r, j, c in zip(rows["reference_grade"], rows["judgments_grade"], rows["count"]):
                counts[index[int(r)], index[int(j)]] += int(c)
            totals = counts.sum(axis=1, keepdims=True)
            share = np.divide(counts, totals, out=np.zeros(counts.shape), where=totals > 0)
            image = ax.imshow(share, cmap="Blues", vmin=0, vmax=1, origin="upper")
            ax.grid(False)  # the style's grid would cross the cells
            for (i, j), c in np.ndenumerate(counts):
                ax.text(j, i, str(c), ha="center", va="center", fontsize="small",
                        color="white" if share[i, j] > 0.6 else "black")
            ax.set_xticks(range(len(grades)), labels=[str(g) for g in grades])
            ax.set_yticks(range(len(grades)), labels=[str(g) for g in grades])
            ax.set_xlabel("grade under the set")
            ax.set_ylabel("grade under the qrels")
            ax.set_title(judgment_set_label(name), fontsize="medium")
        fig.colorbar(image, ax=axes, shrink=0.8, label="share of the qrels grade's pairs")
        if title:
            fig.suptitle(title)
        return fig

    return save_figure(styled(draw), _stem(png, pdf))


def plot_family_ranks(ranks: pd.DataFrame, png: str | Path, pdf: str | Path, *,
                      title: str | None = None) -> list[Path]:
    """Each run's rank under the qrels (x) against its rank under a set (y): per set
    (:func:`shown_sets`), a panel per measure (at its middle alpha), :data:`FAMILY_PER_ROW`
    side by side, each set starting a row; rows past a page's height on further pages. One
    colour and marker per family (one colour when every family is ``""``: no families);
    rank 1 at the origin, so points below the diagonal moved up under the set."""
    require_columns(ranks, ("judgments", "measure", "alpha", "run", "family", "rank_reference", "rank_judgments"),
                    "family ranks")
    names = ranks["judgments"].astype(str)
    sets = shown_sets(pd.unique(names))  # the names once each, not a row's each (4 x 10^5 at TREC-8)
    if not sets:
        raise ValueError("plot_family_ranks: no ranks")
    frame = ranks[names.isin(sets)]
    frame = _middle_alpha(frame.assign(alpha=frame["alpha"].map(alpha_cell),
                                       family=frame["family"].fillna("").astype(str)))
    blocks = sorted({(m, a) for m, a in zip(frame["measure"], frame["alpha"])},
                    key=lambda k: (measure_order(k[0]), alpha_sort_key(k[1])))
    families = list(dict.fromkeys(frame["family"]))
    labels = _measure_labels([m for m, _ in blocks])
    worst = int(max(frame["rank_reference"].max(), frame["rank_judgments"].max()))

    per_row = min(FAMILY_PER_ROW, len(blocks))
    set_rows = -(-len(blocks) // per_row)
    # each set starts a row: its blocks, then empty cells to the row's end
    cells = [(name, blocks[b] if b < len(blocks) else None) for name in sets for b in range(set_rows * per_row)]

    def draw():
        handles = [Line2D([], [], linestyle="none", color=_COLOURS[i % len(_COLOURS)],
                          marker=_MARKERS[i % len(_MARKERS)], label=family)
                   for i, family in enumerate(families) if family]
        pages = new_pages(len(cells), panel_width=PAGE_WIDTH / per_row, height=2.15, sharey=False, per_row=per_row,
                          n_legend=len(handles), column_width=2.0, extra_height=0.3)
        # each panel's points per family, found in one pass (not a filter per panel and family)
        points = {key: part for key, part in frame.assign(judgments=frame["judgments"].astype(str))
                  .groupby(["judgments", "measure", "alpha", "family"], sort=False)}
        empty = frame.iloc[:0]
        for number, (fig, axes, ncol, shown) in enumerate(pages):
            for k, ax in zip(shown, axes):
                name, block = cells[k]
                if block is None:
                    ax.set_visible(False)
                    continue
                measure, alpha = block
                ax.plot([1, worst], [1, worst], color="#999999", linewidth=0.8, linestyle=":", zorder=1)
                for i, family in enumerate(families):
                    part = points.get((name, measure, alpha, family), empty)
                    ax.scatter(part["rank_reference"], part["rank_judgments"], s=12, zorder=2,
                               color=_COLOURS[i % len(_COLOURS)], marker=_MARKERS[i % len(_MARKERS)])
                ax.set_xlim(0.5, worst + 0.5)  # rank 1 (best) at the origin: below the diagonal = moved up
                ax.set_ylim(0.5, worst + 0.5)
                ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
                ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
                # a long name puts its alpha on a line of its own: a narrow panel's title fits
                gap = "\n" if len(labels[measure]) > 16 else " "
                ax.set_title(f"{labels[measure]}" + (rf"{gap}$\alpha$ = {alpha}" if alpha else ""))
                ax.set_xlabel("rank under the qrels")
                if k % per_row == 0:
                    ax.set_ylabel(f"rank under\n{judgment_set_label(name)}")
            heading = page_title(f"{title}: runs' ranks by family" if title else "runs' ranks by family",
                                 number, len(pages))
            fig.suptitle(heading)
            legend_below(fig, handles, ncol)
        return [fig for fig, *_ in pages]

    return save_figure(styled(draw), _stem(png, pdf))


def set_group(name: str) -> str:
    """The cluster a set belongs to in words: a generated set's kind and value without its
    trial (``error_0.1_trial_3`` -> "assessor error 0.1"), another set its own name."""
    return re.sub(r", trial \d+$", "", judgment_set_label(name))


def plot_kappa_tau(labels: pd.DataFrame, agreement: pd.DataFrame, png: str | Path, pdf: str | Path, *,
                   title: str | None = None) -> list[Path]:
    """Does label agreement predict ranking agreement? Per set, its overall Cohen's kappa
    (``label_agreement.csv``, topic ``all``) on x and, per measure, Kendall's tau of the
    runs' rankings (``judgment_agreement.csv``, each measure at its middle alpha) on y:
    one colour and marker per measure, one point per set; each cluster of sets (a
    generated kind and value's trials, or a named set) labelled above it (:func:`set_group`)."""
    require_columns(labels, ("judgments", "topic", "cohen_kappa"), "label_agreement table")
    require_columns(agreement, ("judgments", "measure", "alpha", "kendall_tau"), "judgment_agreement table")
    kappa = labels[labels["topic"].astype(str) == "all"][["judgments", "cohen_kappa"]]
    frame = _middle_alpha(agreement.assign(alpha=agreement["alpha"].map(alpha_cell)))
    joined = frame.merge(kappa.assign(judgments=kappa["judgments"].astype(str)), on="judgments")
    joined = joined.dropna(subset=["cohen_kappa", "kendall_tau"])
    if joined.empty:
        raise ValueError("plot_kappa_tau: no set has both a kappa and a tau")
    measures = sorted(joined["measure"].unique(), key=measure_order)
    alphas = {m: joined.loc[joined["measure"] == m, "alpha"].iloc[0] for m in measures}
    names = _measure_labels(measures)
    groups = joined.assign(_group=joined["judgments"].astype(str).map(set_group))

    def draw():
        handles = [Line2D([], [], linestyle="none", color=_COLOURS[i % len(_COLOURS)],
                          marker=_MARKERS[i % len(_MARKERS)],
                          label=names[m] + (rf" ($\alpha$ = {alphas[m]})" if alphas[m] else ""))
                   for i, m in enumerate(measures)]
        fig, (ax,), ncol = new_figure(1, panel_width=PAGE_WIDTH * 0.75, height=3.6, n_legend=len(handles),
                                      column_width=2.4)
        for i, measure in enumerate(measures):
            rows = joined[joined["measure"] == measure]
            ax.scatter(rows["cohen_kappa"], rows["kendall_tau"], s=16, alpha=0.8, zorder=2,
                       color=_COLOURS[i % len(_COLOURS)], marker=_MARKERS[i % len(_MARKERS)])
        notes = [ax.annotate(group, (float(rows["cohen_kappa"].mean()), float(rows["kendall_tau"].max())),
                             textcoords="offset points", xytext=(0, 6), ha="center", va="bottom", fontsize=7.5,
                             color="#333333", zorder=4)
                 for group, rows in groups.groupby("_group", sort=False)]
        ax.set_xlabel("Cohen's kappa with the qrels (binary labels)")
        ax.set_ylabel(r"Kendall's $\tau$ with the qrels' ranking")
        ax.axhline(1.0, color="#999999", linewidth=0.8, linestyle=":", zorder=1)
        ax.margins(x=0.08, y=0.1)
        ax.set_title("label agreement against ranking agreement, per judgment set")
        if title:
            fig.suptitle(title)
        legend_below(fig, handles, ncol)
        keep_inside(fig, notes)
        return fig

    return save_figure(styled(draw), _stem(png, pdf))
