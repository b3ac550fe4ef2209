"""What the paired tests share: the (runs, topics) matrix they accept, the per-topic
differences d = x_a - x_b of every run pair formed in blocks of a fixed memory budget
(:func:`.blocks.block_size`), and the rules for a zero variance.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np

from irmeta.metaeval.stats import blocks
from irmeta.metaeval.stats.blocks import as_score_matrix, block_size, run_pairs

# Bytes of a block of pairs' temporaries by default: 4 MB ran the element-wise work
# ~2x faster than 16 or 64 MB at 500 topics (arrays this size are reused, not faulted in).
PAIR_BLOCK_SHARE = 16


class PairTest(NamedTuple):
    """One test's results, one entry per pair in ``run_pairs`` order."""

    statistic: np.ndarray
    p_value: np.ndarray


class PairFault(ValueError):
    """A fault of one pair of a scores matrix (a plugin test's NaN for it): the message
    ``before`` + the pair + ``after``, the pair as the matrix's rows (``runs 2 and 3``)
    until :meth:`naming` gives the runs' names."""

    def __init__(self, before: str, a: int, b: int, after: str):
        self.before, self.a, self.b, self.after = before, a, b, after
        super().__init__(f"{before}runs {a} and {b}{after}")

    def naming(self, runs: Sequence[str]) -> ValueError:
        """The same fault with the rows' run names (``runs``: the matrix's row order)."""
        return ValueError(f"{self.before}runs {runs[self.a]!r} and {runs[self.b]!r}{self.after}")


def checked_scores(scores: np.ndarray) -> np.ndarray:
    """The (runs, topics) float64 matrix of a paired test: at least 2 runs and 2 topics."""
    m = as_score_matrix(scores, min_topics=2)
    if m.shape[0] < 2:
        raise ValueError(f"need at least 2 runs, got {m.shape[0]}")
    return m


def n_pairs(n_runs: int) -> int:
    return n_runs * (n_runs - 1) // 2


def pair_blocks(n_runs: int, per_pair_bytes: int,
                budget: int | None = None) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """``(where, a, b)`` for consecutive blocks of run pairs: ``where`` their positions in
    ``run_pairs`` order, ``a < b`` their rows; as many pairs a block as fit ``budget``
    (default: :data:`.blocks.BLOCK_BYTES` / :data:`PAIR_BLOCK_SHARE`)."""
    a, b = run_pairs(n_runs)
    size = block_size(per_pair_bytes, blocks.BLOCK_BYTES // PAIR_BLOCK_SHARE if budget is None else budget)
    for start in range(0, len(a), size):
        where = slice(start, min(start + size, len(a)))
        yield where, a[where], b[where]


def studentize(numerator: np.ndarray, denominator: np.ndarray | float) -> np.ndarray:
    """numerator / denominator with 0/0 := 0 (no difference: no evidence) and d/0 := +-inf
    (a difference with no noise at all), as :mod:`.tukey_hsd` treats them."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.divide(numerator, denominator)
    return np.where(numerator == 0, 0.0, out)


def finite_or_missing(values: np.ndarray) -> np.ndarray:
    """``values`` with +-inf as NaN, a table's missing entry: a studentised statistic or
    effect size of differences that are all the same non-zero value is d/0, undefined,
    and no table holds an infinity (its p-value, 0, says what there is to say)."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(np.isinf(values), np.nan, values)


def mean_and_variance(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row means and unbiased variances (ddof 1), with scipy's ``ttest_1samp`` operations:
    mean((d - mean)^2) * n / (n - 1)."""
    n = d.shape[1]
    mean = d.mean(axis=1)
    return mean, ((d - mean[:, None]) ** 2).mean(axis=1) * (n / (n - 1))
