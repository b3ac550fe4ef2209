"""The runs' rankings at the degraded reproductions' depth, kept by ingestion
(``ranked.npz``) so that issue 28's degradations never read the runs again: per (run,
topic) cell the documents as places in the topic's pool (every run's documents for the
topic, sorted as strings are) and their scores, cells run-major, each run's topics in
irmeta's topic order. Loaded (:func:`irmeta.campaign.degrade_cells.load_ranked`), it is
the :class:`~irmeta.campaign.degrade_cells.RankedCells` that
:func:`~irmeta.campaign.degrade_cells.ranked_cells` makes from the runs read again.

A job that reads run files keeps each run's top rows (:func:`top_rows`) and turns them
into a *part* (:func:`ranked_part`, pools of its own runs); :func:`write_ranked` merges the
parts' pools, maps each part's places into them and streams the parts into the store one
at a time, so ``ranked.npz`` is the same bytes whatever the shards. Memory: the merge holds
the pools and one part; the degradations hold the places and scores (12 bytes a document)
of a range of runs at a time.

On disk (format 2) a document takes a few bytes, exactly: its place within its topic's
pool in as many bits as the largest pool needs (:mod:`irmeta.support.bit_fields`), its
score as :mod:`irmeta.campaign.score_codes` codes it (a cell's first decimal code, then
each fall in as many bits as the largest needs); cells' lengths, runs and topics in the
narrowest integers. Every array is uncompressed, so a range of runs is read alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.postings import offsets_from_counts
from irmeta.campaign.qrels import sort_topics
from irmeta.campaign.runs import RunFile
from irmeta.campaign.score_codes import (
    ScoreCoding,
    ScoreSummary,
    codes,
    falls,
    score_coding,
    score_summary,
    scores_of_codes,
)
from irmeta.campaign.store import narrowest_type
from irmeta.support.atomic import atomic_stream_npz
from irmeta.support.bit_fields import BitWriter, bit_width, unpack_bits, word_count
from irmeta.support.checksum import load_npz

PREFIX = "ranked_"  # a part's members, beside the judged postings in an ingestion part
_MEMBERS = ("start", "cell_run", "cell_topic", "place", "score", "score_summary", "pool_start", "pool_offsets",
            "pool_bytes")
FORMAT = 2


@dataclass(frozen=True)
class TopRows:
    """One run's rows down to the depth, in trec_eval's order: each row's topic (a code
    into ``topics``), document and score."""

    topics: list[str]
    topic: np.ndarray  # int32
    docid: pa.Array  # large_string
    score: np.ndarray  # float64


def top_rows(run: RunFile, depth: int) -> TopRows:
    """The rows of ``run`` (read by :func:`~irmeta.campaign.runs.ordered_run`) ranked at
    most ``depth``."""
    at = np.flatnonzero(run.rank <= depth)
    doc = run.docid.indices.to_numpy(zero_copy_only=False)[at]
    return TopRows(run.qid.dictionary.to_pylist(), run.qid.indices.to_numpy(zero_copy_only=False)[at].astype(np.int32),
                   run.docid.dictionary.take(pa.array(doc)).cast(pa.large_string()), run.score[at].copy())


@dataclass(frozen=True)
class RankedPart:
    """Runs as cells of pool places (the fields of
    :class:`~irmeta.campaign.degrade_cells.RankedCells`); ``pool`` the documents of the
    places, each topic's sorted, ``pool_start`` (topics + 1,) where each topic's begin."""

    runs: list[str]
    topics: list[str]
    start: np.ndarray  # (cells + 1,) int64
    cell_run: np.ndarray  # (cells,) int32, into runs
    cell_topic: np.ndarray  # (cells,) int32, into topics
    place: np.ndarray  # (documents,) int32, into pool
    score: np.ndarray  # (documents,) float64
    pool_start: np.ndarray  # (topics + 1,) int64
    pool: pa.Array  # large_string

    @property
    def score_summary(self) -> np.ndarray:
        """What the coding of the scores needs of them (:class:`ScoreSummary`)."""
        return score_summary(self.score, self.start).as_array()

    def array(self, name: str) -> Any:
        return getattr(self, name)

    def members(self) -> dict[str, np.ndarray]:
        """The arrays as a part stores them (``PREFIX`` + name)."""
        offsets, data = _string_buffers(self.pool)
        arrays = dict(start=self.start, cell_run=self.cell_run, cell_topic=self.cell_topic, place=self.place,
                      score=self.score, score_summary=self.score_summary, pool_start=self.pool_start,
                      pool_offsets=offsets, pool_bytes=data)
        return {PREFIX + name: arrays[name] for name in _MEMBERS}


def _string_buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A large_string array's offsets (from 0) and bytes."""
    strings = strings.cast(pa.large_string())
    n = len(strings)
    if not n:
        return np.zeros(1, np.int64), np.zeros(0, np.uint8)
    buffers = strings.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[strings.offset:strings.offset + n + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8)[int(offsets[0]):int(offsets[-1])]
    return offsets - offsets[0], data.copy()


def _strings(offsets: np.ndarray, data: np.ndarray) -> pa.Array:
    return pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(np.ascontiguousarray(offsets, np.int64)),
                                            pa.py_buffer(np.ascontiguousarray(data, np.uint8)))


def _unique_sorted(topic: np.ndarray, docid: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """(topic, document) pairs sorted and made unique: each pair's place among the
    distinct pairs, and the distinct pairs' topics and documents (code point order, as
    Python and numpy sort strings: UTF-8's byte order is its code points')."""
    if not len(topic):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), pa.array([], pa.large_string())
    by = pc.sort_indices(pa.table({"t": topic, "d": docid}), sort_keys=[("t", "ascending"), ("d", "ascending")])
    t, d = topic[np.asarray(by)], docid.take(by)
    new = np.ones(len(t), dtype=bool)
    new[1:] = (t[1:] != t[:-1]) | np.asarray(pc.not_equal(d.slice(1), d.slice(0, len(d) - 1)))
    place = np.empty(len(t), dtype=np.int64)
    place[np.asarray(by)] = np.cumsum(new) - 1
    return place, t[new], d.filter(pa.array(new))


def ranked_part(names: Sequence[str], rows: Sequence[TopRows]) -> RankedPart:
    """One job's runs (``names``, their :func:`top_rows` in file order) as a part: its
    topics sorted (:func:`~irmeta.campaign.qrels.sort_topics`), cells by run then topic,
    each cell's documents in trec_eval's order, pools of these runs' documents."""
    topics = sort_topics({r.topics[c] for r in rows for c in np.unique(r.topic).tolist()})
    code = {t: i for i, t in enumerate(topics)}
    topic = np.concatenate([np.asarray([code.get(t, -1) for t in r.topics], np.int64)[r.topic] for r in rows]
                           ) if rows else np.zeros(0, np.int64)
    sizes = np.asarray([len(r.topic) for r in rows], dtype=np.int64)
    run = np.repeat(np.arange(len(rows), dtype=np.int64), sizes)
    key = run * max(len(topics), 1) + topic
    order = np.argsort(key, kind="stable") if len(key) and np.any(np.diff(key) < 0) else None  # ranks stay in order
    docid = pa.chunked_array([r.docid for r in rows], pa.large_string()).combine_chunks() if rows else \
        pa.array([], pa.large_string())
    score = np.concatenate([r.score for r in rows]) if rows else np.zeros(0)
    if order is not None:
        key, topic, score, docid = key[order], topic[order], score[order], docid.take(pa.array(order))
    place, pool_topic, pool = _unique_sorted(topic, docid)
    first = np.flatnonzero(np.diff(key, prepend=-1)) if len(key) else np.zeros(0, np.int64)
    cell_key = key[first]
    return RankedPart(list(names), topics, np.append(first, len(key)).astype(np.int64),
                      (cell_key // max(len(topics), 1)).astype(np.int32),
                      (cell_key % max(len(topics), 1)).astype(np.int32), place.astype(np.int32), score,
                      offsets_from_counts(np.bincount(pool_topic, minlength=len(topics))), pool)


class PartArrays(Protocol):
    """A part's run names, topics and arrays (:data:`_MEMBERS`, ``pool`` for the
    documents), each fetched when asked for: a part in memory or one stored in a file."""

    runs: list[str]
    topics: list[str]

    def array(self, name: str) -> Any: ...


@dataclass(frozen=True)
class StoredPart:
    """A part kept in an ingestion part's ``.npz`` (its members named ``prefix`` + name):
    each array read when asked for."""

    path: str | Path
    runs: list[str]
    topics: list[str]
    prefix: str = PREFIX

    def array(self, name: str) -> Any:
        with load_npz(self.path) as stored:
            if name == "pool":
                return _strings(stored[self.prefix + "pool_offsets"], stored[self.prefix + "pool_bytes"])
            return stored[self.prefix + name]


def _global_pools(parts: Sequence[PartArrays], topics: list[str]
                  ) -> tuple[Callable[[int], np.ndarray], np.ndarray, pa.Array]:
    """Every part's pools merged: the merged pools' starts and documents, and a function
    giving part ``i``'s places in them (made when asked). The pools are merged one part
    at a time into the pools so far, so memory holds them and one part's, however many
    parts there are (a job's blocks: :mod:`irmeta.campaign.ingest_parts`)."""
    code = {t: i for i, t in enumerate(topics)}

    def keys(part: PartArrays) -> np.ndarray | None:
        topic = np.repeat(np.asarray([code[t] for t in part.topics], np.int64), np.diff(part.array("pool_start")))
        return _pool_keys(topic, part.array("pool"))

    merged = np.zeros(0, dtype="S4")
    for part in parts:
        new = keys(part)
        if new is None:  # a document ending in a NUL byte, which byte strings cannot tell apart
            return _pools_at_once(parts, topics)
        new = np.sort(new)
        merged, new = _widest(merged, new)
        at = np.searchsorted(merged, new)
        found = np.zeros(len(new), dtype=bool)
        inside = at < len(merged)
        found[inside] = merged[at[inside]] == new[inside]
        merged = np.insert(merged, at[~found], new[~found])  # sorted: the new keys in order, each before its place
    topic, pool = _of_keys(merged)

    def places(i: int) -> np.ndarray:
        mine = keys(parts[i])
        assert mine is not None
        return np.searchsorted(*_widest(merged, mine)).astype(np.int32)

    return places, offsets_from_counts(np.bincount(topic, minlength=len(topics))), pool


def _pool_keys(topic: np.ndarray, docid: pa.Array) -> np.ndarray | None:
    """Each (topic, document) as one byte string, the topic's code (4 bytes, big-endian)
    then the document's bytes, so that byte strings sort as (topic, document) pairs do in
    :func:`_unique_sorted`; None when a document is empty or ends in a NUL byte (numpy's
    byte strings drop trailing NULs; a run file's documents are neither)."""
    offsets, data = _string_buffers(docid)
    lengths = np.diff(offsets)
    if (lengths == 0).any() or (data[offsets[1:] - 1] == 0).any():
        return None
    n, width = len(lengths), 4 + int(lengths.max(initial=0))
    table = np.zeros((n, width), dtype=np.uint8)
    table[:, :4] = topic.astype(">u4").view(np.uint8).reshape(n, 4)
    for lo in range(0, n, _KEY_ROWS):  # a slice of rows at a time: the byte indices are 16 bytes a byte
        hi = min(n, lo + _KEY_ROWS)
        row = np.repeat(np.arange(lo, hi, dtype=np.int64), lengths[lo:hi])
        byte = np.arange(offsets[lo], offsets[hi], dtype=np.int64)
        table[row, 4 + byte - offsets[row]] = data[offsets[lo]:offsets[hi]]
    return table.view(f"S{width}").reshape(n)


_KEY_ROWS = 1 << 16


def _widest(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two byte-string arrays in the wider of their widths."""
    width = max(a.dtype.itemsize, b.dtype.itemsize)
    return a.astype(f"S{width}", copy=False), b.astype(f"S{width}", copy=False)


def _of_keys(keys: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """The topics and documents of :func:`_pool_keys`' byte strings."""
    n, width = len(keys), keys.dtype.itemsize
    table = keys.view(np.uint8).reshape(n, width)
    topic = table[:, :4].copy().view(">u4").reshape(n).astype(np.int64)
    lengths = np.char.str_len(keys).astype(np.int64) - 4 if n else np.zeros(0, np.int64)
    data = table[:, 4:][np.arange(width - 4) < lengths[:, None]]
    return topic, _strings(offsets_from_counts(lengths), data)


def _pools_at_once(parts: Sequence[PartArrays], topics: list[str]
                   ) -> tuple[Callable[[int], np.ndarray], np.ndarray, pa.Array]:
    """:func:`_global_pools` by one sort of every part's pools (memory follows them all),
    for documents :func:`_pool_keys` cannot hold."""
    code = {t: i for i, t in enumerate(topics)}
    mapped = [np.repeat(np.asarray([code[t] for t in p.topics], np.int64), np.diff(p.array("pool_start")))
              for p in parts]
    pools = [p.array("pool") for p in parts]
    place, pool_topic, pool = _unique_sorted(
        np.concatenate(mapped) if mapped else np.zeros(0, np.int64),
        pa.chunked_array(pools, pa.large_string()).combine_chunks() if pools else pa.array([], pa.large_string()))
    bounds = np.cumsum([0] + [len(p) for p in pools])
    maps = [place[lo:hi].astype(np.int32) for lo, hi in zip(bounds[:-1], bounds[1:])]
    return maps.__getitem__, offsets_from_counts(np.bincount(pool_topic, minlength=len(topics))), pool


@dataclass(frozen=True)
class _Cells:
    """A part's cells with global topic codes, each run's in global topic order;
    ``source``: where each document comes from in the part (None: in place)."""

    start: np.ndarray
    cell_run: np.ndarray
    cell_topic: np.ndarray
    source: np.ndarray | None


def _cells_in_global_order(part: PartArrays, topic_code: np.ndarray) -> _Cells:
    """Reordered only when the part's own topic order differs from the global one
    (numeric in the part, byte order over every part)."""
    start, cell_run = part.array("start"), part.array("cell_run")
    cell_topic = topic_code[part.array("cell_topic")].astype(np.int32)
    key = cell_run.astype(np.int64) * (len(topic_code) + 1) + cell_topic
    if not len(key) or np.all(np.diff(key) > 0):
        return _Cells(start, cell_run, cell_topic, None)
    order = np.argsort(key, kind="stable")
    lengths = np.diff(start)[order]
    new_start = offsets_from_counts(lengths)
    source = np.repeat(start[:-1][order] - new_start[:-1], lengths) + np.arange(int(new_start[-1]))
    return _Cells(new_start, cell_run[order], cell_topic[order], source)


def write_ranked(path: str | Path, parts: Sequence[PartArrays], settings: dict) -> None:
    """The parts (in shard order) merged into ``ranked.npz``: cells of every run, places
    in the merged pools, written part by part (one part's documents in memory at a
    time); ``settings`` (the depth, how the runs were read) recorded."""
    topics = sort_topics({t for p in parts for t in p.topics})
    places, pool_start, pool = _global_pools(parts, topics)
    code = {t: i for i, t in enumerate(topics)}
    cells = [_cells_in_global_order(p, np.asarray([code[t] for t in p.topics], np.int64)) for p in parts]
    runs = [name for p in parts for name in p.runs]
    run_at = np.cumsum([0] + [len(p.runs) for p in parts])
    n_cells = sum(len(c.cell_run) for c in cells)
    n_docs = sum(int(c.start[-1]) for c in cells)
    longest = max((int(np.diff(c.start).max(initial=0)) for c in cells), default=0)
    place_bits = bit_width(max(int(np.diff(pool_start).max(initial=1)) - 1, 0))
    coding = score_coding([ScoreSummary.of_array(p.array("score_summary")) for p in parts], n_docs, n_cells)

    def documents(name: str, i: int) -> np.ndarray:
        values = parts[i].array(name)
        values = values if cells[i].source is None else values[cells[i].source]
        if name != "place":
            return values
        # a place within its topic's pool: as many bits as the largest pool needs
        return places(i)[values] - np.repeat(pool_start[cells[i].cell_topic], np.diff(cells[i].start))

    def packed(values, width: int):
        writer = BitWriter(width)
        for piece in values:
            yield from writer.add(piece)
        yield writer.finish()

    def decimal_codes(i: int) -> np.ndarray:
        return codes(documents("score", i), coding.decimals)

    if coding.kind == "decimal":
        scores = [("score_first", np.dtype(np.int64), (n_cells,),
                   (decimal_codes(i)[c.start[:-1]] for i, c in enumerate(cells))),
                  ("score_falls", np.dtype(np.uint64), (word_count(n_docs, coding.fall_bits),),
                   packed((falls(decimal_codes(i), c.start) for i, c in enumerate(cells)), coding.fall_bits))]
    else:
        scores = [("score", np.dtype(coding.kind), (n_docs,), (documents("score", i) for i in range(len(parts))))]
    lengths, data = _string_lengths(pool)
    meta = np.frombuffer(json.dumps({"format": FORMAT, "runs": runs, "topics": topics, "settings": settings,
                                     "place_bits": place_bits, "score": coding.as_dict()}).encode(), np.uint8)
    atomic_stream_npz(path, [
        ("length", narrowest_type(longest), (n_cells,), [np.diff(c.start) for c in cells]),
        ("cell_run", narrowest_type(max(len(runs) - 1, 0)), (n_cells,),
         [c.cell_run + np.int64(at) for c, at in zip(cells, run_at)]),
        ("cell_topic", narrowest_type(max(len(topics) - 1, 0)), (n_cells,), [c.cell_topic for c in cells]),
        ("place", np.dtype(np.uint64), (word_count(n_docs, place_bits),),
         packed((documents("place", i) for i in range(len(parts))), place_bits)),
        *scores,
        ("pool_start", np.dtype(np.int64), pool_start.shape, [pool_start]),
        ("pool_length", lengths.dtype, lengths.shape, [lengths]),
        ("pool_bytes", np.dtype(np.uint8), data.shape, [data]),
        ("meta", np.dtype(np.uint8), meta.shape, [meta]),
    ])


def _string_lengths(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A string array's lengths in bytes (the narrowest integers) and bytes."""
    offsets, data = _string_buffers(strings)
    lengths = np.diff(offsets)
    return lengths.astype(narrowest_type(int(lengths.max(initial=0)))), data


def ranked_settings(path: str | Path) -> dict:
    """What ``ranked.npz`` records of how its rankings were read (its depth among them)."""
    with load_npz(path) as stored:
        return json.loads(stored["meta"].tobytes())["settings"]


def ranked_size(path: str | Path) -> tuple[int, int, int]:
    """How many documents, runs and topics ``ranked.npz`` holds."""
    with load_npz(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        return int(stored["length"].sum(dtype=np.int64)), len(meta["runs"]), len(meta["topics"])


def _cells_of(start: np.ndarray, lo: int, hi: int) -> tuple[int, int, np.ndarray]:
    """The cells holding documents ``lo``..``hi - 1`` (first and past-the-last), and
    each document's cell."""
    c0 = int(np.searchsorted(start, lo, side="right")) - 1
    c1 = int(np.searchsorted(start, hi, side="left"))
    bounds = np.clip(start[c0:c1 + 1], lo, hi)
    return c0, c1, np.repeat(np.arange(c0, c1, dtype=np.int64), np.diff(bounds))


@dataclass(frozen=True)
class StoredPlaces:
    """The documents' pool places, packed (``width`` bits each, within the topic's pool),
    decoded a slice at a time."""

    words: Any
    width: int
    start: np.ndarray
    cell_topic: np.ndarray
    pool_start: np.ndarray

    def __len__(self) -> int:
        return int(self.start[-1])

    def __getitem__(self, at: slice) -> np.ndarray:
        lo, hi, _ = at.indices(len(self))
        hi = max(hi, lo)
        _, _, cell = _cells_of(self.start, lo, hi)
        return unpack_bits(self.words, self.width, lo, hi) + self.pool_start[self.cell_topic[cell]]


@dataclass(frozen=True)
class StoredScores:
    """The documents' scores as decimal codes (each cell's first, then the falls packed
    at ``width`` bits), decoded a slice at a time."""

    first: np.ndarray
    words: Any
    width: int
    decimals: int
    start: np.ndarray

    def __len__(self) -> int:
        return int(self.start[-1])

    def __getitem__(self, at: slice) -> np.ndarray:
        lo, hi, _ = at.indices(len(self))
        if hi <= lo:
            return np.zeros(0)
        c0, c1, _ = _cells_of(self.start, lo, hi)
        s0 = int(self.start[c0])  # a cell's codes are found from its first
        fall = unpack_bits(self.words, self.width, s0, hi)
        score = scores_of_codes(self.first[c0:c1], fall, np.clip(self.start[c0:c1 + 1], s0, hi) - s0, self.decimals)
        return score[lo - s0:]


def read_ranked(path: str | Path, *, lazy: bool = False) -> tuple[dict, dict[str, Any], pa.Array]:
    """``ranked.npz``'s record (runs, topics, settings), its arrays (``place`` and ``score``
    left on disk when ``lazy``, decoded a slice at a time) and its pools' documents:
    :func:`irmeta.campaign.degrade_cells.load_ranked` makes them cells."""
    from irmeta.campaign.store import stored_members

    members = stored_members(path)
    meta = json.loads(np.asarray(members["meta"]).tobytes())
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: rankings stored by an earlier irmeta (format {meta.get('format', 1)}, this one "
                         f"reads {FORMAT}): remove it and ingest the collection again")
    lengths = np.asarray(members["pool_length"], np.int64)
    pool = _strings(offsets_from_counts(lengths), np.asarray(members["pool_bytes"]))
    arrays: dict[str, Any] = {"start": offsets_from_counts(np.asarray(members["length"], np.int64))}
    arrays |= {name: np.asarray(members[name], np.int64) for name in ("cell_run", "cell_topic", "pool_start")}

    def whole(values: Any) -> Any:
        return values if lazy else np.asarray(values)

    arrays["place"] = StoredPlaces(whole(members["place"]), meta["place_bits"], arrays["start"],
                                   arrays["cell_topic"], arrays["pool_start"])
    coding = ScoreCoding(**meta["score"])
    arrays["score"] = whole(members["score"]) if coding.kind != "decimal" else StoredScores(
        np.asarray(members["score_first"], np.int64), whole(members["score_falls"]), coding.fall_bits,
        coding.decimals, arrays["start"])
    if not lazy:
        arrays["place"] = arrays["place"][:]
        arrays["score"] = np.asarray(arrays["score"][:], np.float64)
    return meta, arrays, pool
