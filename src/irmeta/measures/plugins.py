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

A plugin owns only names of its own: a name the grammar reads as a shipped family (``AP``,
trec_eval's ``map`` or ``P_10``, ir_measures' ``MAP`` or ``R``) is refused, and
``replace=True`` replaces a plugin's earlier registration, never a shipped family. Every
call into a plugin is guarded: a fault at import or while scoring, a result that is no
finite number per run and topic, is one line (a ValueError) naming the measure and the
plugin's file, never a traceback through irmeta nor a NaN in the scores. The shipped
families are not wrapped, so the guard costs them nothing.

A measure computed by another tool, whose scores only a scores file gives
(:mod:`irmeta.measures.score_files`), is registered without a function:
:func:`register_imported_measure` makes its name and direction known, and scoring it from
runs is refused.
"""

from __future__ import annotations

import inspect
import math
import numbers
import re
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.registry import MEASURES, MeasureDefinition, RangeDeclaration, register
from irmeta.support.plugin_import import import_plugins, loading_file, same_file

_FAMILY = re.compile(r"[A-Za-z][A-Za-z0-9_+]*")
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@dataclass(frozen=True)
class PluginMeasure(MeasureDefinition):
    """A family registered at run time, not shipped: only such a family may be replaced,
    and ``source``, the file of its function (or of the plugin that registered it, "" when
    neither is known), is what its faults name."""

    source: str = ""


@dataclass(frozen=True)
class ImportedMeasure(PluginMeasure):
    """A family irmeta has no implementation of: its scores come from a scores file."""

    imported: bool = True


ValueRange = tuple[float | None, float | None]


def register_measure(name: str, function: Callable[..., Any], *, higher_is_better: bool = True,
                     per_list: bool = False, description: str = "", replace: bool = False,
                     value_range: ValueRange | None = None) -> MeasureDefinition:
    """Register ``function`` as the measure family ``name`` (scored as ``name@k`` or
    ``name``); ``higher_is_better`` is its direction, which every experiment reads.
    ``value_range``: (low, high), the values its scores can take (None for an open end:
    ``(0, None)`` for a sum without bound); a score the function gives outside it is a
    fault, and so is one in a scores file (:mod:`irmeta.measures.score_files.bounds`).
    None: not declared, nothing checked.
    Everything is checked here, in one line each: the name (free, and no spelling of a
    shipped family), the flags, the function's parameters, its options' defaults and
    its range."""
    _check_flags(name, higher_is_better=higher_is_better, per_list=per_list, replace=replace)
    _check_name(name, replace)
    declared = _declared_range(name, value_range)
    if not isinstance(description, str):
        raise ValueError(f"measure {name}: description is text, not {_what(description)}")
    if not callable(function):
        raise ValueError(f"measure {name}: register_measure takes the function that computes it, "
                         f"not {_what(function)}")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        raise ValueError(f"measure {name}: cannot read the parameters of {_what(function)}") from None
    params = list(signature.parameters.values())
    if len(params) < 2 or any(p.default is not p.empty or p.kind not in _POSITIONAL for p in params[:2]):
        first = "grades, n_relevant" if per_list else "matrix, cutoff"
        raise ValueError(f"measure {name}: the function takes ({first}, **options), options with defaults")
    options = [p for p in params[2:] if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if any(p.default is p.empty for p in options):
        raise ValueError(f"measure {name}: every option needs a default "
                         f"({', '.join(p.name for p in options if p.default is p.empty)} has none)")
    # alpha is the rareness families' weight to the grammar; matrix and cutoff name the
    # per-list wrapper's own parameters
    reserved = [p.name for p in options if p.name == "alpha" or per_list and p.name in ("matrix", "cutoff")]
    if reserved:
        raise ValueError(f"measure {name}: an option cannot be called {reserved[0]}; give it another name")
    plugin = _Plugin(name, _source(function), {p.name: p.default for p in options}, declared)
    compute = _per_list(plugin, function) if per_list else _vectorised(plugin, function)
    if per_list:  # the names' grammar reads option defaults from this signature
        signature = inspect.Signature(
            [inspect.Parameter("matrix", inspect.Parameter.POSITIONAL_OR_KEYWORD),
             inspect.Parameter("cutoff", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in options])
    compute.__signature__ = signature  # type: ignore[attr-defined]
    text = description or (function.__doc__ or name).strip().split("\n")[0]
    return register(PluginMeasure(name, compute, text, higher_is_better=higher_is_better,
                                  options=tuple(p.name for p in options), value_range=declared,
                                  source=plugin.source))


def register_imported_measure(name: str, *, higher_is_better: bool = True, description: str = "",
                              replace: bool = False, value_range: ValueRange | None = None) -> MeasureDefinition:
    """Register ``name`` as a measure whose scores only a scores file gives (computed by
    another tool): its name parses (``name`` or ``name@k``, so config's measures and score
    tables may hold it), ``higher_is_better`` is its direction for every experiment, and
    scoring it from runs is refused with a one-line ValueError. ``value_range``: as
    :func:`register_measure`'s; a scores file's value outside it is refused."""
    _check_flags(name, higher_is_better=higher_is_better, replace=replace)
    _check_name(name, replace)
    declared = _declared_range(name, value_range)

    def compute(matrix: RelevanceMatrix, cutoff: int | None, **options: object) -> np.ndarray:
        raise ValueError(_no_implementation(str(Measure(name, cutoff))))

    return register(ImportedMeasure(name, compute, description or f"{name}, scores from a scores file",
                                    higher_is_better=higher_is_better, value_range=declared,
                                    source=loading_file()))


def _declared_range(name: str, value_range: object) -> RangeDeclaration | None:
    """A plugin's (low, high) as a :class:`RangeDeclaration` (None ends: open), checked."""
    if value_range is None:
        return None
    ends = tuple(value_range) if isinstance(value_range, (tuple, list)) else ()
    if len(ends) != 2 or not all(e is None or isinstance(e, numbers.Real) and not isinstance(e, (bool, np.bool_))
                                 and math.isfinite(e) for e in ends):
        raise ValueError(f"measure {name}: value_range is (low, high), finite numbers or None for an open end, "
                         f"not {_what(value_range)}")
    low = -math.inf if ends[0] is None else float(ends[0])
    high = math.inf if ends[1] is None else float(ends[1])
    if low > high:
        raise ValueError(f"measure {name}: value_range ({low:g}, {high:g}) has its low end above its high end")
    return RangeDeclaration(low=low, high=high)


def refuse_imported(measures: Iterable[Measure]) -> None:
    """Refuse, before any run is read, to score from runs a measure that only a scores file gives."""
    for m in measures:
        if getattr(m.definition, "imported", False):
            raise ValueError(_no_implementation(str(m)))


def _no_implementation(name: str) -> str:
    return f"measure {name} has no implementation in irmeta: its scores come from a scores file"


def _check_flags(name: object, **flags: object) -> None:
    for key, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):  # "lower" would be true: a silent wrong direction
            raise ValueError(f"measure {name}: {key} is True or False, not {_what(value)}")


def _check_name(name: str, replace: bool) -> None:
    """A name a plugin may own: well formed, not read by the grammar as a shipped family
    (MAP would register, and then score as AP), and, if taken, taken by a plugin."""
    if not isinstance(name, str) or not _FAMILY.fullmatch(name):
        raise ValueError(f"measure name {name!r}: letters, digits, _ and +, starting with a letter")
    try:
        read = parse_measure(name)
    except ValueError:  # unknown to the grammar: free
        read = None
    if read is not None and (read.family, read.cutoff) != (name, None):
        raise ValueError(f"measure name {name}: irmeta reads {name} as its own {read} (a trec_eval or "
                         f"ir_measures name), so a plugin cannot own it; choose another name")
    known = MEASURES.get(name)
    if known is None:
        return
    if not isinstance(known, PluginMeasure):
        raise ValueError(f"measure {name} is one irmeta ships: a plugin cannot register or replace it "
                         f"(replace=True replaces only a plugin's own measure); choose another name")
    if not replace:
        by = f" (by {Path(known.source).name})" if known.source else ""
        raise ValueError(f"measure {name} is already registered{by}; replace=True replaces it")


def _source(function: Callable[..., Any]) -> str:
    """The file defining ``function`` (a partial's function, a callable object's class),
    else the plugin being imported, else ""."""
    for candidate in (function, getattr(function, "func", None), type(function)):
        try:
            path = inspect.getsourcefile(candidate)  # type: ignore[arg-type]
        except TypeError:  # a built-in, or not a function at all
            continue
        if path:
            return path
    return loading_file()


# ------------------------------------------------------------------ the guard


@dataclass(frozen=True)
class _Plugin:
    """A registered function's family, file, option defaults and declared range: what
    its faults name and what its scores are held to."""

    family: str
    source: str
    defaults: Mapping[str, Any]
    declared: RangeDeclaration | None = None

    def outside(self, matrix: RelevanceMatrix, values: np.ndarray, cutoff: int | None,
                options: Mapping[str, Any]) -> ValueError | None:
        """The fault of the first score outside the declared range (a float error's few
        ulps aside), None when all are in it."""
        r = self.declared
        if r is None:
            return None
        slack = 16 * np.finfo(np.float64).eps * np.maximum(np.abs(values), 1.0)
        bad = (values < r.low - slack) | (values > r.high + slack)
        if not bad.any():
            return None
        cell = int(np.flatnonzero(bad.reshape(-1))[0])
        high = "inf" if math.isinf(r.high) else f"{r.high:g}"
        return self.fault(cutoff, options, f"returned {float(values.reshape(-1)[cell])!r} for {_cell(matrix, cell)}, "
                                           f"outside its declared value_range ({r.low:g}, {high})")

    def fault(self, cutoff: int | None, options: Mapping[str, Any], what: str, line: int | None = None) -> ValueError:
        """``measure Mine@10 (plugin mine.py:7): <what>``, one line."""
        try:  # the name as scored: the options the name set, in their canonical text
            label = str(Measure(self.family, cutoff).with_defaults(options))
        except ValueError:
            label = str(Measure(self.family, cutoff))
        where = Path(self.source).name if self.source else "not from a file"
        at = "" if line is None else f":{line}"
        return ValueError(f"measure {label} (plugin {where}{at}): {' '.join(what.split())}")

    def raised(self, exc: BaseException, cutoff: int | None, options: Mapping[str, Any], on: str = "") -> ValueError:
        """The plugin's own exception, with the line of its file it came through."""
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if same_file(f.filename, self.source)]
        return self.fault(cutoff, options, f"{type(exc).__name__}: {exc}" + (f", on {on}" if on else ""),
                          lines[-1] if lines else None)

    def typed(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Options as the function's defaults type them: a name's numbers are floats, so 3
        becomes 3 where the default is an int, 1 True where it is a bool, and a number a
        word where it is text (the grammar has checked that each fits)."""
        out = dict(options)
        for key, value in options.items():
            default = self.defaults.get(key)
            if not isinstance(value, float):
                continue
            if isinstance(default, (bool, np.bool_)):
                out[key] = bool(value)
            elif isinstance(default, numbers.Integral) and value.is_integer():
                out[key] = int(value)
            elif isinstance(default, str):
                out[key] = np.format_float_positional(value, trim="-")
        return out


def _vectorised(plugin: _Plugin, function: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """``function`` guarded: what it raises, and a result that is no finite (runs, topics)
    array of numbers, is one line naming the measure and the plugin."""

    def compute(matrix: RelevanceMatrix, cutoff: int | None, **options: Any) -> np.ndarray:
        try:
            values = function(matrix, cutoff, **plugin.typed(options))
        except MemoryError:  # the CLI says "out of memory" in one line itself
            raise
        except (Exception, SystemExit) as exc:
            raise plugin.raised(exc, cutoff, options) from exc
        expected = (matrix.n_runs, matrix.n_topics)
        if not isinstance(values, np.ndarray):
            raise plugin.fault(cutoff, options, f"returned {_what(values)} where an array of shape {expected} "
                                                f"(runs, topics) was expected")
        if values.dtype.kind not in "biuf":
            raise plugin.fault(cutoff, options, f"returned an array of {values.dtype} where numbers were expected")
        if values.shape != expected:
            raise plugin.fault(cutoff, options, f"returned shape {values.shape} where {expected} (runs, topics) "
                                                f"was expected")
        values = values.astype(np.float64)  # a copy: the plugin may keep and change its array
        bad = ~np.isfinite(values)
        if bad.any():
            run, topic = np.argwhere(bad)[0]
            more = int(bad.sum()) - 1
            raise plugin.fault(cutoff, options, f"returned {_what(values[run, topic])} for "
                                                f"{_cell(matrix, run * matrix.n_topics + topic)}"
                                                + (f" (and {more} other scores that are not finite)" if more else ""))
        outside = plugin.outside(matrix, values, cutoff, options)
        if outside is not None:
            raise outside
        return values

    return compute


def _per_list(plugin: _Plugin, function: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """``function`` of one ranked list, applied to every run and topic of a matrix, each
    call guarded: it must give a finite real number."""

    def compute(matrix: RelevanceMatrix, cutoff: int | None, **options: Any) -> np.ndarray:
        typed = plugin.typed(options)
        judged = matrix.judged if cutoff is None else matrix.judged.top(cutoff)
        grades = matrix.grade_of(judged).astype(np.float64)
        lengths = matrix.length.reshape(-1) if cutoff is None else np.minimum(matrix.length.reshape(-1), cutoff)
        n_relevant = matrix.n_relevant
        out = np.empty(len(lengths))
        for cell, length in enumerate(lengths):
            ranked = np.zeros(int(length))
            a, b = judged.start[cell], judged.start[cell + 1]
            ranked[judged.rank[a:b] - 1] = grades[a:b]
            try:
                value = function(ranked, int(n_relevant[cell % matrix.n_topics]), **typed)
            except MemoryError:
                raise
            except (Exception, SystemExit) as exc:
                raise plugin.raised(exc, cutoff, options, _cell(matrix, cell)) from exc
            number = _real(value)
            if number is None or not math.isfinite(number):
                raise plugin.fault(cutoff, options, f"returned {_what(value)} for {_cell(matrix, cell)}"
                                                    + ("" if number is not None else ", where a number was expected"))
            out[cell] = number
        outside = plugin.outside(matrix, out, cutoff, options)
        if outside is not None:
            raise outside
        return matrix.grid(out)

    return compute


def _real(value: Any) -> float | None:
    """``value`` as a float if it is one real number (a bool counts, as 0 or 1), else None."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, (numbers.Real, np.bool_)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int beyond any float
        return math.inf


def _what(value: Any) -> str:
    """A value as a fault names it: ``NaN``, ``a list``, ``a str ('abc')``."""
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if value is None or isinstance(value, (bool, numbers.Number)):
        return repr(value)
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    text = " ".join(repr(value).split())
    kind = type(value).__name__
    shown = f" ({text if len(text) <= 40 else text[:37] + '...'})" if isinstance(value, (str, bytes)) else ""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}{shown}"


def _cell(matrix: RelevanceMatrix, cell: int) -> str:
    return f"run {matrix.runs[cell // matrix.n_topics]} topic {matrix.topics[cell % matrix.n_topics]}"


# ------------------------------------------------------------------ importing plugins


def load_measure_plugins(modules: Sequence[str], base: str | Path = ".") -> None:
    """Import each module that registers measures (:mod:`irmeta.support.plugin_import`):
    a dotted name or a ``.py`` file, relative to ``base``. A plugin whose import fails is
    a one-line ValueError naming its file and line, and registers nothing. (A module
    that may register significance tests too is loaded by
    :func:`irmeta.metaeval.stats.own_tests.load_plugins`.)"""
    import_plugins(modules, base, [MEASURES], "measure_plugins")
