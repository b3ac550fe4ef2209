"""What every family needs from a cutoff: k (the measure's, else the depth the runs
were cut to), the relevant postings within it, and division by N_R.
"""

from __future__ import annotations

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix


def measure_depth(matrix: RelevanceMatrix, cutoff: int | None, what: str = "a measure without @k") -> int:
    """k of a measure that needs one (P divides by it): its cutoff, else the depth the
    runs were cut to (trec_eval -M), never the deepest list among the runs scored
    together, so a run's score does not depend on the other runs."""
    if cutoff is not None:
        return int(cutoff)
    if matrix.run_depth is None:
        raise ValueError(f"{what} needs the depth k the runs were cut to, and these runs were read without "
                         f"one: write @k, or read the runs with a depth (--depth, or depth: in the collection)")
    return matrix.run_depth


def top_ranks(matrix: RelevanceMatrix, cutoff: int | None) -> Postings:
    """The relevant postings within the top ``cutoff`` ranks (all for None)."""
    return matrix.hits.top(cutoff)


def cut_at(matrix: RelevanceMatrix, cutoff: int | None) -> tuple[Postings, int]:
    """The relevant postings within the top k ranks, and k (:func:`measure_depth`)."""
    k = measure_depth(matrix, cutoff)
    return matrix.hits.top(k), k


def relevant_count(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Relevant documents in the top k (all the run returned for None), as integers."""
    return matrix.cell_counts(top_ranks(matrix, cutoff))


def divide_by_relevant(total: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
    """total / N_R per topic (last axis), 0 where the topic has no relevant document."""
    n = np.broadcast_to(n_relevant.astype(np.float64), total.shape)
    return np.divide(total, n, out=np.zeros_like(total, dtype=np.float64), where=n > 0)
