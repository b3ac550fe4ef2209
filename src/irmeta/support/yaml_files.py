"""The one YAML loader irmeta reads its YAML files with: the workflow's configs
(``config/*.yaml`` and every ``--configfile``, judgment configs included), the collection
files, the published figures, the package's schemas.

It is PyYAML's safe loader (libyaml's where installed), except that a key named twice in
one mapping is refused, naming the file, the line and the key: YAML 1.2 forbids it and
PyYAML silently keeps the last value, so a collection file with two ``pool_depth:`` lines
would be meta-evaluated with whichever came second. A merge key (``<<: *base``) may still
be overridden by the mapping's own keys, as YAML means it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"


class DuplicateKeyError(ValueError):
    """A YAML mapping names a key twice; the message is one line: ``file:line: ...``."""


class _UniqueKeyLoader(_SafeLoader):
    source = "<yaml>"

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                seen = first.get(key)
            except TypeError:  # an unhashable key: the safe loader refuses it itself
                continue
            line = key_node.start_mark.line + 1
            if seen is not None:
                raise DuplicateKeyError(f"{self.source}:{line}: key {key!r} is given twice in one mapping (first on "
                                        f"line {seen}); YAML would keep only the last value: keep one")
            first[key] = line
        return super().construct_mapping(node, deep)


def load_yaml_text(text: str, source: str) -> Any:
    """The data of one YAML document ``text`` (named ``source`` in errors), keys unique."""
    loader = _UniqueKeyLoader(text)
    loader.source = source
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_yaml(path: str | Path) -> Any:
    """The data of the YAML file ``path`` (UTF-8), keys unique: :class:`DuplicateKeyError`
    otherwise, and PyYAML's :class:`yaml.YAMLError` for what is no YAML."""
    return load_yaml_text(Path(path).read_text(encoding="utf-8"), str(path))
