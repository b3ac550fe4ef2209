"""Atomized search length (Alex, Hall and Metzler, "Atomized Search Length: Beyond User
Models"): the measures, and the paper's analyses (RRIE, per-document histograms, the
system re-ordering of Table 2).

Definitions (equation numbers are the paper's)
-----------------------------------------------

Per (run, topic q, relevant document d), with "irrelevant" meaning *not relevant*
(non-relevant judged documents and unjudged documents alike: the paper contrasts ASL
with BPREF, which "confine[s] its calculations to judged documents only"):

* d returned within the depth k (eq. 1-2)::

      ASL_{q,d} = irrel_{q,d} + 1 = rank_{q,d} - rel_{q,d}

  irrel_{q,d} / rel_{q,d}: irrelevant / relevant documents ranked above d; ranks from 1.
  1 is the optimum (nothing irrelevant above d), whatever the other relevant documents do.

* d not returned within the depth k (eq. 3, literally, no +1)::

      ASL_{q,d} = irrel_q

  irrel_q: irrelevant documents among the run's returned documents for q (its top
  min(k, length)). ``unretrieved="paper"``, the default.

  Eq. 3 is a lower bound one short of eq. 1 (d cannot be ranked above any returned
  irrelevant document, so eq. 1 would give at least irrel_q + 1), and a run gains by
  *not* returning a relevant document it would rank last (irrel_q < irrel_q + 1). When
  a run returns only relevant documents, or nothing, for a topic, its missing relevant
  documents get ASL 0, better than the optimum 1: on TREC-8 (depth 1000) the manual
  run READWARE does so on 6 topics (e.g. topic 448: 3 documents returned, all
  relevant, 43 missing). Two documented alternatives, never the default:

  - ``unretrieved="plus_one"``: irrel_q + 1, the value eq. 1 gives d if it came right
    after the returned list (the smallest value consistent with eq. 1);
  - ``unretrieved="depth"``: (k - found_q) + 1, found_q the relevant documents returned:
    as if a short list were padded to the depth k with irrelevant documents and d came
    right after (irmeta's P@k also counts missing ranks as non-relevant). For a list of
    full length k this is ``plus_one``; a topic the run did not return gets k + 1.

Per topic (the measures' per-topic scores; irmeta's mean over topics is then the paper's):

* ``ASL`` (eq. 4): ASL_q = (1/n_q) sum_{d=1..n_q} ASL_{q,d}, n_q the topic's relevant
  documents in the qrels; eq. 4 is the mean of ASL_q over topics (a mean of per-topic
  means, not a mean over all (q, d) pairs), so irmeta's mean over topics reproduces it.
  ``ASL@k`` cuts the runs at rank k first (as ``AP@k``): relevant documents below k
  count as not returned and irrel_q counts the top k only.
* ``ASL_g1@n`` (eq. 5, the paper's ASL@g1-n): the mean ASL_{q,d} of the *first n
  relevant documents in the run's order*: those it returned, best-ranked first, then
  (when it returned fewer than n) ones it did not return, which all have the same
  value. Eq. 5 divides by n; a topic with n_q < n has only n_q documents to average,
  so the divisor is min(n, n_q). ASL_g1@1 is the rank of the first relevant document
  (the "replacement for MRR"). Under eq. 3's ``paper`` value a returned document ranked
  after every returned irrelevant document (irrel_q + 1) is listed before the missing
  ones (irrel_q) although its value is larger: "first n" is the run's order, not the n
  smallest values. With the other two choices the two coincide. ``ASL_g1`` needs @n.
  ``parse_asl_name("ASL@g1-10") == "ASL_g1@10"`` reads the paper's spelling.
* A topic with no relevant document (n_q = 0) scores 0, the convention of irmeta's AP
  (finite, and the same for every run). Eq. 4 is undefined there: to reproduce it
  exactly, average over ``matrix.n_relevant > 0`` only.
* A topic a run did not return: every relevant document is missing, so ASL_q = irrel_q
  = 0 under ``paper`` (1 under ``plus_one``, k + 1 under ``depth``). With
  ``averaging="returned"`` such topics are left out, as for every irmeta measure.

Scores are integers summed exactly and divided once per (run, topic), so they are
exact rationals rounded once: runs with equal totals tie exactly.

Analyses
--------

* :func:`rrie`: relative reduction in error from a to b (eq. 11-12).
* :func:`asl_histogram`, :func:`asl_difference_histogram` (Figures 5-6) and their
  plots :func:`plot_asl_histogram`, :func:`plot_asl_difference_histogram`.
* :func:`reordering_table`: Table 2, the system re-ordering from MAP to ASL through
  the paper's three ablation steps (see there for every reading of the text).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, Sequence

import numpy as np

from .metrics import MeasureDefinition, average_precision, exact_mean, measure_depth, register
from .ranking import Postings, RelevanceMatrix

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

Unretrieved = Literal["paper", "plus_one", "depth"]
UNRETRIEVED_CHOICES = ("paper", "plus_one", "depth")

__all__ = [
    "AtomizedSearchLengths",
    "atomized_search_lengths",
    "unretrieved_value",
    "asl_totals",
    "asl",
    "asl_g1",
    "parse_asl_name",
    "rrie",
    "asl_histogram",
    "asl_difference_histogram",
    "decade_edges",
    "plot_asl_histogram",
    "plot_asl_difference_histogram",
    "MetricVariant",
    "ablation_variants",
    "paired_t_pvalues",
    "better_counts",
    "delta_sort",
    "reordering_row",
    "reordering_table",
]


# --------------------------------------------------------------------------- per document


class AtomizedSearchLengths(NamedTuple):
    """ASL_{q,d} of every relevant judgment: ``values`` (runs, J) int64, ``topic`` (J,)
    the topic index of each column, ``qrels_row`` (J,) its row in the matrix's qrels
    arrays (``matrix.qrels_doc[qrels_row]`` is the document's code). Columns are the
    qrels rows with grade >= the matrix's threshold, in qrels order."""

    values: np.ndarray
    topic: np.ndarray
    qrels_row: np.ndarray


def _depth(cutoff: int | None) -> int | None:
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"the ASL depth must be at least 1, not {cutoff}")
    return None if cutoff is None else int(cutoff)


def _padded_depth(matrix: RelevanceMatrix, cutoff: int | None, unretrieved: str) -> int:
    """k of ``unretrieved="depth"``: the cutoff, else the depth the runs were cut to
    (not the deepest list scored alongside, which would tie a run's ASL to the others)."""
    return measure_depth(matrix, cutoff, "ASL padded to the depth") if unretrieved == "depth" else 0


def _check_unretrieved(unretrieved: str) -> None:
    if unretrieved not in UNRETRIEVED_CHOICES:
        raise ValueError(f"unretrieved must be one of {', '.join(UNRETRIEVED_CHOICES)}, not {unretrieved!r}")


def unretrieved_value(found: np.ndarray, returned: np.ndarray, k: int, unretrieved: Unretrieved = "paper") -> np.ndarray:
    """ASL of a relevant document the run did not return (eq. 3 and the alternatives).

    ``found``: relevant documents returned in the top k, ``returned``: documents returned
    in the top k (min(k, length)), both (runs, topics); irrel_q = returned - found.
    """
    _check_unretrieved(unretrieved)
    if unretrieved == "paper":
        return returned - found  # eq. 3: irrel_q
    if unretrieved == "plus_one":
        return returned - found + 1
    return k - found + 1


def _cells(matrix: RelevanceMatrix, k: int | None) -> tuple[Postings, np.ndarray, np.ndarray]:
    """Relevant postings of the top k, relevant documents found and documents returned there."""
    hits = matrix.hits.top(k)
    found = matrix.cell_counts(hits)
    returned = (matrix.length if k is None else np.minimum(matrix.length, k)).astype(np.int64)
    return hits, found, returned


def atomized_search_lengths(matrix: RelevanceMatrix, cutoff: int | None = None, *,
                            unretrieved: Unretrieved = "paper") -> AtomizedSearchLengths:
    """ASL_{q,d} (eq. 1-3) of every run and every relevant judgment, at depth ``cutoff``.

    A relevant document returned at rank r (1-based, r <= k) with j relevant documents
    above it gets r - j (eq. 2); one not returned in the top k gets
    :func:`unretrieved_value` (eq. 3: irrel_q). j is a posting's position in its cell.
    """
    k = _depth(cutoff)
    hits, found, returned = _cells(matrix, k)
    rows = np.flatnonzero(matrix.qrels_grade >= matrix.threshold)
    topic = matrix.qrels_topic[rows]
    column_of_row = np.full(len(matrix.qrels_grade), -1, dtype=np.int64)
    column_of_row[rows] = np.arange(len(rows))

    missing = unretrieved_value(found, returned, _padded_depth(matrix, cutoff, unretrieved), unretrieved)  # (S, Q)
    values = missing[:, topic].astype(np.int64)  # every document missing, then overwrite the found ones
    values[matrix.run_of(hits), column_of_row[hits.judgment]] = hits.rank - hits.position  # eq. 2
    return AtomizedSearchLengths(values, topic, rows)


# --------------------------------------------------------------------------- per topic


def asl_totals(matrix: RelevanceMatrix, cutoff: int | None = None, *, first: int | None = None,
               unretrieved: Unretrieved = "paper") -> tuple[np.ndarray, np.ndarray]:
    """Integer sums of ASL_{q,d} per (run, topic) and the number of documents summed.

    All n_q relevant documents (``first=None``, eq. 4), or the first min(first, n_q) in
    the run's order (eq. 5). Returned documents are summed as sum(rank) - t(t - 1)/2 over
    the first t of them (their relevant-above counts are 0, 1, ..., t - 1).
    """
    k = _depth(cutoff)
    hits, found, returned = _cells(matrix, k)
    n_rel = matrix.n_relevant.astype(np.int64)[None, :]
    if first is None:
        taken, kept = found, hits.rank
        count = np.broadcast_to(n_rel, found.shape)
    else:
        if first < 1:
            raise ValueError(f"ASL_g1@n needs n >= 1, not {first}")
        taken = np.minimum(found, first)
        within = hits.position < first
        kept = np.where(within, hits.rank, 0)
        count = np.broadcast_to(np.minimum(n_rel, first), found.shape)
    rank_sum = matrix.grid(np.rint(np.bincount(hits.cell, weights=kept, minlength=hits.n_cells)).astype(np.int64))
    missing = unretrieved_value(found, returned, _padded_depth(matrix, cutoff, unretrieved), unretrieved)
    total = rank_sum - taken * (taken - 1) // 2 + (count - taken) * missing
    return total.astype(np.int64), np.ascontiguousarray(count)


def _per_topic(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    return np.divide(total.astype(np.float64), count, out=np.zeros(total.shape, dtype=np.float64), where=count > 0)


def asl(matrix: RelevanceMatrix, cutoff: int | None = None, *, asl_unretrieved: Unretrieved = "paper") -> np.ndarray:
    """ASL_q = (1/n_q) sum_d ASL_{q,d} (eq. 4's inner mean), (runs, topics); the run at
    depth ``cutoff``; 0 for a topic with no relevant document."""
    return _per_topic(*asl_totals(matrix, cutoff, unretrieved=asl_unretrieved))


def asl_g1(matrix: RelevanceMatrix, cutoff: int | None, *, asl_unretrieved: Unretrieved = "paper") -> np.ndarray:
    """ASL@g1-n per topic (eq. 5's inner mean), n = ``cutoff``: the mean ASL_{q,d} of the
    first min(n, n_q) relevant documents in the run's order; (runs, topics)."""
    if cutoff is None:
        raise ValueError("ASL_g1 needs the number of relevant documents: write ASL_g1@10 (the paper's ASL@g1-10)")
    return _per_topic(*asl_totals(matrix, None, first=cutoff, unretrieved=asl_unretrieved))


register(MeasureDefinition(
    "ASL", asl, "atomized search length, mean over the relevant documents (Alex et al., eq. 1-4); "
    "@k cuts the runs at rank k", higher_is_better=False, options=("asl_unretrieved",)))
register(MeasureDefinition(
    "ASL_g1", asl_g1, "atomized search length of the first n relevant documents, ASL@g1-n (eq. 5); "
    "@n is required", higher_is_better=False, options=("asl_unretrieved",), cutoff_is_depth=False))

_PAPER_NAME = re.compile(r"^\s*ASL\s*@\s*g\s*_?\s*1\s*[-\u2013]\s*(\d+)\s*$", re.IGNORECASE)


def parse_asl_name(text: str) -> str:
    """The paper's spelling to irmeta's: ``ASL@g1-10`` -> ``ASL_g1@10``, ``ASL@g1-1`` ->
    ``ASL_g1@1`` (also ``ASL@g_1-10``, an en dash, any case); ``ASL@g1`` (the paper's
    short name for ASL@g1-1) -> ``ASL_g1@1``. Any other text is returned stripped, so
    ``parse_measure(parse_asl_name(name))`` reads both spellings."""
    match = _PAPER_NAME.match(text)
    if match:
        return f"ASL_g1@{int(match.group(1))}"
    if re.fullmatch(r"\s*ASL\s*@\s*g\s*_?\s*1\s*", text, re.IGNORECASE):
        return "ASL_g1@1"
    return text.strip()


# --------------------------------------------------------------------------- RRIE


def rrie(a, b, *, higher_is_better: bool = False, optimum: float = 1.0):
    """Relative reduction in error from ``a`` (the baseline) to ``b`` (eq. 11-12).

    Error is the distance to the optimum, 1 for both kinds of measure: ASL - 1 for ASL
    and ASL@g1-n (eq. 12, ``higher_is_better=False``, the default) and 1 - P for P@k and
    MAP (eq. 11, ``higher_is_better=True``)::

        RRIE = (error_a - error_b) / error_a

    Positive when b is better. Arrays broadcast; NaN where a's error is 0.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    err_a = optimum - a if higher_is_better else a - optimum
    err_b = optimum - b if higher_is_better else b - optimum
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(err_a != 0, (err_a - err_b) / np.where(err_a != 0, err_a, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------- histograms


def _histogram(values: np.ndarray, bins) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.isnan(values).any():
        raise ValueError("ASL values must not be NaN")
    if np.ndim(bins) == 0:
        counts, edges = np.histogram(values, bins=int(bins))
        return counts.astype(np.int64), edges
    edges = np.asarray(bins, dtype=np.float64)
    if edges.ndim != 1 or len(edges) < 2 or (np.diff(edges) <= 0).any():
        raise ValueError("bin edges must be increasing, at least two")
    # open-ended outer bins: values past the outer edges count in them, as the paper's
    # rightmost bucket counts every document past it
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return counts.astype(np.int64), edges


def asl_histogram(per_doc_asl, bins=10) -> tuple[np.ndarray, np.ndarray]:
    """Figure 5: how many relevant documents have each per-document ASL.

    ``per_doc_asl``: ASL_{q,d} values, any shape (e.g. one run's row of
    :func:`atomized_search_lengths`). ``bins``: a number of equal-width bins over
    [min, max] (numpy's rule), or increasing edges, whose outer bins are open-ended
    (values beyond them count there), so the counts always sum to the number of
    documents. Returns ``(counts, edges)``, counts int64.
    """
    return _histogram(per_doc_asl, bins)


def decade_edges(max_abs: float) -> np.ndarray:
    """Symmetric edges for integer differences: ..., -99.5, -9.5, -0.5, 0.5, 9.5, 99.5, ...
    up to the decade holding ``max_abs``: bins of 0 (ties), +-1..9, +-10..99, ..."""
    top = max(float(max_abs), 0.0)
    edges = [0.5]
    power = 10
    while edges[-1] < top:
        edges.append(power - 0.5)
        power *= 10
    right = np.asarray(edges)
    return np.concatenate([-right[::-1], right])


def asl_difference_histogram(a, b, bins=None) -> tuple[np.ndarray, np.ndarray]:
    """Figure 6: per-document ASL changes a - b (the paper: best minus median system);
    negative values are wins for a.

    ``a``, ``b``: ASL_{q,d} of the same documents (same shape). ``bins``: edges
    (open-ended outer bins), a number of equal-width bins, or None for
    :func:`decade_edges` of the largest change (ties, 1-9, 10-99, ... ranks each way,
    the paper's buckets of "100, or 1000, or 10000 ranks"). Returns ``(counts, edges)``.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a and b must hold the same documents: shapes {a.shape} and {b.shape}")
    diff = (a - b).reshape(-1)
    if bins is None:
        bins = decade_edges(np.abs(diff).max(initial=0.0))
    return _histogram(diff, bins)


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
    from .plots import _new_figure, _save, _styled

    counts, edges = asl_histogram(per_doc_asl, bins)

    def draw() -> "Figure":
        fig, axes, _ = _new_figure(1, panel_width=4.6, height=3.2)
        ax = axes[0]
        ax.stairs(counts, edges, color="#1f5fa8", fill=True, alpha=0.35, zorder=2)
        ax.stairs(counts, edges, color="#1f5fa8", linewidth=1.4, zorder=3)
        ax.set_xlim(edges[0], edges[-1])
        ax.set_xlabel(r"per-document ASL$_{q,d}$ (irrelevant documents above, + 1)")
        ax.set_ylabel("relevant documents")
        ax.set_title(title or f"per-document ASL ({int(counts.sum())} relevant documents)")
        return fig

    return _save(_styled(draw), stem)


def plot_asl_difference_histogram(a, b, stem: str | Path, *, bins=None, title: str | None = None,
                                  labels: tuple[str, str] = ("a", "b")) -> list[Path]:
    """Figure 6 as ``<stem>.png`` and ``<stem>.pdf``: documents per bucket of ASL change
    a - b, one bar per bucket (equal widths, so decade buckets stay readable), wins for
    a (negative) in green, losses in red, ties in grey. Deterministic as
    :func:`plot_asl_histogram`. Returns both paths."""
    from .plots import _new_figure, _save, _styled

    counts, edges = asl_difference_histogram(a, b, bins)
    n = len(counts)
    names = _bucket_labels(edges)
    colours = ["#2e8b57" if hi <= 0 else "#c0392b" if lo >= 0 else "#999999"
               for lo, hi in zip(edges[:-1], edges[1:])]

    def draw() -> "Figure":
        fig, axes, _ = _new_figure(1, panel_width=max(4.6, 0.42 * n), height=3.2)
        ax = axes[0]
        ax.bar(np.arange(n), counts, color=colours, width=0.8, zorder=3)
        ax.set_xticks(np.arange(n), names, rotation=45 if n > 8 else 0, ha="right" if n > 8 else "center")
        ax.set_xlabel(f"ASL$_{{q,d}}$ of {labels[0]} minus {labels[1]}")
        ax.set_ylabel("relevant documents")
        ax.set_title(title or f"per-document ASL changes, {int(counts.sum())} relevant documents\n"
                              f"(negative: {labels[0]} better)")
        return fig

    return _save(_styled(draw), stem)


# --------------------------------------------------------------------------- re-ordering (Table 2)


@dataclass(frozen=True)
class MetricVariant:
    """One metric of the MAP-to-ASL chain.

    ``per_topic`` (runs, topics): the per-query values the t-test compares; ``value``
    (runs,): the system score the 10% test and Kendall's tau use; ``rate`` (runs,): the
    score in precision space (1/ASL for ASL), for Delta Value.
    """

    name: str
    per_topic: np.ndarray
    value: np.ndarray
    higher_is_better: bool
    rate: np.ndarray


def _topic_means(per_doc: np.ndarray, doc_topic: np.ndarray, n_topics: int) -> np.ndarray:
    """(runs, topics) mean over each topic's documents (sorted sums, exact ties)."""
    order = np.argsort(doc_topic, kind="stable")
    counts = np.bincount(doc_topic, minlength=n_topics)
    out = np.zeros((per_doc.shape[0], n_topics))
    starts = np.concatenate([[0], np.cumsum(counts)])
    for q in np.flatnonzero(counts):
        block = per_doc[:, order[starts[q]:starts[q + 1]]]
        out[:, q] = exact_mean(block)
    return out


def ablation_variants(per_topic_map, per_doc_asl, doc_topic) -> list[MetricVariant]:
    """The metrics of Table 2, from MAP to ASL, over the topics with a relevant document.

    1. ``MAP``: AP_q = (1/n_q) sum_d P_{q,d} (eq. 6-8), P = 0 for a missing document;
       given as ``per_topic_map`` (e.g. ``average_precision(matrix, None)``).
    2. ``atomized_P`` ("Atomize P": eq. 6 replaced by the reciprocal of eq. 2, and of
       eq. 3 for a missing document): mean_q mean_d 1/ASL_{q,d}.
    3. ``harmonic_within_topic`` (eq. 7 a harmonic mean): per topic the harmonic mean of
       the 1/ASL_{q,d}, which is 1/ASL_q; the system value mean_q 1/ASL_q.
    4. ``harmonic_across_topics`` (eq. 8 a harmonic mean too): 1/ASL, the harmonic mean
       of the 1/ASL_q; still in precision space, so its per-query values are 1/ASL_q.
    5. ``ASL`` (eq. 4): per-query ASL_q, value ASL, lower is better: the ranking of 4,
       reported in 1/P space (the paper: "doesn't change system ordering, but can change
       significance testing results").

    Rates need ASL_{q,d} >= 1 everywhere; eq. 3 gives 0 when a run returned no
    irrelevant document for a topic with a missing relevant one, and then this raises
    (compute the ASLs with ``unretrieved="plus_one"`` or ``"depth"``).
    """
    ap = np.asarray(per_topic_map, dtype=np.float64)
    values = np.asarray(per_doc_asl, dtype=np.float64)
    doc_topic = np.asarray(doc_topic, dtype=np.int64)
    if values.ndim != 2 or values.shape[0] != ap.shape[0] or values.shape[1] != len(doc_topic):
        raise ValueError("per_doc_asl must be (runs, J) with one topic index per column, runs as per_topic_map")
    if (values < 1).any():
        raise ValueError(
            "some ASL_{q,d} are below 1 (eq. 3 gives 0 when a run returned no irrelevant document for a "
            "topic with a missing relevant one); the precision-space steps need 1/ASL_{q,d}: compute the "
            "ASLs with unretrieved='plus_one' or 'depth'")
    n_topics = ap.shape[1]
    counts = np.bincount(doc_topic, minlength=n_topics)
    keep = counts > 0
    ap = ap[:, keep]
    atomized = _topic_means(1.0 / values, doc_topic, n_topics)[:, keep]
    asl_q = _topic_means(values, doc_topic, n_topics)[:, keep]
    inverse_q = 1.0 / asl_q
    asl_mean = exact_mean(asl_q)
    map_value = exact_mean(ap)
    atomized_value = exact_mean(atomized)
    within_value = exact_mean(inverse_q)
    return [
        MetricVariant("MAP", ap, map_value, True, map_value),
        MetricVariant("atomized_P", atomized, atomized_value, True, atomized_value),
        MetricVariant("harmonic_within_topic", inverse_q, within_value, True, within_value),
        MetricVariant("harmonic_across_topics", inverse_q, 1.0 / asl_mean, True, 1.0 / asl_mean),
        MetricVariant("ASL", asl_q, asl_mean, False, 1.0 / asl_mean),
    ]


def paired_t_pvalues(per_topic, test: Literal["paired", "independent"] = "paired") -> np.ndarray:
    """(runs, runs) two-tailed p-values of Student's t-test between every two runs'
    per-topic values: ``paired`` (on the topic-wise differences, df = T - 1; scipy's
    ``ttest_rel``) or ``independent`` (pooled variance, df = 2T - 2; ``ttest_ind``).
    Identical values give p = 1, a constant non-zero difference p = 0; 1 on the diagonal."""
    from scipy.special import stdtr  # t.sf(x, df) is stdtr(df, -x); scipy.stats costs a second to import

    from .statistics import block_size

    x = np.asarray(per_topic, dtype=np.float64)
    n_runs, n = x.shape
    p = np.ones((n_runs, n_runs))
    if n < 2:
        p[~np.eye(n_runs, dtype=bool)] = np.nan
        return p
    if test not in ("paired", "independent"):
        raise ValueError(f"test must be 'paired' or 'independent', not {test!r}")
    a, b = np.triu_indices(n_runs, 1)
    df = n - 1 if test == "paired" else 2 * n - 2
    batch = block_size(n * 8 * 2)  # pairs per block: (pairs, topics) differences
    for start in range(0, len(a), batch):
        pa, pb = a[start:start + batch], b[start:start + batch]
        if test == "paired":
            d = x[pb] - x[pa]
            mean = d.mean(axis=1)
            se = d.std(axis=1, ddof=1) / math.sqrt(n)
        else:
            mean = x[pb].mean(axis=1) - x[pa].mean(axis=1)
            var = (x[pa].var(axis=1, ddof=1) + x[pb].var(axis=1, ddof=1)) / 2
            se = np.sqrt(2 * var / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(mean) / se
        # no spread: identical values (0/0) are no evidence (p = 1), a constant shift is certain (p = 0)
        t = np.where(se == 0, np.where(mean == 0, 0.0, np.inf), t)
        pair_p = np.minimum(2.0 * stdtr(df, -t), 1.0)
        p[pa, pb] = pair_p
        p[pb, pa] = pair_p
    return p


def better_counts(per_topic, value, higher_is_better: bool, *, relative: float = 0.10, alpha: float = 0.05,
                  test: Literal["paired", "independent"] = "paired", tolerance: float = 1e-12) -> np.ndarray:
    """n_s: how many systems are *better* than each system s (Table 2).

    t is better than s when both tests pass (the paper: "the absolute value of the metric
    is 10% better, and a two-tailed Student t-test on the per-query metrics returned a
    probability ... no greater than 5%"):

    * the improvement of t over s, relative to s, is at least ``relative``:
      (v_t - v_s) >= relative |v_s| (higher is better) or (v_s - v_t) >= relative |v_s|
      (lower is better: ASL 10% lower), and strictly positive; ``tolerance`` (relative)
      absorbs float rounding at exactly 10%;
    * :func:`paired_t_pvalues` p <= ``alpha``.
    """
    x = np.asarray(per_topic, dtype=np.float64)
    v = np.asarray(value, dtype=np.float64)
    gain = v[None, :] - v[:, None]  # gain[s, t] = v_t - v_s
    if not higher_is_better:
        gain = -gain
    scale = np.abs(v)[:, None]
    big = (gain > 0) & (gain >= (relative - tolerance) * scale)
    significant = paired_t_pvalues(x, test) <= alpha
    return (big & significant).sum(axis=1).astype(np.int64)


def delta_sort(old: MetricVariant, new: MetricVariant, **criteria) -> np.ndarray:
    """Delta Sort_s = 100 |n0 - n1| / |S| for every system s: n0 systems better than s
    by the old metric, n1 by the new (:func:`better_counts`), |S| the systems."""
    n0 = better_counts(old.per_topic, old.value, old.higher_is_better, **criteria)
    n1 = better_counts(new.per_topic, new.value, new.higher_is_better, **criteria)
    return 100.0 * np.abs(n0 - n1) / len(n0)


def _oriented(variant: MetricVariant) -> np.ndarray:
    return variant.value if variant.higher_is_better else -variant.value


def reordering_row(old: MetricVariant, new: MetricVariant, *, runs: Sequence[str] | None = None,
                   step: str | None = None, **criteria) -> dict:
    """One row of Table 2 for a change of metric from ``old`` to ``new``.

    ``delta_sort_max``: the largest Delta Sort_s (the paper's per-track figure) and
    ``delta_sort_run`` the system it belongs to (first on ties), ``delta_sort_mean`` the
    mean over systems; ``kendall_tau``: tau-b between the two metrics' system rankings
    (both oriented best-first, so agreement is +1); ``delta_value_mean`` and ``_sd``:
    new/old of the metrics in precision space (AP against 1/ASL) over the systems.
    """
    from .statistics import kendall_tau

    ds = delta_sort(old, new, **criteria)
    worst = int(np.argmax(ds)) if len(ds) else 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(old.rate != 0, new.rate / old.rate, np.nan)
    finite = ratio[np.isfinite(ratio)]
    names = list(runs) if runs is not None else [str(i) for i in range(len(ds))]
    return {
        "step": step or f"{old.name} -> {new.name}",
        "old": old.name,
        "new": new.name,
        "delta_sort_max": float(ds.max()) if len(ds) else math.nan,
        "delta_sort_run": names[worst] if len(ds) else None,
        "delta_sort_mean": float(ds.mean()) if len(ds) else math.nan,
        "kendall_tau": kendall_tau(_oriented(old), _oriented(new)),
        "delta_value_mean": float(finite.mean()) if len(finite) else math.nan,
        "delta_value_sd": float(finite.std(ddof=1)) if len(finite) > 1 else math.nan,
        "n_runs": len(ds),
        "n_topics": old.per_topic.shape[1],
    }


_STEPS = (
    ("atomize_P", 0, 1),
    ("harmonic_mean_within_topic", 1, 2),
    ("harmonic_mean_across_topics", 2, 3),
    ("cumulative", 0, 4),
)


def reordering_table(per_topic_map, per_topic_asl=None, *, per_doc_asl=None, doc_topic=None,
                     runs: Sequence[str] | None = None, relative: float = 0.10, alpha: float = 0.05,
                     test: Literal["paired", "independent"] = "paired") -> pd.DataFrame:
    """Table 2: how the system ranking changes from MAP to ASL, one row per step.

    Rows (the paper's order; each ablation relative to the previous row's metric, the
    cumulative row MAP against ASL itself, see :func:`ablation_variants`):

    ========================== ========================================================
    ``atomize_P``               MAP -> mean_q mean_d 1/ASL_{q,d}
    ``harmonic_mean_within_topic`` -> mean_q 1/ASL_q (harmonic mean over documents)
    ``harmonic_mean_across_topics`` -> 1/ASL (harmonic mean over topics)
    ``cumulative``              MAP -> ASL (per-query ASL_q, lower is better)
    ========================== ========================================================

    Columns: see :func:`reordering_row` (Delta Sort by the 10%-and-t-test criterion of
    :func:`better_counts`, Kendall's tau, Delta Value).

    ``per_topic_map`` (runs, topics): AP_q over all relevant documents. The ablation rows
    need the per-document ASLs: ``per_doc_asl`` (runs, J) and ``doc_topic`` (J,), e.g.
    ``atomized_search_lengths(matrix, unretrieved="plus_one")``'s ``values`` and
    ``topic``; topics without a relevant document are left out of every metric. With
    ``per_topic_asl`` (runs, topics) alone, only the cumulative row is computed. When
    both are given, ``per_topic_asl`` must be the topic means of ``per_doc_asl``.
    """
    import pandas as pd

    ap = np.asarray(per_topic_map, dtype=np.float64)
    criteria = {"relative": relative, "alpha": alpha, "test": test}
    if per_doc_asl is None:
        if per_topic_asl is None:
            raise ValueError("give per_topic_asl, or per_doc_asl and doc_topic")
        asl_q = np.asarray(per_topic_asl, dtype=np.float64)
        if asl_q.shape != ap.shape:
            raise ValueError(f"per_topic_map {ap.shape} and per_topic_asl {asl_q.shape} differ in shape")
        asl_mean = exact_mean(asl_q)
        old = MetricVariant("MAP", ap, exact_mean(ap), True, exact_mean(ap))
        with np.errstate(divide="ignore"):
            new = MetricVariant("ASL", asl_q, asl_mean, False, 1.0 / asl_mean)
        return pd.DataFrame([reordering_row(old, new, runs=runs, step="cumulative", **criteria)])
    if doc_topic is None:
        raise ValueError("per_doc_asl needs doc_topic, the topic index of each column")
    variants = ablation_variants(ap, per_doc_asl, doc_topic)
    if per_topic_asl is not None:
        given = np.asarray(per_topic_asl, dtype=np.float64)
        keep = np.bincount(np.asarray(doc_topic, dtype=np.int64), minlength=ap.shape[1]) > 0
        if given.shape != ap.shape or not np.allclose(given[:, keep], variants[-1].per_topic, rtol=1e-12, atol=0):
            raise ValueError("per_topic_asl is not the topic means of per_doc_asl")
    rows = [reordering_row(variants[i], variants[j], runs=runs, step=step, **criteria) for step, i, j in _STEPS]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------- whole analysis


def asl_analysis(matrix: RelevanceMatrix, *, unretrieved: Unretrieved = "plus_one",
                 pair: Sequence[str] | None = None) -> dict:
    """The analyses of Alex, Hall and Metzler on one collection (full depth).

    - ``reordering``: Table 2, MAP to ASL with the ablation rows (:func:`reordering_table`);
    - ``rrie``: RRIE (eq. 11-12) from run a to run b by MAP, ASL, ASL@g1-1 and ASL@g1-10,
      a and b the configured ``pair`` or the two best runs by MAP (b the best);
    - ``per_document``: the per-document ASLs of a and b, for Figures 5 and 6.

    Topics without a relevant document are left out of every mean (eq. 4).
    """
    import pandas as pd

    found = atomized_search_lengths(matrix, None, unretrieved=unretrieved)
    ap = average_precision(matrix, None)
    keep = matrix.n_relevant > 0
    reordering = reordering_table(ap, per_doc_asl=found.values, doc_topic=found.topic, runs=matrix.runs)
    map_mean = exact_mean(ap[:, keep])
    if pair is None:
        order = np.argsort(-map_mean, kind="stable")
        a, b = int(order[1]), int(order[0])
    else:
        missing = [name for name in pair if name not in matrix.runs]
        if missing or len(pair) != 2:
            raise ValueError(f"asl pair must name two runs of the collection; unknown: {missing}")
        a, b = matrix.runs.index(pair[0]), matrix.runs.index(pair[1])
    rows = []
    for name, values, higher in (
        ("MAP", map_mean, True),
        ("ASL", exact_mean(asl(matrix, None, asl_unretrieved=unretrieved)[:, keep]), False),
        ("ASL@g1-1", exact_mean(asl_g1(matrix, 1, asl_unretrieved=unretrieved)[:, keep]), False),
        ("ASL@g1-10", exact_mean(asl_g1(matrix, 10, asl_unretrieved=unretrieved)[:, keep]), False),
    ):
        rows.append({"measure": name, "run_a": matrix.runs[a], "run_b": matrix.runs[b], "value_a": values[a],
                     "value_b": values[b], "rrie": rrie(values[a], values[b], higher_is_better=higher),
                     "asl_unretrieved": unretrieved})
    return {"reordering": reordering.assign(asl_unretrieved=unretrieved), "rrie": pd.DataFrame(rows),
            "per_document": (matrix.runs[a], found.values[a], matrix.runs[b], found.values[b])}
