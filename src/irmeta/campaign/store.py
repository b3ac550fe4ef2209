"""The campaign on disk: ``judged.npz``, written once at ingestion and loaded by every
later job in milliseconds (each array loads on its own).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.postings import Postings, RelevanceMatrix
from irmeta.support.atomic import atomic_save_npz

_ARRAYS = ("length", "hits_start", "hits_rank", "hits_judgment", "misses_start", "misses_rank",
           "misses_judgment", "qrels_topic", "qrels_grade", "docid_offsets", "docid_bytes")


def save_matrix(matrix: RelevanceMatrix, path: str | Path, settings: dict | None = None) -> None:
    """Write the matrix as one uncompressed ``.npz`` (each array loads on its own, so a
    job reading the hits never reads the misses), atomically, with ``settings`` (how
    the runs were read) for the record."""
    path = Path(path)
    docid = matrix.docids.cast(pa.large_binary())
    offsets = np.frombuffer(docid.buffers()[1], dtype=np.int64)[docid.offset:docid.offset + len(docid) + 1]
    data = np.frombuffer(docid.buffers()[2], dtype=np.uint8) if docid.buffers()[2] else np.zeros(0, np.uint8)
    meta = {"runs": matrix.runs, "topics": matrix.topics, "threshold": matrix.threshold,
            "run_depth": matrix.run_depth, "ignored_topics": matrix.ignored_topics, "settings": settings or {}}
    arrays = {
        "length": matrix.length, "hits_start": matrix.hits.start, "hits_rank": matrix.hits.rank,
        "hits_judgment": matrix.hits.judgment, "misses_start": matrix.misses.start,
        "misses_rank": matrix.misses.rank, "misses_judgment": matrix.misses.judgment,
        "qrels_topic": matrix.qrels_topic, "qrels_grade": matrix.qrels_grade,
        "docid_offsets": offsets - offsets[0], "docid_bytes": data[offsets[0]:offsets[-1]],
        "meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8),
    }
    atomic_save_npz(path, arrays)


def matrix_settings(path: str | Path) -> dict:
    """What :func:`save_matrix` recorded: runs, topics, threshold, depth, reading settings."""
    with np.load(path) as stored:
        return json.loads(stored["meta"].tobytes())


def load_matrix(path: str | Path) -> RelevanceMatrix:
    """A matrix written by :func:`save_matrix`: the hits and the lengths now, the misses
    when first used."""
    path = Path(path)
    with np.load(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        hits = Postings(stored["hits_start"], stored["hits_rank"], stored["hits_judgment"])
        length = stored["length"]
        qrels_topic, qrels_grade = stored["qrels_topic"], stored["qrels_grade"]
        offsets, data = stored["docid_offsets"], stored["docid_bytes"]
    docids = pa.Array.from_buffers(pa.large_string(), len(offsets) - 1,
                                   [None, pa.py_buffer(offsets), pa.py_buffer(data)])

    def misses() -> Postings:
        with np.load(path) as stored:
            return Postings(stored["misses_start"], stored["misses_rank"], stored["misses_judgment"])

    return RelevanceMatrix(
        runs=list(meta["runs"]), topics=list(meta["topics"]), length=length, hits=hits, misses_loader=misses,
        threshold=int(meta["threshold"]), qrels_topic=qrels_topic, qrels_grade=qrels_grade, docids=docids,
        run_depth=meta["run_depth"], ignored_topics={k: list(v) for k, v in meta["ignored_topics"].items()},
    )
