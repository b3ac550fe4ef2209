"""Table 3 and Algorithm 1 of the paper: rarity recomputed from N sampled runs.

Both rareness measures are affine in rarity, and rarity is affine in the co-retrieval
counts of the sampled runs, so a trial is a sum over rows of a (runs x runs) matrix
built once: no trial re-scores anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.alpha import alpha_label
from irmeta.measures.cutoffs import cut_at
from irmeta.measures.names import Measure, as_measure
from irmeta.measures.precision import average_precision
from irmeta.measures.rareness import rarity_for, tail_weights
from irmeta.metaeval.stats.blocks import block_size, trial_rng
from irmeta.metaeval.stats.correlation import batch_kendall_tau_b
from irmeta.support.progress import Progress

#: Added to ``experiments.seed``: at N sampled runs, trial t draws the sampled runs from
#: ``default_rng([(seed + SEED_OFFSET) * 1000 + N, t])`` (:func:`subsampling_shard`), a
#: stream no other experiment of the same seed draws from. Part of the published numbers:
#: changing it changes every table of this experiment.
SEED_OFFSET = 2

#: The columns of ``system_subsampling.csv``, in order (the experiment manifest names
#: this constant; the documentation's table reference is written from it): the key, then
#: what :func:`summarise_taus` returns.
COLUMNS = ("measure", "alpha", "n_systems", "trials", "undefined_trials", "mean_tau", "sd_tau", "rarity_depth")
#: Columns of :data:`COLUMNS` written only under some settings, with when.
OPTIONAL_COLUMNS = {"rarity_depth": "rarity_depth is set, not null as by default"}


@dataclass(frozen=True)
class CoRetrieval:
    """What a rareness measure's mean over topics needs, for any subset of the runs.

    For runs s, s' the matrix ``pair[s, s']`` sums, over topics, the rarity weights of
    the relevant documents s retrieves in its top k and s' within the rarity depth (k
    unless ``rarity_depth`` says deeper). With rarity R(d) = 1 - S_d/N from a sample of
    N runs, S_d = sum over sampled s' of x_{s'}(d), so a run's mean rarity term is
    ``(own[s] - pair[s, sample].sum() / N) / Q``.

    P_rareness keeps integers (``scale`` = k): ``own`` counts a run's relevant documents
    in its top k, ``pair`` the ones two runs share, and a mean is one division,
    ((1 + alpha) N own - alpha shared) / (N k Q), so runs tied in exact arithmetic stay
    tied (docs/PROTOCOL.md, Numerical care). AP_rareness's weights are fractions.
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


def co_retrieval(matrix: RelevanceMatrix, measure: str | Measure, rarity_depth: int | None = None) -> CoRetrieval:
    """Build :class:`CoRetrieval` for ``P_rareness@k`` or ``AP_rareness@k``.

    P: the weight of a relevant document at rank i is 1/k (eq. 1), kept as a count;
    AP: it is W_i / N_R with W_i = sum_{j>=i, j<=k} rel_j / j (eq. 3 rearranged). The
    (runs, relevant documents) incidence is sparse: its products cost what the runs
    retrieved, not runs x documents.

    S_d counts the runs that hold d within ``rarity_depth`` (None: the cutoff k), as
    scoring counts it (:func:`irmeta.measures.rareness.rarity_for`: a depth shallower
    than k is refused, one beyond the runs' depth counts as that depth); the weights
    stay those of the top k.
    """
    m = as_measure(measure)  # the pipeline's arrives read; a caller's name is read here
    if m.family not in ("P_rareness", "AP_rareness"):
        raise ValueError(f"system subsampling is defined for P_rareness and AP_rareness, not {measure}")
    if m.without_alpha().params:  # trials are affine in S_d: the linear rarity (eq. 2) only, no other setting
        raise ValueError(f"system subsampling takes P_rareness@k and AP_rareness@k with the linear rarity (eq. 2) "
                         f"and no other parameter, not {measure}: a trial sums co-retrieval counts, which only "
                         f"R = 1 - S_d/S is affine in")
    hits, k = cut_at(matrix, m.cutoff)
    n_topics = matrix.n_topics
    found = rarity_for(matrix, k, None, rarity_depth)
    run, doc = matrix.run_of(hits), found.index_of_judgment[hits.judgment]
    # Who retrieves each document within the rarity depth: at the cutoff, the same postings.
    counted = hits if found.depth <= k else matrix.hits.top(found.depth)
    other = (run, doc, np.ones(len(hits))) if counted is hits else (
        matrix.run_of(counted), found.index_of_judgment[counted.judgment], np.ones(len(counted)))
    if m.family == "P_rareness":
        own = np.bincount(run, minlength=matrix.n_runs).astype(np.int64)
        base = own / (k * n_topics)
        pair = np.rint(_gram((run, doc, np.ones(len(hits))), other, matrix.n_runs,
                             len(found.n_retrieving))).astype(np.int64)
        return CoRetrieval(base=base, own=own, pair=pair, n_topics=n_topics, scale=k)
    n_rel = matrix.n_relevant[matrix.topic_of(hits)].astype(np.float64)
    weight = np.divide(tail_weights(hits), n_rel, out=np.zeros(len(hits)), where=n_rel > 0)
    base = average_precision(matrix, m.cutoff)
    return CoRetrieval(base=np.sort(base, axis=1).sum(axis=1) / n_topics,
                       own=np.bincount(run, weights=weight, minlength=matrix.n_runs),
                       pair=_gram((run, doc, weight), other, matrix.n_runs, len(found.n_retrieving)),
                       n_topics=n_topics)


Entries = tuple[np.ndarray, np.ndarray, np.ndarray]  # (run, document, value) of each posting


def _gram(left: Entries, right: Entries, n_runs: int, n_docs: int) -> np.ndarray:
    """(runs, runs): sum over documents of left[s, d] * right[s', d], each matrix's
    (run, document) entries given as postings. Dense products over blocks of documents
    (BLAS), so memory stays at one (runs, block) pair of matrices; exact for 0/1 counts."""
    width = block_size(n_runs * 8 * 2)
    out = np.zeros((n_runs, n_runs))
    left_sorted, right_sorted = _by_document(left), _by_document(right)
    for lo in range(0, n_docs, width):
        x = _block(left_sorted, lo, width, n_runs, n_docs)
        y = _block(right_sorted, lo, width, n_runs, n_docs)
        if x is None or y is None:
            continue
        out += x @ y.T
    return out


def _by_document(entries: Entries) -> Entries:
    run, doc, value = entries
    order = np.argsort(doc, kind="stable")
    return run[order], doc[order], value[order]


def _block(entries: Entries, lo: int, width: int, n_runs: int, n_docs: int) -> np.ndarray | None:
    """The dense (runs, documents lo..lo + width) block of sorted entries; None when empty."""
    run, doc, value = entries
    a, b = np.searchsorted(doc, [lo, lo + width])
    if a == b:
        return None
    x = np.zeros((n_runs, min(width, n_docs - lo)))
    x[run[a:b], doc[a:b] - lo] = value[a:b]
    return x


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


def subsampling_shard(matrix: RelevanceMatrix, measures: Sequence[str], *, sizes: Sequence[int],
                      trials: Iterable[int], seed: int, alpha: float = 1.0,
                      rarity_depth: int | None = None) -> pd.DataFrame:
    """Kendall tau of each trial for each measure and number of systems N, S_d counted at
    ``rarity_depth`` (None: each measure's cutoff; then no ``rarity_depth`` column, as
    before the setting existed)."""
    trials = list(trials)
    frames = []
    progress = Progress(len(measures) * len(sizes), f"system subsampling, {len(trials)} trials")
    for measure in measures:
        cr = co_retrieval(matrix, measure, rarity_depth)
        for n in sizes:
            progress.advance()
            # N's own stream: the same trial index draws different runs for each N.
            taus = system_subsampling_taus(cr, n, trials, seed=seed * 1000 + n, alpha=alpha)
            frame = pd.DataFrame({"measure": measure, "alpha": alpha_label(alpha), "n_systems": n,
                                  "trial": trials, "tau": taus})
            if rarity_depth is not None:
                frame["rarity_depth"] = int(rarity_depth)
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def subsampling_table(shards: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Table 3: mean and standard deviation of tau over the defined trials, per measure and N
    (and the shards' ``rarity_depth``, last, when they have one)."""
    taus = pd.concat(list(shards), ignore_index=True)
    settings = ["rarity_depth"] if "rarity_depth" in taus.columns else []
    rows = []
    for key, block in taus.groupby(["measure", "alpha", "n_systems", *settings], sort=False):
        measure, alpha, n, *rest = key
        summary = summarise_taus(block.sort_values("trial")["tau"].to_numpy())
        rows.append({"measure": measure, "alpha": alpha, "n_systems": int(n), **summary,
                     **{name: int(value) for name, value in zip(settings, rest)}})
    columns = [c for c in COLUMNS if c not in OPTIONAL_COLUMNS or c in settings]
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values(["measure", "n_systems"], kind="stable").reset_index(drop=True)
