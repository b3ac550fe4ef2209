"""The swap method (Voorhees and Buckley 2002, as Sakai 2006 uses it): two topic sets
per trial, the share of comparisons whose verdict the second set reverses, by bins of
the difference.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from irmeta.measures.averaging import exact_mean
from irmeta.metaeval.stats.blocks import Trials, as_score_matrix, block_size, run_pairs, trial_indices, trial_rng

SwapSampling = Literal["bootstrap", "disjoint"]


def topic_set_limit(n_topics: int, sampling: SwapSampling) -> tuple[int, str]:
    """The largest c a trial's sets may have, and why: the n topics (``bootstrap``
    resamples them; more would claim more topics than were judged), or n // 2
    (``disjoint``: two sets that share no topic)."""
    if sampling == "disjoint":
        return n_topics // 2, f"half of the {n_topics} topics: two sets that share no topic"
    return n_topics, f"the {n_topics} topics"


def checked_topic_set_size(n_topics: int, sampling: SwapSampling, topic_set_size: int | None) -> int:
    """c for :func:`draw_topic_pairs`: ``topic_set_size``, or n (bootstrap) or n // 2
    (disjoint) when None; a ValueError naming the allowed range when out of it."""
    if sampling not in ("bootstrap", "disjoint"):
        raise ValueError(f"sampling must be 'bootstrap' or 'disjoint', not {sampling!r}")
    limit, why = topic_set_limit(n_topics, sampling)
    c = (n_topics if sampling == "bootstrap" else n_topics // 2) if topic_set_size is None else topic_set_size
    if not 1 <= c <= limit:
        raise ValueError(f"topic_set_size must be between 1 and {limit} ({why}) with sampling {sampling}, not {c}")
    return int(c)


def draw_topic_pairs(n_topics: int, trials: Trials, seed: int, sampling: SwapSampling = "bootstrap",
                     topic_set_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two topic sets per trial, (trials, c) each.

    ``bootstrap`` (Sakai 2006): two independent samples of c = n topics with replacement;
    ``disjoint`` (Voorhees and Buckley 2002): a random permutation's first c and next c
    topics, c <= n / 2 (default n // 2). Trial t draws from ``default_rng([seed, t])``.
    """
    trial_ids = trial_indices(trials)
    c = checked_topic_set_size(n_topics, sampling, topic_set_size)
    if sampling == "bootstrap":
        first = np.empty((len(trial_ids), c), dtype=np.intp)
        second = np.empty_like(first)
        for i, trial in enumerate(trial_ids):
            rng = trial_rng(seed, trial)
            first[i] = rng.integers(0, n_topics, c)
            second[i] = rng.integers(0, n_topics, c)
        return first, second
    if sampling == "disjoint":
        order = np.stack([trial_rng(seed, t).permutation(n_topics) for t in trial_ids]) if len(trial_ids) else \
            np.zeros((0, n_topics), dtype=np.intp)
        return order[:, :c], order[:, c:2 * c]
    raise ValueError(f"sampling must be 'bootstrap' or 'disjoint', not {sampling!r}")


def swap_counts(scores: np.ndarray, trials: Trials, seed: int, *, sampling: SwapSampling = "bootstrap",
                topic_set_size: int | None = None, bin_width: float = 0.01, higher_is_better: bool = True,
                topic_sets: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The swap method's counts (Voorhees and Buckley 2002, as Sakai 2006 uses it).

    Each trial draws two topic sets (:func:`draw_topic_pairs`); for every run pair, d1
    and d2 are the differences of the pair's means on the first and second set. The
    comparison falls in bin floor(|d1| / bin_width), or bin -1 when d1 = 0 (no verdict to
    confirm, never discriminated); it is a swap when d2 does not have d1's sign (a tie on
    the second set counts as a swap: the first set's verdict was not confirmed). Returns
    (bins, comparisons per bin, swaps per bin), the bins that occur, ascending; shards
    add up bin by bin. ``topic_sets``: the two sets already drawn by
    :func:`draw_topic_pairs` for these trials (shared by every matrix of a shard).
    """
    m = as_score_matrix(scores)
    if not higher_is_better:
        m = -m
    first, second = topic_sets or draw_topic_pairs(m.shape[1], trials, seed, sampling, topic_set_size)
    a, b = run_pairs(len(m))
    comparisons = np.zeros(0, dtype=np.int64)  # by bin + 1 (bin -1 first)
    swaps = np.zeros(0, dtype=np.int64)
    batch = block_size(len(m) * first.shape[1] * 8)
    m1 = np.empty((len(first), len(m)))
    m2 = np.empty((len(first), len(m)))
    for start in range(0, len(first), batch):  # (trials, runs) means, exact: a tie stays a tie
        block = slice(start, start + batch)
        m1[block] = exact_mean(m[:, first[block]]).T
        m2[block] = exact_mean(m[:, second[block]]).T
    for a in range(len(m) - 1):  # pairs (a, a+1..): a contiguous run of run_pairs' order, no gather
        d1 = m1[:, a:a + 1] - m1[:, a + 1:]
        d2 = m2[:, a:a + 1] - m2[:, a + 1:]
        swapped = ((d1 != 0) & (np.sign(d2) != np.sign(d1))).ravel()
        # Bins of |d1|; a hair's tolerance so a difference on a bin edge is not split by rounding.
        index = np.where(d1 == 0, 0, np.floor(np.abs(d1) / bin_width + 1e-9) + 1).astype(np.int64).ravel()
        counted = np.bincount(index)
        swapped_counts = np.bincount(index[swapped], minlength=len(counted))
        if len(counted) > len(comparisons):
            comparisons = np.pad(comparisons, (0, len(counted) - len(comparisons)))
            swaps = np.pad(swaps, (0, len(counted) - len(swaps)))
        comparisons[:len(counted)] += counted
        swaps[:len(counted)] += swapped_counts
    present = np.flatnonzero(comparisons)
    return present - 1, comparisons[present], swaps[present]


def swap_sensitivity(bins: np.ndarray, comparisons: np.ndarray, swaps: np.ndarray, *, bin_width: float = 0.01,
                     confidence: float = 0.95) -> dict:
    """The absolute difference needed for a ``confidence`` sure comparison, and the share
    of comparisons that reach it (Sakai 2006's Table 1: "absolute diff. required",
    "sensitivity").

    Required difference: the lower edge of the smallest bin from which on every bin's
    swap rate is below 1 - confidence (so a non-monotone tail cannot undercut it); NaN
    when no bin qualifies. Sensitivity: comparisons with |d1| at or above it, over all.
    """
    bins, comparisons, swaps = (np.asarray(v, dtype=np.int64) for v in (bins, comparisons, swaps))
    total = int(comparisons.sum())
    if total == 0:
        return {"required_difference": math.nan, "sensitivity": math.nan, "comparisons": 0}
    decided = bins >= 0  # bin -1: d1 = 0, counted in the total only
    order = np.argsort(bins[decided])
    bins, comparisons, swaps = bins[decided][order], comparisons[decided][order], swaps[decided][order]
    rate = np.divide(swaps, comparisons, out=np.zeros(len(bins)), where=comparisons > 0)
    too_high = rate >= 1.0 - confidence
    last_bad = np.flatnonzero(too_high)
    first_good = 0 if len(last_bad) == 0 else int(last_bad[-1]) + 1
    if first_good >= len(bins):
        return {"required_difference": math.nan, "sensitivity": 0.0, "comparisons": total}
    required = float(bins[first_good]) * bin_width
    return {"required_difference": required,
            "sensitivity": float(comparisons[first_good:].sum()) / total,
            "comparisons": total}
