"""Hypothesis strategies drawn from irmeta's JSON schemas: values that mostly satisfy a
schema, with hostile ones mixed in at every level (wrong types, NaN, infinity, huge
numbers, numbers written as text, tabs and newlines in text, empty lists, repeated
items, unknown keys), so a test sees both sides of every check.

hypothesis-jsonschema would draw the valid side only, and its 0.23 release fails on
the Hypothesis this project pins (``'many' object has no attribute 'more'``): this is
the subset of JSON Schema irmeta's schemas use, read directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

Strategy = st.SearchStrategy[Any]

#: Values no schema of irmeta takes as they are, at any key.
HOSTILE_SCALARS = st.sampled_from([
    math.nan, math.inf, -math.inf, 1e308, -1e308, 10**30, -1, 0, True, None, "", " ", "\t", "a\tb", "a\nb",
    "a\rb", "1e-9", "1E3", "NaN", "inf", "1/R", "0.50", "P_10", "P@10", "RBP(p=1)", [], {}, [[]], {"": 1},
])


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if kind is None:
        if "properties" in schema or "additionalProperties" in schema:
            return ["object"]
        if "items" in schema:
            return ["array"]
        if "enum" in schema or "pattern" in schema:
            return ["string"]
        return []
    return [kind] if isinstance(kind, str) else list(kind)


def _number(schema: Mapping[str, Any], integer: bool) -> Strategy:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    edges = [v for v in (low, high) if v is not None]
    if integer:
        inside = st.integers(min_value=None if low is None else math.ceil(low),
                             max_value=None if high is None else math.floor(high))
        if low is not None and high is None:
            inside = st.integers(min_value=math.ceil(low), max_value=math.ceil(low) + 50)
        near = st.sampled_from([int(e) + d for e in edges for d in (-1, 0, 1)] or [0])
    else:
        inside = st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False,
                           exclude_min="exclusiveMinimum" in schema, exclude_max="exclusiveMaximum" in schema)
        near = st.sampled_from([e + d for e in edges for d in (-1e-9, 0, 1e-9)] or [0.0])
    as_text = st.sampled_from(["1e-9", "5E-1", "1e0", "2e1", "1.5e3", "1e2"])  # YAML 1.1 reads these as text
    return _weighted([(inside, 6), (near, 2), (as_text, 1)])


def _string(schema: Mapping[str, Any]) -> Strategy:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    if "pattern" in schema:
        return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: len(s) < 40)
    return st.text(min_size=schema.get("minLength", 0), max_size=12)


def _array(schema: Mapping[str, Any], path: str, hints: Mapping[str, Strategy]) -> Strategy:
    items = schema.get("items", {})
    element = from_schema(items, f"{path}.*", hints) if isinstance(items, Mapping) else st.nothing()
    lists = st.lists(element, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 4), 4))
    repeated = element.map(lambda x: [x, x])  # uniqueItems compares spellings only
    return st.one_of(lists, lists, lists, repeated)


def _object(schema: Mapping[str, Any], path: str, hints: Mapping[str, Strategy]) -> Strategy:
    properties = schema.get("properties") or {}
    required = set(schema.get("required", []))
    fields = {key: from_schema(sub, f"{path}.{key}".lstrip("."), hints) for key, sub in properties.items()}
    extra = schema.get("additionalProperties")
    names = schema.get("propertyNames", {})
    if isinstance(extra, Mapping):  # a map: any name the schema allows
        keys = _string(names) if names else st.text(min_size=1, max_size=8)
        mapping = st.dictionaries(keys, from_schema(extra, f"{path}.*", hints), max_size=3)
    else:
        mapping = st.just({})

    @st.composite
    def build(draw: Callable[[Strategy], Any]) -> dict:
        out = dict(draw(mapping))
        for key in sorted(fields):
            if key in required or draw(st.integers(0, 2)) == 0:  # an optional key one time in three
                out[key] = draw(fields[key])
        if draw(st.integers(0, 39)) == 0:
            out[draw(st.sampled_from(["unknown", "Measures", "seed ", "P@10"]))] = 1
        return out

    return build()


def from_schema(schema: Mapping[str, Any] | bool, path: str = "", hints: Mapping[str, Strategy] | None = None
                ) -> Strategy:
    """Values for ``schema`` at ``path`` (dotted keys, ``*`` for any item or map value):
    ``hints[path]``, when given, replaces the schema's own strategy there (realistic
    measure names, plugins that are safe to import); a hostile value one time in 30."""
    hints = hints or {}
    if path in hints:
        own = hints[path]
    elif not isinstance(schema, Mapping):
        own = st.just(None)
    else:
        alternatives = [s for key in ("oneOf", "anyOf") for s in schema.get(key, [])]
        if alternatives:
            own = st.one_of([from_schema(s, path, hints) for s in alternatives])
        else:
            kinds = []
            for kind in _types(schema):
                if kind == "object":
                    kinds.append(_object(schema, path, hints))
                elif kind == "array":
                    kinds.append(_array(schema, path, hints))
                elif kind in ("integer", "number"):
                    kinds.append(_number(schema, kind == "integer"))
                elif kind == "string":
                    kinds.append(_string(schema))
                elif kind == "boolean":
                    kinds.append(st.booleans())
                elif kind == "null":
                    kinds.append(st.none())
            own = st.one_of(kinds) if kinds else st.just(None)
    if path == "":
        return own
    return _weighted([(own, 29), (HOSTILE_SCALARS, 1)])


def _weighted(choices: list[tuple[Strategy, int]]) -> Strategy:
    """One of the strategies, each drawn with its weight (shrinking towards the first)."""
    total = sum(weight for _, weight in choices)

    def pick(i: int) -> Strategy:
        for strategy, weight in choices:
            if i < weight:
                return strategy
            i -= weight
        raise AssertionError(i)

    return st.integers(0, total - 1).flatmap(pick)
