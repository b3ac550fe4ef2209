"""Atomized Search Length (Alex, Hall and Metzler): per relevant document, the
non-relevant documents ranked above it plus one (eq. 1-4); ASL@g1-n over a run's first
n relevant documents (eq. 5). Lower is better. The analyses of the paper live in
:mod:`irmeta.metaeval.asl_analysis`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.measures.cutoffs import measure_depth
from irmeta.measures.registry import MeasureDefinition, RangeDeclaration, register, register_option_check

Unretrieved = Literal["paper", "plus_one", "depth"]


UNRETRIEVED_CHOICES = ("paper", "plus_one", "depth")


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


def _check_unretrieved(unretrieved: object) -> str:
    if not isinstance(unretrieved, str) or unretrieved not in UNRETRIEVED_CHOICES:
        raise ValueError(f"asl_unretrieved must be one of {', '.join(UNRETRIEVED_CHOICES)}, not {unretrieved!r}")
    return unretrieved


register_option_check("asl_unretrieved", _check_unretrieved)


def unretrieved_value(found: np.ndarray, returned: np.ndarray, k: int,
                      unretrieved: Unretrieved = "paper") -> np.ndarray:
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


# Means of counts of documents (0 for a topic without relevant documents): no upper bound.
_SEARCH_LENGTHS = RangeDeclaration(high=float("inf"))


register(MeasureDefinition(
    "ASL", asl, "atomized search length, mean over the relevant documents (Alex et al., eq. 1-4); "
    "@k cuts the runs at rank k", higher_is_better=False, options=("asl_unretrieved",),
    value_range=_SEARCH_LENGTHS))


register(MeasureDefinition(
    "ASL_g1", asl_g1, "atomized search length of the first n relevant documents, ASL@g1-n (eq. 5); "
    "@n is required", higher_is_better=False, options=("asl_unretrieved",), cutoff_is_depth=False,
    value_range=_SEARCH_LENGTHS))
