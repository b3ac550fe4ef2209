"""merge: two disjoint sets of postings of the same cells in one, ranks ascending within
each cell, equal to lexsort on (cell, rank) of both sides laid end to end; whatever the
sides' sizes, empty cells and empty sides."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeta.campaign.postings import Postings, merge, offsets_from_counts


def _side(cell: np.ndarray, rank: np.ndarray, n_cells: int) -> Postings:
    order = np.lexsort((rank, cell))
    counts = np.bincount(cell, minlength=n_cells)
    return Postings(offsets_from_counts(counts), rank[order].astype(np.int32),
                    (rank[order] * 7 + cell[order]).astype(np.int32))  # a judgment tied to its posting


@settings(max_examples=200, deadline=None)
@given(n_cells=st.integers(1, 6), depth=st.integers(1, 40), share=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_merge_equals_the_sort_of_both_sides(n_cells, depth, share, seed):
    rng = np.random.default_rng(seed)
    cells, ranks = [], []
    for c in range(n_cells):
        taken = np.flatnonzero(rng.random(depth) < 0.6) + 1  # distinct ranks of a cell
        cells.append(np.full(len(taken), c))
        ranks.append(taken)
    cell, rank = np.concatenate(cells).astype(np.int64), np.concatenate(ranks).astype(np.int64)
    side = rng.random(len(cell)) < share
    merged = merge(_side(cell[side], rank[side], n_cells), _side(cell[~side], rank[~side], n_cells))
    order = np.lexsort((rank, cell))
    assert merged.start.tolist() == offsets_from_counts(np.bincount(cell, minlength=n_cells)).tolist()
    assert merged.rank.tolist() == rank[order].tolist()
    assert merged.judgment.tolist() == (rank[order] * 7 + cell[order]).tolist()
    assert merged.rank.dtype == np.int32 and merged.judgment.dtype == np.int32
