"""The campaign on disk: ``judged.npz``, written once at ingestion and loaded by every
later job in milliseconds (each array loads on its own).

The postings are stored compactly and decoded on load to the arrays the measures read,
exactly (format 2). A cell's ranks ascend, so each is stored as its step from the one
before (a cell's first rank apart, one per non-empty cell), in one byte: the few steps
longer than 255 ranks are stored apart, marked by a 0 (a step is at least 1). A posting's qrels row is stored as its
place among its topic's rows, which is below the topic's number of judgments, two bytes
for any pool of fewer than 65,536 documents a topic. Every array takes the narrowest
integer type its values fit (chosen from the values, so nothing is ever cut), and the
per-cell offsets are stored as counts. The simulated 10^7-line campaigns of
``benchmarks/bench_scale.py`` store in about 0.3 of their gzipped runs instead of 0.75.
Format 1 (every array at its width in memory) still loads. The file ends with a
checksum of its bytes, verified before anything is read (:mod:`irmeta.support.checksum`):
a damaged or truncated store, or one an irmeta before the checksum wrote, is refused on
one line naming it and what to do.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.judgment_groups import JudgmentGroups
from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.campaign.subtopics import SubtopicJudgments
from irmeta.support.atomic import NpzMember, atomic_stream_npz
from irmeta.support.checksum import load_npz, verify_store

FORMAT = 2
_SIDES = ("hits", "misses")
BLOCK_POSTINGS = 1 << 20  # about 50 MB of temporaries a block
_NARROW = (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.int64)


def narrowest(values: np.ndarray) -> np.ndarray:
    """``values`` (integers) in the narrowest type of :data:`_NARROW` holding all of them."""
    values = np.asarray(values)
    if values.size == 0:
        return values.astype(np.uint8)
    low, high = int(values.min()), int(values.max())
    for dtype in _NARROW:
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return values.astype(dtype, copy=False)
    raise OverflowError(f"integers from {low} to {high} do not fit 64 bits")


def _topic_places(qrels_topic: np.ndarray, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """The qrels rows grouped by topic (stable: file order within a topic), and where
    each topic's group starts: row ``by_topic[first[t] + p]`` is topic t's p-th row."""
    by_topic = np.argsort(qrels_topic, kind="stable")
    first = offsets_from_counts(np.bincount(qrels_topic, minlength=n_topics))
    return by_topic, first


def _blocks(start: np.ndarray):
    """(first cell, end cell, first posting, end posting) of consecutive blocks of cells
    holding about :data:`BLOCK_POSTINGS` each (a larger cell alone), so that a block's
    temporaries stay bounded whatever the campaign."""
    size = BLOCK_POSTINGS
    n_cells = len(start) - 1
    c0 = 0
    while c0 < n_cells:
        c1 = min(n_cells, max(c0 + 1, int(np.searchsorted(start, start[c0] + size, side="right")) - 1))
        yield c0, c1, int(start[c0]), int(start[c1])
        c0 = c1


def narrowest_type(high: int) -> np.dtype:
    """The narrowest type of :data:`_NARROW` holding 0 to ``high``."""
    return narrowest(np.array([0, high], dtype=np.int64)).dtype


def encode_postings(postings: Postings, qrels_topic: np.ndarray, n_topics: int) -> dict[str, np.ndarray]:
    """One side's postings as the arrays of format 2 (names without the side's prefix),
    a block of cells at a time. Types follow bounds every campaign of the same qrels and
    depth shares: a qrels row's place below its topic's judgments, a rank below the
    deepest rank."""
    counts = postings.counts
    by_topic, first = _topic_places(qrels_topic, n_topics)
    place = np.empty(len(by_topic), dtype=np.int64)
    place[by_topic] = np.arange(len(by_topic), dtype=np.int64)
    per_topic = np.diff(first)
    nonempty = counts > 0
    n, n_first = len(postings), int(nonempty.sum())
    deepest = int(postings.rank.max()) if n else 0
    rank_first = np.empty(n_first, dtype=narrowest_type(deepest))
    rank_step = np.empty(n - n_first, dtype=np.uint8)
    judgment_place = np.empty(n, dtype=narrowest_type(int(per_topic.max(initial=1)) - 1))
    wide_steps = []
    at_first = at_step = 0
    for c0, c1, s0, s1 in _blocks(postings.start):
        block_counts = counts[c0:c1]
        topic = np.repeat(np.arange(c0, c1, dtype=np.int64) % max(n_topics, 1), block_counts)
        local = place[postings.judgment[s0:s1]] - first[topic]
        if len(local) and (local.min() < 0 or (local >= per_topic[topic]).any()):
            raise ValueError("a posting is judged by a qrels row of another topic")
        judgment_place[s0:s1] = local
        rank = postings.rank[s0:s1].astype(np.int64)
        is_first = np.zeros(s1 - s0, dtype=bool)
        is_first[postings.start[c0:c1][block_counts > 0] - s0] = True
        steps = np.diff(rank, prepend=0)[~is_first]
        if len(steps) and steps.min() < 1:
            raise ValueError("ranks do not ascend within a cell")
        firsts = rank[is_first]
        rank_first[at_first:at_first + len(firsts)] = firsts
        # Steps are at least 1, so 0 marks one too long for a byte, kept in rank_step_wide.
        wide = steps > np.iinfo(np.uint8).max
        rank_step[at_step:at_step + len(steps)] = np.where(wide, 0, steps)
        wide_steps.append(steps[wide])
        at_first += len(firsts)
        at_step += len(steps)
    wide = np.concatenate(wide_steps) if wide_steps else np.zeros(0, np.int64)
    return {"counts": narrowest(counts), "rank_first": rank_first, "rank_step": rank_step,
            "rank_step_wide": wide.astype(narrowest_type(deepest)), "judgment_place": judgment_place}


def decode_postings(stored, prefix: str, qrels_topic: np.ndarray, n_topics: int,
                    depth: int | None = None) -> Postings:
    """The postings :func:`encode_postings` stored under ``prefix``, as they were, a
    block of cells at a time; with ``depth``, only those ranked at most ``depth`` (memory
    follows the postings kept, not those stored)."""
    counts = np.asarray(stored[f"{prefix}_counts"]).astype(np.int64)
    start = offsets_from_counts(counts)
    blocks = _decoded_blocks(stored, prefix, counts, start, qrels_topic, n_topics)
    if depth is None:
        n = int(start[-1])
        rank = np.empty(n, dtype=np.int32)
        judgment = np.empty(n, dtype=np.int32)
        for _, _, s0, s1, block_rank, block_judgment in blocks:
            rank[s0:s1], judgment[s0:s1] = block_rank, block_judgment
        return Postings(start, rank, judgment)
    # A cell keeps at most min(count, depth) postings (ranks are distinct): filled in place
    # up to that bound, never the blocks kept and then concatenated (twice the postings
    # kept at the peak: 1.5 GB for the depth-100 misses of an MS MARCO-sized campaign).
    bound = int(np.minimum(counts, max(int(depth), 0)).sum(dtype=np.int64))
    rank = np.empty(bound, dtype=np.int32)
    judgment = np.empty(bound, dtype=np.int32)
    kept = np.zeros(len(counts), dtype=np.int64)
    filled = 0
    for c0, c1, _, _, block_rank, block_judgment in blocks:
        keep = block_rank <= depth
        local = np.repeat(np.arange(c1 - c0, dtype=np.int64), counts[c0:c1])
        kept[c0:c1] = np.bincount(local[keep], minlength=c1 - c0)
        n = int(kept[c0:c1].sum())
        rank[filled:filled + n], judgment[filled:filled + n] = block_rank[keep], block_judgment[keep]
        filled += n
    # A loose bound (cells with fewer than depth postings above it) shrinks in place: a
    # large array's realloc gives its tail back without copying the rest.
    rank.resize(filled, refcheck=False)
    judgment.resize(filled, refcheck=False)
    return Postings(offsets_from_counts(kept), rank, judgment)


def _decoded_blocks(stored, prefix: str, counts: np.ndarray, start: np.ndarray, qrels_topic: np.ndarray,
                    n_topics: int) -> Iterator[tuple[int, int, int, int, np.ndarray, np.ndarray]]:
    """Per block of cells c0..c1 (postings s0..s1): its postings' ranks and qrels rows."""
    firsts = stored[f"{prefix}_rank_first"]
    steps = stored[f"{prefix}_rank_step"]
    wide = stored[f"{prefix}_rank_step_wide"]
    places = stored[f"{prefix}_judgment_place"]
    by_topic, first = _topic_places(qrels_topic, n_topics)
    at_first = at_step = at_wide = 0
    for c0, c1, s0, s1 in _blocks(start):
        block_counts = counts[c0:c1]
        nonempty = block_counts > 0
        starts = start[c0:c1][nonempty] - s0
        is_first = np.zeros(s1 - s0, dtype=bool)
        is_first[starts] = True
        step = np.empty(s1 - s0, dtype=np.int32)
        step[starts] = firsts[at_first:at_first + len(starts)]
        block_steps = steps[at_step:at_step + (s1 - s0 - len(starts))].astype(np.int32)
        long = block_steps == 0
        n_long = int(long.sum())
        block_steps[long] = wide[at_wide:at_wide + n_long]
        step[~is_first] = block_steps
        at_first, at_step, at_wide = at_first + len(starts), at_step + len(block_steps), at_wide + n_long
        # Steps summed along the block, less the sum before each cell: int32 sums may
        # wrap, but each difference is a rank, below 2^31, so it comes out exact.
        with np.errstate(over="ignore"):
            total = np.cumsum(step, dtype=np.int32)
            rank = total - np.repeat(total[starts] - step[starts], block_counts[nonempty])
        topic = np.repeat(np.arange(c0, c1, dtype=np.int64)[nonempty] % max(n_topics, 1), block_counts[nonempty])
        yield c0, c1, s0, s1, rank, by_topic[first[topic] + places[s0:s1]].astype(np.int32)


@dataclass(frozen=True)
class EncodedPiece:
    """One side's format-2 arrays (:func:`encode_postings`) for a contiguous range of
    cells: in memory, or a shard's part on disk, fetched one array at a time."""

    sizes: dict[str, int]
    max_count: int
    fetch: Callable[[str], np.ndarray]

    @classmethod
    def of(cls, arrays: dict[str, np.ndarray]) -> EncodedPiece:
        return cls({name: len(a) for name, a in arrays.items()}, int(arrays["counts"].max(initial=0)),
                   arrays.__getitem__)


def save_matrix(matrix: RelevanceMatrix, path: str | Path, settings: dict | None = None) -> None:
    """Write the matrix as one uncompressed ``.npz`` (each array loads on its own, so a
    job reading the hits never reads the misses), atomically, with ``settings`` (how
    the runs were read) for the record."""
    sides = {side: [EncodedPiece.of(encode_postings(postings, matrix.qrels_topic, matrix.n_topics))]
             for side, postings in (("hits", matrix.hits), ("misses", matrix.misses))}
    write_store(path, runs=matrix.runs, topics=matrix.topics, length=matrix.length, threshold=matrix.threshold,
                run_depth=matrix.run_depth, ignored_topics=matrix.ignored_topics, qrels_topic=matrix.qrels_topic,
                qrels_grade=matrix.qrels_grade, docids=matrix.docids, sides=sides, settings=settings,
                subtopics=matrix.subtopics, judgment_groups=matrix.judgment_groups)


def _fetched(pieces: Sequence[EncodedPiece], name: str) -> Iterator[np.ndarray]:
    for piece in pieces:
        yield piece.fetch(name)


def write_store(path: str | Path, *, runs: list[str], topics: list[str], length: np.ndarray, threshold: int,
                run_depth: int | None, ignored_topics: dict[str, list[str]], qrels_topic: np.ndarray,
                qrels_grade: np.ndarray, docids: pa.Array, sides: Mapping[str, Sequence[EncodedPiece]],
                settings: dict | None, subtopics: SubtopicJudgments | None = None,
                judgment_groups: JudgmentGroups | None = None) -> None:
    """``judged.npz`` from each side's encoded pieces in cell order, each array written
    piece by piece (a shard's part at a time: never every posting in memory), in the
    types every way of ingesting the campaign shares, so the bytes are the same however
    the runs were read (in one job or in shards)."""
    docid = docids.cast(pa.large_binary())
    offsets = np.frombuffer(docid.buffers()[1], dtype=np.int64)[docid.offset:docid.offset + len(docid) + 1]
    data = np.frombuffer(docid.buffers()[2], dtype=np.uint8) if docid.buffers()[2] else np.zeros(0, np.uint8)
    meta = {"format": FORMAT, "runs": runs, "topics": topics, "threshold": threshold, "run_depth": run_depth,
            "ignored_topics": ignored_topics, "settings": settings or {}}
    plain = {"length": narrowest(length), "qrels_topic": narrowest(qrels_topic),
             "qrels_grade": narrowest(qrels_grade), "docid_lengths": narrowest(np.diff(offsets)),
             "docid_bytes": data[offsets[0]:offsets[-1]]}
    if subtopics is not None:  # subtopic qrels: each qrels row's subtopic judgments
        plain.update({"subtopic_counts": narrowest(np.diff(subtopics.start)),
                      "subtopic_index": narrowest(subtopics.subtopic), "subtopic_grade": narrowest(subtopics.grade)})
    if judgment_groups is not None:  # judgment-group qrels: each qrels row's judgments by group
        groups = judgment_groups
        plain.update({"jg_counts": narrowest(np.diff(groups.start)), "jg_slot": narrowest(groups.slot),
                      "jg_grade": narrowest(groups.grade), "jg_n_groups": narrowest(groups.n_groups)})
    members: list[NpzMember] = [(name, a.dtype, a.shape, [a]) for name, a in plain.items()]
    per_topic = np.bincount(np.asarray(qrels_topic, dtype=np.int64), minlength=len(topics))
    deepest = narrowest_type(int(length.max(initial=0)))
    for side in _SIDES:
        pieces = sides[side]
        types = {"counts": narrowest_type(max((p.max_count for p in pieces), default=0)), "rank_first": deepest,
                 "rank_step": np.dtype(np.uint8), "rank_step_wide": deepest,
                 "judgment_place": narrowest_type(int(per_topic.max(initial=1)) - 1)}
        for name, dtype in types.items():
            size = sum(p.sizes[name] for p in pieces)
            members.append((f"{side}_{name}", dtype, (size,), _fetched(pieces, name)))
    meta_bytes = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    members.append(("meta", meta_bytes.dtype, meta_bytes.shape, [meta_bytes]))
    atomic_stream_npz(path, members)


def matrix_settings(path: str | Path) -> dict:
    """What :func:`save_matrix` recorded: runs, topics, threshold, depth, reading settings."""
    with load_npz(path) as stored:
        return json.loads(stored["meta"].tobytes())


@dataclass(frozen=True)
class StoredArray:
    """A 1-D array inside an uncompressed ``.npz``, read from disk a slice at a time:
    a block decoded from it costs that block's memory, not the array's (a memory map
    would keep every page read resident: at 10^9 lines the misses' places alone are 2 GB)."""

    path: str
    offset: int
    dtype: np.dtype
    size: int

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: slice) -> np.ndarray:
        first, stop, step = index.indices(self.size)
        if step != 1:
            raise IndexError("a stored array is read in contiguous slices")
        count = max(0, stop - first)
        return np.fromfile(self.path, dtype=self.dtype, count=count, offset=self.offset + first * self.dtype.itemsize)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        whole = self[:]
        return whole if dtype is None else whole.astype(dtype)


def stored_members(path: str | Path) -> dict[str, np.ndarray | StoredArray]:
    """The members of an ``.npz`` by name: each uncompressed 1-D member (what
    :func:`write_store` writes) as a :class:`StoredArray`, read when sliced; any other
    member read whole. The file's checksum is verified first (:mod:`irmeta.support.checksum`):
    a slice read from disk is checked by nothing else."""
    import zipfile

    verify_store(path)
    members: dict[str, np.ndarray | StoredArray] = {}
    header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        for info in archive.infolist():
            name = info.filename.removesuffix(".npy")
            if info.compress_type == zipfile.ZIP_STORED:
                raw.seek(info.header_offset)
                local = raw.read(30)  # the local header; name and extra lengths at bytes 26 and 28
                raw.seek(info.header_offset + 30 + int.from_bytes(local[26:28], "little")
                         + int.from_bytes(local[28:30], "little"))
                version = np.lib.format.read_magic(raw)
                if version in header:
                    shape, fortran, dtype = header[version](raw)
                    if len(shape) == 1 and not dtype.hasobject:
                        members[name] = StoredArray(str(path), raw.tell(), dtype, int(shape[0]))
                        continue
            with archive.open(info) as member:
                members[name] = np.lib.format.read_array(member)
    return members


def stored_postings(path: str | Path) -> int:
    """How many judged postings (relevant and other) the stored campaign holds."""
    with load_npz(path) as stored:
        if "hits_rank" in stored:  # format 1
            return len(stored["hits_rank"]) + len(stored["misses_rank"])
        return sum(int(stored[f"{side}_counts"].sum(dtype=np.int64)) for side in _SIDES)


def load_matrix(path: str | Path, depth: int | None = None) -> RelevanceMatrix:
    """A matrix written by :func:`save_matrix`: the hits and the lengths now, the misses
    when first used, each array in the type the measures read. With ``depth``, only the
    postings ranked at most ``depth`` (:meth:`RelevanceMatrix.top`): every measure that
    reads no deeper (:func:`irmeta.measures.names.depth_read`) scores the same."""
    path = Path(path)
    with load_npz(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        n_topics = len(meta["topics"])
        qrels_topic = stored["qrels_topic"].astype(np.int64)
        qrels_grade = stored["qrels_grade"].astype(np.int64)
        length = stored["length"].astype(np.int32)
        if "hits_rank" in stored:  # format 1
            hits = Postings(stored["hits_start"], stored["hits_rank"], stored["hits_judgment"]).top(depth)
            offsets = stored["docid_offsets"]
        else:
            hits = decode_postings(stored_members(path), "hits", qrels_topic, n_topics, depth)
            offsets = offsets_from_counts(stored["docid_lengths"].astype(np.int64))
        data = stored["docid_bytes"]
        subtopics = _stored_subtopics(stored)
        groups = _stored_judgment_groups(stored)
    docids = pa.Array.from_buffers(pa.large_string(), len(offsets) - 1,
                                   [None, pa.py_buffer(offsets), pa.py_buffer(data)])

    def misses() -> Postings:
        with load_npz(path) as stored:
            if "misses_rank" in stored:
                return Postings(stored["misses_start"], stored["misses_rank"], stored["misses_judgment"]).top(depth)
        return decode_postings(stored_members(path), "misses", qrels_topic, n_topics, depth)

    return RelevanceMatrix(
        runs=list(meta["runs"]), topics=list(meta["topics"]), length=length, hits=hits, misses_loader=misses,
        threshold=int(meta["threshold"]), qrels_topic=qrels_topic, qrels_grade=qrels_grade, docids=docids,
        run_depth=meta["run_depth"], ignored_topics={k: list(v) for k, v in meta["ignored_topics"].items()},
        subtopics=subtopics,
        judgment_groups=groups,
    )


def _stored_subtopics(stored) -> SubtopicJudgments | None:
    """The qrels rows' subtopic judgments, when the campaign was judged by subtopic qrels."""
    if "subtopic_counts" not in stored:
        return None
    index = stored["subtopic_index"].astype(np.int32)
    return SubtopicJudgments(offsets_from_counts(stored["subtopic_counts"].astype(np.int64)), index,
                             stored["subtopic_grade"].astype(np.int64), int(index.max(initial=0)) + 1)


def _stored_judgment_groups(stored) -> JudgmentGroups | None:
    """The qrels rows' judgments by group, when the campaign was judged by judgment-group qrels."""
    if "jg_counts" not in stored:
        return None
    return JudgmentGroups(offsets_from_counts(stored["jg_counts"].astype(np.int64)), stored["jg_slot"].astype(np.int32),
                          stored["jg_grade"].astype(np.int64), stored["jg_n_groups"].astype(np.int64))
