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
from irmeta.support.checksum import load_npz

_SIDES = ("hits", "misses")


def compact_run(qrels: Qrels) -> Callable[[JudgedRun], JudgedRun]:
    """What a shard keeps of each run it judges (``judge_sources``' ``finish``): its
    postings encoded as the store encodes them (:func:`~irmeta.campaign.store.encode_postings`,
    about 3 bytes a posting instead of 8), the raw ones released. The encoding is cell by
    cell, so a shard's runs encoded one by one and laid end to end are its encoding."""
    topic_of_row, n_topics = qrels_topics_of_rows(qrels), len(qrels.topics)

    def compact(run: JudgedRun) -> JudgedRun:
        if run.encoded is not None:
            return run
        encoded = {side: encode_postings(_postings(getattr(run, side)), topic_of_row, n_topics) for side in _SIDES}
        return replace(run, hits=_RELEASED, misses=_RELEASED, encoded=encoded)

    return compact


_RELEASED = Side(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int64))


def _encoded(run: JudgedRun) -> dict[str, dict[str, np.ndarray]]:
    if run.encoded is None:
        raise ValueError(f"{run.name}: a run not made compact (compact_run)")
    return run.encoded


def _postings(side: Side) -> Postings:
    return Postings(offsets_from_counts(np.asarray(side.counts, dtype=np.int64)), side.rank, side.judgment)


def save_part(judged: list[JudgedRun], path: str | Path, qrels: Qrels, settings: dict) -> None:
    """One shard's judged runs as an uncompressed ``.npz``, its postings encoded
    (:func:`compact_run`, done here for a run not yet compact), with ``settings`` (depth,
    threshold, duplicates, qrels file) that every part of a campaign must share.
    ``judged`` is emptied as it is written. Holding each run's raw postings (8 bytes a
    posting) and their concatenation until the end, a 10^9-line shard peaked at 4.4 GB."""
    n_topics = len(qrels.topics)
    compact = compact_run(qrels)
    judged[:] = [compact(run) for run in judged]
    arrays: dict[str, np.ndarray] = {
        "length": (np.stack([j.length for j in judged]) if judged else np.zeros((0, n_topics), np.int32)),
    }
    runs = {"runs": [j.name for j in judged], "files": [j.path for j in judged],
            "ignored": {j.name: j.ignored for j in judged if j.ignored},
            "dropped": {j.name: j.dropped for j in judged if j.dropped}}
    tops = [j.top for j in judged if j.top is not None]
    ranked = ranked_part([j.name for j in judged], tops) if judged and len(tops) == len(judged) else None
    del tops
    pieces = [_encoded(compact(JudgedRun("", "", _RELEASED, _RELEASED, np.zeros(n_topics, np.int32), [], 0)))]
    pieces += [_encoded(j) for j in judged]  # the empty run first: each array's type with no run
    encoded = {side: {name: np.concatenate([piece[side][name] for piece in pieces]) for name in pieces[0][side]}
               for side in _SIDES}
    del pieces
    judged.clear()
    for side in _SIDES:
        arrays |= {f"{side}_{name}": a for name, a in encoded[side].items()}
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


def _part_meta(path: str | Path) -> dict:
    with load_npz(path) as stored:
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
        with load_npz(path) as stored:
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
        with load_npz(path) as stored:
            return stored[f"{side}_{name}"]
    return fetch
