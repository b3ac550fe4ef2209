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

import numpy as np

from . import io
from .metrics import Alpha, Averaging, Scores, alpha_label, parse_measure, score_arrays
from .rarity import rarity_listing
from .ranking import judge_runs, load_matrix, matrix_settings, save_matrix

log = logging.getLogger("irmeta")


def log_to(path: str | Path) -> logging.Logger:
    """Send standard error (progress, warnings, tracebacks) and logging to a rule's log file."""
    with open(path, "w", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)  # a byte-order mark dropped, and the like, in the log too
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
    out: str | Path,
    depth: int | None = None,
    duplicates: io.DuplicatePolicy = "error",
    run_name: io.RunNameSource = "file",
    threshold: int = 1,
    threads: int = 2,
) -> dict:
    """Read a collection's qrels and runs once; write ``judged.npz``, the judged documents
    every run retrieved (:func:`irmeta.ranking.save_matrix`), which every later step loads.

    Returns a summary (counts, dropped duplicates, topics ignored) for the log.
    """
    q = io.read_qrels(qrels)
    matrix, reading = judge_runs(runs, q, depth=depth, threshold=threshold, duplicates=duplicates,
                                 run_name=run_name, threads=threads, progress=progress_logger())
    if not matrix.length.any():
        where = Path(reading["files"][0]).parent if reading["files"] else runs
        raise ValueError(f"the runs ({len(reading['files'])} files in {where}) and the qrels ({qrels}) share no topic")
    summary = {
        "runs": matrix.n_runs,
        "documents": int(matrix.length.sum()),
        "relevant_retrieved": len(matrix.hits),
        "other_judged_retrieved": len(matrix.misses),
        "qrels_topics": matrix.n_topics,
        "run_topics_not_in_qrels": sorted({t for ts in matrix.ignored_topics.values() for t in ts}),
        "dropped_duplicates": reading["dropped_duplicates"],
    }
    save_matrix(matrix, out, dict(reading, qrels=str(qrels), relevance_threshold=threshold))
    log.info("ingested %s", json.dumps(summary))
    return summary


def score_collection(
    *,
    matrix: str | Path,
    out: str | Path,
    arrays_out: str | Path,
    measures: Sequence[str],
    averaging: Sequence[Averaging] = ("all", "returned"),
    alphas: Sequence[Alpha] = (0.0, 0.25, 0.5, 0.75, 1.0),
    rarity_depth: int | None = None,
    measure_options: dict | None = None,
) -> None:
    """Score every run on every qrels topic: the long ``scores.parquet`` table for people,
    and ``scores.npz`` (per-topic matrices and means) for the experiments.

    ``rarity_depth``: the depth S_d is counted at (None: each measure's cutoff); S is
    the number of runs of the collection. ``measure_options`` (gains, beta,
    asl_unretrieved) go to the measures that read them.
    """
    measure_options = {k: v for k, v in (measure_options or {}).items() if v is not None}
    m = load_matrix(matrix)
    parsed = [parse_measure(name) for name in measures]
    scores = score_arrays(m, parsed, averaging=averaging, alphas=alphas, rarity_depth=rarity_depth,
                          **measure_options)
    settings = {
        "relevance_threshold": m.threshold,
        "averaging": {mode: name for mode, name in
                      (("all", "all_topics: every qrels topic, missing ones score 0 (trec_eval -c)"),
                       ("returned", "returned_topics: topics the run returned (trec_eval default)"))
                      if mode in averaging},
        "alphas": [alpha_label(a) for a in alphas],
        "rarity_depth": rarity_depth if rarity_depth is not None else "the measure's cutoff",
        "n_systems": m.n_runs,
        "runs": matrix_settings(matrix)["settings"],
        "ignored_topics": m.ignored_topics,
        "measures": [str(x) for x in parsed],
        "measure_options": measure_options,
    }
    write_scores(scores, arrays_out, settings)
    write_table_in_blocks(scores_arrow_blocks(scores), out, settings)


def rarity_collection(*, matrix: str | Path, out: str | Path, depths: Sequence[int | None]) -> None:
    """Write ``rarity.parquet``: S_d, R(d), R'(d) of every relevant document, counted at
    each of ``depths`` (None: the runs' full depth), one row per document and depth."""
    m = load_matrix(matrix)
    full = m.run_depth or m.depth
    resolved = sorted({full if d is None else min(int(d), full) for d in depths})
    listing = rarity_listing(m, resolved)
    write_frame(listing, out, {"n_systems": m.n_runs, "depths": resolved,
                               "relevance_threshold": m.threshold, "runs_full_depth": full})


# ------------------------------------------------------------------ scores on disk


def write_scores(scores: Scores, path: str | Path, settings: dict) -> None:
    """``scores.npz``: one array per block of per-topic scores (a job loads the blocks it
    needs), the means, the labels and the settings; atomically."""
    arrays = {f"per_topic_{i}": block for i, block in enumerate(scores.per_topic)}
    arrays |= {f"mean_{name}": means for name, means in scores.means.items()}
    meta = {"runs": scores.runs, "topics": scores.topics, "measures": scores.measures, "alphas": scores.alphas,
            "averaging": list(scores.means), "settings": settings}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    io.atomic_save_npz(path, arrays)


def load_scores(path: str | Path, measures: Sequence[str] | None = None,
                alphas: Sequence[Alpha] | None = None) -> Scores:
    """Scores written by :func:`write_scores`: every block, or those of ``measures`` (and,
    for measures with one, ``alphas``); only those blocks are read."""
    wanted_alphas = None if alphas is None else {alpha_label(a) for a in alphas}
    with np.load(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        keep = [i for i, (m, a) in enumerate(zip(meta["measures"], meta["alphas"]))
                if (measures is None or m in measures) and (a is None or wanted_alphas is None or a in wanted_alphas)]
        n_runs, n_topics = len(meta["runs"]), len(meta["topics"])
        per_topic = np.stack([stored[f"per_topic_{i}"] for i in keep]) if keep else np.zeros((0, n_runs, n_topics))
        means = {name: stored[f"mean_{name}"][keep] for name in meta["averaging"]}
    return Scores(runs=meta["runs"], topics=meta["topics"], measures=[meta["measures"][i] for i in keep],
                  alphas=[meta["alphas"][i] for i in keep], per_topic=per_topic, means=means)


def scores_arrow_blocks(scores: Scores):
    """The long scores table (as :meth:`Scores.to_frame`) as Arrow tables, one per block,
    with dictionary-encoded names: never the whole table in memory at once."""
    n_runs, n_topics = len(scores.runs), len(scores.topics)
    runs = pa.array(scores.runs, pa.string())
    qids = pa.array(scores.topics + ["all"], pa.string())
    measures = pa.array(list(dict.fromkeys(scores.measures)), pa.string())
    labels = sorted({a for a in scores.alphas if a is not None})
    alphas = pa.array(labels, pa.string())
    averaging = pa.array(list(scores.means), pa.string())
    run_codes = np.repeat(np.arange(n_runs, dtype=np.int32), n_topics)
    qid_codes = np.tile(np.arange(n_topics, dtype=np.int32), n_runs)

    def column(codes, dictionary, valid=True):
        mask = None if valid else np.ones(len(codes), dtype=bool)
        return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32(), mask=mask), dictionary)

    for i, (measure, alpha) in enumerate(zip(scores.measures, scores.alphas)):
        m_code = measures.index(measure).as_py()
        a_code = labels.index(alpha) if alpha is not None else 0
        parts = [(run_codes, qid_codes, scores.per_topic[i].reshape(-1), None)]
        parts += [(np.arange(n_runs, dtype=np.int32), np.full(n_runs, n_topics, np.int32), means[i], j)
                  for j, means in enumerate(scores.means.values())]
        for r, q, value, mode in parts:
            n = len(value)
            yield pa.table({
                "run": column(r, runs), "qid": column(q, qids),
                "measure": column(np.full(n, m_code, np.int32), measures),
                "alpha": column(np.full(n, a_code, np.int32), alphas, alpha is not None),
                "value": pa.array(value, pa.float64()),
                "averaging": column(np.full(n, mode or 0, np.int32), averaging, mode is not None),
            })


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


def write_table_in_blocks(blocks, out: str | Path, settings: dict) -> None:
    """Arrow tables of one schema to one Parquet file, block by block, atomically, with
    the settings that produced them as metadata."""
    import pyarrow.parquet as pq

    with io.atomic_path(out) as tmp:
        writer = None
        for block in blocks:
            block = block.replace_schema_metadata({"irmeta": json.dumps(settings)})
            if writer is None:
                writer = pq.ParquetWriter(tmp, block.schema, compression="zstd")
            writer.write_table(block)
        if writer is not None:
            writer.close()
