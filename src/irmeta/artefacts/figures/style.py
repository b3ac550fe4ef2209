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

Every figure fits a paper: at most :data:`PAGE_WIDTH` wide (panels wrap into rows of as
many as fit) and :data:`MAX_HEIGHT` high (more rows go on further pages of the PDF, the
PNG showing the first), its text at least :data:`MIN_FONT` points. With the environment
variable ``IRMETA_FIGURE_FACTS`` set, :func:`save_figure` also writes ``<stem>.facts.json``
(:func:`figure_facts`: each page's size, its texts with their sizes, its panels' titles and
its series' styles), which the figure tests and the documentation's gallery read.
"""

from __future__ import annotations

import json
import math
import os
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

#: A page's text width and the most a figure may be high, in inches: a figure wider than
#: a column (3.5 in) is drawn for the page's width, so its fonts print at their size.
PAGE_WIDTH = 7.0
MAX_HEIGHT = 9.5
#: The smallest font a figure uses, in points at its printed size.
MIN_FONT = 7.0

#: Set (to anything but "" or "0"), :func:`save_figure` writes ``<stem>.facts.json``.
FACTS_ENV = "IRMETA_FIGURE_FACTS"


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


def alpha_ramp(alphas: Sequence[str]) -> dict[str, str]:
    """A colour per alpha cell, for figures that tell alphas apart by colour: the numeric
    ones on a ramp from light (smallest) to dark (largest), any other (``1/R``) in green."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    numbers = sorted((a for a in alphas if alpha_value(a) is not None), key=lambda a: float(alpha_value(a)))
    ramp = colormaps["plasma"]
    positions = [0.8 - 0.8 * i / (len(numbers) - 1) for i in range(len(numbers))] if len(numbers) > 1 else [0.45]
    colours = {a: to_hex(ramp(x)) for a, x in zip(numbers, positions)}
    others = ("#1b7837", "#8c564b", "#17becf")
    for i, a in enumerate(a for a in alphas if a not in colours):
        colours[a] = others[i % len(others)]
    return colours


def parse_paper_measure(measure: str) -> tuple[str, bool, bool] | None:
    m = paper_measure(measure)
    return None if m is None else (m.family, m.rareness, m.norm)


def measure_order(measure: str) -> tuple:
    p = parse_paper_measure(measure)
    if p is None:
        return (9, str(measure))
    family, rareness, norm = p
    return ({"P": 0, "AP": 1}[family], int(norm), int(rareness), str(measure))


#: Markers of the measures the paper does not report, a cycle one longer than the colours'
#: (so no two of the first 56 look alike).
FALLBACK_MARKERS = ("D", "v", "^", "<", ">", "p", "h", "X")


def line_style(measure: str, index: int = 0) -> dict:
    """Colour, marker and fill of a measure's curve."""
    p = parse_paper_measure(measure)
    if p is None:
        return {"color": FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)],
                "marker": FALLBACK_MARKERS[index % len(FALLBACK_MARKERS)], "markerfacecolor": "white",
                "linewidth": 1.3}
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


def panels_per_row(n_panels: int, panel_width: float, per_row: int | None = None) -> int:
    """Panels side by side: ``per_row`` (default all) or fewer, as many as fit the page's width."""
    fit = max(1, int(PAGE_WIDTH / panel_width + 1e-9))
    return max(1, min(n_panels, per_row or n_panels, fit))


def legend_rows(n_legend: int, ncol: int) -> int:
    return math.ceil(n_legend / ncol) if n_legend else 0


def new_figure(n_panels: int, panel_width: float = 3.1, height: float = 3.0, *,
                n_legend: int = 0, column_width: float = 2.6, min_width: float = 4.4,
                sharey: bool = True, per_row: int | None = None, extra_height: float = 0.0,
                ) -> tuple[Figure, list, int]:
    """A constrained-layout figure of ``n_panels`` side by side, in rows of ``per_row`` or
    of as many as fit :data:`PAGE_WIDTH` (``height`` each), tall enough for a legend of
    ``n_legend`` entries below it and ``extra_height`` inches more (a title); returns the
    figure, the axes (unused cells of the last row hidden) and the legend's number of
    columns. The width is at most :data:`PAGE_WIDTH` (panels narrower than
    ``panel_width`` when ``per_row`` asks for more than fit)."""
    columns = min(n_panels, per_row) if per_row else panels_per_row(n_panels, panel_width)
    grid_rows = math.ceil(n_panels / columns)
    width = min(PAGE_WIDTH, max(panel_width * columns, min_width))
    ncol = legend_columns(width, n_legend, column_width) if n_legend else 1
    fig = Figure(figsize=(width, height * grid_rows + 0.19 * legend_rows(n_legend, ncol) + extra_height),
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(grid_rows, columns, sharey=sharey, squeeze=False).ravel())
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels], ncol


def page_panels(n_panels: int, per_row: int, height: float, reserved: float = 0.0,
                max_height: float = MAX_HEIGHT) -> list[range]:
    """The panels of each page: rows of ``per_row`` panels ``height`` inches high, as many
    rows as fit ``max_height`` once ``reserved`` inches (legend, title) are set aside."""
    rows = max(1, int((max_height - reserved) / height + 1e-9))
    per_page = rows * per_row
    return [range(start, min(n_panels, start + per_page)) for start in range(0, n_panels, per_page)]


def new_pages(n_panels: int, panel_width: float = 3.1, height: float = 3.0, *, n_legend: int = 0,
              column_width: float = 2.6, min_width: float = 4.4, sharey: bool = True, per_row: int | None = None,
              extra_height: float = 0.0) -> list[tuple[Figure, list, int, range]]:
    """:func:`new_figure`'s panels on as many pages as :data:`MAX_HEIGHT` needs, each page
    as wide as the first and with room for the legend and ``extra_height``: (figure,
    axes, legend columns, the panels' indices) per page."""
    columns = min(n_panels, per_row) if per_row else panels_per_row(n_panels, panel_width)
    width = min(PAGE_WIDTH, max(panel_width * columns, min_width))
    ncol = legend_columns(width, n_legend, column_width) if n_legend else 1
    reserved = 0.19 * legend_rows(n_legend, ncol) + extra_height
    pages = []
    for shown in page_panels(n_panels, columns, height, reserved):
        fig, axes, ncol = new_figure(len(shown), width / columns, height, n_legend=n_legend,
                                     column_width=column_width, min_width=width, sharey=sharey, per_row=columns,
                                     extra_height=extra_height)
        pages.append((fig, axes, ncol, shown))
    return pages


def page_title(title: str | None, page: int, pages: int) -> str | None:
    """A page's title: ``title``, and which page of how many when there are several (the
    PNG shows the first; the PDF has them all)."""
    if pages <= 1:
        return title
    where = f"page {page + 1} of {pages}" + (" (the PDF has every page)" if page == 0 else "")
    return f"{title}, {where}" if title else where


def save_figure(fig: Figure | Sequence[Figure], stem: str | Path) -> list[Path]:
    """Write ``<stem>.png`` (the first page) and ``<stem>.pdf`` (every page) of ``fig``, a
    figure or its pages, atomically; with :data:`FACTS_ENV` set, ``<stem>.facts.json`` too."""
    pages = [fig] if isinstance(fig, Figure) else list(fig)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    png = BytesIO()
    pages[0].savefig(png, format="png", dpi=DPI, metadata=_PNG_METADATA)
    # The layout the PNG was drawn with stands for the PDF: the panels are placed in
    # fractions of the figure, and laying them out again costs as much as drawing.
    pages[0].set_layout_engine("none")
    pdf = BytesIO()
    if len(pages) == 1:
        pages[0].savefig(pdf, format="pdf", dpi=DPI, metadata=_PDF_METADATA)
    else:
        from matplotlib.backends.backend_pdf import PdfPages

        with PdfPages(pdf, metadata=_PDF_METADATA) as document:
            for page in pages:
                document.savefig(page, dpi=DPI)
    paths = []
    for ext, buffer in (("png", png), ("pdf", pdf)):
        path = stem.with_name(stem.name + "." + ext)
        atomic_write_bytes(path, buffer.getvalue())
        paths.append(path)
    if os.environ.get(FACTS_ENV, "") not in ("", "0"):
        facts = {"pages": [figure_facts(page) for page in pages]}
        atomic_write_bytes(stem.with_name(stem.name + ".facts.json"),
                           (json.dumps(facts, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    return paths


# ------------------------------------------------------------ what a drawn figure shows


def _colour(value) -> str:
    from matplotlib.colors import to_hex

    try:
        return to_hex(value, keep_alpha=False)
    except (TypeError, ValueError):
        return str(value)


def _marker(value) -> str:
    text = "" if value is None else str(value)
    return "" if text in ("None", "none", " ", "") else text


def _dash(value) -> str:
    text = "" if value is None else str(value)
    return "" if text in ("None", "none", " ", "") else text


def series_style(artist) -> dict | None:
    """What tells a series apart: colour, marker, line style and marker fill (hex colours,
    transparency ignored); None for an artist that draws no series."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(artist, Line2D):
        marker = _marker(artist.get_marker())
        linestyle = _dash(artist.get_linestyle())
        if artist.get_linewidth() == 0:
            linestyle = ""
        return {"colour": _colour(artist.get_color()), "marker": marker, "linestyle": linestyle,
                "fill": _colour(artist.get_markerfacecolor()) if marker else ""}
    if isinstance(artist, Patch):
        return {"colour": _colour(artist.get_facecolor()), "marker": "patch", "linestyle": "",
                "fill": str(artist.get_hatch() or "")}
    if isinstance(artist, PathCollection):
        faces = artist.get_facecolors()
        edges = artist.get_edgecolors()
        colours = faces if len(faces) else edges
        paths = artist.get_paths()
        shape = paths[0].vertices.round(3).tobytes().hex()[:16] if paths else ""
        return {"colour": _colour(colours[0]) if len(colours) else "", "marker": f"path:{shape}",
                "linestyle": "", "fill": "" if len(faces) else "none"}
    return None


def _texts(fig: Figure) -> list[dict]:
    """Every text drawn: its string, size in points, whether it runs off the figure
    (``outside``: by more than a pixel) and, for a text written in a panel (a bar's value,
    a note), whether it runs out of the panel (``spills``: by more than two pixels)."""
    from matplotlib.text import Text

    fig.canvas.draw()  # at the figure's own dpi: where the last save put the labels, in these pixels
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    undrawn = set()  # the labels of ticks outside the view, which matplotlib keeps but does not draw
    for ax in [*fig.axes, *(child for parent in fig.axes for child in parent.child_axes)]:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            tolerance = 1e-9 * max(1.0, abs(high - low))
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not low - tolerance <= tick.get_loc() <= high + tolerance:
                    undrawn.update((id(tick.label1), id(tick.label2)))
    out = []
    for text in fig.findobj(Text):
        content = text.get_text()
        if not content.strip() or not text.get_visible() or id(text) in undrawn:
            continue
        axes = text.axes
        if axes is not None and not axes.get_visible():
            continue
        box = text.get_window_extent(renderer)
        outside = box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1
        fact = {"text": content, "size": round(float(text.get_fontsize()), 3), "outside": bool(outside)}
        if axes is not None and text in axes.texts:  # written in the panel: it stays there
            panel = axes.get_window_extent(renderer)
            fact["spills"] = bool(box.x0 < panel.x0 - 2 or box.x1 > panel.x1 + 2
                                  or box.y0 < panel.y0 - 2 or box.y1 > panel.y1 + 2)
        out.append(fact)
    return out


def _panels(fig: Figure) -> list[dict]:
    panels = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison or ax.get_label() == "<colorbar>":
            continue
        titles = [t for t in (ax.get_title("left"), ax.get_title("center"), ax.get_title("right")) if t.strip()]
        series = []
        for artist in [*ax.get_lines(), *ax.collections]:
            label = str(artist.get_label())
            style = series_style(artist)
            if style is None or label.startswith("_") or not artist.get_visible():
                continue
            series.append({"label": label, **style})
        panels.append({"title": " / ".join(titles), "series": series})
    return panels


def _legends(fig: Figure) -> list[list[dict]]:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    out = []
    for legend in legends:
        entries = []
        for text, handle in zip(legend.get_texts(), legend.legend_handles):
            style = series_style(handle) if handle is not None else None
            if style is not None and text.get_text().strip():
                entries.append({"label": text.get_text(), **style})
        out.append(entries)
    return out


def figure_facts(fig: Figure) -> dict:
    """What a reader of a drawn ``fig`` meets: its size in inches, every text shown with its
    font size in points, each panel's title and labelled series, and each legend's entries
    with their styles (:func:`series_style`)."""
    width, height = (float(v) for v in fig.get_size_inches())
    suptitle = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    return {"width": round(width, 4), "height": round(height, 4), "suptitle": suptitle,
            "texts": _texts(fig), "panels": _panels(fig), "legends": _legends(fig)}


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


def keep_inside(fig: Figure, notes: Sequence) -> None:
    """Slide each of ``notes`` (annotations placed by an offset in points, as a cluster's
    label above it) sideways until it lies inside its panel, measured on the laid-out
    ``fig``: a label of a cluster at the axis' edge would otherwise run out of the panel."""
    if not notes:
        return
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    points = fig.dpi / 72.0  # pixels a point
    for note in notes:
        box, panel = note.get_window_extent(renderer), note.axes.get_window_extent(renderer)
        pad = 2 * points
        shift = max(0.0, panel.x0 + pad - box.x0) - max(0.0, box.x1 - (panel.x1 - pad))
        if shift:
            x, y = note.xyann
            note.xyann = (x + shift / points, y)


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
