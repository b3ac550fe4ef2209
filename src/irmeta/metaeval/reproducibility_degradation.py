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
import pyarrow as pa

from irmeta.campaign.degrade import KINDS, LEVELS, degradation_rng, degrade_run, topic_pools
from irmeta.campaign.judge import judge_each
from irmeta.campaign.qrels import Qrels
from irmeta.campaign.runs import RunColumns, RunFile, ordered_run
from irmeta.measures.averaging import Scores, score_arrays
from irmeta.metaeval import reproducibility as rm
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


def degraded_scores(qrels: Qrels, copies: Mapping[str, Mapping[str, Sequence[str]]], measures: Sequence,
                    *, threshold: int = 1, alphas: Sequence = (), rarity_depth: int | None = None,
                    options: Mapping | None = None) -> Scores:
    """The degraded copies (name -> topic -> documents) scored on ``qrels`` over every
    qrels topic, as :func:`irmeta.score` scores runs (their own S_d for rareness measures)."""
    files = [_run_file(name, ranking) for name, ranking in copies.items()]
    matrix, _ = judge_each(files, lambda f: f, qrels, depth=None, threshold=threshold, duplicates="error")
    return score_arrays(matrix, list(measures), averaging=("all",), alphas=list(alphas), rarity_depth=rarity_depth,
                        **dict(options or {}))


def _run_file(name: str, ranking: Mapping[str, Sequence[str]]) -> RunFile:
    """A ranking as a run read in trec_eval's order (scores n, n - 1, ..., 1 per topic),
    built from columns, not through a {topic: {doc: score}} mapping (a tenth of the time)."""
    qid = [topic for topic, docs in ranking.items() for _ in docs]
    docid = [doc for docs in ranking.values() for doc in docs]
    score = np.concatenate([np.arange(len(docs), 0, -1, dtype=np.float64) for docs in ranking.values()]
                           or [np.zeros(0)])
    rows = np.arange(1, len(qid) + 1)
    columns = RunColumns(pa.array(qid, pa.large_string()), pa.array(docid, pa.large_string()), score, name, rows)
    return ordered_run(columns, name, name, None, "error", lambda: rows, unit="row")


def trial_rows(original: Scores, copy: Scores, rankings: Mapping[str, Mapping[str, Sequence[str]]],
               copies: Mapping[str, Mapping[str, Sequence[str]]], *, kind: str, level: float, trial: int,
               baseline: str | None, order: OrderSettings) -> list[tuple]:
    """One (kind, level, trial)'s rows (:data:`TRIAL_COLUMNS`): every run against its copy."""
    rows: list[tuple] = []
    for r in copies:
        doc_order = _order_values(rankings[r], copies[r], order)
        i, j = original.runs.index(r), copy.runs.index(r)
        for block, (measure, alpha) in enumerate(zip(original.measures, original.alphas)):
            o, c = original.per_topic[block, i], copy.per_topic[copy.block(measure, alpha), j]
            values = dict(doc_order)
            values.update(rmse=rm.rmse(o, c), nrmse=rm.nrmse(o, c), p_value=rm.t_test_p(o, c, paired=True))
            if baseline is not None and r != baseline:
                b = original.per_topic[block, original.runs.index(baseline)]
                cb = copy.per_topic[copy.block(measure, alpha), copy.runs.index(baseline)]
                values.update(er=rm.effect_ratio(o, b, c, cb), delta_ri=rm.delta_ri(o, b, c, cb))
            rows += [(kind, level, trial, r, measure, alpha or "", name, value) for name, value in values.items()]
    return rows


def _order_values(original: Mapping[str, Sequence[str]], copy: Mapping[str, Sequence[str]],
                  order: OrderSettings) -> dict[str, float]:
    topics = [t for t in original if t in copy]
    per = {
        "ktu": [rm.ktu(original[t], copy[t], order.ktu_cutoff) for t in topics],
        "rbo": [rm.rbo(original[t], copy[t], order.rbo_p, order.rbo_depth) for t in topics],
        "ktu_repro_eval": [rm.ktu_repro_eval(original[t], copy[t], order.ktu_cutoff) for t in topics],
        "rbo_repro_eval": [rm.rbo_repro_eval(original[t], copy[t], order.rbo_p, order.rbo_depth) for t in topics],
    }
    return {name: _mean(np.asarray(values, dtype=np.float64)) for name, values in per.items()}


def _mean(values: np.ndarray) -> float:
    kept = values[~np.isnan(values)]
    return float(np.mean(kept)) if len(kept) else math.nan


def degradation_trials(qrels: Qrels, runs: Mapping[str, Mapping[str, tuple[list[str], np.ndarray]]],
                       original: Scores, measures: Sequence, *, seed: int, kinds: Sequence[str] = KINDS,
                       levels: Sequence[float] = LEVELS, trials: Sequence[int] = range(TRIALS),
                       baseline: str | None = None, order: OrderSettings | None = None,
                       threshold: int = 1, alphas: Sequence = (), rarity_depth: int | None = None,
                       options: Mapping | None = None) -> pd.DataFrame:
    """Every run (``runs``: name -> topic -> (documents, scores), trec_eval's order)
    against its degraded copies, one row per kind, level, trial, run, measure, alpha and
    reproducibility measure (:data:`TRIAL_COLUMNS`); ``original``: the runs' own scores
    on ``qrels`` (:func:`irmeta.score`'s, every qrels topic). ``trials``: which trials
    (a shard's range); each copy draws from ``seed + SEED_OFFSET`` keyed as
    :func:`~irmeta.campaign.degrade.degradation_rng` says."""
    order = order or OrderSettings()
    pools = topic_pools(runs)
    rankings = {name: {t: docs for t, (docs, _) in run.items()} for name, run in runs.items()}
    rows: list[tuple] = []
    for kind in kinds:
        for level in levels:
            for trial in trials:
                copies = {name: degrade_run(run, kind, level, degradation_rng(seed + SEED_OFFSET, kind, name, level,
                                                                              trial), pools)
                          for name, run in runs.items()}
                scored = degraded_scores(qrels, copies, measures, threshold=threshold, alphas=alphas,
                                         rarity_depth=rarity_depth, options=options)
                rows += trial_rows(original, scored, rankings, copies, kind=kind, level=level, trial=trial,
                                   baseline=baseline, order=order)
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
