"""Sums over a cell's postings in rank order: one pass of ``bincount`` adds the same
values in the same order as adding a round of postings (every cell's i-th) at a time,
so the two agree to the last bit, the sign of zero included."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.campaign.postings import Postings, offsets_from_counts


def _postings(seed: int, cells: int = 400, most: int = 60) -> tuple[Postings, np.ndarray]:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, most, cells)
    counts[rng.random(cells) < 0.2] = 0  # empty cells among full ones
    n = int(counts.sum())
    rank = np.concatenate([np.sort(rng.choice(1000, c, replace=False)) + 1 for c in counts]).astype(np.int32)
    # magnitudes 1e-12 .. 1e6 and both signs, so that any other order of addition shows
    values = rng.standard_normal(n) * 10.0 ** rng.integers(-12, 7, n)
    values[rng.random(n) < 0.05] = -0.0
    return Postings(offsets_from_counts(counts), rank, np.zeros(n, dtype=np.int32)), values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ordered_sums_add_in_rank_order_as_the_rounds_do(seed):
    postings, values = _postings(seed)
    by_rounds = np.zeros(postings.n_cells)
    for idx, cells in postings.round_cells():
        by_rounds[cells] += values[idx]
    sums = postings.ordered_sums(values)
    assert sums.dtype == np.float64 and sums.tobytes() == by_rounds.tobytes()
    # and each is the sequential sum from the top, as trec_eval's loop adds
    for cell in np.flatnonzero(postings.counts)[:20]:
        total = 0.0
        for v in values[postings.start[cell]:postings.start[cell + 1]]:
            total += v
        assert sums[cell] == total
    # running sums end where the ordered sums are, from the top and from the bottom
    ends = postings.start[1:][postings.counts > 0] - 1
    assert postings.running_sums(values)[ends].tobytes() == sums[postings.counts > 0].tobytes()
    cell = int(np.flatnonzero(postings.counts > 3)[0])
    back = 0.0
    for v in values[postings.start[cell]:postings.start[cell + 1]][::-1]:
        back += v
    assert postings.running_sums(values, reverse=True)[postings.start[cell]] == back


def test_counts_where_counts_each_cells_flagged_postings():
    rng = np.random.default_rng(4)
    for _ in range(100):
        counts = rng.integers(0, 4, rng.integers(0, 30))
        n = int(counts.sum())
        postings = Postings(offsets_from_counts(counts), np.arange(1, n + 1, dtype=np.int32),
                            np.zeros(n, dtype=np.int32))
        mask = rng.random(n) < 0.5
        np.testing.assert_array_equal(postings.counts_where(mask),
                                      np.bincount(postings.cell[mask], minlength=postings.n_cells))
