"""Table 2 of the paper: Buckley-Voorhees stability per measure and alpha, from sharded
trial counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from irmeta.metaeval.score_matrices import ScoreMatrix, sort_by_alpha
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.stability_trials import draw_topic_subsets, stability, stability_counts_of_means, trial_means
from irmeta.support.atomic import atomic_save_npz
from irmeta.support.checksum import load_npz
from irmeta.support.progress import Progress

#: Added to ``experiments.seed``: trial t of stability draws Table 2's topic subsets from
#: ``default_rng([seed + SEED_OFFSET, t])``, a stream no other experiment of the same
#: seed draws from. Part of the published numbers: changing it changes every table of
#: this experiment.
SEED_OFFSET = 0

#: The columns of ``stability.csv``, in order (the experiment manifest names this
#: constant; the documentation's table reference is written from it).
COLUMNS = ("measure", "alpha", "fuzziness_mode", "fuzziness", "topics_per_trial", "trials", "seed", "stability")


@dataclass(frozen=True, eq=False)
class StabilityCounts:
    """Per-pair wins and ties of some stability trials: block ``i`` is ``keys[i]`` (measure,
    alpha, fuzziness mode, fuzziness), its counts (blocks, pairs) int32 arrays in
    :func:`irmeta.metaeval.stats.blocks.run_pairs` order. Shards add up (:meth:`plus`)."""

    keys: list[tuple[str, str, str, float]]
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    topics_per_trial: int

    def plus(self, other: StabilityCounts) -> StabilityCounts:
        if other.keys != self.keys or other.topics_per_trial != self.topics_per_trial:
            raise ValueError("stability shards of different measures or topic-subset sizes do not add up")
        return StabilityCounts(self.keys, self.wins_a + other.wins_a, self.wins_b + other.wins_b,
                               self.ties + other.ties, self.topics_per_trial)

    def save(self, path: str | Path, settings: dict | None = None) -> None:
        meta = {"keys": self.keys, "topics_per_trial": self.topics_per_trial, "settings": settings or {}}
        atomic_save_npz(path, {"wins_a": self.wins_a, "wins_b": self.wins_b, "ties": self.ties,
                                  "meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)})

    @classmethod
    def load(cls, path: str | Path) -> StabilityCounts:
        with load_npz(path) as stored:
            meta = json.loads(stored["meta"].tobytes())
            return cls([tuple(k) for k in meta["keys"]], stored["wins_a"], stored["wins_b"], stored["ties"],
                       int(meta["topics_per_trial"]))


def stability_shard(matrices: Sequence[ScoreMatrix], *, topics_per_trial: int, trials: Iterable[int], seed: int,
                    fuzziness: Sequence[dict]) -> StabilityCounts:
    """Per-pair wins and ties over the given trials, for every matrix and fuzziness setting:
    the topic subsets are drawn once, each matrix's trial means computed once."""
    trials = list(trials)
    keys, counts = [], []
    progress = Progress(len(matrices), f"stability, {len(trials)} trials")
    subsets = draw_topic_subsets(len(matrices[0].topics), topics_per_trial, trials, seed) if matrices else None
    for m in matrices:
        means = trial_means(m.values, subsets)
        for setting in fuzziness:
            keys.append((m.measure, m.alpha or "", setting["mode"], float(setting["value"])))
            counts.append(stability_counts_of_means(
                means, fuzziness=setting["value"], mode=setting["mode"], higher_is_better=m.higher_is_better))
        progress.advance()
    n_pairs = len(run_pairs(len(matrices[0].runs))[0]) if matrices else 0

    def stacked(i: int) -> np.ndarray:
        return np.stack([c[i] for c in counts]).astype(np.int32) if counts else np.zeros((0, n_pairs), np.int32)

    return StabilityCounts(keys, stacked(0), stacked(1), stacked(2), topics_per_trial)


def stability_table(shards: Sequence[StabilityCounts], *, topics_per_trial: int, trials: int,
                    seed: int) -> pd.DataFrame:
    """Table 2: Buckley-Voorhees stability from the summed per-pair counts of the shards."""
    total = shards[0]
    for shard in shards[1:]:
        total = total.plus(shard)
    rows = []
    for i, (measure, alpha, mode, value) in enumerate(total.keys):
        rows.append({"measure": measure, "alpha": alpha, "fuzziness_mode": mode, "fuzziness": value,
                     "topics_per_trial": topics_per_trial, "trials": trials, "seed": seed,
                     "stability": stability(total.wins_a[i], total.wins_b[i], total.ties[i])})
    return sort_by_alpha(pd.DataFrame(rows, columns=list(COLUMNS)), ["measure", "alpha", "fuzziness_mode"])
