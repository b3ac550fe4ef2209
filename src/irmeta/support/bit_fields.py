"""Non-negative integers stored at a fixed number of bits each in 64-bit words: value
``i`` holds bits ``i * width`` to ``i * width + width - 1``, counted from the least
significant bit of word 0. Every value's bits are at a known place, so a range of values
decodes from the words that hold it alone (a slice of an array left on disk), and the
words are written a piece at a time (:class:`BitWriter`): the same values give the same
words whatever the pieces.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

_PIECE = 1 << 22  # values at a time: a few temporaries of 32 MB each


def bit_width(high: int) -> int:
    """Bits that hold every integer from 0 to ``high`` (at least 1)."""
    if high < 0:
        raise ValueError(f"bit fields hold non-negative integers, not {high}")
    return max(int(high).bit_length(), 1)


def word_count(n: int, width: int) -> int:
    """Words that ``n`` values of ``width`` bits fill."""
    return (n * width + 63) // 64


def _check_width(width: int) -> None:
    if not 1 <= width <= 63:  # 63: a value still fits int64
        raise ValueError(f"a bit field is 1 to 63 bits wide, not {width}")


class BitWriter:
    """Values added piece by piece, words handed back as soon as they are full."""

    def __init__(self, width: int) -> None:
        _check_width(width)
        self.width = width
        self.count = 0
        self._carry = np.uint64(0)  # the partly filled word

    def add(self, values: np.ndarray) -> Iterator[np.ndarray]:
        """The words ``values`` fill, after those of the values added before."""
        values = np.asarray(values)
        if len(values) and (values.min() < 0 or int(values.max()) >> self.width):
            raise ValueError(f"values from {int(values.min())} to {int(values.max())} do not fit {self.width} bits")
        for lo in range(0, len(values), _PIECE):
            yield self._add_piece(values[lo:lo + _PIECE].astype(np.uint64))

    def _add_piece(self, values: np.ndarray) -> np.ndarray:
        offset = (self.count * self.width) & 63  # bits already in the carried word
        bit = offset + np.arange(len(values), dtype=np.uint64) * np.uint64(self.width)
        word, shift = bit >> np.uint64(6), bit & np.uint64(63)
        end = offset + len(values) * self.width
        words = np.zeros((end + 63) // 64, dtype=np.uint64)
        if len(words):
            words[0] = self._carry
        first = np.flatnonzero(np.diff(word, prepend=np.uint64(len(words) + 1)))  # each word's first value
        words[word[first]] |= np.bitwise_or.reduceat(values << shift, first)
        # A value crossing into the next word is that word's only one from its left.
        cross = np.flatnonzero(shift + np.uint64(self.width) > np.uint64(64))
        words[word[cross] + np.uint64(1)] |= values[cross] >> (np.uint64(64) - shift[cross])
        self.count += len(values)
        if end & 63:
            self._carry = words[-1]
            return words[:-1]
        self._carry = np.uint64(0)
        return words

    def finish(self) -> np.ndarray:
        """The last word, if partly filled."""
        return np.array([self._carry], dtype=np.uint64) if (self.count * self.width) & 63 else \
            np.zeros(0, dtype=np.uint64)


def pack_bits(values: np.ndarray, width: int) -> np.ndarray:
    """``values`` as words at ``width`` bits each."""
    writer = BitWriter(width)
    return np.concatenate([*writer.add(values), writer.finish()])


def unpack_bits(words: Any, width: int, lo: int, hi: int) -> np.ndarray:
    """Values ``lo`` to ``hi - 1`` (int64) of ``width`` bits each, read from the words
    that hold them: ``words`` an array or anything sliced as one (a stored array)."""
    _check_width(width)
    out = np.empty(max(hi - lo, 0), dtype=np.int64)
    mask = np.uint64((1 << width) - 1)
    for at in range(lo, hi, _PIECE):
        end = min(at + _PIECE, hi)
        w0 = (at * width) >> 6
        held = np.zeros(word_count(end, width) - w0 + 1, dtype=np.uint64)  # one spare: the word after the last
        got = np.asarray(words[w0:w0 + len(held) - 1], dtype=np.uint64)
        held[:len(got)] = got
        bit = np.uint64(at * width - w0 * 64) + np.arange(end - at, dtype=np.uint64) * np.uint64(width)
        word, shift = bit >> np.uint64(6), bit & np.uint64(63)
        value = held[word] >> shift
        cross = np.flatnonzero(shift + np.uint64(width) > np.uint64(64))
        value[cross] |= held[word[cross] + np.uint64(1)] << (np.uint64(64) - shift[cross])
        out[at - lo:end - lo] = (value & mask).astype(np.int64)
    return out
