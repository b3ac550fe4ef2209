"""The pipeline's steps as library calls; workflow scripts are thin wrappers of these.

Each step reads its inputs once and writes its outputs atomically (a failure leaves
no partial file behind). The reading and scoring choices travel with the outputs, in
the Parquet metadata and in the tables' own columns.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Sequence

import pyarrow as pa

from . import io
from .metrics import Averaging, parse_measure, score_table
from .ranking import relevance_matrix

log = logging.getLogger("irmeta")


def progress_logger(stream=sys.stderr, every: int = 10):
    """A progress callback for :func:`irmeta.io.read_runs` that prints every ``every`` files."""

    def report(done: int, total: int, path: Path) -> None:
        if done == total or done % every == 0:
            print(f"[irmeta] read {done}/{total} run files ({path.name})", file=stream, flush=True)

    return report


def ingest_collection(
    *,
    qrels: str | Path,
    runs: str | Path | Sequence[str | Path],
    runs_out: str | Path,
    qrels_out: str | Path,
    depth: int | None = None,
    duplicates: io.DuplicatePolicy = "error",
    run_name: io.RunNameSource = "file",
    threads: int = 2,
) -> dict:
    """Read a collection's qrels and runs; write ``runs.parquet`` and ``qrels.parquet``.

    Returns a summary (counts, dropped duplicates, topics ignored) for the log.
    """
    q = io.read_qrels(qrels)
    r = io.read_runs(runs, depth=depth, duplicates=duplicates, run_name=run_name,
                     threads=threads, progress=progress_logger())
    qrels_topics = set(q.topics)
    shared = [t for t in r.topics if t in qrels_topics]
    if not shared:
        raise ValueError(f"the runs ({runs}) and the qrels ({qrels}) share no topic")
    io.write_qrels(q, qrels_out)
    io.write_runs(r, runs_out)
    summary = {
        "runs": r.n_runs,
        "rows": len(r),
        "qrels_topics": len(qrels_topics),
        "run_topics_not_in_qrels": sorted(set(r.topics) - qrels_topics),
        "dropped_duplicates": {k: v for k, v in r.dropped_duplicates.items() if v},
    }
    log.info("ingested %s", json.dumps(summary))
    return summary


def score_collection(
    *,
    runs: str | Path,
    qrels: str | Path,
    out: str | Path,
    measures: Sequence[str],
    threshold: int = 1,
    averaging: Sequence[Averaging] = ("all", "returned"),
    **options,
) -> None:
    """Score every run on every qrels topic; write the long ``scores.parquet`` table."""
    r = io.load_runs(runs)
    q = io.load_qrels(qrels)
    parsed = [parse_measure(m) for m in measures]
    cutoffs = [m.cutoff for m in parsed]
    depth = None if any(c is None for c in cutoffs) else max(cutoffs)
    matrix = relevance_matrix(r, q, depth=depth, threshold=threshold)
    table = score_table(matrix, parsed, averaging=averaging, **options)
    settings = {
        "relevance_threshold": threshold,
        "averaging": {mode: name for mode, name in
                      (("all", "all_topics: every qrels topic, missing ones score 0 (trec_eval -c)"),
                       ("returned", "returned_topics: topics the run returned (trec_eval default)"))
                      if mode in averaging},
        "runs": r.settings(),
        "ignored_topics": matrix.ignored_topics,
        "measures": [str(m) for m in parsed],
    }
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    io.write_table(arrow.replace_schema_metadata({"irmeta": json.dumps(settings)}), out)
