"""The paper's experiments on the rareness measures, as array computations.

- :func:`kendall_tau_table`: Figure 2, tau and tau_AP of each measure against its baseline.
- :func:`discriminative_power_table`: Table 1, significant pairs by three methods.
- :func:`stability_table`: Table 2, Buckley and Voorhees.
- :func:`system_subsampling`: Table 3 / Algorithm 1, rarity recomputed from N sampled
  runs. Both rareness measures are affine in rarity, and rarity is affine in the
  co-retrieval counts of the sampled runs, so a trial is a sum over rows of a
  (runs x runs) matrix built once: no trial re-scores anything.
- :func:`synthetic_rare_common`: Figure 1, hypothetical systems added to one topic.

Randomness: trial ``t`` draws from ``numpy.random.default_rng([seed, t])``, so results do
not depend on how the trials are split into shards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from . import io
from . import statistics as st
from .metrics import Scores, _cut, alpha_label, average_precision, parse_measure, tail_weights
from .progress import Progress
from .rarity import document_rarity
from .ranking import RelevanceMatrix
from .statistics import batch_kendall_tau_b, trial_rng


# ----------------------------------------------------------------- system subsampling


@dataclass(frozen=True)
class CoRetrieval:
    """What a rareness measure's mean over topics needs, for any subset of the runs.

    For runs s, s' the matrix ``pair[s, s']`` sums, over topics, the rarity weights of
    the relevant documents both retrieve. With rarity R(d) = 1 - S_d/N from a sample of
    N runs, S_d = sum over sampled s' of x_{s'}(d), so a run's mean rarity term is
    ``(own[s] - pair[s, sample].sum() / N) / Q``.

    P_rareness keeps integers (``scale`` = k): ``own`` counts a run's relevant documents
    in its top k, ``pair`` the ones two runs share, and a mean is one division,
    ((1 + alpha) N own - alpha shared) / (N k Q), so runs tied in exact arithmetic stay
    tied (PROTOCOL.md, numerical care). AP_rareness's weights are fractions.
    """

    base: np.ndarray  # (S,) mean of the classic measure (alpha = 0)
    own: np.ndarray  # (S,) sum over topics of the rarity-term weights (R = 1 everywhere)
    pair: np.ndarray  # (S, S) co-retrieval weights summed over topics
    n_topics: int
    scale: int | None = None  # k when own and pair are integer counts (P_rareness)

    def means(self, sample: np.ndarray, alpha: float) -> np.ndarray:
        """(trials, N) mean scores of the sampled runs with rarity from the sample alone.

        ``sample``: (trials, N) run indices."""
        n = sample.shape[1]
        own = self.own[sample]
        # Sum of pair[s, s'] over s' in the same trial's sample, for each sampled s.
        shared = self.pair[sample[:, :, None], sample[:, None, :]].sum(axis=2)
        if self.scale is not None:
            return ((1.0 + alpha) * (n * own) - alpha * shared) / (n * self.scale * self.n_topics)
        return self.base[sample] + alpha * (own - shared / n) / self.n_topics


def co_retrieval(matrix: RelevanceMatrix, measure: str) -> CoRetrieval:
    """Build :class:`CoRetrieval` for ``P_rareness@k`` or ``AP_rareness@k``.

    P: the weight of a relevant document at rank i is 1/k (eq. 1), kept as a count;
    AP: it is W_i / N_R with W_i = sum_{j>=i, j<=k} rel_j / j (eq. 3 rearranged). The
    (runs, relevant documents) incidence is sparse: its products cost what the runs
    retrieved, not runs x documents.
    """
    m = parse_measure(measure)
    if m.family not in ("P_rareness", "AP_rareness"):
        raise ValueError(f"system subsampling is defined for P_rareness and AP_rareness, not {measure}")
    hits, k = _cut(matrix, m.cutoff)
    n_topics = matrix.n_topics
    found = document_rarity(matrix, depth=min(k, matrix.run_depth or matrix.depth))
    run, doc = matrix.run_of(hits), found.index_of_judgment[hits.judgment]
    ones = np.ones(len(hits))
    if m.family == "P_rareness":
        own = np.bincount(run, minlength=matrix.n_runs).astype(np.int64)
        base = own / (k * n_topics)
        pair = np.rint(_gram(run, doc, ones, ones, matrix.n_runs, len(found.n_retrieving))).astype(np.int64)
        return CoRetrieval(base=base, own=own, pair=pair, n_topics=n_topics, scale=k)
    n_rel = matrix.n_relevant[matrix.topic_of(hits)].astype(np.float64)
    weight = np.divide(tail_weights(hits), n_rel, out=np.zeros(len(hits)), where=n_rel > 0)
    base = average_precision(matrix, m.cutoff)
    return CoRetrieval(base=np.sort(base, axis=1).sum(axis=1) / n_topics,
                       own=np.bincount(run, weights=weight, minlength=matrix.n_runs),
                       pair=_gram(run, doc, weight, ones, matrix.n_runs, len(found.n_retrieving)), n_topics=n_topics)


def _gram(run: np.ndarray, doc: np.ndarray, left: np.ndarray, right: np.ndarray, n_runs: int,
          n_docs: int) -> np.ndarray:
    """(runs, runs): sum over documents of left[s, d] * right[s', d], the (run, document)
    entries given as postings. Dense products over blocks of documents (BLAS), so memory
    stays at one (runs, block) pair of matrices; exact for 0/1 counts."""
    order = np.argsort(doc, kind="stable")
    run, doc, left, right = run[order], doc[order], left[order], right[order]
    width = st.block_size(n_runs * 8 * 2)
    out = np.zeros((n_runs, n_runs))
    for lo in range(0, n_docs, width):
        a, b = np.searchsorted(doc, [lo, lo + width])
        if a == b:
            continue
        x = np.zeros((n_runs, min(width, n_docs - lo)))
        y = np.zeros_like(x)
        x[run[a:b], doc[a:b] - lo] = left[a:b]
        y[run[a:b], doc[a:b] - lo] = right[a:b]
        out += x @ y.T
    return out


def sample_runs(n_runs: int, n_sample: int, trials: Iterable[int], seed: int) -> np.ndarray:
    """(trials, N) run indices, each trial N runs drawn without replacement."""
    return np.array([trial_rng(seed, t).choice(n_runs, n_sample, replace=False) for t in trials],
                    dtype=np.int64).reshape(-1, n_sample)


def system_subsampling_taus(cr: CoRetrieval, n_sample: int, trials: Iterable[int], seed: int,
                            alpha: float = 1.0) -> np.ndarray:
    """Kendall tau per trial between the N sampled runs' scores with rarity from all runs
    and with rarity from the N alone (Algorithm 1). NaN where tau is undefined."""
    trials = list(trials)
    if not trials:
        return np.zeros(0)
    n_runs = len(cr.base)
    sample = sample_runs(n_runs, n_sample, trials, seed)
    full = cr.means(np.arange(n_runs)[None, :], alpha)[0]
    return batch_kendall_tau_b(full[sample], cr.means(sample, alpha))


def summarise_taus(taus: np.ndarray) -> dict:
    """Mean and standard deviation over the defined trials, and how many were undefined."""
    defined = taus[~np.isnan(taus)]
    return {
        "trials": int(len(taus)),
        "undefined_trials": int(len(taus) - len(defined)),
        "mean_tau": float(defined.mean()) if len(defined) else float("nan"),
        "sd_tau": float(defined.std(ddof=1)) if len(defined) > 1 else float("nan"),
    }


def subsampling_sizes(n_runs: int, largest: int | None = None) -> list[int]:
    """N = 2, 4, 8, ... up to the number of runs (Table 3: 2 to 64 on TREC-8)."""
    top = n_runs if largest is None else min(largest, n_runs)
    sizes, n = [], 2
    while n <= top:
        sizes.append(n)
        n *= 2
    return sizes


# -------------------------------------------------------------- synthetic rare/common


def synthetic_rare_common(
    matrix: RelevanceMatrix,
    topic: str,
    *,
    cutoff: int = 100,
    alphas: Sequence[float] = (0.0, 0.5, 1.0),
    max_relevant: int = 45,
    rare_systems: str = "protocol",
) -> pd.DataFrame:
    """Figure 1: rank of a hypothetical system among the real runs on one topic by
    P@k_rareness, as it retrieves D = 1..max_relevant relevant documents.

    - S_rare retrieves D relevant documents no other run retrieved: S_d = 1, with S' = S + 1
      runs (``rare_systems="protocol"``) or S (``"paper_script"``, as the authors' script).
    - S_common retrieves the D real relevant documents most often retrieved by the real
      runs (most common first, ties by document code), raising their S_d by one.
    Adding either system makes S + 1 runs, so every real run is re-scored with S' = S + 1.
    Ranks: 1 is best, ties take the average rank.
    """
    if rare_systems not in ("protocol", "paper_script"):
        raise ValueError("rare_systems must be 'protocol' or 'paper_script'")
    if topic not in matrix.topics:
        raise KeyError(f"topic {topic} is not in the qrels")
    q = matrix.topics.index(topic)
    k = cutoff
    found = document_rarity(matrix, depth=min(k, matrix.run_depth or matrix.depth))
    on_topic = np.flatnonzero(found.topic == q)
    s_d = found.n_retrieving[on_topic]
    n_runs = len(matrix.runs)
    hits = matrix.hits.top(k).cells(np.arange(n_runs) * matrix.n_topics + q)
    # (runs, relevant documents of the topic) incidence of the real runs' top k
    column = np.full(len(found.n_retrieving), -1, dtype=np.int64)
    column[on_topic] = np.arange(len(on_topic))
    incidence = np.zeros((n_runs, len(on_topic)), dtype=np.int64)
    incidence[hits.cell, column[found.index_of_judgment[hits.judgment]]] = 1
    count = incidence.sum(axis=1)

    common_order = np.lexsort((found.doc[on_topic], -s_d))  # most common first
    s_prime = n_runs + 1
    rows = []
    for alpha in alphas:
        for d in range(1, max_relevant + 1):
            # Scaled by k * S' so that scores are exact for dyadic alphas: k*S'*P = sum (S' + a (S' - S_d)).
            rare_s = s_prime if rare_systems == "protocol" else n_runs
            rare = d * (rare_s + alpha * (rare_s - 1)) * (s_prime / rare_s)
            real_for_rare = count * s_prime + alpha * (count * s_prime - incidence @ s_d)
            rows.append(_rank_row(topic, "S_rare", alpha, d, rare, real_for_rare))
            chosen = common_order[:d]
            bumped = s_d.copy()
            bumped[chosen] += 1
            common = len(chosen) * s_prime + alpha * (len(chosen) * s_prime - bumped[chosen].sum())
            real_for_common = count * s_prime + alpha * (count * s_prime - incidence @ bumped)
            rows.append(_rank_row(topic, "S_common", alpha, d, common, real_for_common,
                                  available=len(chosen)))
    return pd.DataFrame(rows)


def _rank_row(topic: str, system: str, alpha: float, d: int, score: float, real: np.ndarray,
              available: int | None = None) -> dict:
    tolerance = 1e-9 * max(1.0, abs(score))
    better = int(np.count_nonzero(real > score + tolerance))
    tied = int(np.count_nonzero(np.abs(real - score) <= tolerance))
    return {
        "topic": topic, "system": system, "alpha": float(alpha), "n_relevant": d,
        "n_relevant_retrieved": d if available is None else available,
        "rank": 1 + better + tied / 2,
    }


# ------------------------------------------------------------------- score matrices


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-topic scores of one measure at one alpha: (runs, topics)."""

    measure: str
    alpha: str | None  # label ("0.5", "1/R"), None for measures without one
    runs: list[str]
    topics: list[str]
    values: np.ndarray
    higher_is_better: bool = True

    @property
    def key(self) -> tuple[str, str]:
        return self.measure, self.alpha or ""


def score_matrices(scores: pd.DataFrame | Scores, measures: Sequence[str] | None = None,
                   alphas: Sequence[str] | None = None) -> list[ScoreMatrix]:
    """The per-topic scores as (runs, topics) matrices, one per (measure, alpha): from
    :class:`~irmeta.metrics.Scores` (as loaded from ``scores.npz``), or from the per-topic
    rows of a long scores table, runs and topics in the table's order (every qrels topic,
    a topic a run did not return scoring 0: the paper's averaging over all topics)."""
    if isinstance(scores, Scores):
        wanted = None if alphas is None else {alpha_label(a) for a in alphas}
        return [ScoreMatrix(measure=m, alpha=a, runs=scores.runs, topics=scores.topics, values=scores.per_topic[i],
                            higher_is_better=parse_measure(m).higher_is_better)
                for i, (m, a) in enumerate(zip(scores.measures, scores.alphas))
                if (measures is None or m in measures) and (a is None or wanted is None or a in wanted)]
    per_topic = scores[scores["averaging"].isna()]
    if measures is not None:
        per_topic = per_topic[per_topic["measure"].isin(list(measures))]
    wanted = None if alphas is None else {alpha_label(a) for a in alphas}
    out = []
    runs = list(dict.fromkeys(per_topic["run"]))
    topics = list(dict.fromkeys(per_topic["qid"]))
    for (measure, alpha), block in per_topic.groupby(["measure", per_topic["alpha"].fillna("")], sort=False):
        if alpha and wanted is not None and alpha not in wanted:
            continue
        table = block.pivot(index="run", columns="qid", values="value").reindex(index=runs, columns=topics)
        if table.isna().any().any():
            raise ValueError(f"{measure} alpha {alpha or '-'}: the scores table misses run-topic rows")
        out.append(ScoreMatrix(measure=measure, alpha=alpha or None, runs=runs, topics=topics,
                               values=table.to_numpy(dtype=np.float64),
                               higher_is_better=parse_measure(measure).higher_is_better))
    return out


def mean_table(scores: pd.DataFrame, averaging: str = "all_topics") -> pd.DataFrame:
    """Runs' means: one row per run, one column per (measure, alpha label)."""
    means = scores[scores["averaging"] == averaging]
    return means.pivot_table(index="run", columns=["measure", means["alpha"].fillna("")],
                             values="value", sort=False)


# --------------------------------------------------------------------- Kendall tau


def kendall_tau_table(scores: pd.DataFrame | Scores, comparisons: Sequence[dict],
                      averaging: str = "all_topics") -> pd.DataFrame:
    """Figure 2: for each measure and alpha, tau-b and tau_AP between the runs' means
    and the baseline's (tau_AP with the baseline as the reference ranking). Each
    measure ranks runs in its own direction, so tau is positive when they agree."""
    means = scores.mean_frame(averaging) if isinstance(scores, Scores) else mean_table(scores, averaging)
    rows = []
    for comparison in comparisons:
        measure, baseline = comparison["measure"], comparison["baseline"]
        # Both rankings best first: a lower-is-better measure (ASL) is negated, exactly.
        reference = _oriented(means[(baseline, "")].to_numpy(), baseline)
        for (name, alpha), column in means.items():
            if name != measure:
                continue
            x = _oriented(column.to_numpy(), measure)
            rows.append({"measure": measure, "baseline": baseline, "alpha": alpha,
                         "tau": st.kendall_tau(x, reference),
                         "tau_ap": st.tau_ap(x, reference, higher_is_better=True),
                         "n_runs": len(x), "averaging": averaging})
    return _sort_alpha(pd.DataFrame(rows), ["measure", "alpha"])


def _oriented(values: np.ndarray, measure: str) -> np.ndarray:
    return values if parse_measure(measure).higher_is_better else -values


def _alpha_order(label: str) -> float:
    try:
        return float(label)
    except ValueError:
        return float("inf")  # 1/R after the numbers


def _sort_alpha(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    if frame.empty:
        return frame
    keyed = frame.assign(_alpha=frame["alpha"].fillna("").map(lambda a: -1.0 if a == "" else _alpha_order(a)))
    by = ["_alpha" if b == "alpha" else b for b in by]
    return keyed.sort_values(by, kind="stable").drop(columns="_alpha").reset_index(drop=True)


# -------------------------------------------------------------- discriminative power

DP_METHODS = ("paper_pairwise", "tukey_hsd", "randomised_tukey_hsd")


def randomised_null_shard(matrices: Sequence[ScoreMatrix], trials: Iterable[int], seed: int) -> pd.DataFrame:
    """Max-difference statistics of the given permutation trials, for every matrix."""
    trials = np.asarray(list(trials), dtype=np.int64)
    progress = Progress(len(trials), f"permutations of {len(matrices)} score matrices")
    null = np.zeros((len(matrices), len(trials)))
    for start in range(0, len(trials), 100):  # blocks of trials, for progress
        block = trials[start : start + 100]
        if matrices:
            null[:, start : start + len(block)] = st.randomised_tukey_hsd_null_many(
                np.stack([m.values for m in matrices]), block, seed)
        progress.advance(len(block))
    frames = [pd.DataFrame({"measure": m.measure, "alpha": m.alpha or "", "trial": trials,
                            "max_difference": row}) for m, row in zip(matrices, null)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["measure", "alpha", "trial", "max_difference"])


def discriminative_power_table(
    matrices: Sequence[ScoreMatrix],
    *,
    methods: Sequence[str] = DP_METHODS,
    levels: Sequence[float] = (0.05, 0.01),
    null: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Table 1: run pairs significantly different at each level, by each method.

    - ``paper_pairwise``: each pair alone, Tukey HSD on two independent groups (the
      authors' scripts; equals an unpaired two-sample t-test, no multiplicity correction);
    - ``tukey_hsd``: one Tukey HSD over all runs on the two-way ANOVA residual;
    - ``randomised_tukey_hsd``: permutation within topics (``null`` from the shards).
    """
    unknown = set(methods) - set(DP_METHODS)
    if unknown:
        raise ValueError(f"unknown discriminative-power methods: {sorted(unknown)}")
    rows = []
    critical: dict[tuple[int, int], dict[float, float]] = {}
    for m in matrices:
        n_runs = m.values.shape[0]
        total = n_runs * (n_runs - 1) // 2
        for method in methods:
            if method == "paper_pairwise":
                counts = st.count_significant(st.paper_pairwise_pvalues(m.values), levels)
            elif method == "tukey_hsd":
                q, k, df = st.tukey_hsd_statistics(m.values)
                if (k, df) not in critical:  # the studentized range quantile is the slow part
                    critical[(k, df)] = st.tukey_hsd_critical_values(k, df, levels)
                counts = {lv: int(np.count_nonzero(q > critical[(k, df)][lv])) for lv in map(float, levels)}
            else:
                if null is None:
                    raise ValueError("randomised_tukey_hsd needs the permutation null (its shards)")
                mine = null[(null["measure"] == m.measure) & (null["alpha"] == (m.alpha or ""))]
                mine = mine.sort_values("trial")
                p = st.randomised_tukey_hsd_pvalues(m.values, mine["max_difference"].to_numpy())
                counts = st.count_significant(p, levels)
                counts = {float(k): v for k, v in counts.items()}
            for level in levels:
                rows.append({"measure": m.measure, "alpha": m.alpha or "", "method": method,
                             "level": float(level), "significant_pairs": int(counts[float(level)]),
                             "total_pairs": total,
                             "permutations": int(len(mine)) if method == "randomised_tukey_hsd" else None})
    return _sort_alpha(pd.DataFrame(rows), ["measure", "alpha"])


# ------------------------------------------------------------------------ stability


@dataclass(frozen=True, eq=False)
class StabilityCounts:
    """Per-pair wins and ties of some stability trials: block ``i`` is ``keys[i]`` (measure,
    alpha, fuzziness mode, fuzziness), its counts (blocks, pairs) int32 arrays in
    :func:`irmeta.statistics.run_pairs` order. Shards add up (:meth:`plus`)."""

    keys: list[tuple[str, str, str, float]]
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    topics_per_trial: int

    def plus(self, other: "StabilityCounts") -> "StabilityCounts":
        if other.keys != self.keys or other.topics_per_trial != self.topics_per_trial:
            raise ValueError("stability shards of different measures or topic-subset sizes do not add up")
        return StabilityCounts(self.keys, self.wins_a + other.wins_a, self.wins_b + other.wins_b,
                               self.ties + other.ties, self.topics_per_trial)

    def save(self, path: str | Path, settings: dict | None = None) -> None:
        meta = {"keys": self.keys, "topics_per_trial": self.topics_per_trial, "settings": settings or {}}
        io.atomic_save_npz(path, {"wins_a": self.wins_a, "wins_b": self.wins_b, "ties": self.ties,
                                  "meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)})

    @classmethod
    def load(cls, path: str | Path) -> "StabilityCounts":
        with np.load(path) as stored:
            meta = json.loads(stored["meta"].tobytes())
            return cls([tuple(k) for k in meta["keys"]], stored["wins_a"], stored["wins_b"], stored["ties"],
                       int(meta["topics_per_trial"]))


def stability_shard(matrices: Sequence[ScoreMatrix], *, topics_per_trial: int, trials: Iterable[int], seed: int,
                    fuzziness: Sequence[dict]) -> StabilityCounts:
    """Per-pair wins and ties over the given trials, for every matrix and fuzziness setting:
    the topic subsets are drawn once, each matrix's trial means computed once."""
    trials = list(trials)
    keys, counts = [], []
    progress = Progress(len(matrices), f"stability, {len(trials)} trials")
    subsets = st.draw_topic_subsets(len(matrices[0].topics), topics_per_trial, trials, seed) if matrices else None
    for m in matrices:
        means = st.trial_means(m.values, subsets)
        for setting in fuzziness:
            keys.append((m.measure, m.alpha or "", setting["mode"], float(setting["value"])))
            counts.append(st.stability_counts_of_means(
                means, fuzziness=setting["value"], mode=setting["mode"], higher_is_better=m.higher_is_better))
        progress.advance()
    n_pairs = len(st.run_pairs(len(matrices[0].runs))[0]) if matrices else 0

    def stacked(i: int) -> np.ndarray:
        return np.stack([c[i] for c in counts]).astype(np.int32) if counts else np.zeros((0, n_pairs), np.int32)

    return StabilityCounts(keys, stacked(0), stacked(1), stacked(2), topics_per_trial)


def stability_table(shards: Sequence[StabilityCounts], *, topics_per_trial: int, trials: int,
                    seed: int) -> pd.DataFrame:
    """Table 2: Buckley-Voorhees stability from the summed per-pair counts of the shards."""
    total = shards[0]
    for shard in shards[1:]:
        total = total.plus(shard)
    rows = []
    for i, (measure, alpha, mode, value) in enumerate(total.keys):
        rows.append({"measure": measure, "alpha": alpha, "fuzziness_mode": mode, "fuzziness": value,
                     "topics_per_trial": topics_per_trial, "trials": trials, "seed": seed,
                     "stability": st.stability(total.wins_a[i], total.wins_b[i], total.ties[i])})
    return _sort_alpha(pd.DataFrame(rows), ["measure", "alpha", "fuzziness_mode"])


# ------------------------------------------------------------- subsampling, tabulated


def subsampling_shard(matrix: RelevanceMatrix, measures: Sequence[str], *, sizes: Sequence[int],
                      trials: Iterable[int], seed: int, alpha: float = 1.0) -> pd.DataFrame:
    """Kendall tau of each trial for each measure and number of systems N."""
    trials = list(trials)
    frames = []
    progress = Progress(len(measures) * len(sizes), f"system subsampling, {len(trials)} trials")
    for measure in measures:
        cr = co_retrieval(matrix, measure)
        for n in sizes:
            progress.advance()
            # N's own stream: the same trial index draws different runs for each N.
            taus = system_subsampling_taus(cr, n, trials, seed=seed * 1000 + n, alpha=alpha)
            frames.append(pd.DataFrame({"measure": measure, "alpha": alpha_label(alpha), "n_systems": n,
                                        "trial": trials, "tau": taus}))
    return pd.concat(frames, ignore_index=True)


def subsampling_table(shards: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Table 3: mean and standard deviation of tau over the defined trials, per measure and N."""
    taus = pd.concat(list(shards), ignore_index=True)
    rows = []
    for (measure, alpha, n), block in taus.groupby(["measure", "alpha", "n_systems"], sort=False):
        summary = summarise_taus(block.sort_values("trial")["tau"].to_numpy())
        rows.append({"measure": measure, "alpha": alpha, "n_systems": int(n), **summary})
    return pd.DataFrame(rows).sort_values(["measure", "n_systems"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------- swap method


def swap_shard(matrices: Sequence[ScoreMatrix], *, trials: Iterable[int], seed: int, sampling: str = "bootstrap",
               topic_set_size: int | None = None, bin_width: float = 0.01) -> pd.DataFrame:
    """Per-bin comparisons and swaps of the given trials, for every matrix (shards add up)."""
    trials = list(trials)
    frames = []
    progress = Progress(len(matrices), f"swap method, {len(trials)} trials")
    sets = st.draw_topic_pairs(len(matrices[0].topics), trials, seed, sampling, topic_set_size) if matrices else None
    for m in matrices:
        bins, comparisons, swaps = st.swap_counts(m.values, trials, seed, sampling=sampling,
                                                  topic_set_size=topic_set_size, bin_width=bin_width,
                                                  higher_is_better=m.higher_is_better, topic_sets=sets)
        frames.append(pd.DataFrame({"measure": m.measure, "alpha": m.alpha or "", "bin": bins,
                                    "comparisons": comparisons, "swaps": swaps}))
        progress.advance()
    return pd.concat(frames, ignore_index=True)


def swap_table(shards: Sequence[pd.DataFrame], *, trials: int, sampling: str, topic_set_size: int,
               bin_width: float, confidence: float, seed: int) -> pd.DataFrame:
    """Sakai's Table 1 per measure and alpha: the absolute difference required for a
    ``confidence`` sure comparison and the share of comparisons discriminated."""
    counts = pd.concat(list(shards), ignore_index=True)
    summed = counts.groupby(["measure", "alpha", "bin"], sort=False)[["comparisons", "swaps"]].sum().reset_index()
    rows = []
    for (measure, alpha), block in summed.groupby(["measure", "alpha"], sort=False):
        result = st.swap_sensitivity(block["bin"].to_numpy(), block["comparisons"].to_numpy(),
                                     block["swaps"].to_numpy(), bin_width=bin_width, confidence=confidence)
        rows.append({"measure": measure, "alpha": alpha, "sampling": sampling, "topic_set_size": topic_set_size,
                     "trials": trials, "bin_width": bin_width, "confidence": confidence, "seed": seed, **result})
    return _sort_alpha(pd.DataFrame(rows), ["measure", "alpha"])
