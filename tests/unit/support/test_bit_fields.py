"""Fixed-width bit fields: what is packed a piece at a time reads back a range at a time."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeta.support.bit_fields import BitWriter, bit_width, pack_bits, unpack_bits, word_count


@settings(max_examples=300, deadline=None)
@given(width=st.integers(1, 63), n=st.integers(0, 300), cuts=st.lists(st.integers(0, 300), max_size=5),
       seed=st.integers(0, 2**32 - 1))
def test_values_written_in_pieces_read_back_in_any_range(width, n, cuts, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 1 << width, size=n, dtype=np.uint64).astype(np.int64) if width < 63 else \
        rng.integers(0, np.iinfo(np.int64).max, size=n, dtype=np.int64)
    values[: n // 3] = (1 << width) - 1  # every bit set, across word boundaries
    writer = BitWriter(width)
    bounds = sorted({0, n, *(c for c in cuts if c <= n)})
    words = np.concatenate([w for lo, hi in zip(bounds[:-1], bounds[1:]) for w in writer.add(values[lo:hi])]
                           + [writer.finish()]) if n else writer.finish()
    assert len(words) == word_count(n, width)
    assert np.array_equal(words, pack_bits(values, width))  # the same words whatever the pieces
    assert np.array_equal(unpack_bits(words, width, 0, n), values)
    lo, hi = sorted(rng.integers(0, n + 1, size=2).tolist())
    assert np.array_equal(unpack_bits(words, width, lo, hi), values[lo:hi])


def test_the_layout_is_least_significant_bit_first():
    assert pack_bits(np.array([1, 2, 3]), 2).tolist() == [0b11_10_01]
    assert pack_bits(np.array([5, 1]), 63).tolist() == [5 | (1 << 63), 0]  # the second value crosses into word 1


def test_widths_and_values_out_of_range_are_refused():
    assert [bit_width(h) for h in (0, 1, 2, 255, 256)] == [1, 1, 2, 8, 9]
    with pytest.raises(ValueError, match="do not fit 3 bits"):
        pack_bits(np.array([8]), 3)
    with pytest.raises(ValueError, match="do not fit"):
        pack_bits(np.array([-1]), 3)
    with pytest.raises(ValueError, match="1 to 63 bits"):
        BitWriter(64)
    with pytest.raises(ValueError, match="non-negative"):
        bit_width(-1)
