"""The measure registry: each family declares once how it is computed, whether
higher is better, whether it takes alpha and which options it reads. It imports no
measure; each family's module registers itself, and :mod:`irmeta.measures` imports them
all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MeasureDefinition:
    """A measure family: ``compute(matrix, cutoff, **options) -> (runs, topics)`` (or
    (alphas, runs, topics) when ``uses_alpha``); ``options`` names the keyword settings
    it reads (e.g. ``gains``), which :func:`evaluate` passes through when given.
    ``cutoff_is_depth``: the measure reads nothing below rank k (false for ASL_g1@n,
    whose n counts relevant documents)."""

    family: str
    compute: Callable[..., np.ndarray]
    description: str
    higher_is_better: bool = True
    uses_alpha: bool = False
    options: tuple[str, ...] = ()
    cutoff_is_depth: bool = True


MEASURES: dict[str, MeasureDefinition] = {}


def register(definition: MeasureDefinition) -> MeasureDefinition:
    MEASURES[definition.family] = definition
    return definition
