"""MkDocs hook: the reference pages generated at build time, so they cannot drift from
the code: every measure family and its parameters (the measure registry,
``irmeta.measures.registry.MEASURES``), every configuration key with its type, default
and meaning (the JSON schemas, ``src/irmeta/pipeline/schemas/``), and every output table
with its columns (the experiment manifest, ``irmeta.pipeline.manifest.EXPERIMENTS``,
names for each table the ``*COLUMNS`` constant its writer takes the columns from).

mkdocs.yml names this file under ``hooks:``; the pages exist only in the built site
(``File.generated``), never in the repository. docs/names.md's table of peers' measure
names is written the same way, from the registry's ``PEER_NAMES``, in place of its marker
(:func:`names_page`). ``tests/unit/test_docs_reference.py``
checks them against the schemas, the registry and the manifest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

SCHEMAS = Path(__file__).resolve().parents[2] / "src" / "irmeta" / "pipeline" / "schemas"
#: What the benchmarks measured: the one source of the timings a page states.
MEASURED = Path(__file__).resolve().parents[2] / "benchmarks" / "measured.yaml"
MEASURED_FIGURE = re.compile(r"\{\{\s*measured\.(\w+)\.(\w+)\s*\}\}")

#: The tables beside the collections' (results/...) and the command line's, with where
#: their columns come from (a collection's tables name theirs in the manifest).
OTHER_TABLES = (
    ("results/{c}/tables/pairwise_tests.parquet", "every paired test on every run pair",
     "irmeta.metaeval.pairwise_tests:COLUMNS"),
    ("results/claims.csv", "each claim per collection and protocol", "irmeta.artefacts.claims:COLUMNS"),
    ("results/collection_properties.csv", "one row per collection", "irmeta.campaign.properties:PROPERTY_COLUMNS"),
    ("results/paper/published_vs_reproduced.md", "every published number beside the reproduced one",
     "irmeta.artefacts.paper.report:COLUMNS"),
    ("irmeta score --per-topic (TSV)", "per-topic scores and means", "irmeta.measures.score_files.rows:COLUMNS"),
    ("irmeta compare --format tsv", "runs compared", "irmeta.comparison:COLUMNS"),
)

PAGES = {
    "reference/measure-registry.md": "measure_page",
    "reference/configuration.md": "configuration_page",
    "reference/tables.md": "tables_page",
}


def columns_cell(where: str) -> str:
    """A table's columns as ``module:CONSTANT`` declares them, in order, each optional one
    with when it is written (:func:`irmeta.pipeline.manifest.declared_columns`)."""
    from irmeta.pipeline.manifest import declared_columns

    declared = declared_columns(where)
    shown = [f"`{c}`" + (f" (only when {declared.optional[c]})" if c in declared.optional else "")
             for c in declared.names]
    return cell(", ".join(shown) + f" (`{where}`)")


def cell(text: object) -> str:
    """Text for a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(value: object) -> str:
    return "`" + json.dumps(value, ensure_ascii=False).replace("`", "'") + "`"


# --- measures ------------------------------------------------------------------------


def option_default(compute: Any, option: str) -> object:
    """An option's default: the family function's keyword default (irmeta.measures.catalogue)."""
    from irmeta.measures.catalogue import option_default as default_of

    return default_of(compute, option)


def measure_page() -> str:
    import irmeta.measures  # noqa: F401  (registers every shipped family)
    from irmeta.measures.registry import MEASURES

    lines = ["# Measure registry (generated)", "",
             "Every measure family irmeta ships, as the measure registry "
             "(`irmeta.measures.registry.MEASURES`) declares it; written when the site is built. "
             "A parameter goes in the name, `family(key=value)@k`; one equal to its default is left "
             "out of the canonical name ([Measures](measures.md) explains the names). Every family "
             "also takes `judged_only` (default false), and the rareness families `alpha`.", "",
             "| family | definition | better | alpha | parameters (default) |", "| --- | --- | --- | --- | --- |"]
    for family in sorted(MEASURES, key=str.lower):
        d = MEASURES[family]
        options = ", ".join(f"`{o}` ({code(option_default(d.compute, o))})" for o in d.options) or "-"
        lines.append(f"| `{family}` | {cell(d.description)} | {'higher' if d.higher_is_better else 'lower'} | "
                     f"{'yes' if d.uses_alpha else 'no'} | {options} |")
    return "\n".join(lines) + "\n"


# --- configuration -------------------------------------------------------------------


def schema(name: str) -> dict[str, Any]:
    return yaml.safe_load((SCHEMAS / f"{name}.schema.yaml").read_text())


def keys(node: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(dotted key, its schema) for every named key: properties, array items (``[]``),
    a mapping's values (``.<name>``) and every alternative of oneOf/anyOf/allOf."""
    for key, sub in node.get("properties", {}).items():
        here = f"{path}.{key}" if path else key
        yield here, sub
        yield from keys(sub, here)
    if isinstance(node.get("items"), dict):
        yield from keys(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from keys(node["additionalProperties"], f"{path}.<name>")
    for combinator in ("oneOf", "anyOf", "allOf"):
        for alternative in node.get(combinator, []):
            yield from keys(alternative, path)


def type_of(node: dict[str, Any]) -> str:
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    kinds = node.get("type")
    if isinstance(kinds, list):
        return " or ".join(kinds)
    if kinds == "array" and isinstance(node.get("items"), dict):
        return f"list of {type_of(node['items'])}"
    if kinds:
        return str(kinds)
    alternatives = node.get("oneOf") or node.get("anyOf") or []
    return " or ".join(dict.fromkeys(type_of(a) for a in alternatives)) or "any"


def key_rows(name: str) -> dict[str, dict[str, Any]]:
    """Each key's schema; a key under several alternatives keeps the first description."""
    rows: dict[str, dict[str, Any]] = {}
    for key, node in keys(schema(name)):
        if key in rows:
            kinds = rows[key]["type"]
            if type_of(node) not in kinds:
                rows[key]["type"] = f"{kinds} or {type_of(node)}"
            continue
        rows[key] = {"type": type_of(node), "default": node.get("default", ""),
                     "description": node.get("description", "")}
    return rows


def configuration_page() -> str:
    lines = ["# Configuration keys (generated)", "",
             "Every key of the two configuration schemas, with its type, default and meaning, "
             "written from the schemas when the site is built (`src/irmeta/pipeline/schemas/`). "
             "Nested keys are dotted; `[]` is an item of a list, `<name>` a key you choose.", ""]
    for name, title, where in (("config", "The workflow's configuration", "`config/config.yaml`"),
                               ("collection", "A collection", "`config/collections/<name>.yaml`")):
        lines += [f"## {title}", "", f"In {where}.", "", "| key | type | default | meaning |",
                  "| --- | --- | --- | --- |"]
        for key, row in key_rows(name).items():
            default = code(row["default"]) if row["default"] != "" else ""
            lines.append(f"| `{key}` | {cell(row['type'])} | {cell(default)} | {cell(row['description'])} |")
        lines.append("")
    return "\n".join(lines)


# --- tables --------------------------------------------------------------------------


def tables_page() -> str:
    from irmeta.pipeline.manifest import EXPERIMENTS

    lines = ["# Output tables (generated)", "",
             "Every table the pipeline writes for a collection, `results/{c}/tables/<name>.csv`, "
             "as the experiment manifest (`irmeta.pipeline.manifest`) declares it, with the columns "
             "its writer takes from the constant the manifest names, in order; written when the site "
             "is built. [The pipeline's outputs](pipeline.md) says what each holds.",
             "", "| table | experiment | config section | reads | columns |", "| --- | --- | --- | --- | --- |"]
    for experiment in EXPERIMENTS:
        for table in experiment.tables:
            section = f"`experiments.{experiment.section}`" if experiment.section else "-"
            lines.append(f"| `{table.name}` | {experiment.name} | {section} | {experiment.needs} | "
                         f"{columns_cell(table.columns)} |")
    lines += ["", "## Beside the collections", "", "| output | what | columns |", "| --- | --- | --- |"]
    for output, what, where in OTHER_TABLES:
        lines.append(f"| `{output}` | {what} | {columns_cell(where)} |")
    return "\n".join(lines) + "\n"


# --- the hook ------------------------------------------------------------------------


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """docs/names.md: the peer-name table, written from the registry in place of its marker;
    every page: its measured figures (:func:`with_measured_figures`)."""
    if page.file.src_uri == "names.md":
        markdown = names_page(markdown)
    return with_measured_figures(markdown)


def names_page(markdown: str) -> str:
    """docs/names.md as built: its marker replaced by :func:`irmeta.measures.catalogue.names_table`."""
    import irmeta.measures  # noqa: F401  (registers every shipped family and its peers' names)
    from irmeta.measures.catalogue import NAMES_TABLE_MARKER, names_table

    if markdown.count(NAMES_TABLE_MARKER) != 1:
        raise ValueError(f"docs/names.md must hold the marker {NAMES_TABLE_MARKER!r} once")
    return markdown.replace(NAMES_TABLE_MARKER, names_table().rstrip("\n"))


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for uri, builder in PAGES.items():
        files.append(File.generated(config, uri, content=globals()[builder]()))
    return files


def with_measured_figures(markdown: str) -> str:
    """A page's ``{{ measured.<key>.<figure> }}`` replaced by that figure of
    ``benchmarks/measured.yaml``; one that file lacks stops the build, naming it."""
    measured = yaml.safe_load(MEASURED.read_text(encoding="utf-8"))

    def figure(match: re.Match) -> str:
        key, name = match.groups()
        try:
            return str(measured[key][name])
        except KeyError:
            raise KeyError(f"{match.group(0)}: benchmarks/measured.yaml has no {key}.{name}") from None

    return MEASURED_FIGURE.sub(figure, markdown)

