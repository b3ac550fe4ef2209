"""The pipeline's steps as library calls; workflow scripts are thin wrappers of these.

Each step reads its inputs once and writes its outputs atomically (a failure leaves
no partial file behind). The reading and scoring choices travel with the outputs, in
the Parquet metadata and in the tables' own columns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from irmeta.campaign.judge import judge_runs
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.rarity import rarity_listing
from irmeta.campaign.runs import DuplicatePolicy, RunNameSource
from irmeta.campaign.store import load_matrix, matrix_settings, save_matrix
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import Averaging, score_arrays
from irmeta.measures.names import parse_measure
from irmeta.pipeline.scripts import log, progress_logger
from irmeta.pipeline.stored_scores import scores_arrow_blocks, write_frame, write_scores, write_table_in_blocks


def ingest_collection(
    *,
    qrels: str | Path,
    runs: str | Path | Sequence[str | Path],
    out: str | Path,
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    run_name: RunNameSource = "file",
    threshold: int = 1,
    threads: int = 2,
) -> dict:
    """Read a collection's qrels and runs once; write ``judged.npz``, the judged documents
    every run retrieved (:func:`irmeta.campaign.store.save_matrix`), which every later step loads.

    Returns a summary (counts, dropped duplicates, topics ignored) for the log.
    """
    q = read_qrels(qrels)
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
