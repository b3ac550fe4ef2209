"""The generated reference pages of the documentation site (docs/hooks/reference.py) say
what the code says: every configuration key the schemas have and no other, every measure
family of the registry, every table of the experiment manifest."""

from __future__ import annotations

import importlib.util
import re
from typing import Any

import yaml

from campaigns import REPO
from irmeta.measures.registry import MEASURES
from irmeta.pipeline.manifest import EXPERIMENTS

SCHEMAS = REPO / "src" / "irmeta" / "pipeline" / "schemas"


def _hook():
    spec = importlib.util.spec_from_file_location("docs_reference_hook", REPO / "docs" / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _schema_keys(node: Any, path: str = "") -> set[str]:
    """Every key a schema names, found by walking every node of the YAML (whatever
    keyword holds it): a 'properties' mapping names keys; 'items' is an item of a list,
    'additionalProperties' a key the user chooses; anything else keeps the path."""
    found: set[str] = set()
    if isinstance(node, list):
        for item in node:
            found |= _schema_keys(item, path)
    elif isinstance(node, dict):
        for word, sub in node.items():
            if word == "properties" and isinstance(sub, dict):
                for key, child in sub.items():
                    here = f"{path}.{key}" if path else key
                    found |= {here} | _schema_keys(child, here)
            elif word == "items":
                found |= _schema_keys(sub, f"{path}[]")
            elif word == "additionalProperties":
                found |= _schema_keys(sub, f"{path}.<name>")
            elif word not in ("default", "examples", "enum", "const"):
                found |= _schema_keys(sub, path)
    return found


def _page_keys(page: str, section: str) -> set[str]:
    body = page.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", body, re.M))


def test_the_configuration_reference_lists_every_key_of_the_schemas_and_no_other():
    page = _hook().configuration_page()
    for name, section in (("config", "The workflow's configuration"), ("collection", "A collection")):
        expected = _schema_keys(yaml.safe_load((SCHEMAS / f"{name}.schema.yaml").read_text()))
        listed = _page_keys(page, section)
        assert len(expected) > 20
        assert listed == expected, {"missing": sorted(expected - listed), "extra": sorted(listed - expected)}


def test_every_key_has_its_type_default_and_meaning_from_the_schema():
    page = _hook().configuration_page()
    config = yaml.safe_load((SCHEMAS / "config.schema.yaml").read_text())["properties"]
    row = next(line for line in page.splitlines() if line.startswith("| `missing_data` |"))
    assert "`error`" in row and "`skip`" in row and '`"error"`' in row
    assert " ".join(config["missing_data"]["description"].split())[:60] in row


def test_the_measure_registry_page_names_every_family_and_option():
    page = _hook().measure_page()
    for family, definition in MEASURES.items():
        row = next(line for line in page.splitlines() if line.startswith(f"| `{family}` |"))
        assert ("lower" if not definition.higher_is_better else "higher") in row
        for option in definition.options:
            assert f"`{option}`" in row, (family, option)
    assert "`p` (`0.8`)" in next(line for line in page.splitlines() if line.startswith("| `RBP` |"))


def test_the_tables_page_lists_every_table_of_the_manifest_with_its_declared_columns():
    """Each table's row: the columns of the constant the manifest names, in order, each
    optional one with when it is written."""
    page = _hook().tables_page()
    rows = {m.group(1): line for line in page.splitlines() if (m := re.match(r"^\| `([a-z_]+)` \|", line))}
    tables = [t for e in EXPERIMENTS for t in e.tables]
    assert len(tables) > 20
    for table in tables:
        cell = rows[table.name].rsplit(" | ", 1)[1]
        declared = table.declared_columns()
        assert re.findall(r"`([^`:]+)`", cell) == list(declared.names), table.name
        assert f"(`{table.columns}`)" in cell and cell.count("(only when ") == len(declared.optional), table.name
    assert "(only when experiments.kendall_tau.tau_ap names symmetric)" in rows["kendall_tau"]
    assert "not declared" not in page
