"""The measure-name grammar, the one place names are read and written.

    name   := family [ "(" param { "," param } ")" ] [ "@" k ]
    param  := key "=" value          value: a number, a word, 1/R, {grade:gain, ...} or [x, ...]

irmeta's ``P@100``, ``AP``, ``nDCG@10``; parameters in the name as ir_measures writes
them (``nDCG(gains={1:1,2:3})@10``, ``Q(beta=0.5)@100``, ``ASL(asl_unretrieved=depth)``,
``P_rareness(alpha=0.5)@100``); trec_eval's ``P_100``, ``map``, ``map_cut_100``,
``ndcg_cut_10``, ``recall_100``, ...; ir_measures' ``R@k``; Alex et al.'s ``ASL@g1-10``.
A family is read in any case, and the names trec_eval, ir_measures, ranx and PyTerrier
users type (``NDCG@10``, ``ndcg_cut.10``, ``P.10``, ranx's ``mrr``, ``hit_rate@10``,
``rbp.95``) are read as the measure that computes what that peer computes: the one table
of them is the registry's ``PEER_NAMES``, which each family declares and
:mod:`irmeta.measures.aliases` reads.

A parameter is one of the options the family declares (and ``alpha`` for the rareness
families; ``judged_only`` for every family: Sakai's condensed lists, default false).
Its default is the family's own (its function's keyword default), and a parameter equal
to it is dropped from the canonical name, so ``Q(beta=1)@100`` is ``Q@100``: names with
parameters appear only where a setting differs from the default, and then every table
says which was used.
"""

from __future__ import annotations

import inspect
import numbers
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from irmeta.campaign.rarity import check_rarity_function
from irmeta.measures.aliases import (
    PARAMETER_ALIASES,
    TREC_EVAL_GAIN_FAMILIES,
    family_of,
    peer_spelling,
    refused_reason,
    trec_eval_gain_spelling,
    trec_eval_printed,
)
from irmeta.measures.alpha import Alpha, alpha_label, parse_alpha
from irmeta.measures.registry import MEASURES, MeasureDefinition, checked_option

MAX_CUTOFF = 2**31 - 1  # ranks are int32

_NAME = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_+\-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")
# Alex et al.'s ASL@g1-n as the paper prints it (also g_1, an en dash, any case; ASL@g1 is n = 1).
_ASL_SPELLINGS = [(re.compile(r"ASL\s*@\s*g\s*_?\s*1\s*[-\u2013]\s*(\d+)", re.IGNORECASE), "ASL_g1@{}"),
                  (re.compile(r"ASL\s*@\s*g\s*_?\s*1()", re.IGNORECASE), "ASL_g1@1")]

Params = tuple[tuple[str, str], ...]

#: A parameter of every family: score Sakai's condensed lists (unjudged documents removed
#: from each list first, then the cutoff; trec_eval -J), ``AP(judged_only=true)@100``.
JUDGED_ONLY = "judged_only"
_TRUE, _FALSE = ("true", "1"), ("false", "0")


@dataclass(frozen=True)
class Measure:
    """A measure family at a cutoff, with its parameters: ``Measure("P", 100)`` is
    ``P@100``; ``params`` are (key, canonical text) pairs sorted by key, defaults left out
    (build one with :func:`parse_measure`, which checks and canonicalises them)."""

    family: str
    cutoff: int | None = None
    params: Params = ()

    def __str__(self) -> str:
        inner = f"({','.join(f'{k}={v}' for k, v in self.params)})" if self.params else ""
        return f"{self.family}{inner}" + ("" if self.cutoff is None else f"@{self.cutoff}")

    @property
    def definition(self) -> MeasureDefinition:
        return MEASURES[self.family]

    @property
    def higher_is_better(self) -> bool:
        return self.definition.higher_is_better

    @property
    def uses_alpha(self) -> bool:
        return self.definition.uses_alpha

    @property
    def _rarity_alpha(self) -> bool:
        """``alpha`` is the rarity weight (a rareness family's), not an option of the family's
        own (alpha-nDCG's redundancy, read as its other options are)."""
        definition = MEASURES.get(self.family)
        return definition is None or definition.uses_alpha

    @property
    def alpha(self) -> Alpha | None:
        """The rarity weight the name fixes (``P_rareness(alpha=0.5)@100``), else None."""
        text = dict(self.params).get("alpha")
        return None if text is None or not self._rarity_alpha else parse_alpha(text)

    def options(self) -> dict[str, object]:
        """The parameters as the family's function takes them (the rarity weight and judged_only
        aside; a true/false option as a bool)."""
        skip = ("alpha", JUDGED_ONLY) if self._rarity_alpha else (JUDGED_ONLY,)
        flags = _flag_options(self.definition)
        return {key: text == "true" if key in flags else _value(key, text)
                for key, text in self.params if key not in skip}

    @property
    def judged_only(self) -> bool:
        """Scored on condensed lists (``judged_only=true``): see :meth:`RelevanceMatrix.condensed`."""
        return dict(self.params).get(JUDGED_ONLY) == "true"

    def with_defaults(self, defaults: Mapping[str, object] | None) -> Measure:
        """The measure with settings it does not fix in its name (``gains``, ``beta``, ... as
        config's ``measure_options`` or the CLI's flags give them): the name's own win, an
        option the family does not declare is ignored, one at its default is left out (as
        :func:`parse_measure` of the name with these defaults gives, without reading it again)."""
        if not defaults:
            return self
        definition = self.definition
        own = dict(self.params)
        added = {key: _canonical(str(self), definition, key, value)
                 for key, value in defaults.items() if key in definition.options and key not in own}
        if not any(v is not None for v in added.values()):
            return self
        merged = dict(own, **{k: v for k, v in added.items() if v is not None})
        return Measure(self.family, self.cutoff, tuple(sorted(merged.items())))

    def with_alpha(self, alpha: Alpha | None) -> Measure:
        """The measure with ``alpha`` in its name (the rows of one alpha's block:
        ``P_rareness(alpha=0.5)@100``); itself when ``alpha`` is None."""
        if alpha is None:
            return self
        return Measure(self.family, self.cutoff, tuple(sorted(dict(self.params, alpha=alpha_label(alpha)).items())))

    def without_alpha(self) -> Measure:
        """The name without its rarity weight (a family's own alpha stays)."""
        if not self._rarity_alpha:
            return self
        return Measure(self.family, self.cutoff, tuple(p for p in self.params if p[0] != "alpha"))


def parse_measure(text: str, defaults: Mapping[str, object] | None = None) -> Measure:
    """``"P@100"`` -> ``Measure("P", 100)``; any spelling of the module's grammar.

    The one reading of a typed name: called where a name enters (the command line, the
    API, a config, a file read back), and every layer beneath passes the :class:`Measure`
    on (settings on a parsed one: :meth:`Measure.with_defaults`). ``defaults``: settings
    (``gains``, ``beta``, ``asl_unretrieved``, ...) for the families that declare them,
    as config's ``measure_options`` or the CLI's ``--gains`` give them; a parameter in the
    name wins over them. The result carries every setting that differs from the family's
    default, so its name says how it was computed. A :class:`Measure` is passed on
    unread (as the API's callers may give one).
    """
    if isinstance(text, Measure):  # already read where it entered
        return text.with_defaults(defaults)
    return _parse_text(text, defaults)


def as_measure(item: str | Measure) -> Measure:
    """A name where it enters (a user's string, or a :class:`Measure` they built) as a
    :class:`Measure`: a string is read once (:func:`parse_measure`), a Measure kept."""
    return item if isinstance(item, Measure) else _parse_text(item, None)


def _parse_text(text: str, defaults: Mapping[str, object] | None) -> Measure:
    """The grammar itself, on text: what :func:`parse_measure` does with a string (tests
    count its calls: a name is read once on its way through)."""
    raw = text.strip()
    raw = peer_spelling(raw) or trec_eval_gain_spelling(raw) or raw
    for pattern, spelling in _ASL_SPELLINGS:
        m = pattern.fullmatch(raw)
        if m:
            raw = spelling.format(m.group(1))
            break
    match = _NAME.match(raw)
    if not match:
        reason = refused_reason(raw)  # a peer's name irmeta computes otherwise (ranx's ndcg_burges@10-l2)
        raise ValueError(f"measure {text!r}: {reason}" if reason else
                         f"cannot read measure {text!r}; write it like P@100, AP@100 or nDCG(gains={{1:1,2:3}})@10")
    cutoff = match.group("cutoff")
    family = family_of(match.group("family"), text, cutoff)
    if cutoff is not None and int(cutoff) < 1:
        raise ValueError(f"measure {text!r}: the cutoff must be at least 1")
    if cutoff is not None and int(cutoff) > MAX_CUTOFF:
        raise ValueError(f"measure {text!r}: the cutoff must be at most {MAX_CUTOFF}")
    definition = MEASURES[family]
    given = {key: value for key, value in (defaults or {}).items() if key in definition.options}
    given.update(_peer_parameters(text, family, _read_params(text, match.group("params"))))
    params = tuple(sorted((key, _canonical(text, definition, key, value)) for key, value in given.items()))
    return Measure(family, int(cutoff) if cutoff is not None else None,
                   tuple((k, v) for k, v in params if v is not None))


def _read_params(text: str, inner: str | None) -> dict[str, str]:
    """``gains={1:1,2:3},beta=0.5`` -> {"gains": "{1:1,2:3}", "beta": "0.5"}: commas inside
    braces or brackets belong to the value."""
    if inner is None:
        return {}
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner + ","):
        depth += {"{": 1, "}": -1, "[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    out = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ValueError(f"measure {text!r}: write parameters as key=value, not {part!r}")
        if key.strip() in out:
            raise ValueError(f"measure {text!r}: parameter {key.strip()} is given twice")
        out[key.strip()] = value.strip()
    return out


def _peer_parameters(text: str, family: str, params: dict[str, str]) -> dict[str, str]:
    """Parameters a peer spells otherwise under the family's own names (NRBP's beta is its
    patience: :data:`~irmeta.measures.aliases.PARAMETER_ALIASES`); both spellings is one too many."""
    out: dict[str, str] = {}
    spelled: dict[str, str] = {}
    for key, value in params.items():
        own = PARAMETER_ALIASES.get((family, key), key)
        if own in out:
            raise ValueError(f"measure {text!r}: {spelled[own]} and {key} both give {family}'s {own}")
        out[own], spelled[own] = value, key
    return out


def _canonical(text: str, definition: MeasureDefinition, key: str, value: object) -> str | None:
    """The parameter's canonical text; None when it equals the family's default."""
    allowed = definition.options + (("alpha",) if definition.uses_alpha else ()) + (JUDGED_ONLY,)
    if key not in allowed:
        raise ValueError(f"measure {text!r}: {definition.family} takes no parameter {key!r}"
                         + (f"; it takes {', '.join(allowed)}" if allowed else ""))
    if key == "alpha" and definition.uses_alpha:
        return alpha_label(value)  # type: ignore[arg-type]
    if key == JUDGED_ONLY:
        return _judged_only(text, value)
    parsed = _value(key, value)
    if key == "rarity":  # a word, but only the rarity functions' (issue 20)
        check_rarity_function(parsed, f"measure {text!r}: {definition.family}")
    declared = inspect.signature(definition.compute).parameters.get(key)
    if declared is not None and isinstance(declared.default, (bool, np.bool_)):  # ir_measures' normalize=False
        flag = _flag(text, key, value)
        return None if flag == declared.default else ("true" if flag else "false")
    if declared is not None and parsed == declared.default:
        return None
    if declared is not None:
        _check_kind(text, key, value, parsed, declared.default)
    if not hasattr(definition, "source"):  # a shipped family (a plugin's has a source): its option's range
        try:
            checked_option(key, parsed)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"measure {text!r}: {exc}") from None
    if isinstance(parsed, dict):
        return "{" + ",".join(f"{grade}:{_number(gain)}" for grade, gain in sorted(parsed.items())) + "}"
    if isinstance(parsed, tuple):
        return "[" + ",".join(_number(x) for x in parsed) + "]"
    return _number(parsed) if isinstance(parsed, float) else str(parsed)


def _judged_only(text: str, value: object) -> str | None:
    """``judged_only``'s canonical text: ``true``, or None for the default false."""
    word = str(value).strip().lower()
    if word in _TRUE:
        return "true"
    if word in _FALSE:
        return None
    raise ValueError(f"measure {text!r}: judged_only takes true or false, not {value!r}")


def _flag_options(definition: MeasureDefinition) -> set[str]:
    """The options of a family whose default is true or false."""
    return {name for name, p in inspect.signature(definition.compute).parameters.items()
            if isinstance(p.default, (bool, np.bool_))}


def _flag(text: str, key: str, value: object) -> bool:
    """A true/false option: true or false in any case, or 1 or 0."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    word = str(value).strip().lower()
    if word in _TRUE + ("1.0",) or word in _FALSE + ("0.0",):
        return word in _TRUE + ("1.0",)
    shown = " ".join(repr(value).split())
    raise ValueError(f"measure {text!r}: option {key} takes 0 or 1, true or false, "
                     f"not {shown if len(shown) <= 40 else shown[:37] + '...'}")


def _check_kind(text: str, key: str, value: object, parsed: object, default: object) -> None:
    """A parameter is of its default's kind: a number where the default is one (a whole
    one for an int, 0 or 1 for a bool), a word or number for text, a map for a map; a
    default no name can write (a tuple, say) cannot be set in one. No default: anything."""
    if parsed is None or default is None or default is inspect.Parameter.empty:
        return
    number = isinstance(parsed, float)
    if isinstance(default, (bool, np.bool_)):
        fits, kind = number and parsed in (0.0, 1.0), "0 or 1"
    elif isinstance(default, numbers.Integral):
        fits, kind = number and float(parsed).is_integer(), "a whole number"  # type: ignore[arg-type]
    elif isinstance(default, numbers.Real):
        fits, kind = number, "a number"
    elif isinstance(default, str):
        fits, kind = isinstance(parsed, (str, float)), "a word"
    elif isinstance(default, Mapping):
        fits, kind = isinstance(parsed, dict), "a map {grade:gain,...}"
    elif isinstance(default, tuple) and all(isinstance(x, numbers.Real) for x in default):
        fits, kind = isinstance(parsed, tuple), "a list of numbers [x,y,...]"
    else:
        raise ValueError(f"measure {text!r}: option {key} cannot be set in a name "
                         f"(its default is a {type(default).__name__})")
    if not fits:
        shown = " ".join(repr(value).split())
        raise ValueError(f"measure {text!r}: option {key} takes {kind} (its default is {default!r}), "
                         f"not {shown if len(shown) <= 40 else shown[:37] + '...'}")


def _grade(key: str, grade: object) -> int:
    """A map's key as a grade: an integer, or its text (YAML keys may be either); 1.5 or
    'a' are refused rather than truncated or misread."""
    if isinstance(grade, (int, np.integer)) and not isinstance(grade, (bool, np.bool_)):
        return int(grade)
    if isinstance(grade, str) and re.fullmatch(r"\s*[+-]?\d+\s*", grade):
        return int(grade)
    raise ValueError(f"{key}: grade {grade!r} is not an integer")


def _gain(key: str, grade: object, gain: object) -> float:
    try:
        return float(gain)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{key}: the gain of grade {grade!r} is not a number: {gain!r}") from None


def _value(key: str, value: object) -> object:
    """A parameter's value from its text (or from config's YAML value): ``{1:1,2:3}`` a
    gain map, a number a float, anything else a word."""
    if isinstance(value, Mapping):
        return {_grade(key, g): _gain(key, g, v) for g, v in value.items()}
    if isinstance(value, (list, tuple)):  # a YAML list, or a list a name gave
        return tuple(_listed(key, x) for x in value)
    if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
        return None if value is None else float(value)
    text = str(value).strip()
    if text.startswith("["):
        if not text.endswith("]") or not text[1:-1].strip():
            raise ValueError(f"{key}: a list is written [x,y,...], not {text!r}")
        return tuple(_listed(key, x.strip()) for x in text[1:-1].split(","))
    if text.startswith("{"):
        if not text.endswith("}"):
            raise ValueError(f"{key}: a map is written {{grade:gain,...}}, not {text!r}")
        try:
            pairs = [(int(g), float(v)) for g, v in (item.split(":") for item in text[1:-1].split(",")
                                                     if item.strip())]
        except ValueError:
            raise ValueError(f"{key}: write grade:gain pairs with integer grades, e.g. {{1:1,2:3}}, "
                             f"not {text!r}") from None
        gains = dict(pairs)
        if len(gains) < len(pairs):  # else the last would silently win
            twice = next(g for i, (g, _) in enumerate(pairs) if g in dict(pairs[:i]))
            raise ValueError(f"{key}: grade {twice} is given twice in {text!r}")
        return gains
    try:
        return float(text)
    except ValueError:
        return text


def _listed(key: str, item: object) -> float:
    """A list's item as a number (a list holds numbers only)."""
    try:
        return float(item)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{key}: a list holds numbers, not {item!r}") from None


def _number(value: float) -> str:
    return np.format_float_positional(value, trim="-")


def parse_asl_name(text: str) -> str:
    """A name in the paper's spelling as irmeta writes it: ``ASL@g1-10`` -> ``ASL_g1@10``,
    ``ASL@g1`` -> ``ASL_g1@1``; text that is no measure name is returned stripped."""
    try:
        return str(parse_measure(text))
    except ValueError:
        return text.strip()


def measure_label(measure: str | Measure, alpha: Alpha | None = None) -> str:
    """A measure's name with its alpha in ir_measures' notation: ``P_rareness(alpha=0.5)@100``
    (a :class:`Measure`; a name a caller gives is read here)."""
    return str(as_measure(measure).with_alpha(alpha))


def column_labels(names: Iterable[str], alphas: Iterable[Alpha | None]) -> list[str]:
    """:func:`measure_label` over a table's measure and alpha columns (the canonical names
    irmeta wrote, an empty alpha for none), each distinct name read back once, here."""
    names = [str(name) for name in names]
    read = {name: parse_measure(name) for name in dict.fromkeys(names)}
    return [measure_label(read[name], alpha or None) for name, alpha in zip(names, alphas)]


def depth_read(measures: Iterable[str | Measure], rarity_depth: int | None = None) -> int | None:
    """How deep the runs must be read for the measures: the deepest cutoff (and rarity
    depth); None (everything) when a measure reads the whole run. Reading no deeper
    changes no score and keeps less."""
    depths = []
    for m in map(as_measure, measures):
        if m.cutoff is None or not m.definition.cutoff_is_depth or m.judged_only:
            return None  # judged_only: the cutoff counts judged documents, found at any depth
        depths.append(m.cutoff)
    return max(depths + ([rarity_depth] if rarity_depth else []), default=None)


def trec_eval_name(measure: str | Measure) -> str:
    """trec_eval's name of a measure (``P@10`` -> ``P_10``, ``AP`` -> ``map``, ``nDCG@10``
    -> ``ndcg_cut_10``), else irmeta's own (``RR@10``, ``Q@100``, anything with parameters)."""
    m = as_measure(measure)
    spelling = None if m.params else trec_eval_printed(m.family, m.cutoff)
    if spelling is None and m.cutoff is None:
        return _trec_eval_parameter_name(m) or str(m)
    return str(m) if spelling is None else spelling.format(m.cutoff)


def _trec_eval_gain_name(m: Measure, params: dict[str, str]) -> str | None:
    """trec_eval's printed name of a measure with a grade=gain map it reads as trec_eval does
    (``nDCG(gains={1:0,2:3},gains_rest=grade)`` -> ``ndcg_1=0,2=3``), else None."""
    names = {family: name for name, (family, _) in TREC_EVAL_GAIN_FAMILIES.items()}
    fixed = {"gains_rest": "grade", **({"gain_scale": "topic_max"} if m.family == "RBP" else {})}
    if m.family not in names or "gains" not in params or any(params.get(k) != v for k, v in fixed.items()):
        return None
    if set(params) - {"gains", "p"} - set(fixed) or (m.family != "RBP" and "p" in params):
        return None
    gains = [x.partition(":")[::2] for x in params["gains"][1:-1].split(",") if x]
    if not gains or any(int(grade) < 0 or not re.fullmatch(r"\d+", gain) for grade, gain in gains):
        return None  # trec_eval's spelling is refused with these (aliases.trec_eval_gain_spelling)
    pairs = ",".join(f"{grade}={gain}" for grade, gain in gains)
    p = params.get("p", "0.8")
    return f"{names[m.family]}_{'' if m.family != 'RBP' or p == '0.9' else f'p={p},'}{pairs}"


def _trec_eval_parameter_name(m: Measure) -> str | None:
    """trec_eval's printed name of a measure whose parameter it writes in the name
    (``rbp``, ``rbp_p=0.95``, ``rbp_resid``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``),
    else None."""
    params = dict(m.params)
    if m.family == "RBP" and params.get("gain_scale") == "topic_max" and set(params) <= {"gain_scale", "p"}:
        p = params.get("p", "0.8")
        return "rbp" if p == "0.9" else f"rbp_p={p}"
    if m.family == "RBP_residual" and params.get("when") == "any_unjudged" and set(params) <= {"when", "p"}:
        p = params.get("p", "0.8")
        return "rbp_resid" if p == "0.9" else f"rbp_resid_p={p}"
    gain_name = _trec_eval_gain_name(m, params)
    if gain_name is not None:
        return gain_name
    if m.family == "IPrec_avg" and set(params) == {"levels"}:
        return f"11pt_avg_{params['levels'][1:-1]}"
    if m.family == "IPrec" and set(params) <= {"recall"}:
        return f"iprec_at_recall_{float(params.get('recall', 0.0)):3.2f}"
    if m.family in ("Rprec_mult", "Rprec_mult_avgjg") and set(params) <= {"multiple"}:
        return f"{m.family}_{float(params.get('multiple', 1.0)):3.2f}"
    return None
