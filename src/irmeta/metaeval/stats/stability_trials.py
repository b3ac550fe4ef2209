"""Buckley and Voorhees's stability (SIGIR 2000): topic subsets drawn per trial, the
runs' means over them, and per pair the wins and ties under an absolute or relative
fuzziness.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from irmeta.metaeval.stats.blocks import Trials, as_score_matrix, block_size, trial_indices, trial_rng

FuzzinessMode = Literal["absolute", "relative"]


def topics_per_trial_default(n_topics: int) -> int:
    """round(n_topics / 2) with Python's round, half to even, as the authors' scripts:
    45 -> 22, 47 -> 24, 50 -> 25."""
    return round(n_topics / 2)


def draw_topic_subsets(n_topics: int, topics_per_trial: int, trials: Trials, seed: int) -> np.ndarray:
    """(trials, topics_per_trial) topic indices: trial t's are
    ``default_rng([seed, t]).choice(n_topics, topics_per_trial, replace=False)``."""
    if not 1 <= topics_per_trial <= n_topics:
        raise ValueError(f"topics_per_trial must be in [1, {n_topics}], got {topics_per_trial}")
    trial_ids = trial_indices(trials)
    out = np.empty((len(trial_ids), topics_per_trial), dtype=np.intp)
    for row, trial in zip(out, trial_ids):
        row[:] = trial_rng(seed, trial).choice(n_topics, size=topics_per_trial, replace=False)
    return out


def stability_counts(
    scores: np.ndarray,
    topics_per_trial: int,
    trials: Trials,
    seed: int,
    fuzziness: float = 0.05,
    mode: FuzzinessMode = "absolute",
    higher_is_better: bool = True,
    *,
    tolerance: float = 1e-12,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wins of a, wins of b and ties per pair (pair order), summed over the trials.

    Buckley and Voorhees (SIGIR 2000), as docs/PROTOCOL.md (Stability) states the paper's use: each trial
    draws ``topics_per_trial`` topics without replacement (:func:`draw_topic_subsets`),
    each run's exact mean over them, and for each pair the better run wins when the
    difference exceeds the fuzziness, otherwise the trial is a tie for the pair:

    * ``absolute``: |diff| > fuzziness, in the metric's own units (the paper's 0.05);
    * ``relative``: |diff| > fuzziness * max(|mean_a|, |mean_b|) (B&V 2000's 5%).

    ``tolerance`` is added to the threshold: on a score grid (P@k: multiples of 1/k) a
    difference can equal the fuzziness in real arithmetic, and float rounding would
    then decide win or tie at random (0.8 - 0.75 > 0.05 but 0.35 - 0.3 < 0.05 in
    float64). The default 1e-12 is far above rounding noise (~1e-16) and far below any
    real difference of means; it reads "exceeds" as in real arithmetic. Pass 0 for a
    plain float comparison.
    """
    m = as_score_matrix(scores)
    means = trial_means(m, draw_topic_subsets(m.shape[1], topics_per_trial, trials, seed))
    return stability_counts_of_means(means, fuzziness, mode, higher_is_better, tolerance=tolerance)


def trial_means(scores: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """(runs, trials): each run's mean over each trial's topics (``subsets`` (trials, c)
    topic indices, distinct within a trial), as one product of the scores and the
    trials' topic indicator, in blocks of :data:`BLOCK_BYTES`. Stability compares these
    means against thresholds padded by a tolerance, so their rounding decides nothing."""
    m = as_score_matrix(scores)
    means = np.zeros((len(m), len(subsets)))
    batch = block_size(m.shape[1] * 8)
    for start in range(0, len(subsets), batch):
        block = subsets[start : start + batch]
        indicator = np.zeros((len(block), m.shape[1]))
        np.put_along_axis(indicator, block, 1.0, axis=1)
        means[:, start : start + len(block)] = (m @ indicator.T) / subsets.shape[1]
    return means


def stability_counts_of_means(means: np.ndarray, fuzziness: float = 0.05, mode: FuzzinessMode = "absolute",
                              higher_is_better: bool = True, *,
                              tolerance: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`stability_counts` from the (runs, trials) means of :func:`trial_means`."""
    if mode not in ("absolute", "relative"):
        raise ValueError(f"mode must be 'absolute' or 'relative', not {mode!r}")
    n_runs, n_trials = means.shape
    if not higher_is_better:
        means = -means  # exact; relative thresholds use |mean|, unchanged
    n_pairs = n_runs * (n_runs - 1) // 2
    wins_a = np.empty(n_pairs, dtype=np.int64)
    wins_b = np.empty(n_pairs, dtype=np.int64)
    magnitude = np.abs(means) if mode == "relative" else None
    at = 0
    for a in range(n_runs - 1):  # pairs (a, a+1..): a contiguous run of run_pairs' order, no gather
        diff = means[a] - means[a + 1:]  # (runs after a, trials)
        if mode == "absolute":
            threshold = fuzziness + tolerance
        else:
            threshold = fuzziness * np.maximum(magnitude[a], magnitude[a + 1:]) + tolerance
        wins_a[at:at + len(diff)] = np.count_nonzero(diff > threshold, axis=1)
        wins_b[at:at + len(diff)] = np.count_nonzero(diff < -threshold, axis=1)
        at += len(diff)
    return wins_a, wins_b, n_trials - wins_a - wins_b


def stability(wins_a: np.ndarray, wins_b: np.ndarray, ties: np.ndarray) -> float:
    """sum over pairs of max(wins_a, wins_b) / sum over pairs of (wins_a + wins_b + ties):
    the mean majority fraction (docs/PROTOCOL.md, Stability). Ties count against it. NaN with no trials."""
    wins_a, wins_b, ties = (np.asarray(v, dtype=np.int64) for v in (wins_a, wins_b, ties))
    total = int(wins_a.sum() + wins_b.sum() + ties.sum())
    if total == 0:
        return math.nan
    return int(np.maximum(wins_a, wins_b).sum()) / total
