"""How far can each reproducibility measure be trusted? (issue 28, after Breuer et al.'s
meta-evaluation on runs reproduced at decreasing fidelity, SIGIR 2020.) Every run is
reproduced by degraded copies of itself (:mod:`irmeta.campaign.degrade`: ``swap``,
``replace``, ``noise`` at each level, ``trials`` each), the copies scored as the runs
are, and each reproducibility measure of :mod:`.reproducibility` computed between a run
and its copy (ER and Delta RI with the baseline run, itself degraded by the same kind,
level and trial, as the baseline).

Tables: :func:`degradation_table` (per kind, level, measure and reproducibility measure,
the mean and sd over runs and trials) and :func:`trust_table` (per kind, measure and
reproducibility measure, Spearman's correlation between the level and the value, and the
smallest level at which the paired t-test rejects at 0.05 in at least half of the
run-trials). A value that is undefined (NaN) is left out of the means and correlations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.campaign.degrade import KINDS, LEVELS
from irmeta.campaign.degrade_cells import (
    RankedCells,
    degrade_cells,
    joined_copy,
    judged_range,
    pool_judgments,
    ranked_cells,
)
from irmeta.campaign.qrels import Qrels
from irmeta.measures.averaging import Scores, score_arrays
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.degradation_memory import CHUNK_DOCUMENTS, copy_memory_mb
from irmeta.metaeval.document_order import order_measures
from irmeta.metaeval.reproducibility_table import OrderSettings

SEED_OFFSET = 7
TRIALS = 10
SIGNIFICANCE = 0.05
ORDER_MEASURES = ("ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval")
SCORE_MEASURES = ("rmse", "nrmse", "p_value")
EFFECT_MEASURES = ("er", "delta_ri")
TRIAL_COLUMNS = ("kind", "level", "trial", "run", "measure", "alpha", "reproducibility_measure", "value")
DEGRADATION_COLUMNS = ("kind", "level", "measure", "alpha", "reproducibility_measure", "mean", "sd", "n")
TRUST_COLUMNS = ("kind", "measure", "alpha", "reproducibility_measure", "spearman", "t_test_level")


def trial_rows(original: Scores, copy: Scores, doc_order: Mapping[str, np.ndarray], *, kind: str, level: float,
               trial: int, baseline: str | None) -> list[tuple]:
    """One (kind, level, trial)'s rows (:data:`TRIAL_COLUMNS`): every run against its
    copy; ``doc_order``: per document-order measure, each run's mean over its topics.
    RMSE, nRMSE and p for every run at once (:func:`_score_measures`)."""
    rows: list[tuple] = []
    at = [original.runs.index(r) for r in copy.runs]
    blocks = [(block, measure, alpha, copy.block(measure, alpha))
              for block, (measure, alpha) in enumerate(zip(original.measures, original.alphas))]
    scored = {block: _score_measures(original.per_topic[block][at], copy.per_topic[other])
              for block, _, _, other in blocks}
    orders = {name: values.tolist() for name, values in doc_order.items()}
    for j, r in enumerate(copy.runs):
        order = {name: values[j] for name, values in orders.items()}
        i = at[j]
        for block, measure, alpha, other in blocks:
            values = dict(order)
            values.update((name, column[j]) for name, column in scored[block].items())
            if baseline is not None and r != baseline:
                o, c = original.per_topic[block, i], copy.per_topic[other, j]
                b = original.per_topic[block, original.runs.index(baseline)]
                cb = copy.per_topic[other, copy.runs.index(baseline)]
                values.update(er=rm.effect_ratio(o, b, c, cb), delta_ri=rm.delta_ri(o, b, c, cb))
            rows += [(kind, level, trial, r, measure, alpha or "", name, value) for name, value in values.items()]
    return rows


def _score_measures(original: np.ndarray, copy: np.ndarray) -> dict[str, list[float]]:
    """Per run (row): :func:`~.reproducibility.rmse`, :func:`~.reproducibility.nrmse` and
    the paired t-test's p, the per-run functions' operations on every row at once."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rmse = np.sqrt(np.mean(np.square(original - copy), axis=1))
        largest = np.sqrt(np.mean(np.square(np.maximum(original, 1.0 - original)), axis=1))
        nrmse = np.where(np.any((original < 0) | (original > 1), axis=1), np.nan, rmse / largest)
    return {"rmse": rmse.tolist(), "nrmse": nrmse.tolist(), "p_value": _paired_p(original, copy).tolist()}


def _paired_p(original: np.ndarray, copy: np.ndarray) -> np.ndarray:
    """Per run (row) the paired t-test's p between its original and copied per-topic
    scores, :func:`~.reproducibility.t_test_p` (the registry's ``paired_t``) for every
    run at once: the same operations on each row."""
    from scipy.special import stdtr

    from irmeta.metaeval.stats.pair_differences import mean_and_variance, studentize

    n = original.shape[1]
    mean, variance = mean_and_variance(original - copy)
    t = studentize(mean, np.sqrt(variance / n))
    return 2.0 * stdtr(n - 1, -np.abs(t))


def run_means(cells: RankedCells, per_cell: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per measure, each run's mean over its topics of the defined (not NaN) values (NaN:
    none); runs with as many defined values averaged together, row by row as numpy
    averages one vector."""
    runs = len(cells.runs)
    counts = np.bincount(cells.cell_run, minlength=runs)
    width = max(int(counts.max(initial=0)), 1)
    column = np.arange(cells.n_cells) - np.concatenate([[0], np.cumsum(counts)])[cells.cell_run]
    out = {}
    for name, values in per_cell.items():
        grid = np.full((runs, width), np.nan)
        grid[cells.cell_run, column] = values
        defined = ~np.isnan(grid)
        n = defined.sum(axis=1)
        packed = np.take_along_axis(grid, np.argsort(~defined, axis=1, kind="stable"), axis=1)
        means = np.full(runs, np.nan)
        for k in np.unique(n[n > 0]):
            rows = np.flatnonzero(n == k)
            means[rows] = np.mean(packed[rows, :k], axis=1)
        out[name] = means
    return out


def degradation_trials(qrels: Qrels, runs: Mapping[str, Mapping[str, tuple[list[str], np.ndarray]]] | None,
                       original: Scores | None, measures: Sequence, *, seed: int, kinds: Sequence[str] = KINDS,
                       levels: Sequence[float] = LEVELS, trials: Sequence[int] = range(TRIALS),
                       baseline: str | None = None, order: OrderSettings | None = None,
                       threshold: int = 1, alphas: Sequence = (), rarity_depth: int | None = None,
                       options: Mapping | None = None, cells: RankedCells | None = None,
                       processes: int = 1, chunk_documents: int | None = None,
                       memory_mb: float | None = None) -> pd.DataFrame:
    """Every run (``runs``: name -> topic -> (documents, scores), trec_eval's order)
    against its degraded copies, one row per kind, level, trial, run, measure, alpha and
    reproducibility measure (:data:`TRIAL_COLUMNS`); ``original``: the runs' own scores
    on ``qrels`` (:func:`irmeta.score`'s, every qrels topic; None: scored here from the
    cells, as every copy is: its own S_d for rareness measures). ``trials``: which trials
    (a shard's range); each copy draws from ``seed + SEED_OFFSET`` keyed as
    :func:`~irmeta.campaign.degrade.degradation_rng` says. Level 0 copies every run
    unchanged whatever the kind and trial: it is computed once. ``cells``: the runs as
    :func:`~irmeta.campaign.degrade_cells.ranked_cells` (made from ``runs`` when not given);
    ``processes``: the (kind, level, trial) copies shared among that many forked
    processes, their rows gathered in the one order. Each copy is made, judged and
    compared ``chunk_documents`` documents of runs at a time (:data:`CHUNK_DOCUMENTS`),
    only its judged postings held whole (memory follows the chunk, not the campaign;
    ``cells`` may hold its documents and scores on disk, :func:`~irmeta.campaign.degrade_cells.load_ranked`).
    ``memory_mb``: the job's memory, which bounds the processes (:func:`copy_memory_mb`
    each, beside this one's)."""
    if cells is None:
        if runs is None:
            raise ValueError("degradation_trials needs the runs or their cells")
        cells = ranked_cells(runs)
    work = _Work(qrels, cells, original, list(measures), pool_judgments(cells, qrels), order or OrderSettings(),
                 baseline, seed + SEED_OFFSET,
                 dict(threshold=threshold, alphas=alphas, rarity_depth=rarity_depth, options=options),
                 cells.run_chunks(chunk_documents or CHUNK_DOCUMENTS))
    tasks = [(kind, level, trial) for kind in kinds for level in levels for trial in trials]
    zero = next((task for task in tasks if task[1] == 0), None)
    if work.original is None:  # the runs' own scores: the level-0 copy's, made once
        work.original, same = work.copy("swap", 0.0, 0)
        unchanged = trial_rows(work.original, work.original, same, kind=zero[0], level=0.0, trial=zero[2],
                               baseline=baseline) if zero is not None else []
    else:
        unchanged = work.rows(*zero) if zero is not None else []
    degraded = [task for task in tasks if task[1] != 0]
    if memory_mb is not None:
        scores = work.original.per_topic.size if work.original is not None else 0
        processes = processes_within(memory_mb, processes, copy_memory_mb(work.postings, work.chunk_documents, scores))
    import logging

    logging.getLogger("irmeta").info("degradations: %d copies in %d process(es)", len(degraded),
                                     min(processes, max(1, len(degraded))))
    made = dict(zip(degraded, _map_rows(work, degraded, processes)))
    rows: list[tuple] = []
    for kind, level, trial in tasks:
        rows += [(kind, level, trial, *row[3:]) for row in unchanged] if level == 0 else made[kind, level, trial]
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


class _Work:
    """What every copy reads: made once, shared with forked processes."""

    def __init__(self, qrels: Qrels, cells: RankedCells, original: Scores | None, measures: list, judgments: tuple,
                 order: OrderSettings, baseline: str | None, seed: int, scoring: dict,
                 chunks: list[tuple[int, int]]) -> None:
        self.qrels, self.cells, self.original, self.measures = qrels, cells, original, measures
        self.judgments, self.order, self.baseline, self.seed, self.scoring = judgments, order, baseline, seed, scoring
        self.chunks = chunks
        per_run = np.bincount(cells.cell_run, weights=cells.lengths, minlength=len(cells.runs))
        self.chunk_documents = max((int(per_run[lo:hi].sum()) for lo, hi in chunks), default=0)
        self.postings = 0  # judged postings of the last copy made

    def copy(self, kind: str, level: float, trial: int) -> tuple[Scores, dict[str, np.ndarray]]:
        """One (kind, level, trial)'s copy of every run, scored, and each run's mean
        document-order measures against it: made a range of runs at a time."""
        parts, orders = [], []
        for lo, hi in self.chunks:
            cells = self.cells.runs_slice(lo, hi)
            copy = degrade_cells(cells, kind, level, self.seed, trial)
            parts.append(judged_range(cells, copy, self.qrels, self.judgments, threshold=self.scoring["threshold"]))
            orders.append(run_means(cells, order_measures(cells, copy, ktu_cutoff=self.order.ktu_cutoff,
                                                          rbo_p=self.order.rbo_p, rbo_depth=self.order.rbo_depth)))
            del cells, copy
        matrix = joined_copy(parts, self.qrels, threshold=self.scoring["threshold"])
        self.postings = len(matrix.hits) + len(matrix.misses)
        scored = score_arrays(matrix, list(self.measures), averaging=("all",), alphas=list(self.scoring["alphas"]),
                              rarity_depth=self.scoring["rarity_depth"], **dict(self.scoring["options"] or {}))
        return scored, {name: np.concatenate([o[name] for o in orders]) for name in orders[0]} if orders else {}

    def rows(self, kind: str, level: float, trial: int) -> list[tuple]:
        """One (kind, level, trial): the copy made, scored and compared with every run."""
        scored, doc_order = self.copy(kind, level, trial)
        assert self.original is not None
        return trial_rows(self.original, scored, doc_order, kind=kind, level=level, trial=trial,
                          baseline=self.baseline)


def processes_within(memory_mb: float, processes: int, per_copy_mb: float) -> int:
    """As many of ``processes`` as ``memory_mb`` holds beside this process (forked
    processes share its pages), one at least; said in the log when fewer."""
    from irmeta.support.memory import resident_mb, within_memory

    chosen = within_memory(memory_mb, processes, per_copy_mb)
    if chosen < processes:
        import logging

        logging.getLogger("irmeta").info(
            "degradations: %d process(es), not %d: a copy holds about %.0f MB, the job has %.0f MB "
            "(%.0f MB here)", chosen, processes, per_copy_mb, memory_mb, resident_mb())
    return chosen


_SHARED: list[_Work] = []  # the work a forked process inherits


def _rows_of(task: tuple[str, float, int]) -> list[tuple]:
    return _SHARED[0].rows(*task)


def _map_rows(work: _Work, tasks: list[tuple[str, float, int]], processes: int) -> list[list[tuple]]:
    """Each task's rows, in order: in this process, or in ``processes`` forked ones."""
    import multiprocessing

    if processes <= 1 or len(tasks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [work.rows(*task) for task in tasks]
    _SHARED[:] = [work]
    try:
        with multiprocessing.get_context("fork").Pool(min(processes, len(tasks))) as pool:
            return pool.map(_rows_of, tasks, chunksize=1)
    finally:
        _SHARED.clear()


_GROUP = ["kind", "level", "measure", "alpha", "reproducibility_measure"]


def degradation_table(trials: pd.DataFrame) -> pd.DataFrame:
    """Per kind, level, measure, alpha and reproducibility measure: the mean and sd
    (ddof 1; empty for one value) over runs and trials of the defined values, and n."""
    defined = trials[trials["value"].notna()]
    grouped = defined.groupby(_GROUP, sort=False)["value"]
    out = grouped.agg(mean="mean", sd="std", n="size").reset_index()
    return out.reindex(columns=list(DEGRADATION_COLUMNS))


def trust_table(trials: pd.DataFrame, significance: float = SIGNIFICANCE) -> pd.DataFrame:
    """Per kind, measure, alpha and reproducibility measure: Spearman's rho between the
    level and the value over every defined run-trial (empty when either is constant), and
    ``t_test_level``, the smallest level whose paired t-tests reject (p < significance) in
    at least half of the run-trials (empty: none does), repeated on each row of the
    (kind, measure, alpha)."""
    from irmeta.metaeval.stats.correlation import spearman_rho

    rows = []
    for (kind, measure, alpha), part in trials.groupby(["kind", "measure", "alpha"], sort=False):
        p = part[part["reproducibility_measure"] == "p_value"]
        share = (p["value"] < significance).groupby(p["level"]).mean()
        rejecting = share[share >= 0.5]
        level = float(rejecting.index.min()) if len(rejecting) else math.nan
        for name, values in part.groupby("reproducibility_measure", sort=False):
            kept = values[values["value"].notna()]
            rho = math.nan
            if kept["level"].nunique() > 1 and kept["value"].nunique() > 1:
                rho = spearman_rho(kept["level"].to_numpy(), kept["value"].to_numpy())
            rows.append((kind, measure, alpha, name, rho, level))
    return pd.DataFrame(rows, columns=list(TRUST_COLUMNS))
