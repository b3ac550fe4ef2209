"""The measure registry: each family declares once how it is computed, whether
higher is better, whether it takes alpha and which options it reads. It imports no
measure; each family's module registers itself, and :mod:`irmeta.measures` imports them
all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
