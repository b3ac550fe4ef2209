"""The document-order reproducibility measures of :mod:`.reproducibility` (KTU and RBO,
each in the paper's and in ``repro_eval``'s form) for many topics at once: every cell of
:class:`~irmeta.campaign.degrade_cells.RankedCells` against the same cell of a copy (the
degradation experiment's rankings, equal in length cell by cell). Each value is the
per-topic function's to the last bit (the tests compare them): Kendall's tau-b from the
same integer counts (its discordant pairs counted by a bit-set sweep over the sequence,
every cell at once), RBO's sums in the same order (``math.fsum``, numpy's pairwise sum
of a row).
"""

from __future__ import annotations

import math

import numpy as np

from irmeta.campaign.degrade_cells import RankedCells
from irmeta.metaeval.reproducibility import rbo_terms

WORD = 64


def order_measures(cells: RankedCells, copy: np.ndarray, *, ktu_cutoff: int, rbo_p: float,
                   rbo_depth: int) -> dict[str, np.ndarray]:
    """Per cell: ``ktu``, ``rbo``, ``ktu_repro_eval``, ``rbo_repro_eval`` of the runs'
    ranking against the copy's (``copy``: pool places, cell by cell as ``cells.doc``)."""
    pair = _Pair.of(cells, copy)
    return {
        "ktu": pair.ktu(ktu_cutoff),
        "rbo": pair.rbo(rbo_p, rbo_depth),
        "ktu_repro_eval": pair.ktu_repro_eval(ktu_cutoff),
        "rbo_repro_eval": pair.rbo_repro_eval(rbo_p, rbo_depth),
    }


class _Pair:
    """Two rankings per cell as padded (cells, L) arrays: ``original``, ``copy`` (pool
    places, -1 past the end), ``at_copy`` (each original document's position in the
    copy, -1: absent), ``at_original`` (the converse), ``n`` the length."""

    def __init__(self, original: np.ndarray, copy: np.ndarray, at_copy: np.ndarray, at_original: np.ndarray,
                 n: np.ndarray) -> None:
        self.original, self.copy, self.at_copy, self.at_original, self.n = original, copy, at_copy, at_original, n

    @classmethod
    def of(cls, cells: RankedCells, copy: np.ndarray) -> _Pair:
        at_copy, at_original = _positions_in(cells, cells.doc, copy), _positions_in(cells, copy, cells.doc)
        width = max(int(cells.lengths.max(initial=0)), 1)

        def pad(values: np.ndarray) -> np.ndarray:
            out = np.full((cells.n_cells, width), -1, dtype=np.int64)
            out[cells.cell, cells.position] = values
            return out

        return cls(pad(cells.doc), pad(copy), pad(at_copy), pad(at_original), cells.lengths.copy())

    def ktu(self, cutoff: int) -> np.ndarray:
        """Kendall's tau-b over the union of the top-``cutoff`` documents (reproducibility.ktu):
        x the original position (n_k for the copy's documents it lacks), y the copy's
        (n_k for the original's it lacks). Sorted by (x, y) the sequence of y is: the
        original's documents in its order, then the copy's own in its order; its
        discordant pairs are those among the shared documents (swept), a shared one after
        an absent one (y = n_k, above every position), and a copy's own after any
        original document with a larger y."""
        nk = np.minimum(cutoff, self.n)[:, None]
        width = self.original.shape[1]
        column = np.arange(width)[None, :]
        kept = column < nk
        shared = kept & (self.at_copy >= 0) & (self.at_copy < nk)
        absent = kept & ~shared
        only_copy = kept & ~((self.at_original >= 0) & (self.at_original < nk))
        m_copy, m_original = only_copy.sum(axis=1), absent.sum(axis=1)
        among_shared = discordant_pairs(np.where(shared, self.at_copy, -1), width)
        after_absent = np.where(shared, np.cumsum(absent, axis=1), 0).sum(axis=1)
        shared_at_most = np.cumsum(_row_bincount(np.where(shared, self.at_copy, -1), width), axis=1)
        shared_above = shared.sum(axis=1)[:, None] - shared_at_most  # [c, v]: shared with y > v
        own_after = np.where(only_copy, m_original[:, None] + shared_above, 0).sum(axis=1)
        d = among_shared + after_absent + own_after
        size = nk[:, 0] + m_copy
        return tau_b(size * (size - 1) // 2, m_copy * (m_copy - 1) // 2, m_original * (m_original - 1) // 2, d)

    def ktu_repro_eval(self, cutoff: int) -> np.ndarray:
        """repro_eval's KTU (reproducibility.ktu_repro_eval): position by position, each
        document as its place in the sorted union; no ties, so the copy's places reduce to
        their ranks among its own."""
        nk = np.minimum(cutoff, self.n)[:, None]
        column = np.arange(self.original.shape[1])[None, :]
        kept = column < nk
        big = np.iinfo(np.int64).max
        by_original = np.argsort(np.where(kept, self.original, big), axis=1, kind="stable")
        copy_rank = np.argsort(np.argsort(np.where(kept, self.copy, big), axis=1, kind="stable"), axis=1,
                               kind="stable")
        y = np.take_along_axis(copy_rank, by_original, axis=1)
        y = np.where(np.take_along_axis(np.broadcast_to(kept, y.shape), by_original, axis=1), y, -1)
        d = discordant_pairs(y, self.original.shape[1])
        size = nk[:, 0]
        zero = np.zeros_like(size)
        return tau_b(size * (size - 1) // 2, zero, zero, d)

    def rbo(self, p: float, depth: int) -> np.ndarray:
        """Webber's RBO_ext of the rankings cut at k = min(depth, n) (reproducibility.rbo,
        stats.correlation.rbo_ext; a copy is as long as its original, so eq. 32's lists are
        even): the same terms, each row's shortfall by ``math.fsum``."""
        k = np.minimum(depth, self.n)
        width = self.original.shape[1]
        column = np.arange(width)[None, :]
        kept = column < k[:, None]
        shared = kept & (self.at_copy >= 0) & (self.at_copy < k[:, None])
        joins = np.maximum(column, self.at_copy) + 1  # 1-based depth at which both prefixes hold it
        counts = _row_bincount(np.where(shared, joins, 0), width + 1)[:, 1:]
        agreement = np.cumsum(counts, axis=1) / np.arange(1, width + 1)
        terms = (1.0 - agreement) * p ** np.arange(1, width + 1).astype(np.float64)
        shortfall = np.array([math.fsum(row[:size]) for row, size in zip(terms.tolist(), k.tolist())])
        last = agreement[np.arange(len(k)), np.maximum(k - 1, 0)]
        tail = np.array([p**size for size in k.tolist()], dtype=np.float64)
        out = 1.0 - (1.0 - p) / p * shortfall - (1.0 - last) * tail
        # as rbo_ext: rankings sharing no document 0 exactly (1 - 1 rounds to +-1e-16),
        # any other rounding past an end clipped
        out = np.where(shared.any(axis=1), np.clip(out, 0.0, 1.0), 0.0)
        return np.where(k == 0, np.nan, out)

    def rbo_repro_eval(self, p: float, depth: int) -> np.ndarray:
        """Clarke's normalised finite-depth RBO (reproducibility.rbo_repro_eval): each row
        summed by numpy as the per-topic function sums its vector, to the same depth
        (:func:`~.reproducibility.rbo_terms`), a block of rows of at most 2^20 terms at a time."""
        width = self.original.shape[1]
        depth = rbo_terms(p, depth, width)
        column = np.arange(width)[None, :]
        shared = (column < depth) & (self.at_copy >= 0) & (self.at_copy < depth)
        joins = np.where(shared, np.maximum(column, self.at_copy), depth)  # depth: beyond the sum, dropped
        weight = np.cumprod(np.concatenate([[1.0], np.full(depth - 1, float(p))]))
        ranks = np.arange(1, depth + 1)
        out = np.empty(len(self.n))
        rows = max(1, min(1024, (1 << 20) // depth))  # rows of depth floats, a block at a time
        for lo in range(0, len(out), rows):
            overlap = np.cumsum(_row_bincount(joins[lo:lo + rows], depth + 1)[:, :depth], axis=1)
            out[lo:lo + rows] = np.sum(weight * overlap / ranks, axis=1) / np.sum(weight)
        return out


def _positions_in(cells: RankedCells, doc: np.ndarray, other: np.ndarray) -> np.ndarray:
    """(documents,) each document of ``doc``'s position in the same cell of ``other``, -1
    when absent. A run's cells hold disjoint pool places (one topic each), so one array
    of places serves a whole run at a time."""
    where = np.full(len(cells.docids), -1, dtype=np.int64)
    out = np.empty(len(doc), dtype=np.int64)
    position = cells.position
    for r in range(len(cells.runs)):
        span = cells.run_cells(r)
        if not len(span):
            continue
        lo, hi = int(cells.start[span.start]), int(cells.start[span.stop])
        where[other[lo:hi]] = position[lo:hi]
        out[lo:hi] = where[doc[lo:hi]]
        where[other[lo:hi]] = -1
    return out


def _row_bincount(values: np.ndarray, width: int) -> np.ndarray:
    """(rows, width) counts of each value 0..width-1 per row (values outside dropped)."""
    rows = np.repeat(np.arange(len(values)), values.shape[1])
    flat = values.reshape(-1)
    ok = (flat >= 0) & (flat < width)
    return np.bincount(rows[ok] * width + flat[ok], minlength=len(values) * width).reshape(len(values), width)


def discordant_pairs(sequences: np.ndarray, values: int) -> np.ndarray:
    """Per row, the pairs i < j with s_i > s_j among its entries, distinct values in
    [0, ``values``) (-1: not an entry): a sweep over the columns, every row at once, keeping the values seen
    as bits and counting those above each new one."""
    words = max((values + WORD - 1) // WORD, 1)
    value = np.arange(values)
    bit = np.zeros((values + 1, words), dtype=np.uint64)  # row ``values``: the sentinel, no bit, nothing above
    bit[value, value // WORD] = np.left_shift(np.uint64(1), (value % WORD).astype(np.uint64))
    above = np.zeros((values + 1, words), dtype=np.uint64)
    greater = value[None, :] > value[:, None]  # [v, u]: u above v
    for w in range(words):
        part = greater[:, w * WORD:(w + 1) * WORD]
        weights = np.left_shift(np.uint64(1), np.arange(part.shape[1], dtype=np.uint64))
        above[:-1, w] = (part * weights).sum(axis=1, dtype=np.uint64)
    seen = np.zeros((len(sequences), words), dtype=np.uint64)
    total = np.zeros(len(sequences), dtype=np.int64)
    coded = np.where(sequences < 0, values, sequences)
    for j in range(sequences.shape[1]):
        v = coded[:, j]
        if (v == values).all():
            continue
        total += np.bitwise_count(seen & above[v]).sum(axis=1, dtype=np.int64)
        seen |= bit[v]
    return total


def tau_b(n0: np.ndarray, n1: np.ndarray, n2: np.ndarray, discordant: np.ndarray) -> np.ndarray:
    """tau_b = (n0 - n1 - n2 - 2D) / sqrt((n0 - n1)(n0 - n2)) (no pair tied in both, as in
    the document-order measures), NaN when n0 = n1 or n0 = n2 (fewer than two items, or
    a constant ranking): reproducibility.kendall_tau_b's operations on the same integers."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (n0 - n1 - n2 - 2 * discordant) / np.sqrt(((n0 - n1) * (n0 - n2)).astype(np.float64))
    return np.where((n0 == n1) | (n0 == n2), np.nan, out)
