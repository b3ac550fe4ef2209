"""Sakai's swap-method sensitivity per measure and alpha, from sharded swap counts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from irmeta.metaeval.score_matrices import ScoreMatrix, sort_by_alpha
from irmeta.metaeval.stats.swap_trials import draw_topic_pairs, swap_counts, swap_sensitivity
from irmeta.support.progress import Progress

#: Added to ``experiments.seed``: trial t of the swap method draws the two topic sets from
#: ``default_rng([seed + SEED_OFFSET, t])``, a stream no other experiment of the same
#: seed draws from. Part of the published numbers: changing it changes every table of
#: this experiment.
SEED_OFFSET = 3

#: The columns of ``swap_sensitivity.csv``, in order (the experiment manifest names this
#: constant; the documentation's table reference is written from it): the settings, then
#: what :func:`~irmeta.metaeval.stats.swap_trials.swap_sensitivity` returns.
COLUMNS = ("measure", "alpha", "sampling", "topic_set_size", "trials", "bin_width", "confidence", "seed",
           "required_difference", "sensitivity", "comparisons")


def swap_shard(matrices: Sequence[ScoreMatrix], *, trials: Iterable[int], seed: int, sampling: str = "bootstrap",
               topic_set_size: int | None = None, bin_width: float = 0.01) -> pd.DataFrame:
    """Per-bin comparisons and swaps of the given trials, for every matrix (shards add up)."""
    trials = list(trials)
    frames = []
    progress = Progress(len(matrices), f"swap method, {len(trials)} trials")
    sets = draw_topic_pairs(len(matrices[0].topics), trials, seed, sampling, topic_set_size) if matrices else None
    for m in matrices:
        bins, comparisons, swaps = swap_counts(m.values, trials, seed, sampling=sampling,
                                                  topic_set_size=topic_set_size, bin_width=bin_width,
                                                  higher_is_better=m.higher_is_better, topic_sets=sets)
        frames.append(pd.DataFrame({"measure": m.measure, "alpha": m.alpha or "", "bin": bins,
                                    "comparisons": comparisons, "swaps": swaps}))
        progress.advance()
    return pd.concat(frames, ignore_index=True)


def swap_table(shards: Sequence[pd.DataFrame], *, trials: int, sampling: str, topic_set_size: int,
               bin_width: float, confidence: float, seed: int) -> pd.DataFrame:
    """Sakai's Table 1 per measure and alpha: the absolute difference required for a
    ``confidence`` sure comparison and the share of comparisons discriminated."""
    counts = pd.concat(list(shards), ignore_index=True)
    summed = counts.groupby(["measure", "alpha", "bin"], sort=False)[["comparisons", "swaps"]].sum().reset_index()
    rows = []
    for (measure, alpha), block in summed.groupby(["measure", "alpha"], sort=False):
        result = swap_sensitivity(block["bin"].to_numpy(), block["comparisons"].to_numpy(),
                                     block["swaps"].to_numpy(), bin_width=bin_width, confidence=confidence)
        rows.append({"measure": measure, "alpha": alpha, "sampling": sampling, "topic_set_size": topic_set_size,
                     "trials": trials, "bin_width": bin_width, "confidence": confidence, "seed": seed, **result})
    return sort_by_alpha(pd.DataFrame(rows, columns=list(COLUMNS)), ["measure", "alpha"])
