"""Figures 5 and 6 of the ASL paper: per-document ASL histograms of one run and of the
difference between two.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from irmeta.metaeval.asl_analysis import asl_difference_histogram, asl_histogram


def _signed(value: int) -> str:
    return f"\u2212{-value}" if value < 0 else f"{value}"


def _bucket_labels(edges: np.ndarray) -> list[str]:
    """Tick labels of difference buckets, the outer ones open-ended: on half-integer edges
    (:func:`decade_edges`) the integers each holds (``<=-100``, ``-99...-10``, ..., ``0``,
    ..., ``>=100``, with a true minus sign), otherwise the intervals' bounds."""
    n = len(edges) - 1
    integer = bool(np.all(np.mod(edges - 0.5, 1.0) == 0))
    labels = []
    for i in range(n):
        lo, hi = edges[i], edges[i + 1]
        if integer:
            a, b = int(lo + 0.5), int(hi - 0.5)
            text = _signed(a) if a == b else f"{_signed(a)}\u2026{_signed(b)}"
            if n > 1 and i == 0:
                text = f"\u2264{_signed(b)}"
            elif n > 1 and i == n - 1:
                text = f"\u2265{_signed(a)}"
        else:
            text = f"{lo:.3g}\u2026{hi:.3g}"
            if n > 1 and i == 0:
                text = f"<{hi:.3g}"
            elif n > 1 and i == n - 1:
                text = f"\u2265{lo:.3g}"
        labels.append(text)
    return labels


def plot_asl_histogram(per_doc_asl, stem: str | Path, *, bins=10, title: str | None = None) -> list[Path]:
    """Figure 5 as ``<stem>.png`` and ``<stem>.pdf``: relevant documents per ASL bucket.

    Drawn on a :class:`matplotlib.figure.Figure` with the Agg canvas (no pyplot state),
    matplotlib's default style plus irmeta's rc, no creation date in the PDF: a rerun
    writes the same bytes. Returns both paths.
    """
    from irmeta.artefacts.figures.style import new_figure, save_figure, styled

    counts, edges = asl_histogram(per_doc_asl, bins)

    def draw() -> Figure:
        fig, axes, _ = new_figure(1, panel_width=4.6, height=3.2)
        ax = axes[0]
        ax.stairs(counts, edges, color="#1f5fa8", fill=True, alpha=0.35, zorder=2)
        ax.stairs(counts, edges, color="#1f5fa8", linewidth=1.4, zorder=3)
        ax.set_xlim(edges[0], edges[-1])
        ax.set_xlabel(r"per-document ASL$_{q,d}$ (irrelevant documents above, + 1)")
        ax.set_ylabel("relevant documents")
        ax.set_title(title or f"per-document ASL ({int(counts.sum())} relevant documents)")
        return fig

    return save_figure(styled(draw), stem)


def plot_asl_difference_histogram(a, b, stem: str | Path, *, bins=None, title: str | None = None,
                                  labels: tuple[str, str] = ("a", "b")) -> list[Path]:
    """Figure 6 as ``<stem>.png`` and ``<stem>.pdf``: documents per bucket of ASL change
    a - b, one bar per bucket (equal widths, so decade buckets stay readable), wins for
    a (negative) in green, losses in red, ties in grey. Deterministic as
    :func:`plot_asl_histogram`. Returns both paths."""
    from irmeta.artefacts.figures.style import new_figure, save_figure, styled

    counts, edges = asl_difference_histogram(a, b, bins)
    n = len(counts)
    names = _bucket_labels(edges)
    colours = ["#2e8b57" if hi <= 0 else "#c0392b" if lo >= 0 else "#999999"
               for lo, hi in zip(edges[:-1], edges[1:])]

    def draw() -> Figure:
        fig, axes, _ = new_figure(1, panel_width=max(4.6, 0.42 * n), height=3.2)
        ax = axes[0]
        ax.bar(np.arange(n), counts, color=colours, width=0.8, zorder=3)
        ax.set_xticks(np.arange(n), names, rotation=45 if n > 8 else 0, ha="right" if n > 8 else "center")
        ax.set_xlabel(f"ASL$_{{q,d}}$ of {labels[0]} minus {labels[1]}")
        ax.set_ylabel("relevant documents")
        ax.set_title(title or f"per-document ASL changes, {int(counts.sum())} relevant documents\n"
                              f"(negative: {labels[0]} better)")
        return fig

    return save_figure(styled(draw), stem)
