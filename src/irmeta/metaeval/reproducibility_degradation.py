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
from irmeta.campaign.degrade_cells import RankedCells, degrade_cells, judged_copy, pool_judgments, ranked_cells
from irmeta.campaign.qrels import Qrels
from irmeta.measures.averaging import Scores, score_arrays
from irmeta.metaeval import reproducibility as rm
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


def copy_scores(qrels: Qrels, cells: RankedCells, doc: np.ndarray, measures: Sequence, *,
                judgments: tuple[np.ndarray, np.ndarray] | None = None, threshold: int = 1, alphas: Sequence = (),
                rarity_depth: int | None = None, options: Mapping | None = None) -> Scores:
    """A copy of the runs (``doc``: pool places cell by cell; ``cells.doc``, the runs
    themselves) scored on ``qrels`` over every qrels topic, as :func:`irmeta.score` scores
    runs (their own S_d for rareness measures): its cells judged by indexing
    (``judgments``: :func:`~irmeta.campaign.degrade_cells.pool_judgments`, looked up once)."""
    rows = judgments if judgments is not None else pool_judgments(cells, qrels)
    matrix = judged_copy(cells, doc, qrels, rows, threshold=threshold)
    return score_arrays(matrix, list(measures), averaging=("all",), alphas=list(alphas), rarity_depth=rarity_depth,
                        **dict(options or {}))


def trial_rows(original: Scores, copy: Scores, doc_order: Mapping[str, np.ndarray], *, kind: str, level: float,
               trial: int, baseline: str | None) -> list[tuple]:
    """One (kind, level, trial)'s rows (:data:`TRIAL_COLUMNS`): every run against its
    copy; ``doc_order``: per document-order measure, each run's mean over its topics."""
    rows: list[tuple] = []
    blocks = [(block, measure, alpha, copy.block(measure, alpha))
              for block, (measure, alpha) in enumerate(zip(original.measures, original.alphas))]
    p_values = {block: _paired_p(original.per_topic[block][[original.runs.index(r) for r in copy.runs]],
                                 copy.per_topic[other]) for block, _, _, other in blocks}
    for j, r in enumerate(copy.runs):
        order = {name: float(values[j]) for name, values in doc_order.items()}
        i = original.runs.index(r)
        for block, measure, alpha, other in blocks:
            o, c = original.per_topic[block, i], copy.per_topic[other, j]
            values = dict(order)
            values.update(rmse=rm.rmse(o, c), nrmse=rm.nrmse(o, c), p_value=float(p_values[block][j]))
            if baseline is not None and r != baseline:
                b = original.per_topic[block, original.runs.index(baseline)]
                cb = copy.per_topic[other, copy.runs.index(baseline)]
                values.update(er=rm.effect_ratio(o, b, c, cb), delta_ri=rm.delta_ri(o, b, c, cb))
            rows += [(kind, level, trial, r, measure, alpha or "", name, value) for name, value in values.items()]
    return rows


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
    """Per measure, each run's mean over its topics of the defined (not NaN) values."""
    spans = [cells.run_cells(r) for r in range(len(cells.runs))]
    return {name: np.array([_mean(values[span.start:span.stop]) for span in spans]) for name, values in
            per_cell.items()}


def _mean(values: np.ndarray) -> float:
    kept = values[~np.isnan(values)]
    return float(np.mean(kept)) if len(kept) else math.nan


def degradation_trials(qrels: Qrels, runs: Mapping[str, Mapping[str, tuple[list[str], np.ndarray]]],
                       original: Scores, measures: Sequence, *, seed: int, kinds: Sequence[str] = KINDS,
                       levels: Sequence[float] = LEVELS, trials: Sequence[int] = range(TRIALS),
                       baseline: str | None = None, order: OrderSettings | None = None,
                       threshold: int = 1, alphas: Sequence = (), rarity_depth: int | None = None,
                       options: Mapping | None = None, cells: RankedCells | None = None) -> pd.DataFrame:
    """Every run (``runs``: name -> topic -> (documents, scores), trec_eval's order)
    against its degraded copies, one row per kind, level, trial, run, measure, alpha and
    reproducibility measure (:data:`TRIAL_COLUMNS`); ``original``: the runs' own scores
    on ``qrels`` (:func:`irmeta.score`'s, every qrels topic). ``trials``: which trials
    (a shard's range); each copy draws from ``seed + SEED_OFFSET`` keyed as
    :func:`~irmeta.campaign.degrade.degradation_rng` says. Level 0 copies every run
    unchanged whatever the kind and trial: it is computed once. ``cells``: the runs as
    :func:`~irmeta.campaign.degrade_cells.ranked_cells` (made when not given)."""
    order = order or OrderSettings()
    cells = cells if cells is not None else ranked_cells(runs)
    judgments = pool_judgments(cells, qrels)
    settings = dict(judgments=judgments, threshold=threshold, alphas=alphas, rarity_depth=rarity_depth,
                    options=options)
    unchanged: list[tuple] | None = None
    rows: list[tuple] = []
    for kind in kinds:
        for level in levels:
            for trial in trials:
                if level == 0 and unchanged is not None:
                    rows += [(kind, level, trial, *row[3:]) for row in unchanged]
                    continue
                copy = degrade_cells(cells, kind, level, seed + SEED_OFFSET, trial)
                scored = copy_scores(qrels, cells, copy, measures, **settings)
                doc_order = run_means(cells, order_measures(cells, copy, ktu_cutoff=order.ktu_cutoff,
                                                            rbo_p=order.rbo_p, rbo_depth=order.rbo_depth))
                made = trial_rows(original, scored, doc_order, kind=kind, level=level, trial=trial, baseline=baseline)
                if level == 0:
                    unchanged = made
                rows += made
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


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
    from scipy.stats import spearmanr

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
                rho = float(spearmanr(kept["level"], kept["value"]).statistic)
            rows.append((kind, measure, alpha, name, rho, level))
    return pd.DataFrame(rows, columns=list(TRUST_COLUMNS))
