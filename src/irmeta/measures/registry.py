"""The measure registry: each family declares once how it is computed, whether
higher is better, whether it takes alpha, which options it reads and the values its
scores can take (:class:`RangeDeclaration`, resolved for a named measure by
:func:`irmeta.measures.ranges.measure_range`). It imports no
measure; each family's module registers itself, and :mod:`irmeta.measures` imports them
all.
"""

from __future__ import annotations

import re
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
    #: (option, value) settings under which the scores are unbounded above (RBP with
    #: ranx's unscaled grades, ``gain_scale=none``).
    unbounded_with: tuple[tuple[str, str], ...] = ()

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


@dataclass(frozen=True)
class PeerName:
    """A name a peer tool's users type, with irmeta's reading of it (issue 42): the one
    table the parser reads, docs/names.md and ``irmeta measures`` show, and the alias test
    checks against the peer. A family declares its peer names beside its registration
    (:func:`register_peer_names`).

    ``family``: the irmeta family the name belongs to. ``peer``: the tool whose meaning the
    name takes (``trec_eval``, ``ir_measures``, ``ranx``, ``gdeval``). ``name``: as that
    tool's users write it (``ndcg_cut.k``, ``rbp.NN``). ``reads``: irmeta's name it is read
    as, ``{0}``, ``{1}``... the pattern's groups; None: refused, ``differs`` saying why and
    what to write. ``differs``: what differs from irmeta's default reading ("" when the
    name is the same measure as the family's default). ``pattern``: a regular expression
    the whole typed name must match (case as written; ``(?i)`` for any case); None: ``name``
    is a word read in any case as the family ``reads``, its parameters and ``@k`` kept,
    with ``@k`` only (``cutoff`` True), without (False) or either (None). ``examples``:
    (as typed, as the peer is asked for it) pairs that the alias test computes with the peer.
    ``prints``: the name the peer prints for the measure (``{}``: the cutoff), which irmeta
    writes where it writes the peer's format (``irmeta score --format trec_eval``).
    ``symbols``: how docs and ``irmeta measures`` name the pattern's groups (``k``, ``x``).
    ``checked_by``: the test module that computes the examples with the peer, where the
    peer needs other qrels than TREC's (ndeval's subtopics, trec_eval's ``-R qrels_jg``) or
    flags (``-l 2``); "" for the alias test itself (tests/unit/measures/test_aliases.py).
    """

    family: str
    peer: str
    name: str
    reads: str | None
    differs: str = ""
    pattern: str | None = None
    cutoff: bool | None = None
    examples: tuple[tuple[str, str], ...] = ()
    prints: str | None = None
    symbols: tuple[str, ...] = ()
    checked_by: str = ""

    @property
    def refused(self) -> bool:
        return self.reads is None


#: Every peer name, in the order declared: a pattern's first match wins.
PEER_NAMES: list[PeerName] = []


def register_peer_names(*names: PeerName) -> None:
    """Declare peer names (beside the family's :func:`register`)."""
    PEER_NAMES.extend(names)


def same(*names: str) -> tuple[tuple[str, str], ...]:
    """Examples the peer is asked for as typed: ``same("map", "P.10")``."""
    return tuple((name, name) for name in names)


NUMBER = r"(\d*\.?\d+(?:[eE][+-]?\d+)?)"


def trec_eval_word(family: str, name: str, differs: str = "", *, request: str | None = None) -> PeerName:
    """trec_eval's name of a measure without a cutoff (``map``), read as ``family``."""
    return PeerName(family, "trec_eval", name, family, differs, cutoff=False, examples=((name, request or name),),
                    prints=name)


def trec_eval_cut(family: str, name: str, example: int = 10) -> PeerName:
    """trec_eval's name with a cutoff, as it prints it (``P_10``) and as ``-m`` takes it
    (``P.10``), in any case: ``family@k``."""
    return PeerName(family, "trec_eval", f"{name}_k, {name}.k", f"{family}@{{0}}",
                    pattern="(?i)" + re.escape(name) + r"[._](\d+)",
                    examples=((f"{name}_{example}", f"{name}.{example}"), (f"{name}.{example}", f"{name}.{example}")),
                    prints=name + "_{}", symbols=("k",))
#: A signed number as trec_eval's parameters take it (utility's coefficients).
SIGNED = r"([+-]?\d*\.?\d+(?:[eE][+-]?\d+)?)"
