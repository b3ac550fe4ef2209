"""Figures of the experiments, from the per-collection tables the pipeline writes.

Every function draws one figure with matplotlib alone (the Agg canvas, no pyplot, no
seaborn, so nothing depends on the interactive backend or on global pyplot state),
writes ``<stem>.png`` (150 dpi) and ``<stem>.pdf`` atomically and returns both paths.

- :func:`plot_kendall_tau`: Figure 2, Kendall tau of each rareness measure against its
  baseline versus alpha, one panel per collection.
- :func:`plot_synthetic_rare_common`: Figure 1, rank of S_rare and S_common versus D.
- :func:`plot_discriminative_power`: Table 1 as curves, one panel per test.
- :func:`plot_stability`: Table 2 as curves, one panel per fuzziness mode.
- :func:`plot_system_subsampling`: Table 3 as curves, mean tau (+- sd) versus N.
- :func:`plot_rarity_distribution`: histogram of R(d) of the relevant documents.

Output is deterministic: the style is matplotlib's defaults (a user's matplotlibrc is
ignored), the PDF carries no creation date and neither file names the matplotlib
version, so a rerun writes identical bytes.

Alphas arrive as text labels ("0", "0.25", "1/R") or, when pandas read a CSV without
``1/R``, as floats; baseline measures have an empty alpha. Curves use the numeric
alphas only; ``1/R`` (a per-topic alpha) has no place on an alpha axis and is skipped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path

import matplotlib
import matplotlib.style
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from irmeta.artefacts.labels import Notation, measure_label, paper_measure
from irmeta.measures.alpha import alpha_cell, alpha_value
from irmeta.metaeval.stats.registry import name_order as method_order  # noqa: F401  (the figures' names)
from irmeta.metaeval.stats.registry import name_title as method_title  # noqa: F401
from irmeta.support.atomic import atomic_write_bytes

DPI = 150


# Fixed rc on top of matplotlib's defaults: nothing taken from the user's matplotlibrc.
_RC = {
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.labelsize": 8.5,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 4.5,
    "legend.frameon": False,
    "pdf.fonttype": 42,
    "svg.hashsalt": "irmeta",
}


_PNG_METADATA = {"Software": None}


_PDF_METADATA = {"Creator": "irmeta", "Producer": None, "CreationDate": None}


# Colour per measure family; the [0, 1] forms of eq. 4 take a lighter hue of it.
COLOURS = {
    ("P", False): "#1f5fa8",
    ("P", True): "#6aaed6",
    ("AP", False): "#c0392b",
    ("AP", True): "#f08a5d",
}


FALLBACK_COLOURS = ["#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


ALPHA_COLOURS = ["#555555", "#e08214", "#542788", "#1b7837", "#b2182b", "#2166ac"]


def parse_paper_measure(measure: str) -> tuple[str, bool, bool] | None:
    m = paper_measure(measure)
    return None if m is None else (m.family, m.rareness, m.norm)


def measure_order(measure: str) -> tuple:
    p = parse_paper_measure(measure)
    if p is None:
        return (9, str(measure))
    family, rareness, norm = p
    return ({"P": 0, "AP": 1}[family], int(norm), int(rareness), str(measure))


def line_style(measure: str, index: int = 0) -> dict:
    """Colour, marker and fill of a measure's curve."""
    p = parse_paper_measure(measure)
    if p is None:
        return {"color": FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)], "marker": "D",
                "markerfacecolor": "white", "linewidth": 1.3}
    family, _, norm = p
    style = {"color": COLOURS[(family, norm)], "marker": "o" if family == "P" else "s"}
    if norm:
        style.update(markerfacecolor="white", linewidth=1.2)
    return style


def legend_label(measure: str, notation: Notation = "typed") -> str:
    """A measure in a legend: its name as users type it; in the paper's notation (for the
    paper's own figures) with the [0, 1] forms marked, their name not saying so."""
    label = measure_label(measure, notation)
    p = parse_paper_measure(measure)
    if notation == "paper" and p is not None and p[2]:
        label += " ([0,1], eq. 4)"
    return label


def numeric_alpha(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows with a numeric alpha, a float column ``_alpha`` added, sorted by it."""
    out = frame.assign(_alpha=frame["alpha"].map(alpha_value))
    out = out[out["_alpha"].notna()].copy()
    out["_alpha"] = out["_alpha"].astype(float)
    return out.sort_values("_alpha", kind="stable")


def weighted(frame: pd.DataFrame) -> set[str]:
    """Measures with an alpha (rareness measures): drawn as curves against alpha."""
    keys = frame["alpha"].map(alpha_cell)
    return set(frame.loc[keys != "", "measure"].dropna())


def baselines(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of measures without an alpha (P@k, AP, nDCG, ASL, ...): horizontal lines."""
    keys = frame["alpha"].map(alpha_cell)
    return frame[(keys == "") & ~frame["measure"].isin(weighted(frame))]


def rareness_measures(frame: pd.DataFrame) -> list[str]:
    return sorted(weighted(frame), key=measure_order)


def baseline_of(measure: str) -> str | None:
    m = paper_measure(measure)
    return f"{m.family}@{m.k}" if m else None


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {', '.join(missing)}")


def legend_columns(width: float, n_handles: int, column_width: float) -> int:
    return max(1, min(n_handles, int(width // column_width)))


def new_figure(n_panels: int, panel_width: float = 3.1, height: float = 3.0, *,
                n_legend: int = 0, column_width: float = 2.6, min_width: float = 4.4,
                sharey: bool = True, per_row: int | None = None) -> tuple[Figure, list, int]:
    """A constrained-layout figure of ``n_panels`` side by side (in rows of ``per_row``
    when given, ``height`` each), tall enough for a legend of ``n_legend`` entries below
    it; returns the figure, the axes (unused cells of the last row hidden) and the
    legend's number of columns."""
    columns = min(n_panels, per_row) if per_row else n_panels
    grid_rows = math.ceil(n_panels / columns)
    width = max(panel_width * columns, min_width)
    ncol = legend_columns(width, n_legend, column_width) if n_legend else 1
    rows = math.ceil(n_legend / ncol) if n_legend else 0
    fig = Figure(figsize=(width, height * grid_rows + 0.19 * rows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(grid_rows, columns, sharey=sharey, squeeze=False).ravel())
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels], ncol


def save_figure(fig: Figure, stem: str | Path) -> list[Path]:
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext, metadata in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
        buffer = BytesIO()
        fig.savefig(buffer, format=ext, dpi=DPI, metadata=metadata)
        # The layout the PNG was drawn with stands for the PDF: the panels are placed in
        # fractions of the figure, and laying them out again costs as much as drawing.
        fig.set_layout_engine("none")
        path = stem.with_name(stem.name + "." + ext)
        atomic_write_bytes(path, buffer.getvalue())
        paths.append(path)
    return paths


_TASKS: list = []  # what the forked workers of render_all draw (they inherit it)


def _run_task(i: int):
    return _TASKS[i]()


def render_all(tasks: Sequence, processes: int = 1) -> list:
    """Call each of ``tasks`` (functions drawing and saving a figure) and return their
    results, in ``processes`` forked workers where the platform forks (each figure is
    drawn whole in one process, so its bytes are the same), else one after the other."""
    import multiprocessing

    if processes <= 1 or len(tasks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [task() for task in tasks]
    _TASKS[:] = list(tasks)
    try:
        with multiprocessing.get_context("fork").Pool(min(processes, len(tasks))) as pool:
            return pool.map(_run_task, range(len(tasks)), chunksize=1)
    finally:
        _TASKS.clear()


def styled(draw):
    """Run ``draw`` under matplotlib's default style plus :data:`_RC`."""
    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        return draw()


def legend_below(fig: Figure, handles: list, ncol: int) -> None:
    if not handles:
        return
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol, handlelength=2.6,
               columnspacing=1.4)


def alpha_axis(ax, alphas: Sequence[float]) -> None:
    ticks = sorted(set(alphas))
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{a:g}" for a in ticks])
    if ticks:
        span = (ticks[-1] - ticks[0]) or 1.0
        ax.set_xlim(ticks[0] - 0.05 * span, ticks[-1] + 0.05 * span)
    ax.set_xlabel(r"$\alpha$")
