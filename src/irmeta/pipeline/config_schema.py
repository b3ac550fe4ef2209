"""The workflow's configuration schemas and the one validation of a config or collection
file against them: defaults filled in as ``snakemake.utils.validate`` fills them, every
fault one line naming the file and the key.

The schemas are package data (``irmeta/pipeline/schemas/*.schema.yaml``): the library
owns them, and the workflow reads them through :func:`schema_path`. Numbers written in
YAML's exponent form without a dot (``1e-9``), which YAML 1.1 loaders (PyYAML's, and so
Snakemake's) read as text, are read as numbers wherever the schema takes a number.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from irmeta.support.yaml_files import DuplicateKeyError, load_yaml

CONFIG_SCHEMA = "config.schema.yaml"


COLLECTION_SCHEMA = "collection.schema.yaml"


class ConfigError(ValueError):
    """A configuration file breaks its schema; the message is one line naming the file and key."""


def schema_path(name: str = CONFIG_SCHEMA) -> Path:
    """The file of a schema by name, as Snakemake's ``validate`` takes it."""
    path = Path(str(resources.files("irmeta.pipeline").joinpath("schemas", name)))
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such schema (irmeta is installed without its package data)")
    return path


@cache
def _load_schema(path: Path) -> dict:
    # libyaml's parser where installed: the schemas are read at every workflow start
    return load_yaml(path)


def load_schema(name: str) -> dict:
    """A schema by file name (a fresh copy)."""
    return copy.deepcopy(_load_schema(schema_path(name)))


_EXPONENT = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)[eE][-+]?\d+\s*")


def _takes(schema: dict, kind: str) -> bool:
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    alternatives = [s for key in ("anyOf", "oneOf") for s in schema.get(key, []) if isinstance(s, dict)]
    return kind in types or any(_takes(s, kind) for s in alternatives)


def read_exponent_numbers(data: Any, schema: dict) -> Any:
    """``data`` with every text in exponent form (``1e-9``, ``5E3``) read as a number where
    ``schema`` takes a number (an integer where it takes only integers and the number is
    whole); lists and maps are changed in place. YAML 1.2 reads them as numbers, PyYAML
    as text, so a config would otherwise be refused, or an alpha taken for a name."""
    if isinstance(data, str) and _EXPONENT.fullmatch(data):
        if _takes(schema, "number"):
            return float(data)
        if _takes(schema, "integer") and float(data).is_integer():
            return int(float(data))
        return data
    alternatives = [s for key in ("anyOf", "oneOf") for s in schema.get(key, []) if isinstance(s, dict)]
    if isinstance(data, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key in list(data):
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            for alt in alternatives if sub is None else []:
                sub = (alt.get("properties") or {}).get(key, sub)
            if isinstance(sub, dict):
                data[key] = read_exponent_numbers(data[key], sub)
    elif isinstance(data, list):
        items = schema.get("items")
        for alt in alternatives if not isinstance(items, dict) else []:
            items = alt.get("items", items)
        if isinstance(items, dict):
            data[:] = [read_exponent_numbers(x, items) for x in data]
    return data


def _validator_with_defaults(schema: dict):
    """A Draft 2020-12 validator that also fills in defaults, as ``snakemake.utils.validate`` does."""
    from jsonschema import Draft202012Validator, validators

    properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, props, instance, sub_schema):
        if isinstance(instance, dict):
            for key, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from properties(validator, props, instance, sub_schema)

    cls = validators.extend(Draft202012Validator, {"properties": set_defaults})
    return cls(schema)


def _forbidden(error, data: Any, schema: dict) -> str | None:
    """For a ``false`` schema's error (``properties: {scores: false}`` in an ``if``/``then``,
    which jsonschema reports with no path): ``key 'scores' is not allowed with 'simulate'``,
    the key found where the schema forbids it, the reason from the ``if``."""
    if len(error.absolute_schema_path) < 3 or list(error.absolute_schema_path)[-2:] != ["then", "properties"]:
        return None
    node: Any = schema
    for part in list(error.absolute_schema_path)[:-2]:
        node = node[part]
    parent: Any = data
    for part in error.absolute_path:
        parent = parent[part]
    if not isinstance(parent, dict):
        return None
    keys = [k for k, sub in node["then"]["properties"].items() if sub is False and k in parent
            and parent[k] == error.instance]
    if not keys:
        return None
    condition = node.get("if", {})
    alternatives = [s.get("required", []) for s in condition.get("not", {}).get("anyOf", [])]
    if condition.get("required"):
        why = f"with {' and '.join(repr(k) for k in condition['required'])}"
    elif alternatives:
        why = f"without {' or '.join(repr(k) for group in alternatives for k in group)}"
    else:
        why = "here"
    inside = ".".join(str(p) for p in error.absolute_path)
    return f"key '{inside + '.' if inside else ''}{keys[0]}' is not allowed {why}"


def _describe(error, data: Any = None, schema: dict | None = None) -> str:
    """One line for a jsonschema error: which key, what is wrong."""
    path = ".".join(str(p) for p in error.absolute_path)
    where = f"key '{path}'" if path else "top level"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted((error.schema.get("properties") or {}).keys())
        unknown = sorted(k for k in error.instance if k not in allowed)
        inside = f" in '{path}'" if path else ""
        return (f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(repr(k) for k in unknown)}{inside} "
                f"(allowed: {', '.join(allowed)})")
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        inside = f" in '{path}'" if path else ""
        return f"missing key '{missing}'{inside}"
    if error.validator is None and error.schema is False:  # jsonschema gives no path here
        forbidden = _forbidden(error, data, schema) if schema is not None else None
        return forbidden or f"the value {error.instance!r} is not allowed where it is"
    if error.validator == "oneOf" and path == "runs":
        return f"key 'runs': {error.instance!r} is neither a path nor a list of paths"
    item_of = str(error.absolute_path[0]) if len(error.absolute_path) == 2 else ""
    hint = _VALUE_HINTS.get(item_of)
    if hint and error.validator in ("oneOf", "pattern", "minimum", "maximum", "type"):
        return f"{where}: {error.instance!r} is not {hint}"
    return f"{where}: {' '.join(error.message.split())}"


# What an item of a list key must be, for errors that jsonschema words as regexes.
_VALUE_HINTS = {"alphas": "an alpha: a number >= 0, or 1/R"}


def validate(data: Any, schema_name: str, *, source: str | Path) -> dict:
    """``data`` checked against a schema, defaults filled in (a copy); ConfigError if invalid."""
    from jsonschema.exceptions import best_match

    if data is None:
        data = {}
    if isinstance(data, Mapping):
        data = dict(data)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of keys to values, found {type(data).__name__}")
    data = copy.deepcopy(data)
    schema = load_schema(schema_name)
    read_exponent_numbers(data, schema)
    validator = _validator_with_defaults(schema)
    error = best_match(validator.iter_errors(data))
    if error is not None:
        raise ConfigError(f"{source}: {_describe(error, data, schema)}")
    return data



def read_yaml(path: Path) -> Any:
    """A config or collection file's data (:func:`~irmeta.support.yaml_files.load_yaml`: a
    key named twice is refused); every fault one line naming the file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        return load_yaml(path)
    except DuplicateKeyError as exc:
        raise ConfigError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({' '.join(str(exc).split())})") from None


def check_config_files(paths: Any) -> None:
    """The workflow's config files (Snakemake's ``workflow.configfiles``), which Snakemake
    reads itself, read again as irmeta reads YAML, so that a key named twice is refused
    there too (Snakemake would keep the last value)."""
    for path in paths:
        read_yaml(Path(path))
