"""The measure registry: each family declares once how it is computed, whether
higher is better, whether it takes alpha, which options it reads and the values its
scores can take (:class:`RangeDeclaration`, resolved for a named measure by
:func:`irmeta.measures.ranges.measure_range`). It imports no
measure; each family's module registers itself, and :mod:`irmeta.measures` imports them
all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

#: The grids a family's per-topic scores lie on: ``per_cutoff``, the multiples j/k of
#: 1/k (P@k); ``binary``, 0 or 1 (Success@k); ``reciprocal_ranks``, 0 and 1/i for
#: i = 1..k (RR@k).
GridKind = Literal["per_cutoff", "binary", "reciprocal_ranks"]


@dataclass(frozen=True)
class RangeDeclaration:
    """The values a family's per-topic scores can take: [``low``, ``high`` + ``per_alpha``
    alpha] (``high`` math.inf: unbounded above, as DCG's sums of gains; ``per_alpha``:
    the rareness forms' Rel (1 + alpha R), R <= 1, eq. 1 and 3 of Türkmen et al.), and on
    ``grid`` when given (:data:`GridKind`). Means over topics lie in the range, not on
    the grid."""

    low: float = 0.0
    high: float = 1.0
    per_alpha: float = 0.0
    grid: GridKind | None = None

    def __post_init__(self) -> None:
        if not (self.low <= self.high and self.per_alpha >= 0):  # NaN fails too
            raise ValueError(f"a measure's range needs low <= high and per_alpha >= 0, not {self}")


#: The range of most families: [0, 1].
UNIT_RANGE = RangeDeclaration()


@dataclass(frozen=True)
class MeasureDefinition:
    """A measure family: ``compute(matrix, cutoff, **options) -> (runs, topics)`` (or
    (alphas, runs, topics) when ``uses_alpha``); ``options`` names the keyword settings
    it reads (e.g. ``gains``), which :func:`evaluate` passes through when given.
    ``cutoff_is_depth``: the measure reads nothing below rank k (false for ASL_g1@n,
    whose n counts relevant documents). ``value_range``: the values its scores can take
    (every shipped family declares one; None: not declared, as a plugin may leave it)."""

    family: str
    compute: Callable[..., np.ndarray]
    description: str
    higher_is_better: bool = True
    uses_alpha: bool = False
    options: tuple[str, ...] = ()
    cutoff_is_depth: bool = True
    value_range: RangeDeclaration | None = None


MEASURES: dict[str, MeasureDefinition] = {}

#: The shipped options' checks, by option name (``p``, ``beta``, ``gains``...): each takes
#: the value as a name or a setting gives it and returns it checked, or raises a one-line
#: ValueError. The one place an option's range is known: names (``RBP(p=1)@10``), the
#: config's ``measure_options``, the API's keywords and the CLI's flags all call it.
OPTION_CHECKS: dict[str, Callable[[Any], Any]] = {}


def register(definition: MeasureDefinition) -> MeasureDefinition:
    MEASURES[definition.family] = definition
    return definition


def register_option_check(name: str, check: Callable[[Any], Any]) -> None:
    """Declare how the option ``name`` of the shipped families is checked."""
    OPTION_CHECKS[name] = check


def checked_option(name: str, value: object) -> object:
    """``value`` of the option ``name`` checked by its registered check (a plugin's
    option has none: its function checks it)."""
    check = OPTION_CHECKS.get(name)
    return value if check is None else check(value)
