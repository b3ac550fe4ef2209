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
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.judge import JudgedRun, Side, qrels_topics_of_rows
from irmeta.campaign.postings import Postings, offsets_from_counts
from irmeta.campaign.qrels import Qrels
from irmeta.campaign.ranked_store import PREFIX as RANKED_PREFIX
from irmeta.campaign.ranked_store import StoredPart, TopRows, ranked_part
from irmeta.campaign.store import EncodedPiece, encode_postings
from irmeta.support.atomic import NpzMember, atomic_stream_npz
from irmeta.support.checksum import load_npz
from irmeta.support.memory import qrels_held_mb, release_freed_memory, run_file_in_flight_mb

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


#: memory_budget's default (config): with the interpreter's own, a job fits a 4 GB slot.
DEFAULT_MEMORY_BUDGET_MB = 3072
#: What reading runs needs at the least beside a job's fixed part: a block of lines and
#: one run's judged postings.
MIN_READING_MB = 64
#: A block at its writing holds its runs, what reading them left in the heap and the
#: rankings' part made of them, their pools sorted
#: (:func:`~irmeta.campaign.ranked_store.ranked_part`): about this many times what its runs
#: hold (:func:`held_bytes`; 3.3 measured at 10^8 simulated lines, a block of 484 MB).
BLOCK_WRITING_FACTOR = 4
#: The largest block (MB its runs hold): a larger one reads and writes no faster (each
#: block's work is linear in its runs, the merge's pools a merge per block), it only
#: raises the peak (a 10^8-line job peaked at 1.76 GB with blocks of 484 MB).
BLOCK_MB_MAX = 256
#: What reading a file a block of lines at a time holds per line: the lines, their
#: columns and the orderings of their topics.
LINE_IN_FLIGHT_BYTES = 400


class MemoryBudgetError(ValueError):
    """A job's fixed part (the qrels and their lookup) leaves no room to read runs."""


@dataclass(frozen=True)
class ReadingPlan:
    """How a job reads its run files within its memory budget (:func:`reading_plan`):
    half of what its fixed part leaves to the files in flight, half to the block of runs
    being filled and written."""

    budget_mb: float
    fixed_mb: float
    threads: int  # files read at once, each whole
    piece_mb: float  # a file whose whole reading takes more is read in blocks of lines
    block_lines: int  # lines a block of such a file
    block_mb: float  # a block is written once its runs hold this
    block_files: int | None = None  # or once it has this many runs
    every_file_in_pieces: bool = False

    def in_pieces(self, path: str | Path) -> bool:
        """Whether ``path`` is read in blocks of lines."""
        return self.every_file_in_pieces or run_file_in_flight_mb(path) > self.piece_mb

    def describe(self, files: Sequence[str | Path]) -> str:
        pieces = sum(self.in_pieces(f) for f in files)
        return (f"memory budget {self.budget_mb:.0f} MB, {self.fixed_mb:.0f} MB of it the qrels, their lookup and "
                f"the interpreter: {self.threads} run file(s) read at once, blocks of runs written once they hold "
                f"{self.block_mb:.0f} MB" + (f" or {self.block_files} run(s)" if self.block_files else "")
                + (f"; {pieces} of {len(files)} file(s) read {self.block_lines} lines at a time" if pieces else ""))


def check_budget(qrels: str | Path, budget_mb: float, fixed_mb: float | None = None) -> None:
    """Refuse, on one line naming ``memory_budget``, a budget that holds not even the
    job's fixed part (the qrels and their lookup, estimated from the file when
    ``fixed_mb`` is None) and the least reading needs (:data:`MIN_READING_MB`)."""
    fixed = qrels_held_mb(qrels) if fixed_mb is None else fixed_mb
    if budget_mb - fixed < MIN_READING_MB:
        raise MemoryBudgetError(
            f"memory_budget {budget_mb:.0f} MB cannot hold this ingestion: the qrels ({qrels}) and their lookup take "
            f"about {fixed:.0f} MB with the interpreter, and reading runs needs {MIN_READING_MB} MB more; raise "
            f"memory_budget (config, MB) to at least {math.ceil(fixed + MIN_READING_MB)}")


def reading_plan(files: Sequence[str | Path], qrels: str | Path, *, budget_mb: float, fixed_mb: float,
                 threads: int, block_files: int | None = None, block_lines: int | None = None) -> ReadingPlan:
    """How a job reads ``files`` in ``budget_mb`` (MB) of which ``fixed_mb`` are taken
    (the interpreter, the qrels and their lookup): half of the rest for the files in
    flight, as many as ``threads`` of the largest fit (:func:`~irmeta.support.memory.run_file_in_flight_mb`),
    a file that alone would not fit read in blocks of lines; half for a block of runs,
    written once its runs hold a :data:`BLOCK_WRITING_FACTOR`-th of it, at most
    :data:`BLOCK_MB_MAX`. ``block_files``
    and ``block_lines`` bound the blocks further (``block_lines``: every file read in
    blocks of that many lines), which changes no byte of the output."""
    check_budget(qrels, budget_mb, fixed_mb)
    reading = (budget_mb - fixed_mb) / 2
    whole = [run_file_in_flight_mb(f) for f in files if run_file_in_flight_mb(f) <= reading]
    largest = max(whole, default=0.0)
    # files read in blocks of lines are read one at a time, alone
    at_once = max(1, min(threads, int(reading // largest) if largest > 0 else threads)) if whole else 1
    lines = block_lines if block_lines is not None else max(1, int(reading * 2**20 // LINE_IN_FLIGHT_BYTES))
    block_mb = min(BLOCK_MB_MAX, reading / BLOCK_WRITING_FACTOR)
    return ReadingPlan(budget_mb, fixed_mb, at_once, reading, lines, block_mb, block_files, block_lines is not None)


def held_bytes(run: JudgedRun) -> int:
    """What a judged run holds until its block is written: its encoded postings, its
    list lengths and, when kept, its rankings."""
    held = run.length.nbytes + sum(a.nbytes for side in (run.encoded or {}).values() for a in side.values())
    if run.top is not None:
        held += run.top.topic.nbytes + run.top.score.nbytes + run.top.docid.nbytes
    return held


def write_part(path: str | Path, judged: Iterable[JudgedRun], qrels: Qrels, settings: dict, *,
               block_mb: float, block_files: int | None = None) -> int:
    """A job's runs (``judged``, in file order, made compact by :func:`compact_run`) as an
    uncompressed ``.npz`` written as they come, a *block* of runs at a time: a block is
    written once its runs hold ``block_mb`` (:func:`held_bytes`) or number
    ``block_files``, and released. Each block's members (``block<k>_``: the lengths, each
    side's encoded postings, the rankings' part when kept) follow one another; ``meta``
    last: ``settings`` (depth, threshold, duplicates, qrels file), which every part of a
    campaign must share, the runs, files, ignored topics, dropped duplicates and each
    block's sizes. Blocks are cells run-major like the store, so the blocks laid end to
    end are the job's runs' postings whatever their size. Returns the number of runs."""
    n_topics = len(qrels.topics)
    record: dict = {"runs": [], "files": [], "ignored": {}, "dropped": {}, "blocks": []}

    def members() -> Iterator[NpzMember]:
        block: list[JudgedRun] = []
        held = 0
        for run in judged:
            block.append(_settled(run))
            held += held_bytes(run)
            if held >= block_mb * 2**20 or (block_files is not None and len(block) >= block_files):
                yield from _block_members(block, record, n_topics)
                release_freed_memory()
                held = 0
        if block:
            yield from _block_members(block, record, n_topics)
            release_freed_memory()
        meta = {"settings": settings, "topics": qrels.topics, "qrels_rows": len(qrels.grade), **record}
        data = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
        yield "meta", data.dtype, data.shape, [data]

    atomic_stream_npz(path, members())
    return len(record["runs"])


def _settled(run: JudgedRun) -> JudgedRun:
    """The arrays a block keeps of ``run`` copied in this thread. Made by the threads that
    read the runs, they would pin those threads' heaps: the C library gives back no part
    of a heap below a block in use, so the temporaries freed around them stay resident
    (a 10^8-line job held 1.5 GB for 0.5 GB of runs kept)."""
    encoded = None if run.encoded is None else {side: {name: a.copy() for name, a in arrays.items()}
                                                for side, arrays in run.encoded.items()}
    top = run.top
    if top is not None:
        top = TopRows(top.topics, top.topic.copy(), pa.concat_arrays([top.docid]), top.score.copy())
    return replace(run, length=run.length.copy(), encoded=encoded, top=top)


def _block_members(block: list[JudgedRun], record: dict, n_topics: int) -> Iterator[NpzMember]:
    """One block's members, each array written run by run (never the block's postings
    laid end to end in memory); its rankings' part made first and released. The block's
    runs are recorded in ``record`` and released (``block`` emptied)."""
    prefix = f"block{len(record['blocks'])}_"
    info: dict = {"runs": len(block), "ranked_topics": None}
    tops = [run.top for run in block if run.top is not None]
    if tops and len(tops) == len(block):
        ranked = ranked_part([run.name for run in block], tops)
        del tops
        block[:] = [replace(run, top=None) for run in block]
        info["ranked_topics"] = ranked.topics
        yield from ((prefix + name, a.dtype, a.shape, [a]) for name, a in ranked.members().items())
        del ranked
    yield f"{prefix}length", np.dtype(np.int32), (len(block), n_topics), [run.length for run in block]
    encoded = [_encoded(run) for run in block]
    info["sizes"], info["max_count"] = {}, {}
    for side in _SIDES:
        info["sizes"][side] = {}
        for name in encoded[0][side]:
            arrays = [e[side][name] for e in encoded]
            info["sizes"][side][name] = sum(len(a) for a in arrays)
            yield f"{prefix}{side}_{name}", np.result_type(*(a.dtype for a in arrays)), \
                (info["sizes"][side][name],), arrays
        info["max_count"][side] = max(int(e[side]["counts"].max(initial=0)) for e in encoded)
    record["runs"] += [run.name for run in block]
    record["files"] += [run.path for run in block]
    record["ignored"] |= {run.name: run.ignored for run in block if run.ignored}
    record["dropped"] |= {run.name: run.dropped for run in block if run.dropped}
    record["blocks"].append(info)
    block.clear()


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
                or "blocks" not in meta):
            raise ValueError(f"{path}: this part was ingested with other settings or qrels "
                             f"({json.dumps(meta['settings'])}); ingest its shard again")
        for name, file in zip(meta["runs"], meta["files"]):
            if name in seen:  # as read_each_run words it when one job reads every file
                raise TrecFormatError(file, None, f"run name {name!r} is also the name of {seen[name]}")
            seen[name] = file
    runs = [name for meta in metas for name in meta["runs"]]
    blocks = [(path, k, block) for path, meta in zip(paths, metas) for k, block in enumerate(meta["blocks"])]
    length = np.zeros((len(runs), len(topics)), dtype=np.int32)
    at = 0
    for path, k, block in blocks:
        length[at:at + block["runs"]] = _member_of(path, f"block{k}")("length")
        at += block["runs"]
    sides = {side: [EncodedPiece(block["sizes"][side], block["max_count"][side], _member_of(path, f"block{k}_{side}"))
                    for path, k, block in blocks] for side in _SIDES}
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
    """The rankings the parts keep (ingested with a ``ranked_depth``), a part of each
    block in shard order, each read when the merge asks
    (:func:`~irmeta.campaign.ranked_store.write_ranked`); a part of runs without them
    refused, naming the file."""
    out = []
    for path in paths:
        meta = _part_meta(path)
        at = 0
        for k, block in enumerate(meta["blocks"]):
            if block["ranked_topics"] is None:
                raise ValueError(f"{path}: this part was ingested without the runs' rankings; ingest its shard again")
            out.append(StoredPart(path, meta["runs"][at:at + block["runs"]], block["ranked_topics"],
                                  f"block{k}_{RANKED_PREFIX}"))
            at += block["runs"]
    return out


def _member_of(path: str | Path, prefix: str) -> Callable[[str], np.ndarray]:
    def fetch(name: str) -> np.ndarray:
        with load_npz(path) as stored:
            return stored[f"{prefix}_{name}"]
    return fetch
