"""Ingestion in shards: each shard's run files judged on their own into a *part* (its
runs' lengths and judged postings, encoded as ``judged.npz`` stores them), then the parts
merged into the one campaign store.

A part holds, for its runs in file order, what :func:`irmeta.campaign.judge.judge_runs`
keeps of each run: the list lengths (runs, topics), the relevant and the other judged
postings in the format-2 encoding of :mod:`irmeta.campaign.store` (cells are run-major,
so a part's cells are a contiguous range of the campaign's), the topics the qrels lack,
the duplicates dropped; and, when the degraded reproductions need them, the runs'
rankings (:mod:`irmeta.campaign.ranked_store`, merged into ``ranked.npz``). The parts
laid end to end in shard order are the postings of every run in file order:
:func:`merge_parts` gives what one job reading every file gives, and ``judged.npz`` is
the same bytes whatever the number of shards. Memory: a shard holds its runs' postings;
the merge copies one array of one part at a time into place, never every posting (the
10^9-line simulated campaign merged in 9 s of CPU and 1.0 GB).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.judge import JudgedRun, Side, qrels_topics_of_rows
from irmeta.campaign.postings import Postings, offsets_from_counts
from irmeta.campaign.qrels import Qrels
from irmeta.campaign.ranked_store import StoredPart, ranked_part
from irmeta.campaign.store import EncodedPiece, encode_postings
from irmeta.support.atomic import atomic_save_npz

_SIDES = ("hits", "misses")


def save_part(judged: list[JudgedRun], path: str | Path, qrels: Qrels, settings: dict) -> None:
    """One shard's judged runs as an uncompressed ``.npz``, its postings encoded, with
    ``settings`` (depth, threshold, duplicates, qrels file) that every part of a campaign
    must share. ``judged`` is emptied as it is written: each run's postings are released
    once copied, so a side is never held twice (a 10^9-line shard peaked at 4.4 GB when
    the runs' postings, their concatenation and its encoding were held at once)."""
    n_topics = len(qrels.topics)
    topic_of_row = qrels_topics_of_rows(qrels)
    arrays: dict[str, np.ndarray] = {
        "length": (np.stack([j.length for j in judged]) if judged else np.zeros((0, n_topics), np.int32)),
    }
    runs = {"runs": [j.name for j in judged], "files": [j.path for j in judged],
            "ignored": {j.name: j.ignored for j in judged if j.ignored},
            "dropped": {j.name: j.dropped for j in judged if j.dropped}}
    tops = [j.top for j in judged if j.top is not None]
    ranked = ranked_part([j.name for j in judged], tops) if judged and len(tops) == len(judged) else None
    del tops
    encoded = {}
    for side in _SIDES:
        encoded[side] = encode_postings(_taken_side(judged, side), topic_of_row, n_topics)
        arrays |= {f"{side}_{name}": a for name, a in encoded[side].items()}
    judged.clear()
    if ranked is not None:
        arrays |= ranked.members()
    meta = {
        "settings": settings, "topics": qrels.topics, "qrels_rows": len(qrels.grade),
        "ranked_topics": ranked.topics if ranked is not None else None, **runs,
        "sizes": {side: EncodedPiece.of(encoded[side]).sizes for side in _SIDES},
        "max_count": {side: EncodedPiece.of(encoded[side]).max_count for side in _SIDES},
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_save_npz(path, arrays)


_RELEASED = Side(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int64))


def _taken_side(judged: list[JudgedRun], side: str) -> Postings:
    """The runs' ``side`` postings laid end to end, each run's released from ``judged``
    once copied (the runs' and the joined arrays are never all held)."""
    counts = (np.concatenate([getattr(j, side).counts for j in judged]).astype(np.int64) if judged
              else np.zeros(0, np.int64))
    total = int(counts.sum())
    rank, judgment = np.empty(total, np.int32), np.empty(total, np.int32)
    at = 0
    for i, run in enumerate(judged):
        part: Side = getattr(run, side)
        n = len(part.rank)
        rank[at:at + n], judgment[at:at + n] = part.rank, part.judgment
        judged[i] = replace(run, **{side: _RELEASED})
        at += n
        del part, run
    return Postings(offsets_from_counts(counts), rank, judgment)


def _part_meta(path: str | Path) -> dict:
    with np.load(path) as stored:
        return json.loads(stored["meta"].tobytes())


@dataclass(frozen=True)
class MergedParts:
    """Every part of a campaign, in shard order: what the store records of the runs, and
    each side's encoded pieces, read from the parts when written."""

    runs: list[str]
    length: np.ndarray  # (S, Q) int32
    ignored_topics: dict[str, list[str]]
    reading: dict
    sides: dict[str, list[EncodedPiece]]

    def postings(self, side: str) -> int:
        return sum(p.sizes["judgment_place"] for p in self.sides[side])


def merge_parts(paths: Sequence[str | Path], qrels: Qrels, settings: dict) -> MergedParts:
    """The parts (in shard order) as one campaign, and what reading did (files, dropped
    duplicates), as :func:`irmeta.campaign.judge.judge_runs` returns them for the same
    files read in one job. A part made with other ``settings`` or other qrels, or a run
    name two files share, is refused on one line naming the file."""
    metas = [_part_meta(p) for p in paths]
    topics = qrels.topics
    seen: dict[str, str] = {}
    for path, meta in zip(paths, metas):
        if (meta["settings"] != settings or meta["topics"] != topics or meta["qrels_rows"] != len(qrels.grade)
                or "sizes" not in meta):
            raise ValueError(f"{path}: this part was ingested with other settings or qrels "
                             f"({json.dumps(meta['settings'])}); ingest its shard again")
        for name, file in zip(meta["runs"], meta["files"]):
            if name in seen:  # as read_each_run words it when one job reads every file
                raise TrecFormatError(file, None, f"run name {name!r} is also the name of {seen[name]}")
            seen[name] = file
    runs = [name for meta in metas for name in meta["runs"]]
    length = np.zeros((len(runs), len(topics)), dtype=np.int32)
    at = 0
    for path in paths:
        with np.load(path) as stored:
            part = stored["length"]
        length[at:at + len(part)] = part
        at += len(part)
    sides = {side: [EncodedPiece(meta["sizes"][side], meta["max_count"][side], _member_of(path, side))
                    for path, meta in zip(paths, metas)] for side in _SIDES}
    reading = {
        "depth": settings["depth"],
        "order": "score descending, then docid descending (trec_eval)",
        "duplicates": settings["duplicates"],
        "dropped_duplicates": {name: n for meta in metas for name, n in meta["dropped"].items()},
        "files": [file for meta in metas for file in meta["files"]],
        "score_precision": settings["score_precision"],
    }
    ignored = {name: topics_ for meta in metas for name, topics_ in meta["ignored"].items()}
    return MergedParts(runs, length, ignored, reading, sides)


def ranked_parts(paths: Sequence[str | Path]) -> list[StoredPart]:
    """The rankings the parts keep (ingested with a ``ranked_depth``), in shard order, each
    read when the merge asks (:func:`~irmeta.campaign.ranked_store.write_ranked`); a part
    of runs without them refused, naming the file."""
    out = []
    for path in paths:
        meta = _part_meta(path)
        if meta["runs"] and meta.get("ranked_topics") is None:
            raise ValueError(f"{path}: this part was ingested without the runs' rankings; ingest its shard again")
        if meta["runs"]:
            out.append(StoredPart(path, meta["runs"], meta["ranked_topics"]))
    return out


def _member_of(path: str | Path, side: str) -> Callable[[str], np.ndarray]:
    def fetch(name: str) -> np.ndarray:
        with np.load(path) as stored:
            return stored[f"{side}_{name}"]
    return fetch
