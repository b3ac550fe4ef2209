"""Ingestion in shards: each shard's run files judged on their own into a *part* (its
runs' lengths and judged postings), then the parts merged into the one campaign matrix.

A part holds, for its runs in file order, what :func:`irmeta.campaign.judge.judge_runs`
keeps of each run: the list lengths (runs, topics), the relevant and the other judged
postings (per-cell counts, ranks, qrels rows), the topics the qrels lack, the duplicates
dropped. Cells are run-major, so the parts laid end to end in shard order are the
postings of every run in file order: :func:`merge_parts` gives the matrix one job
reading every file gives, array for array, and ``judged.npz`` is the same bytes
whatever the number of shards. Memory: a shard holds its runs' postings; the merge
holds every run's postings once (each array is filled in place, part by part).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.judge import JudgedRun, Side, campaign_matrix
from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.campaign.qrels import Qrels
from irmeta.support.atomic import atomic_save_npz

_SIDES = ("hits", "misses")


def save_part(judged: Sequence[JudgedRun], path: str | Path, qrels: Qrels, settings: dict) -> None:
    """One shard's judged runs as an uncompressed ``.npz``, with ``settings`` (depth,
    threshold, duplicates, qrels file) that every part of a campaign must share."""
    n_topics = len(qrels.topics)
    arrays: dict[str, np.ndarray] = {
        "length": (np.stack([j.length for j in judged]) if judged else np.zeros((0, n_topics), np.int32)),
    }
    for side in _SIDES:
        parts: list[Side] = [getattr(j, side) for j in judged]
        arrays[f"{side}_counts"] = (np.concatenate([p.counts for p in parts]).astype(np.int64) if parts
                                    else np.zeros(0, np.int64))
        arrays[f"{side}_rank"] = _joined([p.rank for p in parts])
        arrays[f"{side}_judgment"] = _joined([p.judgment for p in parts])
    meta = {
        "settings": settings, "topics": qrels.topics, "qrels_rows": len(qrels.grade),
        "runs": [j.name for j in judged], "files": [j.path for j in judged],
        "ignored": {j.name: j.ignored for j in judged if j.ignored},
        "dropped": {j.name: j.dropped for j in judged if j.dropped},
        "postings": {side: len(arrays[f"{side}_rank"]) for side in _SIDES},
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_save_npz(path, arrays)


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays).astype(np.int32, copy=False) if arrays else np.zeros(0, np.int32)


def _part_meta(path: str | Path) -> dict:
    with np.load(path) as stored:
        return json.loads(stored["meta"].tobytes())


def merge_parts(paths: Sequence[str | Path], qrels: Qrels, settings: dict) -> tuple[RelevanceMatrix, dict]:
    """The parts (in shard order) as one matrix, and what reading did (files, dropped
    duplicates), as :func:`irmeta.campaign.judge.judge_runs` returns them for the same
    files read in one job. A part made with other ``settings`` or other qrels, or a run
    name two files share, is refused on one line naming the file."""
    metas = [_part_meta(p) for p in paths]
    topics = qrels.topics
    seen: dict[str, str] = {}
    for path, meta in zip(paths, metas):
        if meta["settings"] != settings or meta["topics"] != topics or meta["qrels_rows"] != len(qrels.grade):
            raise ValueError(f"{path}: this part was ingested with other settings or qrels "
                             f"({json.dumps(meta['settings'])}); ingest its shard again")
        for name, file in zip(meta["runs"], meta["files"]):
            if name in seen:  # as read_each_run words it when one job reads every file
                raise TrecFormatError(file, None, f"run name {name!r} is also the name of {seen[name]}")
            seen[name] = file
    runs = [name for meta in metas for name in meta["runs"]]
    length = np.zeros((len(runs), len(topics)), dtype=np.int32)
    sides = {side: _merged_side(paths, metas, side, len(runs) * len(topics)) for side in _SIDES}
    at = 0
    for path in paths:
        with np.load(path) as stored:
            part = stored["length"]
        length[at:at + len(part)] = part
        at += len(part)
    ignored = {name: topics_ for meta in metas for name, topics_ in meta["ignored"].items()}
    matrix = campaign_matrix(runs, length, sides["hits"], sides["misses"], ignored, qrels,
                             threshold=settings["relevance_threshold"], run_depth=settings["depth"])
    reading = {
        "depth": settings["depth"],
        "order": "score descending, then docid descending (trec_eval)",
        "duplicates": settings["duplicates"],
        "dropped_duplicates": {name: n for meta in metas for name, n in meta["dropped"].items()},
        "files": [file for meta in metas for file in meta["files"]],
        "score_precision": settings["score_precision"],
    }
    return matrix, reading


def _merged_side(paths: Sequence[str | Path], metas: list[dict], side: str, n_cells: int) -> Postings:
    """One side's postings of every part, copied into place part by part."""
    total = sum(meta["postings"][side] for meta in metas)
    counts = np.empty(n_cells, dtype=np.int64)
    rank = np.empty(total, dtype=np.int32)
    judgment = np.empty(total, dtype=np.int32)
    cell = at = 0
    for path in paths:
        with np.load(path) as stored:
            part_counts = stored[f"{side}_counts"]
            counts[cell:cell + len(part_counts)] = part_counts
            cell += len(part_counts)
            part_rank = stored[f"{side}_rank"]
            rank[at:at + len(part_rank)] = part_rank
            judgment[at:at + len(part_rank)] = stored[f"{side}_judgment"]
            at += len(part_rank)
    return Postings(offsets_from_counts(counts), rank, judgment)
