"""What every randomised statistic shares: trial t's own random stream, run pairs in
one order, and blocks of a fixed memory budget, so a job's memory does not grow with
the number of trials and results do not depend on the block size or the sharding.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

Trials = range | Sequence[int] | np.ndarray


# Bytes one vectorised temporary may take: trials (and pairs) are processed in blocks
# of this size, so a job's memory does not grow with the number of trials, runs or
# topics beyond the (runs, trials) means it keeps (8 MB for 1,000 x 1,000).
BLOCK_BYTES = 64 * 2**20


def block_size(per_item_bytes: int, budget: int | None = None) -> int:
    """How many items of ``per_item_bytes`` fit a vectorised block (at least one);
    ``budget`` defaults to :data:`BLOCK_BYTES`, read at each call so it can be set."""
    return max(1, (BLOCK_BYTES if budget is None else budget) // max(1, per_item_bytes))


def as_score_matrix(scores: np.ndarray, min_topics: int = 1) -> np.ndarray:
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"scores must be (runs, topics), not of shape {m.shape}")
    if m.shape[1] < min_topics:
        raise ValueError(f"need at least {min_topics} topics, got {m.shape[1]}")
    if not np.isfinite(m).all():
        raise ValueError("scores must be finite")
    return m


def trial_indices(trials: Trials) -> np.ndarray:
    t = np.asarray(trials, dtype=np.int64).reshape(-1)
    if (t < 0).any():
        raise ValueError("trial indices must be non-negative")
    return t


def trial_rng(seed: int, trial: int) -> np.random.Generator:
    """The generator of one trial: independent of the shard the trial runs in."""
    return np.random.default_rng([int(seed), int(trial)])


@functools.lru_cache(maxsize=8)
def run_pairs(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(a, b)`` of every run pair, ``a < b``, in ``np.triu_indices`` order;
    read-only, made once per number of runs (an experiment asks thousands of times)."""
    a, b = np.triu_indices(n_runs, 1)
    a.flags.writeable = b.flags.writeable = False
    return a, b
