"""The pipeline's steps as library calls; workflow scripts are thin wrappers of these.

Each step reads its inputs once and writes its outputs atomically (a failure leaves
no partial file behind). The reading and scoring choices travel with the outputs, in
the Parquet metadata and in the tables' own columns.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from irmeta.campaign.files import resolve_paths
from irmeta.campaign.ingest_parts import (
    DEFAULT_MEMORY_BUDGET_MB,
    MergedParts,
    check_budget,
    compact_run,
    merge_parts,
    ranked_parts,
    reading_plan,
    write_part,
)
from irmeta.campaign.judge import ignored_topics_warnings, judged_in_order, qrels_topics_of_rows
from irmeta.campaign.qrels import Qrels
from irmeta.campaign.qrels_formats import read_qrels_as
from irmeta.campaign.ranked_store import write_ranked
from irmeta.campaign.rarity import rarity_listing
from irmeta.campaign.run_blocks import read_run_pieces
from irmeta.campaign.runs import (
    DuplicatePolicy,
    RunFile,
    RunNameSource,
    ScorePrecision,
    check_same_runs,
    check_score_precision,
    read_run_file,
)
from irmeta.campaign.store import load_matrix, matrix_settings, write_store
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import (
    AVERAGING_NAMES,
    Averaging,
    Scores,
    block_means,
    geometric_means,
    score_arrays,
)
from irmeta.measures.names import Measure, as_measure, parse_measure
from irmeta.pipeline.scripts import log, progress_logger, shard_trials
from irmeta.pipeline.stored_scores import scores_arrow_blocks, write_frame, write_scores, write_table_in_blocks
from irmeta.support.atomic import scratch_beside

if TYPE_CHECKING:
    from irmeta.measures.score_files import ScoreRows


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
    score_precision: ScorePrecision = "double",
    ranked_depth: int | None = None,
    ranked_out: str | Path | None = None,
    memory_budget: float | None = None,
    block_files: int | None = None,
    block_lines: int | None = None,
    qrels_format: str = "trec",
) -> dict:
    """Read a collection's qrels and runs once; write ``judged.npz``, the judged documents
    every run retrieved (:func:`irmeta.campaign.store.write_store`), which every later step loads.
    ``score_precision``: the scores the order, and so the stored ranks, are taken on
    (recorded in it with the other reading settings). With ``ranked_out``, the runs'
    rankings down to ``ranked_depth`` too (``ranked.npz``, :mod:`irmeta.campaign.ranked_store`),
    read in the same pass, for the degraded reproductions.

    The runs are read as one shard (:func:`ingest_shard`) into a temporary part beside
    ``out``, merged into the stores as the shards' parts are (:func:`merge_ingested`):
    memory stays within ``memory_budget`` (MB, default
    :data:`~irmeta.campaign.ingest_parts.DEFAULT_MEMORY_BUDGET_MB`) whatever the runs,
    and the bytes are those of any number of shards. ``block_files``, ``block_lines``:
    smaller blocks than the budget's (:func:`~irmeta.campaign.ingest_parts.reading_plan`).

    Returns a summary (counts, dropped duplicates, topics ignored) for the log.
    """
    kept_depth = None if ranked_out is None else _ranked_depth(ranked_depth)
    out = Path(out)
    with scratch_beside(out) as part:
        q = _ingest_part(qrels, resolve_paths(runs), part, depth=depth, duplicates=duplicates, run_name=run_name,
                         threshold=threshold, threads=threads, score_precision=score_precision,
                         ranked_depth=kept_depth, memory_budget=memory_budget, block_files=block_files,
                         block_lines=block_lines, qrels_format=qrels_format)
        return _merge(q, qrels, [part], out, depth=depth, duplicates=duplicates, run_name=run_name,
                      threshold=threshold, score_precision=score_precision, ranked_depth=kept_depth,
                      ranked_out=ranked_out)


def _ranked_depth(ranked_depth: int | None) -> int:
    if ranked_depth is None or ranked_depth < 1:
        raise ValueError(f"the rankings' depth must be a positive integer, not {ranked_depth}")
    return ranked_depth


def _ranked_settings(depth: int | None, duplicates: DuplicatePolicy, run_name: RunNameSource,
                     score_precision: ScorePrecision, ranked_depth: int | None) -> dict:
    """What ``ranked.npz`` records: its depth (the runs' when shallower) and how the runs were read."""
    return {"depth": min(d for d in (depth, ranked_depth) if d is not None), "duplicates": duplicates,
            "run_name": run_name, "score_precision": score_precision}


def _ingested_summary(read: MergedParts, hits: int, misses: int, reading: dict,
                      runs: str | Path | Sequence[str | Path], qrels: str | Path) -> dict:
    """What the log records of an ingestion; runs and qrels sharing no topic refused."""
    if not read.length.any():
        where = Path(reading["files"][0]).parent if reading["files"] else runs
        raise ValueError(f"the runs ({len(reading['files'])} files in {where}) and the qrels ({qrels}) share no topic")
    return {
        "runs": len(read.runs),
        "documents": int(read.length.sum(dtype=np.int64)),
        "relevant_retrieved": hits,
        "other_judged_retrieved": misses,
        "qrels_topics": read.length.shape[1],
        "run_topics_not_in_qrels": sorted({t for ts in read.ignored_topics.values() for t in ts}),
        "dropped_duplicates": reading["dropped_duplicates"],
    }


def _ingested(summary: dict, read: MergedParts, reading: dict, qrels: str | Path) -> dict:
    """The topics the qrels lack warned about in the job's log, and the summary logged."""
    for line in ignored_topics_warnings(read, reading["files"], qrels):
        print(f"irmeta: warning: {line}", file=sys.stderr, flush=True)  # the job's log, as the CLI says it
    log.info("ingested %s", json.dumps(summary))
    return summary


def _part_settings(qrels: str | Path, depth: int | None, duplicates: DuplicatePolicy, run_name: RunNameSource,
                   threshold: int, score_precision: ScorePrecision, ranked_depth: int | None) -> dict:
    """What every part of one campaign is read with (the rankings' depth: None when kept
    not); the merge refuses a part made otherwise."""
    return {"qrels": str(qrels), "depth": depth, "duplicates": duplicates, "run_name": run_name,
            "relevance_threshold": threshold, "score_precision": score_precision, "ranked_depth": ranked_depth}


def ingest_shard(
    *,
    qrels: str | Path,
    runs: str | Path | Sequence[str | Path],
    out: str | Path,
    shard: int,
    shards: int,
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    run_name: RunNameSource = "file",
    threshold: int = 1,
    threads: int = 2,
    score_precision: ScorePrecision = "double",
    ranked_depth: int | None = None,
    memory_budget: float | None = None,
    block_files: int | None = None,
    block_lines: int | None = None,
    qrels_format: str = "trec",
) -> int:
    """Shard ``shard`` of ``shards`` of a sharded ingestion: its contiguous slice of the
    run files (in :func:`irmeta.campaign.files.resolve_paths` order) read once, judged,
    and written as a part (:func:`irmeta.campaign.ingest_parts.write_part`) for
    :func:`merge_ingested`; with ``ranked_depth``, the part keeps the runs' rankings down
    to it. Memory stays within ``memory_budget`` (MB) whatever the files: they are read,
    judged and encoded a block at a time, each block written to the part as it is done
    (:func:`~irmeta.campaign.ingest_parts.reading_plan`). Returns the number of runs in
    the part."""
    files = resolve_paths(runs)
    mine = [files[i] for i in shard_trials(len(files), shards, shard)]
    _ingest_part(qrels, mine, out, depth=depth, duplicates=duplicates, run_name=run_name, threshold=threshold,
                 threads=threads, score_precision=score_precision,
                 ranked_depth=None if ranked_depth is None else _ranked_depth(ranked_depth),
                 memory_budget=memory_budget, block_files=block_files, block_lines=block_lines,
                 qrels_format=qrels_format)
    log.info("shard %d of %d: %d of %d run files", shard, shards, len(mine), len(files))
    return len(mine)


def _ingest_part(qrels: str | Path, files: Sequence[Path], out: str | Path, *, depth: int | None,
                 duplicates: DuplicatePolicy, run_name: RunNameSource, threshold: int, threads: int,
                 score_precision: ScorePrecision, ranked_depth: int | None, memory_budget: float | None,
                 block_files: int | None, block_lines: int | None, qrels_format: str = "trec") -> Qrels:
    """``files`` read into a part at ``out`` within the memory budget; the qrels read."""
    from irmeta.support.memory import qrels_held_mb, resident_mb

    check_score_precision(score_precision)
    budget = DEFAULT_MEMORY_BUDGET_MB if memory_budget is None else memory_budget
    check_budget(qrels, budget)  # before anything is read
    q = read_qrels_as(qrels, qrels_format)
    settings = _part_settings(qrels, depth, duplicates, run_name, threshold, score_precision, ranked_depth)
    plan = reading_plan(files, qrels, budget_mb=budget, fixed_mb=max(qrels_held_mb(qrels), resident_mb()),
                        threads=threads, block_files=block_files, block_lines=block_lines)
    log.info("reading %d run file(s): %s", len(files), plan.describe(files))

    def read(path: Path) -> RunFile:
        return read_run_file(path, run_name, depth, duplicates, score_precision)

    def pieces(path: Path) -> Iterator[RunFile]:
        return read_run_pieces(path, run_name, depth, duplicates, score_precision, lines=plan.block_lines)

    judged = judged_in_order(files, read, q, depth=depth, threshold=threshold, threads=plan.threads,
                             progress=progress_logger(), ranked_depth=ranked_depth, finish=compact_run(q),
                             pieces=pieces, in_pieces=plan.in_pieces) if files else iter(())
    write_part(out, judged, q, settings, block_mb=plan.block_mb, block_files=plan.block_files)
    return q


def merge_ingested(
    *,
    qrels: str | Path,
    parts: Sequence[str | Path],
    out: str | Path,
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    run_name: RunNameSource = "file",
    threshold: int = 1,
    score_precision: ScorePrecision = "double",
    ranked_depth: int | None = None,
    ranked_out: str | Path | None = None,
    qrels_format: str = "trec",
) -> dict:
    """The parts of :func:`ingest_shard` (in shard order) merged into ``judged.npz`` (and,
    with ``ranked_out``, their rankings into ``ranked.npz``): the same bytes
    :func:`ingest_collection` writes reading every file in one job."""
    return _merge(read_qrels_as(qrels, qrels_format), qrels, parts, out, depth=depth, duplicates=duplicates,
                  run_name=run_name, threshold=threshold, score_precision=score_precision, ranked_depth=ranked_depth,
                  ranked_out=ranked_out)


def _merge(q: Qrels, qrels: str | Path, parts: Sequence[str | Path], out: str | Path, *, depth: int | None,
           duplicates: DuplicatePolicy, run_name: RunNameSource, threshold: int, score_precision: ScorePrecision,
           ranked_depth: int | None, ranked_out: str | Path | None) -> dict:
    settings = _part_settings(qrels, depth, duplicates, run_name, threshold, score_precision, ranked_depth)
    merged = merge_parts(parts, q, settings)
    summary = _ingested_summary(merged, merged.postings("hits"), merged.postings("misses"), merged.reading,
                                [Path(p).parent for p in parts], qrels)
    write_store(out, runs=merged.runs, topics=q.topics, length=merged.length, threshold=threshold, run_depth=depth,
                ignored_topics=merged.ignored_topics, qrels_topic=qrels_topics_of_rows(q),
                qrels_grade=q.grade.astype(np.int64), docids=q.docid, sides=merged.sides,
                settings=dict(merged.reading, qrels=str(qrels), relevance_threshold=threshold), subtopics=q.subtopics,
                judgment_groups=q.judgment_groups)
    if ranked_out is not None:
        write_ranked(ranked_out, ranked_parts(parts),
                     _ranked_settings(depth, duplicates, run_name, score_precision, _ranked_depth(ranked_depth)))
    return _ingested(summary, merged, merged.reading, qrels)


def score_collection(
    *,
    matrix: str | Path | None,
    out: str | Path,
    arrays_out: str | Path,
    measures: Sequence[str],
    averaging: Sequence[Averaging] = ("all", "returned"),
    alphas: Sequence[Alpha] = (0.0, 0.25, 0.5, 0.75, 1.0),
    rarity_depth: int | None = None,
    measure_options: dict | None = None,
    imported: str | Path | None = None,
    imported_options: Mapping[str, str] | None = None,
    imported_measures: Sequence[str] = (),
) -> None:
    """Score every run on every qrels topic: the long ``scores.parquet`` table for people,
    and ``scores.npz`` (per-topic matrices and means) for the experiments.

    ``rarity_depth``: the depth S_d is counted at (None: each measure's cutoff); S is
    the number of runs of the collection. ``measure_options`` (gains, beta,
    asl_unretrieved) go to the measures that read them.

    ``imported``: a scores file (:func:`irmeta.measures.score_files.read_score_file`;
    ``imported_options``: its ``format`` and ``missing``). Without ``matrix`` (scores only)
    every measure comes from it; beside one, only ``imported_measures``, and the file must
    score every run of the campaign on every qrels topic (or ``missing: zero``).
    """
    measure_options = {k: v for k, v in (measure_options or {}).items() if v is not None}
    read = [parse_measure(name) for name in measures]  # config's names, read once as they enter the job
    from_file_names = list(measures) if matrix is None else [m for m in measures if m in set(imported_measures)]
    from_file = [m for name, m in zip(measures, read) if name in from_file_names]
    computed = [m for name, m in zip(measures, read) if name not in from_file_names]
    means_over = {mode: name for mode, name in
                  (("all", "all_topics: every qrels topic, missing ones score 0 (trec_eval -c)"),
                   ("returned", "returned_topics: topics the run returned (trec_eval default)"),
                   ("geometric", "geometric_all_topics: exp(mean(log(max(score, 1e-5)))) over every qrels "
                                 "topic (trec_eval -c gm_map)"))
                  if mode in averaging}
    settings: dict = {"averaging": means_over, "alphas": [alpha_label(a) for a in alphas]}
    parts = []
    if matrix is not None:
        m = load_matrix(matrix)
        parts.append(score_arrays(m, computed, averaging=averaging, alphas=alphas, rarity_depth=rarity_depth,
                                  **measure_options))
        settings = {
            "relevance_threshold": m.threshold,
            "averaging": means_over,
            "alphas": [alpha_label(a) for a in alphas],
            "rarity_depth": rarity_depth if rarity_depth is not None else "the measure's cutoff",
            "n_systems": m.n_runs,
            "runs": matrix_settings(matrix)["settings"],
            "ignored_topics": m.ignored_topics,
            "measures": [str(x) for x in computed],
            "measure_options": measure_options,
        }
    if imported is not None and from_file:
        given = imported_scores(imported, from_file, alphas, averaging, dict(imported_options or {}),
                                within=parts[0] if parts else None, computed=computed)
        parts.append(given)
        settings |= {"scores_file": str(imported), "scores_file_measures": from_file_names,
                     "scores_file_options": dict(imported_options or {}), "n_systems": len(given.runs)}
    scores = in_measure_order(parts, read)
    write_scores(scores, arrays_out, settings)
    write_table_in_blocks(scores_arrow_blocks(scores), out, settings)


def imported_scores(path: str | Path, measures: Sequence[str | Measure], alphas: Sequence[Alpha],
                    averaging: Sequence[Averaging], options: Mapping[str, str], within: Scores | None,
                    computed: Sequence[str | Measure] = ()) -> Scores:
    """The scores of ``measures`` a scores file gives, as :class:`Scores` with means over
    every topic (and over the topics the file scores a run on); ``within``: the campaign's
    own scores, whose runs and qrels topics the file's are laid on (in their order). The
    file's rows are read as codes (:func:`~irmeta.measures.score_files.read_score_rows`),
    never as a table of text. Its mean rows are checked against the means of its
    per-topic rows on those topics (:mod:`~irmeta.measures.score_files.mean_rows`), then
    ignored. A file that also holds a measure of ``computed`` (those irmeta computes
    from the runs) is refused as it is read: its scores would be silently ignored."""
    from irmeta.measures.score_files import read_score_rows, scores_from_table
    from irmeta.measures.score_files.mean_rows import checked_means, mean_rows_of

    table = read_score_rows(path, format=options.get("format", "auto"))
    refuse_computed(table, [as_measure(m) for m in computed], source=path)
    missing = options.get("missing", "error")
    if within is not None:
        table = aligned_table(table, within.runs, within.topics, source=path)
    given = scores_from_table(table, measures, alphas, missing=missing, source=str(path),
                              check_means=within is None)
    if within is not None:
        given = reordered(given, within.runs, within.topics, missing=missing, source=path)
        checked_means(given, mean_rows_of(table), over_all=given.means[AVERAGING_NAMES["all"]])
    wanted = [AVERAGING_NAMES[mode] for mode in averaging]
    return Scores(runs=given.runs, topics=given.topics, measures=given.measures, alphas=given.alphas,
                  per_topic=given.per_topic, means={name: given.means[name] for name in wanted}, parsed=given.parsed)


def refuse_computed(table: ScoreRows, computed: Sequence[Measure], *, source: str | Path) -> None:
    """A scores file beside runs that holds a measure irmeta computes from them (any of
    its alphas) is an error naming the file and the measure."""
    ours = {m.without_alpha() for m in computed}
    for name in table.measures:  # canonical names, each once, read back here
        if parse_measure(name).without_alpha() in ours:
            raise ValueError(f"{source} holds {name}, which irmeta computes from the runs: drop those rows or give "
                             f"the scores without runs")


def aligned_table(table: ScoreRows, runs: Sequence[str], topics: Sequence[str], *, source: str | Path) -> ScoreRows:
    """The file's per-topic rows of the campaign's qrels topics; a run the campaign does not
    have, or a campaign run the file lacks, is an error naming it."""
    per_topic = table.per_topic()
    if per_topic is None:
        per_topic = np.ones(len(table), bool)
    on = np.zeros(len(table.runs), bool)
    on[table.run[per_topic]] = True
    check_same_runs((table.runs[i] for i in np.flatnonzero(on)), runs, source, "scores")
    qrels_topics = set(topics)
    of_qrels = np.array([q in qrels_topics for q in table.qids], bool)
    return table.where(per_topic & of_qrels[table.qid])


def reordered(scores: Scores, runs: Sequence[str], topics: Sequence[str], *, missing: str,
              source: str | Path) -> Scores:
    """``scores`` on the campaign's runs and qrels topics, in their order; a qrels topic the
    file never scores is 0 with ``missing: zero``, else an error."""
    absent = [t for t in topics if t not in set(scores.topics)]
    if absent and missing != "zero":
        raise ValueError(f"{source}: no scores on qrels topic {absent[0]} ({len(absent)} topics have none; "
                         f"missing: zero scores them 0)")
    run_at = {r: i for i, r in enumerate(scores.runs)}
    topic_at = {t: i for i, t in enumerate(scores.topics)}
    rows = np.array([run_at[r] for r in runs])
    per_topic = np.zeros((len(scores.measures), len(runs), len(topics)))
    have = [j for j, t in enumerate(topics) if t in topic_at]
    per_topic[:, :, have] = scores.per_topic[:, rows][:, :, [topic_at[topics[j]] for j in have]]
    means = dict(scores.means)
    means[AVERAGING_NAMES["all"]] = block_means(per_topic, scores.parsed, scores.alphas, len(runs))  # qrels topics
    if AVERAGING_NAMES["returned"] in means:
        means[AVERAGING_NAMES["returned"]] = scores.means[AVERAGING_NAMES["returned"]][:, rows]
    if AVERAGING_NAMES["geometric"] in means:  # over the qrels topics, as all_topics
        means[AVERAGING_NAMES["geometric"]] = geometric_means(per_topic)
    return Scores(runs=list(runs), topics=list(topics), measures=scores.measures, alphas=scores.alphas,
                  per_topic=per_topic, means=means, parsed=scores.parsed)


def in_measure_order(parts: Sequence[Scores], measures: Sequence[Measure]) -> Scores:
    """The blocks of several :class:`Scores` of the same runs and topics, measure by measure
    in the configured order."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    order = {str(m.without_alpha()): i for i, m in enumerate(measures)}
    blocks = sorted(((order.get(m, len(order)), j, i) for j, part in enumerate(parts)
                     for i, m in enumerate(part.measures)))
    return Scores(runs=first.runs, topics=first.topics,
                  measures=[parts[j].measures[i] for _, j, i in blocks],
                  alphas=[parts[j].alphas[i] for _, j, i in blocks],
                  per_topic=np.stack([parts[j].per_topic[i] for _, j, i in blocks]),
                  means={name: np.stack([parts[j].means[name][i] for _, j, i in blocks]) for name in first.means},
                  parsed=[parts[j].parsed[i] for _, j, i in blocks])


def rarity_collection(*, matrix: str | Path, out: str | Path, depths: Sequence[int | None],
                      functions: Sequence[str] = ("linear",)) -> None:
    """Write ``rarity.parquet``: S_d, R(d), R'(d) of every relevant document, counted at
    each of ``depths`` (None: the runs' full depth), one row per document and depth, with
    columns for each other rarity function of ``functions`` (the configured measures')."""
    m = load_matrix(matrix)
    full = m.run_depth or m.depth
    resolved = sorted({full if d is None else min(int(d), full) for d in depths})
    listing = rarity_listing(m, resolved, functions)
    write_frame(listing, out, {"n_systems": m.n_runs, "depths": resolved, "rarity_functions": list(functions),
                               "relevance_threshold": m.threshold, "runs_full_depth": full})


def swap_sensitivity_step(scores: str | Path, counts: Sequence[str | Path], settings: Mapping[str, Any], seed: int,
                          out: str | Path) -> str:
    """Sakai's Table 1 (:func:`irmeta.api.swap_sensitivity_table`) from the swap shards'
    ``counts`` and the topics of ``scores.npz``, written to ``out``; what its log says."""
    from irmeta.api import swap_sensitivity_table
    from irmeta.pipeline.stored_scores import load_scores, read_shards, write_csv

    topics_only = load_scores(scores, measures=[])
    table = swap_sensitivity_table(topics_only, trials=settings["trials"], sampling=settings["sampling"],
                                   topic_set_size=settings["topic_set_size"], bin_width=settings["bin_width"],
                                   confidence=settings["confidence"], seed=seed, counts=read_shards(list(counts)))
    write_csv(table, out)
    return f"wrote {out} ({len(table)} rows)"
