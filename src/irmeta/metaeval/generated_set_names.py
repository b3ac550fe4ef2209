"""The generated judgment sets' names, one grammar (``pool_depth_<d>``,
``fraction_<f>_trial_<t>``, ``error_<q>_trial_<t>``): what the workflow lists when it is
parsed, and what :mod:`irmeta.metaeval.judgment_reduction` makes of each name. Light on
purpose: Snakemake's process imports it before any job runs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

POOL_DEPTH = "pool_depth"
FRACTION = "fraction"
ERROR = "error"
#: Appended to a trial's seed for its assessor errors' stream: never a sample's keys.
ERROR_STREAM = 1


_POOL_NAME = re.compile(r"pool_depth_(\d+)")
_FRACTION_NAME = re.compile(r"fraction_([0-9.]+)_trial_(\d+)")
_ERROR_NAME = re.compile(r"error_([0-9.]+)_trial_(\d+)")


@dataclass(frozen=True)
class GeneratedSet:
    """A generated judgment set: its ``kind`` (``pool_depth`` or ``fraction``), ``value``
    (the depth d, or the fraction f) and, for a fraction, its ``trial``."""

    kind: str
    value: int | float
    trial: int | None = None

    @property
    def name(self) -> str:
        if self.kind == POOL_DEPTH:
            return f"pool_depth_{self.value}"
        if self.kind == ERROR:
            return f"error_{fraction_label(self.value)}_trial_{self.trial}"
        return f"fraction_{fraction_label(self.value)}_trial_{self.trial}"


def fraction_label(fraction: float) -> str:
    """A fraction as set names write it: shortest decimal, ``0.1``, ``0.25``, ``1``."""
    return f"{float(fraction):.12g}"


def _check_depth(depth: object) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"pool_depths: a pool depth must be an integer >= 1, not {depth!r}")
    return int(depth)


def check_fraction(fraction: object) -> float:
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float, np.number)) or not 0 < fraction <= 1:
        raise ValueError(f"judgment_fractions: a fraction must be a number in (0, 1], not {fraction!r}")
    return float(fraction)


#: Most trials of a fraction: each is a judgment set every run is scored under, and the
#: names are listed when the workflow is parsed (10**12 of them exhausted the memory).
MAX_TRIALS = 1000


def check_error_rate(rate: object) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.number)) or not 0 < rate <= 1:
        raise ValueError(f"assessor_errors: an error rate must be a number in (0, 1], not {rate!r}")
    return float(rate)


def generated_sets(pool_depths: Iterable[int], fractions: Iterable[float], trials: int,
                   errors: Iterable[float] = ()) -> list[GeneratedSet]:
    """Every generated set, in table order: the pool depths as given, then each fraction's
    trials 0..trials-1, then each error rate's trials. A repeated depth, fraction or rate
    is an error (its rows would repeat)."""
    depths = [_check_depth(d) for d in pool_depths]
    shares = [check_fraction(f) for f in fractions]
    rates = [check_error_rate(q) for q in errors]
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or not 1 <= trials <= MAX_TRIALS:
        raise ValueError(f"trials: the trials of each fraction must be an integer in [1, {MAX_TRIALS}], not {trials!r}")
    listed: tuple[tuple[str, list[str]], ...] = (("pool_depths", [str(d) for d in depths]),
                                                  ("judgment_fractions", [fraction_label(f) for f in shares]),
                                                  ("assessor_errors", [fraction_label(q) for q in rates]))
    for key, values in listed:
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise ValueError(f"{key}: {', '.join(repeated)} listed twice")
    return ([GeneratedSet(POOL_DEPTH, d) for d in depths]
            + [GeneratedSet(FRACTION, f, t) for f in shares for t in range(int(trials))]
            + [GeneratedSet(ERROR, q, t) for q in rates for t in range(int(trials))])


def generated_set_names(pool_depths: Iterable[int], fractions: Iterable[float], trials: int,
                        errors: Iterable[float] = ()) -> list[str]:
    """The names of :func:`generated_sets`: ``pool_depth_10``, ``fraction_0.1_trial_0``,
    ``error_0.1_trial_0``, ..."""
    return [s.name for s in generated_sets(pool_depths, fractions, trials, errors)]


def parse_set_name(name: str) -> GeneratedSet:
    """The generated set a name stands for; a ValueError for any other name."""
    if match := _POOL_NAME.fullmatch(name):
        return GeneratedSet(POOL_DEPTH, _check_depth(int(match[1])))
    if match := _FRACTION_NAME.fullmatch(name):
        try:
            fraction = check_fraction(float(match[1]))
        except ValueError:
            fraction = -1.0
        if fraction > 0 and fraction_label(fraction) == match[1]:
            return GeneratedSet(FRACTION, fraction, int(match[2]))
    if match := _ERROR_NAME.fullmatch(name):
        try:
            rate = check_error_rate(float(match[1]))
        except ValueError:
            rate = -1.0
        if rate > 0 and fraction_label(rate) == match[1]:
            return GeneratedSet(ERROR, rate, int(match[2]))
    raise ValueError(f"{name!r} names no generated judgment set (pool_depth_<d>, fraction_<f>_trial_<t> "
                     f"or error_<q>_trial_<t>)")


#: The reference judgment set's name in judgment_agreement.csv (its ``reference`` column).
REFERENCE_NAME = "qrels"

# Prefixes of generated sets' names (and of the trials' means, ``fraction_<f>``, in the figures).
_GENERATED_PREFIXES = (POOL_DEPTH + "_", FRACTION + "_", ERROR + "_")


def check_alternative_name(name: str) -> None:
    """An alternative judgment set's name leaves the reference's name and the generated
    sets' prefixes free: its rows, figures and ``judgments/<name>/`` would merge with theirs."""
    if name.casefold() == REFERENCE_NAME:
        raise ValueError(f"{name!r} is the reference judgment set's name (the collection's qrels); rename it")
    if name.casefold().startswith(_GENERATED_PREFIXES):
        raise ValueError(f"{name!r} starts like a generated judgment set's name "
                         f"({', '.join(p + '...' for p in _GENERATED_PREFIXES)}); rename it")


def check_set_names(alternatives: Iterable[str], generated: Iterable[str], source: str = "alternative_qrels") -> None:
    """An alternative judgment set may not take a generated set's name: their rows would merge."""
    clash = sorted(set(alternatives) & set(generated))
    if clash:
        raise ValueError(f"{source}: {clash[0]!r} is the name of a generated judgment set; rename it")
