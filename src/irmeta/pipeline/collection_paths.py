"""Whether a collection's files are there and can be workflow inputs: qrels, runs, run
groups, scores and other judgments, checked at parse time with one line naming the
collection file, the key and the path."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from irmeta.campaign.files import resolve_paths, run_name_from_path

if TYPE_CHECKING:
    from irmeta.pipeline.collection_config import Collection


def check_collection_paths(collection: Collection) -> list[Path]:
    """Check that the qrels, runs and run groups exist; return the run files.

    Raises FileNotFoundError with one line naming the collection file, the key and the
    path. A simulated collection has nothing to check (returns ``[]``).
    """
    if collection.simulated:
        return []
    source = collection.source or collection.name
    if collection.scores is not None and not collection.scores.exists():
        raise FileNotFoundError(f"{source}: key 'scores.path': {collection.scores}: no such file")
    for name, qrels in collection.alternative_qrels.items():
        if not qrels.exists():  # a file, or a folder of one file per assessor
            raise FileNotFoundError(f"{source}: key 'alternative_qrels.{name}': {qrels}: no such file or folder")
    if not collection.runs:  # scores only
        refuse_pattern_paths(collection, [])
        return []
    if collection.qrels is None or not collection.qrels.is_file():
        what = "is a directory, not a file" if collection.qrels and collection.qrels.is_dir() else "no such file"
        if not (collection.qrels_url and what == "no such file"):  # else the workflow downloads it
            raise FileNotFoundError(f"{source}: key 'qrels': {collection.qrels}: {what}")
    try:
        files = resolve_paths(collection.runs)
    except FileNotFoundError as exc:
        hint = f" (runs: {collection.runs_archive})" if collection.runs_archive else ""
        raise FileNotFoundError(f"{source}: key 'runs': {exc}{hint}") from None
    if len(files) < 2:
        raise ValueError(f"{source}: key 'runs': {len(files)} run file(s) found, a campaign needs at least two")
    if collection.run_groups is not None and not collection.run_groups.is_file():
        raise FileNotFoundError(f"{source}: key 'run_groups': {collection.run_groups}: no such file")
    refuse_pattern_paths(collection, files)
    return files


def refuse_pattern_paths(collection: Collection, files: Iterable[Path]) -> None:
    """Refuse input paths holding ``{`` or ``}``: Snakemake fills ``{name}`` in an input
    function's paths with the job's wildcards, so ``runs/{collection}.gz`` would become
    another file or none, and a run could be dropped without a word."""
    source = collection.source or collection.name
    named = [("qrels", collection.qrels), ("run_groups", collection.run_groups), ("scores.path", collection.scores)]
    named += [(f"alternative_qrels.{k}", v) for k, v in collection.alternative_qrels.items()]
    named += [("runs", f) for f in files]
    for key, path in named:
        if path is not None and ("{" in str(path) or "}" in str(path)):
            raise ValueError(f"{source}: key '{key}': {path}: a path with {{ or }} cannot be a workflow input "
                             f"(Snakemake reads it as a pattern); rename it (irmeta score reads it as it is)")


def missing_runs(collection: Collection, files: Iterable[Path]) -> list[str]:
    """Official runs (``expected_runs``) with no file among ``files``, by name."""
    if collection.expected_runs is None or not collection.expected_runs.is_file():
        return []
    text = collection.expected_runs.read_text().splitlines()
    sep = "\t" if text and "\t" in text[0] else ","
    expected = [line.split(sep)[0].strip() for line in text[1:] if line.strip()]
    have = {run_name_from_path(f) for f in files}
    return [name for name in expected if name not in have]
