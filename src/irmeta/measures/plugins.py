"""Bring your own measure: one call registers a function as a measure family, and from
then on it is scored, named and meta-evaluated like the families irmeta ships.

Two kinds of function:

- vectorised, as this package's families are written: ``f(matrix, cutoff, **options)``
  returns the (runs, topics) scores of a :class:`~irmeta.campaign.postings.RelevanceMatrix`
  cut at ``cutoff`` (None: the whole lists);
- per ranked list, for prototyping (``per_list=True``): ``f(grades, n_relevant,
  **options)`` returns one run's score on one topic, from ``grades``, the qrels grade of
  each document of its list in rank order, top k (0 where the qrels do not judge a
  document), and ``n_relevant``, the topic's relevant documents in the qrels (grade at or
  above the collection's threshold). irmeta calls it once per run and topic: a Python
  loop, fine for trying an idea, not for campaigns of 10^8 lines.

Keyword parameters with a default (after those two) are the measure's options; they are
written in its name (``MyMeasure(beta=2)@10``) as for the shipped families, the default
left out. The pipeline's config lists modules that register measures
(``measure_plugins``), which every job imports before it reads a measure name.

A measure computed by another tool, whose scores only a scores file gives
(:mod:`irmeta.measures.score_files`), is registered without a function:
:func:`register_imported_measure` makes its name and direction known, and scoring it from
runs is refused.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.names import Measure
from irmeta.measures.registry import MEASURES, MeasureDefinition, register

_FAMILY = re.compile(r"[A-Za-z][A-Za-z0-9_+]*")


@dataclass(frozen=True)
class ImportedMeasure(MeasureDefinition):
    """A family irmeta has no implementation of: its scores come from a scores file."""

    imported: bool = True


def register_measure(name: str, function: Callable[..., Any], *, higher_is_better: bool = True,
                     per_list: bool = False, description: str = "", replace: bool = False) -> MeasureDefinition:
    """Register ``function`` as the measure family ``name`` (scored as ``name@k`` or
    ``name``); ``higher_is_better`` is its direction, which every experiment reads."""
    _check_name(name, replace)
    params = list(inspect.signature(function).parameters.values())
    if len(params) < 2 or any(p.default is not p.empty for p in params[:2]):
        first = "grades, n_relevant" if per_list else "matrix, cutoff"
        raise ValueError(f"measure {name}: the function takes ({first}, **options), options with defaults")
    options = [p for p in params[2:] if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if any(p.default is p.empty for p in options):
        raise ValueError(f"measure {name}: every option needs a default "
                         f"({', '.join(p.name for p in options if p.default is p.empty)} has none)")
    compute = _per_list(function) if per_list else function
    if per_list:  # the names' grammar reads option defaults from this signature
        compute.__signature__ = inspect.Signature(  # type: ignore[union-attr]
            [inspect.Parameter("matrix", inspect.Parameter.POSITIONAL_OR_KEYWORD),
             inspect.Parameter("cutoff", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in options])
    return register(MeasureDefinition(name, compute, description or (function.__doc__ or name).strip().split("\n")[0],
                                      higher_is_better=higher_is_better, options=tuple(p.name for p in options)))


def register_imported_measure(name: str, *, higher_is_better: bool = True, description: str = "",
                              replace: bool = False) -> MeasureDefinition:
    """Register ``name`` as a measure whose scores only a scores file gives (computed by
    another tool): its name parses (``name`` or ``name@k``, so config's measures and score
    tables may hold it), ``higher_is_better`` is its direction for every experiment, and
    scoring it from runs is refused with a one-line ValueError."""
    _check_name(name, replace)

    def compute(matrix: RelevanceMatrix, cutoff: int | None, **options: object) -> np.ndarray:
        raise ValueError(_no_implementation(str(Measure(name, cutoff))))

    return register(ImportedMeasure(name, compute, description or f"{name}, scores from a scores file",
                                    higher_is_better=higher_is_better))


def refuse_imported(measures: Iterable[Measure]) -> None:
    """Refuse, before any run is read, to score from runs a measure that only a scores file gives."""
    for m in measures:
        if getattr(m.definition, "imported", False):
            raise ValueError(_no_implementation(str(m)))


def _no_implementation(name: str) -> str:
    return f"measure {name} has no implementation in irmeta: its scores come from a scores file"


def _check_name(name: str, replace: bool) -> None:
    if not _FAMILY.fullmatch(name):
        raise ValueError(f"measure name {name!r}: letters, digits, _ and +, starting with a letter")
    if name in MEASURES and not replace:
        raise ValueError(f"measure {name} is already registered (replace=True replaces it)")


def _per_list(function: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """``function`` of one ranked list, applied to every run and topic of a matrix."""

    def compute(matrix: RelevanceMatrix, cutoff: int | None, **options: object) -> np.ndarray:
        judged = matrix.judged if cutoff is None else matrix.judged.top(cutoff)
        grades = matrix.grade_of(judged).astype(np.float64)
        lengths = matrix.length.reshape(-1) if cutoff is None else np.minimum(matrix.length.reshape(-1), cutoff)
        n_relevant = matrix.n_relevant
        out = np.empty(len(lengths))
        for cell, length in enumerate(lengths):
            ranked = np.zeros(int(length))
            a, b = judged.start[cell], judged.start[cell + 1]
            ranked[judged.rank[a:b] - 1] = grades[a:b]
            out[cell] = float(function(ranked, int(n_relevant[cell % matrix.n_topics]), **options))
        return matrix.grid(out)

    return compute


def load_measure_plugins(modules: Sequence[str], base: str | Path = ".") -> None:
    """Import each module that registers measures: a dotted name (importable, or a module
    under ``base``) or a ``.py`` file (relative to ``base``). Importing one twice is a no-op."""
    for entry in modules:
        if entry.endswith(".py"):
            path = (Path(base) / entry).resolve()
            if not path.is_file():
                raise FileNotFoundError(f"measure_plugins: {entry}: no such file")
            name = "irmeta_plugin_" + re.sub(r"\W", "_", str(path))
            if name in sys.modules:
                continue
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            if str(Path(base).resolve()) not in sys.path:
                sys.path.insert(0, str(Path(base).resolve()))
            try:
                importlib.import_module(entry)
            except ImportError as exc:
                raise ValueError(f"measure_plugins: cannot import {entry} ({exc})") from None
