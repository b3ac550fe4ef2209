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
Format 1 (every array at its width in memory) still loads.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.support.atomic import atomic_save_npz

FORMAT = 2
_SIDES = ("hits", "misses")
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


def encode_postings(postings: Postings, qrels_topic: np.ndarray, n_topics: int) -> dict[str, np.ndarray]:
    """One side's postings as the arrays of format 2 (names without the side's prefix)."""
    counts = postings.counts
    cell = postings.cell
    rank = postings.rank.astype(np.int64)
    topic = cell % n_topics
    by_topic, first = _topic_places(qrels_topic, n_topics)
    place = np.empty(len(by_topic), dtype=np.int64)
    place[by_topic] = np.arange(len(by_topic), dtype=np.int64)
    local = place[postings.judgment] - first[topic]
    if len(local) and (local.min() < 0 or (local >= np.diff(first)[topic]).any()):
        raise ValueError("a posting is judged by a qrels row of another topic")
    starts = postings.start[:-1][counts > 0]
    is_first = np.zeros(len(rank), dtype=bool)
    is_first[starts] = True
    steps = np.diff(rank, prepend=0)[~is_first]
    if len(steps) and steps.min() < 1:
        raise ValueError("ranks do not ascend within a cell")
    # Steps are at least 1, so 0 marks one too long for a byte, found in rank_step_wide.
    wide = steps > np.iinfo(np.uint8).max
    return {"counts": narrowest(counts), "rank_first": narrowest(rank[starts]),
            "rank_step": np.where(wide, 0, steps).astype(np.uint8), "rank_step_wide": narrowest(steps[wide]),
            "judgment_place": narrowest(local)}


def decode_postings(stored, prefix: str, qrels_topic: np.ndarray, n_topics: int) -> Postings:
    """The postings :func:`encode_postings` stored under ``prefix``, as they were."""
    counts = stored[f"{prefix}_counts"].astype(np.int64)
    start = offsets_from_counts(counts)
    n = int(start[-1])
    nonempty = counts > 0
    starts = start[:-1][nonempty]
    # Steps summed along the whole array, less the sum before each cell: int32 sums may
    # wrap, but each difference is a rank, below 2^31, so it comes out exact.
    step = np.empty(n, dtype=np.int32)
    is_first = np.zeros(n, dtype=bool)
    is_first[starts] = True
    step[starts] = stored[f"{prefix}_rank_first"]
    steps = stored[f"{prefix}_rank_step"].astype(np.int32)
    steps[steps == 0] = stored[f"{prefix}_rank_step_wide"]
    step[~is_first] = steps
    with np.errstate(over="ignore"):
        total = np.cumsum(step, dtype=np.int32)
        before = total[starts] - step[starts]
        rank = total - np.repeat(before, counts[nonempty])
    by_topic, first = _topic_places(qrels_topic, n_topics)
    topic_first = np.tile(first[:-1], len(counts) // max(n_topics, 1))
    place = np.repeat(topic_first[nonempty], counts[nonempty]) + stored[f"{prefix}_judgment_place"]
    return Postings(start, rank, by_topic[place].astype(np.int32))


def save_matrix(matrix: RelevanceMatrix, path: str | Path, settings: dict | None = None) -> None:
    """Write the matrix as one uncompressed ``.npz`` (each array loads on its own, so a
    job reading the hits never reads the misses), atomically, with ``settings`` (how
    the runs were read) for the record."""
    path = Path(path)
    docid = matrix.docids.cast(pa.large_binary())
    offsets = np.frombuffer(docid.buffers()[1], dtype=np.int64)[docid.offset:docid.offset + len(docid) + 1]
    data = np.frombuffer(docid.buffers()[2], dtype=np.uint8) if docid.buffers()[2] else np.zeros(0, np.uint8)
    meta = {"format": FORMAT, "runs": matrix.runs, "topics": matrix.topics, "threshold": matrix.threshold,
            "run_depth": matrix.run_depth, "ignored_topics": matrix.ignored_topics, "settings": settings or {}}
    arrays = {"length": narrowest(matrix.length), "qrels_topic": narrowest(matrix.qrels_topic),
              "qrels_grade": narrowest(matrix.qrels_grade), "docid_lengths": narrowest(np.diff(offsets)),
              "docid_bytes": data[offsets[0]:offsets[-1]]}
    for side, postings in (("hits", matrix.hits), ("misses", matrix.misses)):
        encoded = encode_postings(postings, matrix.qrels_topic, matrix.n_topics)
        arrays |= {f"{side}_{name}": values for name, values in encoded.items()}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_save_npz(path, arrays)


def matrix_settings(path: str | Path) -> dict:
    """What :func:`save_matrix` recorded: runs, topics, threshold, depth, reading settings."""
    with np.load(path) as stored:
        return json.loads(stored["meta"].tobytes())


def stored_postings(path: str | Path) -> int:
    """How many judged postings (relevant and other) the stored campaign holds."""
    with np.load(path) as stored:
        if "hits_rank" in stored:  # format 1
            return len(stored["hits_rank"]) + len(stored["misses_rank"])
        return sum(int(stored[f"{side}_counts"].sum(dtype=np.int64)) for side in _SIDES)


def load_matrix(path: str | Path) -> RelevanceMatrix:
    """A matrix written by :func:`save_matrix`: the hits and the lengths now, the misses
    when first used, each array in the type the measures read."""
    path = Path(path)
    with np.load(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        n_topics = len(meta["topics"])
        qrels_topic = stored["qrels_topic"].astype(np.int64)
        qrels_grade = stored["qrels_grade"].astype(np.int64)
        length = stored["length"].astype(np.int32)
        if "hits_rank" in stored:  # format 1
            hits = Postings(stored["hits_start"], stored["hits_rank"], stored["hits_judgment"])
            offsets = stored["docid_offsets"]
        else:
            hits = decode_postings(stored, "hits", qrels_topic, n_topics)
            offsets = offsets_from_counts(stored["docid_lengths"].astype(np.int64))
        data = stored["docid_bytes"]
    docids = pa.Array.from_buffers(pa.large_string(), len(offsets) - 1,
                                   [None, pa.py_buffer(offsets), pa.py_buffer(data)])

    def misses() -> Postings:
        with np.load(path) as stored:
            if "misses_rank" in stored:
                return Postings(stored["misses_start"], stored["misses_rank"], stored["misses_judgment"])
            return decode_postings(stored, "misses", qrels_topic, n_topics)

    return RelevanceMatrix(
        runs=list(meta["runs"]), topics=list(meta["topics"]), length=length, hits=hits, misses_loader=misses,
        threshold=int(meta["threshold"]), qrels_topic=qrels_topic, qrels_grade=qrels_grade, docids=docids,
        run_depth=meta["run_depth"], ignored_topics={k: list(v) for k, v in meta["ignored_topics"].items()},
    )
