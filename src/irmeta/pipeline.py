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
from .metrics import Alpha, Averaging, alpha_label, parse_measure, score_table
from .rarity import rarity_listing
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


def matrix_depth(measures: Sequence[str], rarity_depth: int | None = None) -> int | None:
    """How deep the relevance matrix must go: the deepest cutoff and rarity depth
    (None: the runs' full depth, when a measure has no cutoff)."""
    cutoffs = [parse_measure(m).cutoff for m in measures]
    if any(c is None for c in cutoffs):
        return None
    return max(cutoffs + ([rarity_depth] if rarity_depth else []))


def score_collection(
    *,
    runs: str | Path,
    qrels: str | Path,
    out: str | Path,
    measures: Sequence[str],
    threshold: int = 1,
    averaging: Sequence[Averaging] = ("all", "returned"),
    alphas: Sequence[Alpha] = (0.0, 0.25, 0.5, 0.75, 1.0),
    rarity_depth: int | None = None,
    rarity_out: str | Path | None = None,
) -> None:
    """Score every run on every qrels topic; write the long ``scores.parquet`` table.

    ``rarity_depth``: the depth S_d is counted at (None: each measure's cutoff).
    ``rarity_out``: also write the rarity of every relevant document, counted at
    ``rarity_depth`` (or the largest cutoff) and at the runs' full depth.
    """
    r = io.load_runs(runs)
    q = io.load_qrels(qrels)
    parsed = [parse_measure(m) for m in measures]
    depth = matrix_depth([str(m) for m in parsed], rarity_depth)
    listing_depths: list[int] = []
    if rarity_out is not None:
        full = int(r.rank.max(initial=1))
        cut = rarity_depth or max([m.cutoff for m in parsed if m.cutoff] or [full])
        listing_depths = sorted({min(cut, full), full})
        depth = None  # the listing needs the full depth
    matrix = relevance_matrix(r, q, depth=depth, threshold=threshold)
    table = score_table(matrix, parsed, averaging=averaging, alphas=alphas, rarity_depth=rarity_depth)
    settings = {
        "relevance_threshold": threshold,
        "averaging": {mode: name for mode, name in
                      (("all", "all_topics: every qrels topic, missing ones score 0 (trec_eval -c)"),
                       ("returned", "returned_topics: topics the run returned (trec_eval default)"))
                      if mode in averaging},
        "alphas": [alpha_label(a) for a in alphas],
        "rarity_depth": rarity_depth if rarity_depth is not None else "the measure's cutoff",
        "n_systems": len(matrix.runs),
        "runs": r.settings(),
        "ignored_topics": matrix.ignored_topics,
        "measures": [str(m) for m in parsed],
    }
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    io.write_table(arrow.replace_schema_metadata({"irmeta": json.dumps(settings)}), out)
    if rarity_out is not None:
        listing = rarity_listing(matrix, listing_depths)
        meta = {"n_systems": len(matrix.runs), "depths": listing_depths, "relevance_threshold": threshold}
        arrow = pa.Table.from_pandas(listing, preserve_index=False)
        io.write_table(arrow.replace_schema_metadata({"irmeta": json.dumps(meta)}), rarity_out)
