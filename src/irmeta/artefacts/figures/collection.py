"""The figures of one collection: Kendall tau against alpha (Figure 2), the synthetic
systems (Figure 1), discriminative power, stability, system subsampling (Table 3) and
the rarity distribution, PNG and PDF.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from irmeta.artefacts.figures.style import (
    ALPHA_COLOURS,
    PAGE_WIDTH,
    alpha_axis,
    baseline_of,
    baselines,
    legend_below,
    legend_label,
    line_style,
    measure_order,
    method_order,
    method_title,
    new_figure,
    new_pages,
    numeric_alpha,
    page_title,
    parse_paper_measure,
    rareness_measures,
    require_columns,
    save_figure,
    styled,
)
from irmeta.artefacts.labels import Notation, averaging_label, measure_label
from irmeta.measures.alpha import alpha_cell, alpha_value
from irmeta.metaeval.discriminative_power import attainable_rows

PANELS_PER_ROW = 3  # discriminative power: the paper's three methods, then the paired tests'


def _pick_averaging(frame: pd.DataFrame, averaging: str | None) -> tuple[pd.DataFrame, str | None]:
    if "averaging" not in frame.columns:
        return frame, None
    values = sorted(frame["averaging"].dropna().astype(str).unique())
    if averaging is None:
        averaging = "all_topics" if "all_topics" in values else (values[0] if values else None)
    if averaging is None:
        return frame, None
    return frame[frame["averaging"].astype(str) == averaging], averaging


def tau_limits(values: Sequence[float], default: tuple[float, float] = (0.8, 1.0)) -> tuple[float, float]:
    """The y range of Figure 2: ``default`` (the paper's 0.8-1.0), extended to the next
    0.05 step below (above) when the data go lower (higher)."""
    low, high = default
    values = [v for v in values if v is not None and math.isfinite(v)]
    if values and min(values) < low:
        low = math.floor(min(values) * 20 - 1e-9) / 20
        if min(values) - low < 0.01:
            low -= 0.05
    if values and max(values) > high:
        high = math.ceil(max(values) * 20 + 1e-9) / 20
    return low, high


def plot_kendall_tau(
    tables: Mapping[str, pd.DataFrame],
    stem: str | Path,
    *,
    averaging: str | None = None,
    show_tau_ap: bool = True,
    show_norm: bool = True,
    ylim: tuple[float, float] = (0.8, 1.0),
    notation: Notation = "typed",
) -> list[Path]:
    """Figure 2: Kendall tau between the rareness measure and its baseline, versus alpha.

    ``tables`` maps a collection label (the panel title) to its ``kendall_tau`` table
    (columns measure, baseline, alpha, tau, tau_ap, n_runs, averaging). One line per
    measure: tau solid, tau_AP dashed and lighter; the [0, 1] forms (``*_norm``) with
    open markers when ``show_norm``. Only numeric alphas are drawn (``1/R`` skipped).
    When the table holds several averagings, ``averaging`` picks one (default
    ``all_topics``, the paper's). The y axis is shared and spans ``ylim`` (the paper's
    0.8-1.0) unless the data go lower, in which case it extends down to them. Measures
    are named as users type them; ``notation="paper"`` (the paper's Figure 2) in the
    paper's notation.
    """
    if not tables:
        raise ValueError("plot_kendall_tau: no collections")
    prepared = {label: _tau_panel(label, frame, averaging, show_norm) for label, frame in tables.items()}
    values = []
    for frame, _ in prepared.values():
        values.extend(frame["tau"].dropna().tolist())
        if show_tau_ap and "tau_ap" in frame.columns:
            values.extend(frame["tau_ap"].dropna().tolist())
    low, high = tau_limits(values, ylim)

    measures_seen = sorted({m for frame, _ in prepared.values() for m in rareness_measures(frame)},
                           key=measure_order)
    used = sorted({u for _, u in prepared.values() if u})

    def draw() -> Figure:
        handles = _tau_legend(measures_seen, used, show_tau_ap, notation)
        fig, axes, ncol = new_figure(len(prepared), panel_width=2.7, height=3.0, n_legend=len(handles),
                                      column_width=3.3)
        for ax, (label, (frame, _)) in zip(axes, prepared.items()):
            alphas = frame["_alpha"].tolist()
            for measure in rareness_measures(frame):
                rows = frame[frame["measure"] == measure]
                style = line_style(measure, measures_seen.index(measure))
                ax.plot(rows["_alpha"], rows["tau"], linestyle="-", zorder=3, **style)
                if show_tau_ap and "tau_ap" in rows.columns and rows["tau_ap"].notna().any():
                    faded = dict(style, alpha=0.55, linewidth=1.1, markersize=3.2)
                    ax.plot(rows["_alpha"], rows["tau_ap"], linestyle="--", zorder=2, **faded)
            title = str(label)
            if "n_runs" in frame.columns and frame["n_runs"].notna().any():
                title += f" ({int(frame['n_runs'].max())} runs)"
            ax.set_title(title)
            alpha_axis(ax, alphas or [0.0, 1.0])
            ax.set_ylim(low, high + (high - low) * 0.02)
        axes[0].set_ylabel(r"Kendall's $\tau$ vs. baseline")
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)


def _tau_panel(label: str, frame: pd.DataFrame, averaging: str | None,
               show_norm: bool) -> tuple[pd.DataFrame, str | None]:
    """One collection's rows to draw (one averaging, numeric alphas) and the averaging."""
    require_columns(frame, ["measure", "alpha", "tau"], f"kendall_tau table of {label}")
    frame, used = _pick_averaging(frame, averaging)
    frame = numeric_alpha(frame)
    if not show_norm:
        frame = frame[~frame["measure"].map(lambda m: bool(parse_paper_measure(m) and parse_paper_measure(m)[2]))]
    return frame, used


def _tau_legend(measures: list[str], used: list[str], show_tau_ap: bool,
                notation: Notation = "typed") -> list[Line2D]:
    """A line per measure (against its baseline), then what solid and dashed lines mean."""
    handles = []
    for i, measure in enumerate(measures):
        baseline = baseline_of(measure)
        text = (f"{legend_label(measure, notation)} vs {measure_label(baseline, notation)}" if baseline
                else measure)
        handles.append(Line2D([], [], linestyle="-", label=text, **line_style(measure, i)))
    tau_text = r"Kendall $\tau$ (tau-b)"
    if used:
        tau_text += ", means over " + " / ".join(averaging_label(u) for u in used)
    handles.append(Line2D([], [], color="black", linestyle="-", label=tau_text))
    if show_tau_ap:
        handles.append(Line2D([], [], color="black", linestyle="--", alpha=0.55, linewidth=1.1,
                              label=r"$\tau_{AP}$ (dashed, lighter)"))
    return handles


def plot_synthetic_rare_common(table: pd.DataFrame, stem: str | Path, *, measure: str = "P_rareness@100") -> list[Path]:
    """Figure 1: rank of the hypothetical systems among the real runs versus D.

    ``table``: the ``synthetic_rare_common`` table (topic, system, alpha, n_relevant,
    n_relevant_retrieved, rank). One colour per alpha; S_rare solid, S_common dashed;
    rank 1 (best) at the top. With a ``rare_systems`` column (``protocol`` /
    ``paper_script``: how many runs S_rare's rarity counts) or several topics, one panel
    per variant and topic, ``protocol`` first, each titled with how it counts
    (:data:`RARE_SYSTEMS_WORDS`). ``measure``: the one that ranks them
    (``experiments.synthetic.measure``), named in the titles.
    """
    require_columns(table, ["topic", "system", "alpha", "n_relevant", "rank"], "synthetic_rare_common table")
    frame = table.copy()
    frame["_alpha"] = frame["alpha"].map(alpha_value)
    frame = frame[frame["_alpha"].notna()]
    if "rare_systems" in frame.columns:
        variants = sorted(frame["rare_systems"].dropna().astype(str).unique(),
                          key=lambda v: (v != "protocol", v))
    else:
        variants = [None]
    topics = sorted(frame["topic"].astype(str).unique())
    panels = [(t, v) for t in topics for v in variants]
    alphas = sorted(frame["_alpha"].unique())
    colours = {a: ALPHA_COLOURS[i % len(ALPHA_COLOURS)] for i, a in enumerate(alphas)}
    worst = float(frame["rank"].max()) if len(frame) else 1.0

    def draw() -> Figure:
        handles = [Line2D([], [], color=colours[a], label=rf"$\alpha$ = {a:g}") for a in alphas]
        handles += [Line2D([], [], color="black", linestyle="-", label=r"$S_{rare}$"),
                    Line2D([], [], color="black", linestyle="--", linewidth=1.2, label=r"$S_{common}$")]
        fig, axes, ncol = new_figure(len(panels), panel_width=3.5, height=3.2, n_legend=len(handles),
                                      column_width=0.85)
        for ax, (topic, variant) in zip(axes, panels):
            rows = frame[frame["topic"].astype(str) == topic]
            if variant is not None:
                rows = rows[rows["rare_systems"].astype(str) == variant]
            for a in alphas:
                for system, linestyle in (("S_rare", "-"), ("S_common", "--")):
                    line = rows[(rows["_alpha"] == a) & (rows["system"] == system)].sort_values("n_relevant")
                    if line.empty:
                        continue
                    ax.plot(line["n_relevant"], line["rank"], linestyle=linestyle, color=colours[a],
                            linewidth=1.5 if system == "S_rare" else 1.2, zorder=3 if system == "S_rare" else 2)
            ax.axhline(1, color="#999999", linewidth=0.8, linestyle=":", zorder=1)
            ax.set_ylim(worst + max(1.0, 0.03 * worst), 1 - max(0.5, 0.03 * worst))  # inverted: 1 on top
            ax.set_yticks(_rank_ticks(worst))
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("D, relevant documents retrieved")
            title = f"topic {topic}, ranked by {measure}"
            if variant is not None:
                title += "\n" + RARE_SYSTEMS_WORDS.get(variant, variant)
            ax.set_title(title)
        axes[0].set_ylabel("rank among the runs (1 = best)")
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)


#: How each ``rare_systems`` variant counts S_rare's rarity, as its panel says it.
RARE_SYSTEMS_WORDS = {"protocol": "S_rare's rarity over S + 1 runs",
                      "paper_script": "S_rare's rarity over S runs (authors' script)"}


def _rank_ticks(worst: float) -> list[int]:
    """Rank ticks starting at 1 (the best), then round steps up to the worst rank."""
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10 ** 9) if worst / s <= 7)
    return [1] + list(range(step, int(worst) + 1, step))


def _alpha_curves(ax, frame: pd.DataFrame, value: str, split: str | None,
                  split_styles: Mapping[object, str]) -> list[float]:
    """Curves of ``value`` versus alpha per rareness measure (and per ``split`` value),
    baselines as horizontal lines; returns the alphas drawn."""
    curves = numeric_alpha(frame)
    alphas = curves["_alpha"].tolist()
    xmin, xmax = (min(alphas), max(alphas)) if alphas else (0.0, 1.0)
    splits = list(split_styles) if split else [None]
    for i, measure in enumerate(rareness_measures(curves)):
        style = line_style(measure, i)
        for key in splits:
            rows = curves[curves["measure"] == measure]
            if split:
                rows = rows[np.isclose(rows[split].astype(float), float(key))]
            if rows.empty:
                continue
            ax.plot(rows["_alpha"], rows[value], linestyle=split_styles.get(key, "-"), zorder=3, **style)
    base = baselines(frame)
    for i, measure in enumerate(sorted(base["measure"].unique(), key=measure_order)):
        style = line_style(measure, i)
        for key in splits:
            rows = base[base["measure"] == measure]
            if split:
                rows = rows[np.isclose(rows[split].astype(float), float(key))]
            for y in rows[value].dropna():
                ax.hlines(y, xmin, xmax, colors=style["color"], linestyles=split_styles.get(key, "-"),
                          linewidth=0.9, alpha=0.45, zorder=1)
    return alphas


def _measure_handles(frame: pd.DataFrame) -> list:
    handles = []
    for i, measure in enumerate(rareness_measures(frame)):
        handles.append(Line2D([], [], label=legend_label(measure), **line_style(measure, i)))
    base = baselines(frame)
    for i, measure in enumerate(sorted(base["measure"].unique(), key=measure_order)):
        handles.append(Line2D([], [], color=line_style(measure, i)["color"], linewidth=0.9, alpha=0.45,
                              label=f"{measure} (baseline)" if parse_paper_measure(measure)
                              else f"{measure} (no alpha)"))
    return handles


def plot_discriminative_power(table: pd.DataFrame, stem: str | Path) -> list[Path]:
    """Significantly different pairs versus alpha, one panel per test method.

    ``table``: the ``discriminative_power`` table (measure, alpha, method, level,
    significant_pairs, total_pairs, permutations). One line per rareness measure,
    level 0.05 solid and 0.01 dashed; baselines (P@100, AP@100) as thin horizontal lines
    in their family's colour (equal, by definition, to the curve at alpha = 0). A panel
    whose method cannot find a pair significant at a level (``attainable`` False: too few
    draws for its correction) says so in the panel, its zeros being no measurement.
    Panels in rows of :data:`PANELS_PER_ROW`, four rows a page.
    """
    require_columns(table, ["measure", "alpha", "method", "level", "significant_pairs"], "discriminative_power table")
    methods = sorted(table["method"].dropna().unique(), key=method_order)
    levels = sorted(table["level"].dropna().astype(float).unique(), reverse=True)
    dashes = ["-", "--", ":", "-."]
    level_styles = {lv: dashes[i % len(dashes)] for i, lv in enumerate(levels)}
    ylabel = "significantly different pairs"
    if "total_pairs" in table.columns and table["total_pairs"].notna().any():
        ylabel += f"\n(of {int(table['total_pairs'].max())})"

    def draw() -> list[Figure]:
        handles = _measure_handles(table)
        handles += [Line2D([], [], color="black", linestyle=level_styles[lv], linewidth=1.2,
                           label=f"level {lv:g} ({100 * (1 - lv):g}%)") for lv in levels]
        # the paper's three, then each paired test raw and corrected
        pages = new_pages(len(methods), panel_width=PAGE_WIDTH / PANELS_PER_ROW, height=2.2,
                          n_legend=len(handles), column_width=1.75, per_row=PANELS_PER_ROW, extra_height=0.25)
        for number, (fig, axes, ncol, shown) in enumerate(pages):
            for ax, method in zip(axes, [methods[i] for i in shown]):
                rows = table[table["method"] == method]
                alphas = _alpha_curves(ax, rows, "significant_pairs", "level", level_styles)
                alpha_axis(ax, alphas or [0.0, 1.0])
                title = method_title(method)
                if "permutations" in rows.columns and rows["permutations"].notna().any():
                    title += f"\n{int(rows['permutations'].max())} permutations"
                ax.set_title(title)
                _mark_unattainable(ax, rows)
            for ax in axes[::PANELS_PER_ROW]:
                ax.set_ylabel(ylabel)
            fig.suptitle(page_title("Significantly different run pairs by each test", number, len(pages)))
            legend_below(fig, handles, ncol)
        return [fig for fig, *_ in pages]

    return save_figure(styled(draw), stem)


def _mark_unattainable(ax, rows: pd.DataFrame) -> None:
    """A note in the panel naming the levels no pair can reach (0 by construction)."""
    blocked = rows[~attainable_rows(rows)]
    if blocked.empty:
        return
    levels = ", ".join(f"{lv:g}" for lv in sorted(blocked["level"].astype(float).unique(), reverse=True))
    ax.text(0.5, 0.5, f"unattainable at {levels}:\ntoo few draws for\nany pair to pass", transform=ax.transAxes,
            ha="center", va="center", fontsize=7, color="#8b0000", zorder=5,
            bbox={"facecolor": "white", "edgecolor": "#8b0000", "linewidth": 0.6, "alpha": 0.9})


def plot_stability(table: pd.DataFrame, stem: str | Path) -> list[Path]:
    """Buckley-Voorhees stability versus alpha, one panel per fuzziness mode (and value).

    ``table``: the ``stability`` table (measure, alpha, fuzziness_mode, fuzziness,
    topics_per_trial, trials, seed, stability). One line per rareness measure; baselines
    as thin horizontal lines.
    """
    require_columns(table, ["measure", "alpha", "fuzziness_mode", "fuzziness", "stability"], "stability table")
    modes = sorted(table["fuzziness_mode"].dropna().astype(str).unique(), key=lambda m: (m != "absolute", m))
    panels = [(m, f) for m in modes
              for f in sorted(table.loc[table["fuzziness_mode"].astype(str) == m, "fuzziness"].astype(float).unique())]

    def draw() -> Figure:
        handles = _measure_handles(table)
        fig, axes, ncol = new_figure(len(panels), panel_width=3.2, height=3.0, n_legend=len(handles),
                                      column_width=2.3)
        for ax, (mode, fuzz) in zip(axes, panels):
            rows = table[(table["fuzziness_mode"].astype(str) == mode)
                         & np.isclose(table["fuzziness"].astype(float), fuzz)]
            alphas = _alpha_curves(ax, rows, "stability", None, {None: "-"})
            alpha_axis(ax, alphas or [0.0, 1.0])
            what = f"{fuzz:g} (metric units)" if mode == "absolute" else f"{100 * fuzz:g}% of the larger score"
            title = f"{mode} fuzziness {what}"
            details = []
            if "topics_per_trial" in rows.columns and rows["topics_per_trial"].notna().any():
                details.append(f"T = {int(rows['topics_per_trial'].max())}")
            if "trials" in rows.columns and rows["trials"].notna().any():
                details.append(f"{int(rows['trials'].max())} trials")
            if details:
                title += "\n" + ", ".join(details)
            ax.set_title(title)
        axes[0].set_ylabel("stability (mean majority fraction)")
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)


def plot_system_subsampling(table: pd.DataFrame, stem: str | Path) -> list[Path]:
    """Mean Kendall tau (error bars: sd over trials) versus the number of sampled runs.

    ``table``: the ``system_subsampling`` table (measure, alpha, n_systems, trials,
    undefined_trials, mean_tau, sd_tau). One series per measure and alpha, on a log2
    x axis, dodged slightly so the error bars do not overlap. Sizes with undefined
    trials (the two sampled runs tie at N = 2) are annotated with their count.
    """
    require_columns(table, ["measure", "alpha", "n_systems", "mean_tau"], "system_subsampling table")
    frame = table.copy()
    frame["_key"] = frame["alpha"].map(alpha_cell)
    series = sorted({(m, a) for m, a in zip(frame["measure"], frame["_key"])},
                    key=lambda ma: (measure_order(ma[0]), ma[1]))
    offsets = np.linspace(-0.06, 0.06, len(series)) if len(series) > 1 else [0.0]

    def draw() -> Figure:
        fig, axes, ncol = new_figure(1, panel_width=4.6, height=3.2, n_legend=len(series), column_width=2.3)
        ax = axes[0]
        handles = []
        for i, ((measure, a), off) in enumerate(zip(series, offsets)):
            rows = frame[(frame["measure"] == measure) & (frame["_key"] == a)].sort_values("n_systems")
            x = rows["n_systems"].astype(float).to_numpy() * 2.0 ** off
            sd = rows["sd_tau"].to_numpy(dtype=float) if "sd_tau" in rows.columns else None
            style = line_style(measure, i)
            label = legend_label(measure) + (rf" ($\alpha$ = {a})" if a else "")
            ax.errorbar(x, rows["mean_tau"], yerr=sd, capsize=2.5, elinewidth=0.9, label=label, **style)
            handles.append(Line2D([], [], label=label, **style))
            if "undefined_trials" in rows.columns:
                for xi, yi, u in zip(x, rows["mean_tau"], rows["undefined_trials"]):
                    if pd.notna(u) and int(u) > 0:
                        ax.annotate(f"{int(u)} undefined", (xi, yi), textcoords="offset points",
                                    xytext=(4, -10), fontsize=7, color=style["color"])
        ax.axhline(1.0, color="#999999", linewidth=0.8, linestyle=":", zorder=1)
        sizes = sorted(frame["n_systems"].astype(int).unique())
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(n) for n in sizes])
        ax.minorticks_off()
        if sizes:
            ax.set_xlim(sizes[0] / 2 ** 0.4, sizes[-1] * 2 ** 0.4)
        ax.set_xlabel("N, runs sampled (rarity from these N alone)")
        ax.set_ylabel(r"mean Kendall $\tau$ vs. full ranking ($\pm$ sd)")
        title = "rankings with rarity from N runs vs. from all runs"
        if "trials" in frame.columns and frame["trials"].notna().any():
            title += f", {int(frame['trials'].max())} trials"
        ax.set_title(title)
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)


def plot_rarity_distribution(listing: pd.DataFrame, stem: str | Path, *, bins: int = 20) -> list[Path]:
    """Histogram of R(d) = 1 - S_d/S over the relevant documents, one series per depth, and
    one panel more for each other rarity function the listing holds (``rarity_log``,
    ``rarity_inverse``: the configured ones, docs/PROTOCOL.md).

    ``listing``: the rarity listing (qid, docid, grade, depth, n_retrieving, rarity,
    rarity_prime, ...), one row per relevant document and depth at which S_d was counted.
    Step histograms over [0, 1] in ``bins`` equal bins, so the depths overlay cleanly;
    the legend gives each depth's number of documents and how many no run retrieved
    (R(d) = 1).
    """
    require_columns(listing, ["depth", "rarity"], "rarity listing")
    depths = sorted(listing["depth"].dropna().astype(int).unique())
    edges = np.linspace(0.0, 1.0, bins + 1)
    colours = ["#1f5fa8", "#c0392b", "#2ca02c", "#9467bd", "#8c564b"]
    panels = [("rarity", r"rarity $R(d) = 1 - S_d/S$")]
    panels += [(column, label) for column, label in (("rarity_log", r"log rarity $\log(S/S_d) / \log S$"),
                                                      ("rarity_inverse", r"inverse rarity $1/S_d$"))
               if column in listing.columns]

    def draw() -> Figure:
        fig, axes, ncol = new_figure(len(panels), panel_width=4.6, height=3.2, n_legend=len(depths),
                                     column_width=9.0)
        handles = []
        for ax, (column, xlabel) in zip(axes, panels):
            for i, depth in enumerate(depths):
                rows = listing[listing["depth"].astype(int) == depth]
                values = rows[column].dropna().to_numpy(dtype=float)
                counts, _ = np.histogram(values, bins=edges)
                colour = colours[i % len(colours)]
                ax.stairs(counts, edges, color=colour, linewidth=1.5, zorder=3)
                ax.stairs(counts, edges, color=colour, fill=True, alpha=0.12, zorder=2)
                if column != "rarity":
                    continue
                label = f"$S_d$ counted at depth {depth}: {len(values)} documents"
                if "n_retrieving" in rows.columns:
                    unretrieved = int((rows["n_retrieving"] == 0).sum())
                    if unretrieved:
                        label += f", {unretrieved} retrieved by no run"
                handles.append(Line2D([], [], color=colour, linewidth=1.5, label=label))
            ax.set_xlim(0, 1)
            ax.set_xlabel(xlabel)
        axes[0].set_ylabel("relevant documents")
        title = "rarity of the relevant documents"
        if "qid" in listing.columns:
            title += f" ({listing['qid'].nunique()} topics)"
        axes[0].set_title(title)
        legend_below(fig, handles, ncol)
        return fig

    return save_figure(styled(draw), stem)
