"""Figure 2 of the paper: Kendall's tau-b and tau_AP between each measure's system
ranking and its baseline's, per alpha; with tau-b's bootstrap interval over topics and the
rank-biased overlap of the two rankings (issue 21, "uncertainty of the correlation"), and
the tie-aware variants ``ties`` names (:mod:`.tied_agreement`: runs whose means tie).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from irmeta.measures.averaging import MeanGrid, Scores, mean_grid, run_means
from irmeta.measures.names import Measure, parse_measure
from irmeta.metaeval.score_matrices import ScoreMatrix, mean_table, oriented, score_matrices, sort_by_alpha
from irmeta.metaeval.stats.blocks import block_size, trial_indices, trial_rng
from irmeta.metaeval.stats.correlation import (
    batch_kendall_tau_b_against,
    kendall_tau,
    pair_order,
    percentile_interval,
    rank_biased_overlap,
    tau_ap,
    tau_ap_symmetric,
)
from irmeta.metaeval.stats.resampling_tests import resample_counts
from irmeta.metaeval.tied_agreement import ALL_TIED_COLUMNS, TIED_VARIANTS, tied_agreement, tied_columns, tied_variants

#: The forms of tau_AP (``experiments.kendall_tau.tau_ap``) and the column each fills:
#: ``reference``, Yilmaz et al.'s, the baseline as the reference ranking (the default);
#: ``symmetric``, the mean of both one-sided coefficients (Urbano and Marrero's tau_AP-b).
TAU_AP_FORMS = {"reference": "tau_ap", "symmetric": "tau_ap_symmetric"}
_TAU_AP = {"reference": tau_ap, "symmetric": tau_ap_symmetric}

#: The columns of ``kendall_tau.csv``, in order (the experiment manifest names this
#: constant; the documentation's table reference is written from it).
#: ``tau`` is tau-b and ``tau_ci_low``, ``tau_ci_high`` its interval, ``tau_ap`` tau_AP with the
#: baseline as the reference, ``rbo`` RBO_ext with ties broken by run name; the tie-aware
#: variants last, only when ``experiments.kendall_tau.ties`` names them.
COLUMNS = ("measure", "baseline", "alpha", "tau", *TAU_AP_FORMS.values(), "tau_ci_low", "tau_ci_high", "rbo",
           "n_runs", "averaging", *ALL_TIED_COLUMNS)
#: Columns of :data:`COLUMNS` written only under some settings, with when.
OPTIONAL_COLUMNS = {"tau_ap": "experiments.kendall_tau.tau_ap names reference, the default",
                    "tau_ap_symmetric": "experiments.kendall_tau.tau_ap names symmetric",
                    **{column: f"experiments.kendall_tau.ties names {variant}"
                       for variant in TIED_VARIANTS for column in tied_columns([variant])}}

#: Added to ``experiments.seed``: bootstrap sample b of tau's interval draws its topics from
#: ``default_rng([seed + SEED_OFFSET, b])``, a stream no other experiment of the same seed
#: draws from. Part of the published numbers: changing it changes tau_ci_low and tau_ci_high.
SEED_OFFSET = 4
DEFAULT_SEED = 20230402  # config's experiments.seed (irmeta.api.DEFAULT_SEED)
INTERVAL_LEVEL = 0.95  # tau_ci_low, tau_ci_high: the 2.5 % and 97.5 % percentiles
# Bytes a chunk of bootstrap samples may take: small enough to stay in cache (chunks of
# 64 samples of TREC-8 ran about 1.4x faster than of 256), far below BLOCK_BYTES.
CHUNK_BYTES = 16 * 2**20
# Bytes of the buffer a few samples' weighted scores are gathered into (8 samples at
# 500 runs x 500 topics).
GATHER_BYTES = 16 * 2**20


def kendall_tau_table(scores: pd.DataFrame | Scores, comparisons: Sequence[dict],
                      averaging: str = "all_topics", tau_ap_forms: Sequence[str] = ("reference",), *,
                      bootstrap_samples: int = 1000, rbo_p: float = 0.9, seed: int = DEFAULT_SEED,
                      ties: Sequence[str] = ()) -> pd.DataFrame:
    """Figure 2: for each measure and alpha, tau-b and tau_AP between the runs' means
    and the baseline's: a column per form of ``tau_ap_forms`` (:data:`TAU_AP_FORMS`;
    by default only ``tau_ap``, the baseline as the reference ranking). Each measure
    ranks runs in its own direction, so tau is positive when they agree.

    Then ``tau_ci_low``, ``tau_ci_high``: tau's 95 % percentile bootstrap interval over
    ``bootstrap_samples`` resamplings of the topics (:func:`tau_intervals`; NaN with 0
    samples, or from a table of means without per-topic rows: nothing to resample), and
    ``rbo``: the extrapolated rank-biased overlap of the two rankings, persistence
    ``rbo_p``, ties broken by run name (:func:`~irmeta.metaeval.stats.correlation.rank_biased_overlap`).
    ``ties``: the tie-aware variants added after them (:mod:`~irmeta.metaeval.tied_agreement`:
    ``a`` tau_a, tau_ap_a, rbo_a; ``b`` tau_ap_b, rbo_b; ``w`` rbo_w), the baseline as the
    reference ranking, runs whose means are equal tied."""
    forms = _tau_ap_forms(tau_ap_forms)
    variants = tied_variants(ties, name="kendall_tau ties")
    _check_uncertainty(bootstrap_samples, rbo_p, seed, averaging)
    means = scores.mean_frame(averaging) if isinstance(scores, Scores) else mean_table(scores, averaging)
    runs = [str(run) for run in means.index]
    intervals = tau_intervals(_per_topic(scores, comparisons, runs), comparisons, bootstrap_samples, seed)
    read = _measures_read(scores, comparisons)
    rows = []
    for comparison in comparisons:
        measure, baseline = comparison["measure"], comparison["baseline"]
        # Both rankings best first: a lower-is-better measure (ASL) is negated, exactly.
        reference = oriented(means[(baseline, "")].to_numpy(), read[baseline])
        for (name, alpha), column in means.items():
            if name != measure:
                continue
            x = oriented(column.to_numpy(), read[measure])
            low, high = intervals.get((measure, baseline, alpha), (math.nan, math.nan))
            rows.append({"measure": measure, "baseline": baseline, "alpha": alpha,
                         "tau": kendall_tau(x, reference),
                         **{TAU_AP_FORMS[form]: _TAU_AP[form](x, reference, higher_is_better=True)
                            for form in forms},
                         "tau_ci_low": low, "tau_ci_high": high,
                         "rbo": rank_biased_overlap(x, reference, rbo_p, names=runs),
                         "n_runs": len(x), "averaging": averaging,
                         **tied_agreement(reference, x, variants, rbo_p=rbo_p, names=runs)})
    written = {TAU_AP_FORMS[form] for form in forms} | set(tied_columns(variants))
    columns = [c for c in COLUMNS if c not in OPTIONAL_COLUMNS or c in written]
    return sort_by_alpha(pd.DataFrame(rows, columns=columns), ["measure", "alpha"])


def _tau_ap_forms(tau_ap_forms: Sequence[str]) -> list[str]:
    unknown = [form for form in tau_ap_forms if form not in TAU_AP_FORMS]
    if unknown or not tau_ap_forms:
        raise ValueError(f"tau_ap forms must be some of {', '.join(TAU_AP_FORMS)}, not {list(tau_ap_forms)}")
    return [form for form in TAU_AP_FORMS if form in tau_ap_forms]  # columns in a fixed order


def _check_uncertainty(bootstrap_samples: int, rbo_p: float, seed: int, averaging: str) -> None:
    """The settings of the interval and of RBO, refused in one line when out of range."""
    if isinstance(bootstrap_samples, bool) or not isinstance(bootstrap_samples, (int, np.integer)) \
            or bootstrap_samples < 0:
        raise ValueError(f"bootstrap_samples must be an integer >= 0 (0: no interval), not {bootstrap_samples!r}")
    if isinstance(rbo_p, bool) or not isinstance(rbo_p, (int, float)) or not 0.0 < rbo_p < 1.0:
        raise ValueError(f"rbo_p must be a number in (0, 1), not {rbo_p!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, not {seed!r}")
    if bootstrap_samples and averaging != "all_topics":
        # Per-topic scores are over every qrels topic; which topics a run returned is not kept.
        raise ValueError(f"tau's bootstrap interval resamples means over all topics, not {averaging}: "
                         f"set bootstrap_samples=0")


def _per_topic(scores: pd.DataFrame | Scores, comparisons: Sequence[dict], runs: list[str]
               ) -> dict[tuple[str, str], ScoreMatrix]:
    """The compared measures' per-topic scores by (measure, alpha label or ''), rows in
    the order of ``runs`` and topics sorted by id, so the resampled topics depend on the
    topic set, not on the order a table lists it in. Empty without per-topic rows."""
    names = sorted({c[key] for c in comparisons for key in ("measure", "baseline")})
    found = {}
    for m in score_matrices(scores, names):
        at = {str(run): i for i, run in enumerate(m.runs)}
        if set(at) != set(runs):
            raise ValueError(f"{m.measure}: the per-topic scores and the means cover different runs")
        topics = np.argsort(np.asarray(m.topics, dtype=str), kind="stable")
        values = np.ascontiguousarray(m.values[[at[run] for run in runs]][:, topics])  # rows gathered fast
        found[m.key] = ScoreMatrix(m.measure, m.alpha, runs, [m.topics[t] for t in topics], values,
                                   m.higher_is_better, m.parsed)
    return found


def _measures_read(scores: pd.DataFrame | Scores, comparisons: Sequence[dict]) -> dict[str, Measure]:
    """The comparisons' measures as read: those :class:`Scores` carry, else (a table's
    canonical names) each read back once, here."""
    names = {c[key] for c in comparisons for key in ("measure", "baseline")}
    if isinstance(scores, Scores):
        carried = dict(zip(scores.measures, scores.parsed))
        return {name: carried[name] if name in carried else parse_measure(name) for name in names}
    return {name: parse_measure(name) for name in names}


def tau_intervals(matrices: dict[tuple[str, str], ScoreMatrix], comparisons: Sequence[dict], samples: int,
                  seed: int, *, chunk: int | None = None) -> dict[tuple[str, str, str], tuple[float, float]]:
    """tau's percentile interval (:data:`INTERVAL_LEVEL`) per (measure, baseline, alpha
    label): the same ``samples`` topic resamplings (:func:`bootstrap_draws`, from
    ``seed + SEED_OFFSET``) for a measure and its baseline (paired) and for every
    measure and alpha, so intervals compare. Empty without samples or scores."""
    if not samples or not matrices:
        return {}
    pairs = [(key, (c["baseline"], "")) for c in comparisons for key in matrices if key[0] == c["measure"]]
    absent = sorted({b[0] for _, b in pairs if b not in matrices})
    if absent:
        raise ValueError(f"no per-topic scores of the baseline {', '.join(absent)} to resample")
    n_topics = next(iter(matrices.values())).values.shape[1]
    taus = bootstrap_taus(matrices, pairs, bootstrap_draws(n_topics, samples, seed + SEED_OFFSET), chunk=chunk)
    return {(m[0], b[0], m[1]): percentile_interval(row, INTERVAL_LEVEL) for (m, b), row in zip(pairs, taus)}


def bootstrap_draws(n_topics: int, samples: int | range, seed: int) -> np.ndarray:
    """(samples, n_topics) topic indices drawn with replacement (Efron's bootstrap, the
    topics as the sampled units): sample b's are ``default_rng([seed, b]).integers(0,
    n_topics, n_topics)``, so a sample does not depend on how the samples are chunked."""
    ids = trial_indices(range(samples) if isinstance(samples, (int, np.integer)) else samples)
    out = np.empty((len(ids), n_topics), dtype=np.intp)
    for row, b in zip(out, ids):
        row[:] = trial_rng(seed, b).integers(0, n_topics, n_topics)
    return out


class SortedScores(NamedTuple):
    """A measure's per-topic scores sorted ascending per run, once for every sample:
    ``order`` the stable argsort, ``ascending`` the sorted scores, ``grid`` the measure's
    :func:`~irmeta.measures.averaging.mean_grid` (S the runs)."""

    order: np.ndarray
    ascending: np.ndarray
    grid: MeanGrid | None
    higher_is_better: bool


def sorted_scores(matrix: ScoreMatrix) -> SortedScores:
    runs = matrix.values.shape[0]
    order = np.argsort(matrix.values, axis=1, kind="stable")
    return SortedScores(order, np.take_along_axis(matrix.values, order, axis=1),
                        mean_grid(matrix.parsed, matrix.alpha, runs), matrix.higher_is_better)


def resampled_means(matrix: ScoreMatrix | SortedScores, draws: np.ndarray) -> np.ndarray:
    """(samples, runs): each run's mean over each sample's topics, repeats counted, on
    the measure's grid with S the runs (:func:`~irmeta.measures.averaging.run_means`);
    best first.

    A run's total is sum_k c_k v_k over its scores v_k sorted ascending, c_k the times
    the sample draws v_k's topic: a function of the sample's multiset of scores alone,
    so two runs with the same multiset tie to the last bit (as the pipeline's sorted
    sums promise), and the identity sample (every c_k = 1) is the pipeline's sorted sum
    itself, bit for bit. No sort per sample: the scores are sorted once
    (:func:`sorted_scores`), and a few samples at a time are gathered into one buffer.
    """
    ready = matrix if isinstance(matrix, SortedScores) else sorted_scores(matrix)
    runs, n_topics = ready.ascending.shape
    times = resample_counts(draws, n_topics)  # how often each sample draws each topic
    means = np.empty((len(draws), runs))
    buffer = np.empty((block_size(8 * runs * n_topics, GATHER_BYTES), runs, n_topics))
    for start in range(0, len(draws), len(buffer)):
        part = times[start:start + len(buffer)]
        weighted = buffer[:len(part)]  # C-contiguous, as the pipeline's scores
        for out, drawn in zip(weighted, part):
            np.take(drawn, ready.order, out=out, mode="clip")  # clip: valid indices, no bounds check
        weighted *= ready.ascending  # c_k v_k is exact for c_k = 1
        means[start:start + len(part)] = run_means(weighted, grid=ready.grid, presorted=True)
    return means if ready.higher_is_better else -means  # negation is exact


def bootstrap_taus(matrices: dict[tuple[str, str], ScoreMatrix], pairs: Sequence[tuple[tuple, tuple]],
                   draws: np.ndarray, *, chunk: int | None = None) -> np.ndarray:
    """(len(pairs), samples): tau-b between the resampled means of each (measure,
    baseline) pair of ``matrices`` keys, on each resampled topic set (a row of
    ``draws``). ``chunk`` samples at a time (default: what :data:`CHUNK_BYTES` holds),
    each block's means and each baseline's pair order computed once per chunk. The result
    does not depend on the chunk."""
    runs, n_topics = next(iter(matrices.values())).values.shape
    baselines = len({b for _, b in pairs})
    # per sample: the means (float64), two pair orders a baseline and a ranking's (bytes)
    chunk = chunk or block_size(8 * runs * len(matrices) + runs * runs * (2 * baselines + 1), CHUNK_BYTES)
    # a measure scoring as its baseline on every topic (a rareness measure at alpha 0)
    # ranks as it on every sample: tau-b is n/sqrt(n^2) = 1 exactly (NaN if all tie)
    same = [np.array_equal(matrices[m].values, matrices[b].values) for m, b in pairs]
    needed = dict.fromkeys(k for (m, b), s in zip(pairs, same) for k in ((b,) if s else (m, b)))
    ready = {key: sorted_scores(matrices[key]) for key in needed}
    taus = np.empty((len(pairs), len(draws)))
    for start in range(0, len(draws), chunk):
        part = draws[start:start + chunk]
        means = {key: resampled_means(ready[key], part) for key in needed}
        orders = {key: pair_order(means[key]) for key in dict.fromkeys(b for _, b in pairs)}
        for i, (measure, baseline) in enumerate(pairs):
            if same[i]:
                taus[i, start:start + len(part)] = np.where(orders[baseline].untied > 0, 1.0, np.nan)
            else:
                taus[i, start:start + len(part)] = batch_kendall_tau_b_against(means[measure], orders[baseline])
    return taus
