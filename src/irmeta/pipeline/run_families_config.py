"""A collection's ``run_families`` checked before any job: the file reads
(:func:`irmeta.campaign.run_families.read_run_families`: the header ``run<TAB>family``, no
run twice) and names exactly the collection's runs, each refusal one line naming the
collection's YAML, the key and the families file's line or run.

The collection's run names are known before any job when they come from the run files'
names (``run_name: file``), from their first line's tag (``run_name: tag``, one line read
per file) or from the simulated campaign's design (:func:`irmeta.simulate.simulated_run_names`).
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import TYPE_CHECKING

from irmeta.campaign.files import resolve_paths, run_name_from_path
from irmeta.campaign.run_families import read_run_families
from irmeta.campaign.runs import check_same_runs
from irmeta.pipeline.config_schema import ConfigError

if TYPE_CHECKING:  # collection_config calls this module: no import back at run time
    from irmeta.pipeline.collection_config import Collection


def _tag(path: Path) -> str:
    """The run tag (sixth column) of a run file's first non-blank line."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace") as lines:
        for line in lines:
            fields = line.split()
            if fields:
                return fields[5] if len(fields) >= 6 else ""
    return ""


def collection_run_names(collection: Collection) -> list[str]:
    """The names the collection's runs will have, in reading order."""
    if collection.simulated:
        from irmeta.simulate import simulated_run_names

        options = collection.simulate or {}
        return simulated_run_names(int(options.get("seed", 42)), int(options.get("n_runs", 24)))
    files = resolve_paths(collection.runs)
    if collection.run_name == "tag":
        return [_tag(path) for path in files]
    return [run_name_from_path(path) for path in files]


def check_run_families(collection: Collection) -> None:
    """The collection's families file, if any, reads and names exactly its runs (module
    docstring); a ConfigError of one line otherwise."""
    if collection.run_families is None:
        return
    source = collection.source or collection.name
    path = collection.run_families
    if not path.is_file():
        raise ConfigError(f"{source}: key 'run_families': {path}: no such file")
    try:
        families = read_run_families(path)
        check_same_runs(families, collection_run_names(collection), path, "family")
    except ValueError as exc:
        raise ConfigError(f"{source}: key 'run_families': {exc}") from None
