"""What the error-rate experiment draws simulated trials from: any object with these
methods (:class:`~irmeta.metaeval.simulation.models.PooledCollections` is the one fitted
to score matrices; a test may bring its own, e.g. Gaussian).

Every random number comes from the Generator passed, so a chunk of trials drawn from the
same Generator state is the same bit for bit whatever else ran before or beside it.

Two optional capabilities the error-rate experiment uses when a source has them: a
``groups`` keyword of ``group_trials`` (a second Generator the groups of runs are drawn
from, so that every topic-set size gets the same groups and each group's vine is fitted
once), and ``common_deltas`` (True) with ``pair_trials_by_delta(n_topics, n_trials, rng,
deltas) -> (A, {delta: B})``, every delta's power trials from the same pairs and copula
draws. Without the latter, each delta's trials come from a copy of the same Generator
state (common random numbers as far as the source's draws do not depend on delta).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class TrialSource(Protocol):
    def pair_trials(self, n_topics: int, n_trials: int, rng: np.random.Generator, delta: float | None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_trials, n_topics) scores of runs A and B, each trial from a randomly drawn pair
        (collection by runs, then two runs); delta None: type I (both columns through the
        first run's margin); else B's column through the first run's margin shifted by
        +delta (power/type III)."""
        ...

    def group_trials(self, k: int, n_topics: int, n_trials: int, rng: np.random.Generator) -> np.ndarray:
        """(n_trials, n_topics, k): k runs drawn at random, simulated jointly through a vine
        fitted to their pseudo-observations, each column through the first run's margin
        (equal true means)."""
        ...
