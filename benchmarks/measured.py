"""The one file of measured figures (``benchmarks/measured.yaml``) that the README's "How
fast" table and the documentation's pages state: read by the docs hook and the tests,
written by a benchmark when it measures a figure again (:func:`record`)."""

from __future__ import annotations

from pathlib import Path

import yaml

PATH = Path(__file__).resolve().parent / "measured.yaml"
#: The columns of the README's "How fast" table, each a figure of every entry it shows.
FIGURES = ("what", "wall", "cpu", "largest_job", "target")


def load(path: Path = PATH) -> dict[str, dict[str, str]]:
    """Every entry: key -> its figures (text, as the pages write them)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def readme_entries(entries: dict[str, dict[str, str]]) -> list[dict[str, str]]:
    """The entries the README's "How fast" table shows (``readme: true``), in file order;
    the others are stated by the documentation's pages alone."""
    return [entry for entry in entries.values() if entry.get("readme") is True]


def readme_row(entry: dict[str, str]) -> str:
    """The README's "How fast" table row of one entry."""
    return "|" + "|".join(f" {entry[f]} " if entry[f] else " " for f in FIGURES) + "|"


def record(key: str, path: Path = PATH, **figures: str) -> None:
    """Write ``figures`` of the entry ``key`` (kept: its other figures and the file's
    header comment), so that the pages state what was measured last."""
    text = path.read_text(encoding="utf-8")
    header = "".join(line for line in text.splitlines(True) if line.startswith("#"))
    entries = load(path)
    entries.setdefault(key, {}).update(figures)
    body = yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=120)
    path.write_text(header + body, encoding="utf-8")
