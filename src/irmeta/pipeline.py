"""The pipeline's steps as library calls; workflow scripts are thin wrappers of these.

Each step reads its inputs once and writes its outputs atomically (a failure leaves
no partial file behind). The reading and scoring choices travel with the outputs, in
the Parquet metadata and in the tables' own columns.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Sequence

import pandas as pd
import pyarrow as pa

from . import io
from .metrics import Alpha, Averaging, alpha_label, parse_measure, score_table
from .rarity import rarity_listing
from .ranking import relevance_matrix

log = logging.getLogger("irmeta")


def log_to(path: str | Path) -> logging.Logger:
    """Send standard error (progress, warnings, tracebacks) and logging to a rule's log file."""
    with open(path, "w", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return log


def run_script(main, smk) -> None:
    """Run a workflow script's ``main``; a known input fault ends it with one line in the
    log (file, line and what is wrong) instead of a traceback."""
    from .download import DownloadError

    try:
        main(smk)
    except (io.TrecFormatError, FileNotFoundError, ValueError, DownloadError) as exc:
        log.error("irmeta: error: %s", exc)
        print(f"irmeta: error: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


def progress_logger(stream=None, every: int = 10):
    """A progress callback for :func:`irmeta.io.read_runs` that prints every ``every`` files."""

    def report(done: int, total: int, path: Path) -> None:
        if done == total or done % every == 0:
            print(f"[irmeta] read {done}/{total} run files ({path.name})", file=stream or sys.stderr, flush=True)

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
        where = Path(r.files[0]).parent if r.files else runs
        raise ValueError(f"the runs ({len(r.files)} files in {where}) and the qrels ({qrels}) share no topic")
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
    measure_options: dict | None = None,
) -> None:
    """Score every run on every qrels topic; write the long ``scores.parquet`` table.

    ``rarity_depth``: the depth S_d is counted at (None: each measure's cutoff); S is
    the number of runs of the collection. ``measure_options`` (gains, beta,
    asl_unretrieved) go to the measures that read them.
    """
    measure_options = {k: v for k, v in (measure_options or {}).items() if v is not None}
    r = io.load_runs(runs)
    q = io.load_qrels(qrels)
    parsed = [parse_measure(m) for m in measures]
    matrix = relevance_matrix(r, q, depth=matrix_depth([str(m) for m in parsed], rarity_depth),
                              threshold=threshold)
    table = score_table(matrix, parsed, averaging=averaging, alphas=alphas, rarity_depth=rarity_depth,
                        **measure_options)
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
        "measure_options": measure_options,
    }
    write_frame(table, out, settings)


def rarity_collection(
    *,
    runs: str | Path,
    qrels: str | Path,
    out: str | Path,
    depths: Sequence[int | None],
    threshold: int = 1,
) -> None:
    """Write ``rarity.parquet``: S_d, R(d), R'(d) of every relevant document, counted at
    each of ``depths`` (None: the runs' full depth), one row per document and depth."""
    r = io.load_runs(runs)
    q = io.load_qrels(qrels)
    full = int(r.rank.max(initial=1))
    resolved = sorted({full if d is None else min(int(d), full) for d in depths})
    matrix = relevance_matrix(r, q, depth=max(resolved), threshold=threshold)
    listing = rarity_listing(matrix, resolved)
    write_frame(listing, out, {"n_systems": len(matrix.runs), "depths": resolved,
                               "relevance_threshold": threshold, "runs_full_depth": full})


def write_frame(frame: pd.DataFrame, out: str | Path, settings: dict) -> None:
    """A DataFrame to Parquet, atomically, with the settings that produced it as metadata."""
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    io.write_table(arrow.replace_schema_metadata({"irmeta": json.dumps(settings)}), out)


def write_csv(frame: pd.DataFrame, out: str | Path) -> None:
    """A table as CSV, atomically, with fixed formatting (same inputs, same bytes)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        frame.to_csv(tmp, index=False, lineterminator="\n")
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def shard_trials(total: int, shards: int, index: int) -> range:
    """Trials of shard ``index`` when ``total`` trials are split into ``shards`` parts."""
    if not 0 <= index < shards:
        raise ValueError(f"shard {index} is not in 0..{shards - 1}")
    bounds = [total * i // shards for i in range(shards + 1)]
    return range(bounds[index], bounds[index + 1])


def load_matrix(runs: str | Path, qrels: str | Path, *, threshold: int, depth: int | None):
    """The relevance matrix of an ingested collection."""
    return relevance_matrix(io.load_runs(runs), io.load_qrels(qrels), depth=depth, threshold=threshold)
