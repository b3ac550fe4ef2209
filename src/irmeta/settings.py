"""What the Python API's settings may be: the one place :mod:`irmeta.api` (``evaluate``,
``score`` and the meta-evaluation functions) checks them, before any file is read.

Every name and value is refused with one line naming it and its valid range: an unknown
name as Python refuses an unknown keyword (a ``TypeError``, with the closest known name),
a value of the wrong type as a ``TypeError``, a value out of range as a ``ValueError``.
The ranges are those ``irmeta score``'s options and the workflow's config schema
(``irmeta/pipeline/schemas/config.schema.yaml``) already enforce, so the API, the CLI and the
pipeline accept the same values.

A measure option (``gains``, ``beta``, ``asl_unretrieved``, or one a plugin measure
declares) is known when one of the measures asked for declares it
(:class:`~irmeta.measures.registry.MeasureDefinition`'s ``options``); given at its default
it is harmless (``irmeta score`` passes ``--beta``'s default whatever the measures), any
other value for measures that do not read it is refused: it would change nothing.
"""

from __future__ import annotations

import difflib
import inspect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from irmeta.campaign.qrels_formats import QRELS_FORMATS
from irmeta.campaign.runs import SCORE_PRECISIONS
from irmeta.measures.alpha import Alpha, alpha_label, parse_alpha
from irmeta.measures.names import MAX_CUTOFF, Measure, as_measure
from irmeta.measures.registry import MEASURES, checked_option

INT64_MAX = 2**63 - 1
DEFAULT_ALPHAS: tuple[Alpha, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
#: score()'s own settings and their defaults (irmeta score's defaults).
SCORE_DEFAULTS: dict[str, Any] = {"depth": None, "threshold": 1, "average": "all", "alphas": DEFAULT_ALPHAS,
                                  "rarity_depth": None, "duplicates": "error", "run_name": "file",
                                  "score_precision": "double", "qrels_format": "trec"}


@dataclass(frozen=True)
class ScoreSettings:
    """:func:`score_settings`' result: the measures parsed, every setting checked."""

    measures: list[Measure]
    depth: int | None
    threshold: int
    average: str
    alphas: list[Alpha]
    rarity_depth: int | None
    duplicates: str
    run_name: str
    options: dict[str, Any]
    score_precision: str = "double"
    qrels_format: str = "trec"


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` on one line, cut short: an error message stays one line."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def unknown_name(caller: str, name: Any, known: Iterable[str], what: str = "setting") -> TypeError:
    """The error for a keyword ``caller`` does not take, with the closest known name."""
    known = sorted(set(known))
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
    return TypeError(f"{caller}() got an unknown {what} {shown(name)}{hint}")


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def optional_integer(name: str, value: Any, low: int, high: int | None = None, *, none: str) -> int | None:
    """``value`` as an int in [low, high], or None, which means ``none``."""
    return None if value is None else integer(name, value, low, high, none=none)


def integer(name: str, value: Any, low: int, high: int | None = None, *, none: str | None = None) -> int:
    """``value`` as an int in [low, high] (``none``: what None would mean, for the message)."""
    where = f">= {low}" if high is None else f"between {low} and {high}"
    also = f", or None ({none})" if none is not None else ""
    if not _is_integer(value):
        raise TypeError(f"{name} must be an integer {where}{also}, not {type(value).__name__} {shown(value)}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer {where}{also}, not {value}")
    return int(value)


def number(name: str, value: Any, low: float, high: float = math.inf, *, open_low: bool = False,
           open_high: bool = False) -> float:
    """``value`` as a finite float in the interval (open or closed at either end)."""
    left = f"{'>' if open_low else '>='} {low:g}"
    where = left if high == math.inf else f"in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    if not _is_number(value):
        raise TypeError(f"{name} must be a number {where}, not {type(value).__name__} {shown(value)}")
    x = float(value)
    inside = (x > low if open_low else x >= low) and (x < high if open_high else x <= high)
    if not (inside and math.isfinite(x)):
        raise ValueError(f"{name} must be a finite number {where}, not {shown(value)}")
    return x


def choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value``, one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, not {shown(value)}")
    return value


def flag(name: str, value: Any) -> bool:
    """``value``, True or False (not any truthy object: ``per_topic="no"`` is refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {shown(value)}")
    return bool(value)


def items(name: str, value: Any, *, empty: bool = False) -> list:
    """``value``'s items, a list, tuple or other non-text iterable; non-empty unless ``empty``."""
    if isinstance(value, str):  # a lone name: refused rather than read letter by letter
        raise TypeError(f"{name} must be a list, not the str {shown(value)} (write [{shown(value)}])")
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list, not {type(value).__name__} {shown(value)}")
    out = list(value)
    if not out and not empty:
        raise ValueError(f"{name} is empty: give at least one")
    return out


def first_repeat(values: Sequence[Any], canonical: Any = None) -> tuple[int, int] | None:
    """(i, j), j < i, of the first value equal to an earlier one once both are spelled by
    ``canonical`` (``P_10`` and ``P@10`` are one measure, 0.5 and ``"0.50"`` one alpha),
    None when every value is distinct. The one test of every list-valued setting."""
    seen: dict[Any, int] = {}
    for i, value in enumerate(values):
        key = value if canonical is None else canonical(value)
        if key in seen:
            return i, seen[key]
        seen[key] = i
    return None


def refuse_repeats(name: str, values: Sequence[Any], canonical: Any = None, *, config: bool = False) -> None:
    """A ValueError naming the first value given twice, and its earlier spelling where it
    differs: ``measures[1]: 'P_10' is P@10, given already as measures[0] ('P@10')``
    (``config``: as a config's keys are named, ``key 'measures.1': ... as measures.0``)."""
    repeat = first_repeat(values, canonical)
    if repeat is None:
        return
    i, j = repeat
    spelled = canonical(values[i]) if canonical is not None else values[i]
    other = str(values[j]) != str(values[i])  # two spellings of one value: both named, as given
    same = f" is {spelled}," if other or str(spelled) != str(values[i]) else ""
    at, before = (f"key '{name}.{i}'", f"{name}.{j}") if config else (f"{name}[{i}]", f"{name}[{j}]")
    raise ValueError(f"{at}: {shown(values[i])}{same} given already as {before}"
                     + (f" ({shown(values[j])})" if other else ""))


def measure_names(name: str, value: Any, *, empty: bool = False) -> list[Measure]:
    """Measure names (or :class:`Measure`), parsed, none twice however spelled; a lone
    name is refused, not split into letters."""
    listed = items(name, value, empty=empty)
    for i, m in enumerate(listed):
        if not isinstance(m, (str, Measure)):
            raise TypeError(f"{name}[{i}] must be a measure name such as 'P@10', not {type(m).__name__} {shown(m)}")
    parsed = [as_measure(m) for m in listed]  # each name read once, here where it enters
    typed = [str(m) if isinstance(m, Measure) else m for m in listed]
    canonical = dict(zip(typed, map(str, parsed)))
    refuse_repeats(name, typed, canonical.__getitem__)
    return parsed


def alpha_list(name: str, value: Any) -> list[Alpha]:
    """Rarity weights, each a number >= 0 or ``1/R``, none twice (config's ``alphas``)."""
    seen: dict[str, Alpha] = {}
    for a in items(name, value):
        try:
            parsed = parse_alpha(a)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        label = alpha_label(parsed)
        if label in seen:
            raise ValueError(f"{name}: alpha {label} is given twice")
        seen[label] = parsed
    return list(seen.values())


def _option_default(name: str, value: Any) -> bool:
    """Whether ``value`` is every declaring family's own default of the option ``name``."""
    if not isinstance(value, (str, int, float, type(None))):
        return False
    for definition in MEASURES.values():
        declared = inspect.signature(definition.compute).parameters.get(name)
        if name in definition.options and declared is not None and not (
                value == declared.default and type(value) is not bool):
            return False
    return True


def _option_value(name: str, value: Any) -> Any:
    """The value of a shipped measure option, checked by the option's own check (the
    measure registry's: the same that reads it in a name, a config or a flag)."""
    return checked_option(name, value)


def score_settings(caller: str, measures: Any, given: Mapping[str, Any], own: Iterable[str] = ()) -> ScoreSettings:
    """Every keyword of ``score``/``evaluate`` checked (``given``: those passed; the
    others take :data:`SCORE_DEFAULTS`) and the measures parsed; ``own``: the caller's
    own keywords, listed among the known ones when a name is unknown."""
    parsed = measure_names("measures", measures)
    read = {o for m in parsed for o in m.definition.options}
    options = {}
    for name, value in sorted(given.items()):  # by name: the same first refusal however they were passed
        if name in SCORE_DEFAULTS:
            continue
        if name in read:
            options[name] = _option_value(name, value)
            continue
        readers = sorted(f for f, d in MEASURES.items() if name in d.options)
        if not readers:
            known = [*SCORE_DEFAULTS, *(o for d in MEASURES.values() for o in d.options)]
            raise unknown_name(caller, name, known + list(own) + (["per_topic"] if caller == "evaluate" else []))
        if not _option_default(name, value) and f"{name}s" in SCORE_DEFAULTS:
            raise unknown_name(caller, name, [*SCORE_DEFAULTS, *own])  # alpha for alphas, not alpha_nDCG's alpha
        if not _option_default(name, value):
            raise ValueError(f"{name} is read by none of the measures asked for "
                             f"({', '.join(map(str, parsed))}); {', '.join(readers)} read it")
    s = dict(SCORE_DEFAULTS, **{k: v for k, v in given.items() if k in SCORE_DEFAULTS})
    return ScoreSettings(
        measures=parsed,
        depth=optional_integer("depth", s["depth"], 1, MAX_CUTOFF, none="no cut, trec_eval's default"),
        threshold=integer("threshold", s["threshold"], 0, INT64_MAX),
        average=choice("average", s["average"], ("all", "returned", "geometric")),
        alphas=alpha_list("alphas", s["alphas"]),
        rarity_depth=optional_integer("rarity_depth", s["rarity_depth"], 1, MAX_CUTOFF, none="each measure's cutoff"),
        duplicates=choice("duplicates", s["duplicates"], ("error", "first")),
        run_name=choice("run_name", s["run_name"], ("file", "tag")),
        options=options,
        score_precision=choice("score_precision", s["score_precision"], SCORE_PRECISIONS),
        qrels_format=choice("qrels_format", s["qrels_format"], QRELS_FORMATS),
    )


# ------------------------------------------------ the meta-evaluation's parameters
#
# Ranges of the config schema's `experiments` (irmeta/pipeline/schemas/config.schema.yaml).

#: The swap method counts comparisons per bin of |difference| / bin_width, an array as
#: long as the largest difference over bin_width: finer bins than this would need
#: gigabytes for scores in [0, 1] (the schema's bound, > 0, lets through a memory bomb).
MIN_BIN_WIDTH = 1e-6
FUZZINESS_MODES = ("absolute", "relative")
SAMPLINGS = ("bootstrap", "disjoint")


def trials_of(name: str, value: Any, *, ranges: bool = True) -> range:
    """How many trials (an integer >= 1), or, when ``ranges``, which (a non-empty range
    of trial numbers >= 0, as the pipeline's shards take them)."""
    if ranges and isinstance(value, range):
        if len(value) == 0 or min(value) < 0:
            raise ValueError(f"{name} must be a non-empty range of trial numbers >= 0, not {value!r}")
        return value
    also = " or a range of trial numbers" if ranges else ""
    if not _is_integer(value):
        raise TypeError(f"{name} must be an integer >= 1{also}, not {type(value).__name__} {shown(value)}")
    return range(integer(name, value, 1))


def levels_of(name: str, value: Any) -> list[float]:
    """Significance levels, each in (0, 1), none twice."""
    levels = [number(f"{name}[{i}]", x, 0.0, 1.0, open_low=True, open_high=True)
              for i, x in enumerate(items(name, value))]
    refuse_repeats(name, levels)
    return levels


def fuzziness_of(name: str, value: Any) -> list[dict]:
    """Stability's fuzziness settings: ``{"mode": "absolute" or "relative", "value": >= 0}`` each."""
    out = []
    for i, setting in enumerate(items(name, value)):
        if not isinstance(setting, Mapping) or set(setting) != {"mode", "value"}:
            raise ValueError(f"{name}[{i}] must be {{'mode': 'absolute' or 'relative', 'value': a number >= 0}}, "
                             f"not {shown(setting)}")
        out.append({"mode": choice(f"{name}[{i}]['mode']", setting["mode"], FUZZINESS_MODES),
                    "value": number(f"{name}[{i}]['value']", setting["value"], 0.0)})
    refuse_repeats(name, out, lambda f: (f["mode"], f["value"]))
    return out


def method_list(name: str, value: Any) -> list[str]:
    """Discriminative-power methods: registered tests (:mod:`irmeta.metaeval.stats.registry`,
    a plugin's too), none twice."""
    from irmeta.metaeval.stats.registry import TESTS, unknown_test

    out = items(name, value)
    for i, method in enumerate(out):
        if not isinstance(method, str) or method not in TESTS:
            raise ValueError(f"{name}[{i}]: {unknown_test(method)}")
    refuse_repeats(name, out)
    return out


def correction_list(name: str, value: Any) -> list[str]:
    """Corrections of the paired tests: ``none`` or the registry's, none twice."""
    from irmeta.metaeval.stats.registry import correction_names

    out = [choice(f"{name}[{i}]", c, correction_names(none=True)) for i, c in enumerate(items(name, value))]
    refuse_repeats(name, out)
    return out


_EXPERIMENT = {
    "permutations": lambda n, v: integer(n, v, 1),
    "seed": lambda n, v: integer(n, v, 0),
    "levels": levels_of,
    "confidence": lambda n, v: number(n, v, 0.0, 1.0, open_low=True, open_high=True),
    "topics_per_trial": lambda n, v: optional_integer(n, v, 1, none="round(topics / 2), as the paper"),
    "topic_set_size": lambda n, v: optional_integer(n, v, 1, none="the sampling's default"),
    "fuzziness": fuzziness_of,
    "sampling": lambda n, v: choice(n, v, SAMPLINGS),
    "bin_width": lambda n, v: number(n, v, MIN_BIN_WIDTH),
    "methods": method_list,
    "corrections": correction_list,
    "measures": lambda n, v: None if v is None else measure_names(n, v),
    "alphas": lambda n, v: None if v is None else alpha_list(n, v),
}


def experiment_parameters(**given: Any) -> dict[str, Any]:
    """The meta-evaluation functions' parameters checked by name (``trials`` an integer
    or a range, ``trial_count`` an integer; the others as :data:`_EXPERIMENT` says)."""
    out: dict[str, Any] = {}
    for name, value in given.items():
        if name == "trials":
            out[name] = trials_of(name, value)
        elif name == "trial_count":
            out[name] = trials_of("trials", value, ranges=False)
        else:
            out[name] = _EXPERIMENT[name](name, value)
    return out
