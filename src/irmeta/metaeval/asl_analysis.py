"""The analyses of Alex, Hall and Metzler's ASL paper on one collection: RRIE
(eq. 11-12), per-document ASL histograms, the MAP-to-ASL re-ordering table with its
ablations (Table 2), run over the whole collection by :func:`asl_analysis`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.asl import Unretrieved, asl, asl_g1, atomized_search_lengths
from irmeta.measures.averaging import exact_mean
from irmeta.measures.precision import average_precision

if TYPE_CHECKING:
    import pandas as pd

#: The columns of ``asl_reordering.csv`` and ``asl_rrie.csv``, in order (the experiment
#: manifest names these constants; the documentation's table reference is written from
#: them): a row of :func:`reordering_row` then the setting, and RRIE's rows.
REORDERING_COLUMNS = ("step", "old", "new", "delta_sort_max", "delta_sort_run", "delta_sort_mean", "kendall_tau",
                      "delta_value_mean", "delta_value_sd", "n_runs", "n_topics", "asl_unretrieved")
RRIE_COLUMNS = ("measure", "run_a", "run_b", "value_a", "value_b", "rrie", "asl_unretrieved")
_ROW_COLUMNS = REORDERING_COLUMNS[:-1]  # reordering_table's, without the setting


def rrie(a, b, *, higher_is_better: bool = False, optimum: float = 1.0):
    """Relative reduction in error from ``a`` (the baseline) to ``b`` (eq. 11-12).

    Error is the distance to the optimum, 1 for both kinds of measure: ASL - 1 for ASL
    and ASL@g1-n (eq. 12, ``higher_is_better=False``, the default) and 1 - P for P@k and
    MAP (eq. 11, ``higher_is_better=True``)::

        RRIE = (error_a - error_b) / error_a

    Positive when b is better. Arrays broadcast; NaN where a's error is 0.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    err_a = optimum - a if higher_is_better else a - optimum
    err_b = optimum - b if higher_is_better else b - optimum
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(err_a != 0, (err_a - err_b) / np.where(err_a != 0, err_a, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def _histogram(values: np.ndarray, bins) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.isnan(values).any():
        raise ValueError("ASL values must not be NaN")
    if np.ndim(bins) == 0:
        counts, edges = np.histogram(values, bins=int(bins))
        return counts.astype(np.int64), edges
    edges = np.asarray(bins, dtype=np.float64)
    if edges.ndim != 1 or len(edges) < 2 or (np.diff(edges) <= 0).any():
        raise ValueError("bin edges must be increasing, at least two")
    # open-ended outer bins: values past the outer edges count in them, as the paper's
    # rightmost bucket counts every document past it
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return counts.astype(np.int64), edges


def asl_histogram(per_doc_asl, bins=10) -> tuple[np.ndarray, np.ndarray]:
    """Figure 5: how many relevant documents have each per-document ASL.

    ``per_doc_asl``: ASL_{q,d} values, any shape (e.g. one run's row of
    :func:`atomized_search_lengths`). ``bins``: a number of equal-width bins over
    [min, max] (numpy's rule), or increasing edges, whose outer bins are open-ended
    (values beyond them count there), so the counts always sum to the number of
    documents. Returns ``(counts, edges)``, counts int64.
    """
    return _histogram(per_doc_asl, bins)


def decade_edges(max_abs: float) -> np.ndarray:
    """Symmetric edges for integer differences: ..., -99.5, -9.5, -0.5, 0.5, 9.5, 99.5, ...
    up to the decade holding ``max_abs``: bins of 0 (ties), +-1..9, +-10..99, ..."""
    top = max(float(max_abs), 0.0)
    edges = [0.5]
    power = 10
    while edges[-1] < top:
        edges.append(power - 0.5)
        power *= 10
    right = np.asarray(edges)
    return np.concatenate([-right[::-1], right])


def asl_difference_histogram(a, b, bins=None) -> tuple[np.ndarray, np.ndarray]:
    """Figure 6: per-document ASL changes a - b (the paper: best minus median system);
    negative values are wins for a.

    ``a``, ``b``: ASL_{q,d} of the same documents (same shape). ``bins``: edges
    (open-ended outer bins), a number of equal-width bins, or None for
    :func:`decade_edges` of the largest change (ties, 1-9, 10-99, ... ranks each way,
    the paper's buckets of "100, or 1000, or 10000 ranks"). Returns ``(counts, edges)``.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a and b must hold the same documents: shapes {a.shape} and {b.shape}")
    diff = (a - b).reshape(-1)
    if bins is None:
        bins = decade_edges(np.abs(diff).max(initial=0.0))
    return _histogram(diff, bins)


@dataclass(frozen=True)
class MetricVariant:
    """One metric of the MAP-to-ASL chain.

    ``per_topic`` (runs, topics): the per-query values the t-test compares; ``value``
    (runs,): the system score the 10% test and Kendall's tau use; ``rate`` (runs,): the
    score in precision space (1/ASL for ASL), for Delta Value.
    """

    name: str
    per_topic: np.ndarray
    value: np.ndarray
    higher_is_better: bool
    rate: np.ndarray


def _topic_means(per_doc: np.ndarray, doc_topic: np.ndarray, n_topics: int) -> np.ndarray:
    """(runs, topics) mean over each topic's documents (sorted sums, exact ties)."""
    order = np.argsort(doc_topic, kind="stable")
    counts = np.bincount(doc_topic, minlength=n_topics)
    out = np.zeros((per_doc.shape[0], n_topics))
    starts = np.concatenate([[0], np.cumsum(counts)])
    for q in np.flatnonzero(counts):
        block = per_doc[:, order[starts[q]:starts[q + 1]]]
        out[:, q] = exact_mean(block)
    return out


def ablation_variants(per_topic_map, per_doc_asl, doc_topic) -> list[MetricVariant]:
    """The metrics of Table 2, from MAP to ASL, over the topics with a relevant document.

    1. ``MAP``: AP_q = (1/n_q) sum_d P_{q,d} (eq. 6-8), P = 0 for a missing document;
       given as ``per_topic_map`` (e.g. ``average_precision(matrix, None)``).
    2. ``atomized_P`` ("Atomize P": eq. 6 replaced by the reciprocal of eq. 2, and of
       eq. 3 for a missing document): mean_q mean_d 1/ASL_{q,d}.
    3. ``harmonic_within_topic`` (eq. 7 a harmonic mean): per topic the harmonic mean of
       the 1/ASL_{q,d}, which is 1/ASL_q; the system value mean_q 1/ASL_q.
    4. ``harmonic_across_topics`` (eq. 8 a harmonic mean too): 1/ASL, the harmonic mean
       of the 1/ASL_q; still in precision space, so its per-query values are 1/ASL_q.
    5. ``ASL`` (eq. 4): per-query ASL_q, value ASL, lower is better: the ranking of 4,
       reported in 1/P space (the paper: "doesn't change system ordering, but can change
       significance testing results").

    Rates need ASL_{q,d} >= 1 everywhere; eq. 3 gives 0 when a run returned no
    irrelevant document for a topic with a missing relevant one, and then this raises
    (compute the ASLs with ``unretrieved="plus_one"`` or ``"depth"``).
    """
    ap = np.asarray(per_topic_map, dtype=np.float64)
    values = np.asarray(per_doc_asl, dtype=np.float64)
    doc_topic = np.asarray(doc_topic, dtype=np.int64)
    if values.ndim != 2 or values.shape[0] != ap.shape[0] or values.shape[1] != len(doc_topic):
        raise ValueError("per_doc_asl must be (runs, J) with one topic index per column, runs as per_topic_map")
    if (values < 1).any():
        raise ValueError(
            "some ASL_{q,d} are below 1 (eq. 3 gives 0 when a run returned no irrelevant document for a "
            "topic with a missing relevant one); the precision-space steps need 1/ASL_{q,d}: compute the "
            "ASLs with unretrieved='plus_one' or 'depth'")
    n_topics = ap.shape[1]
    counts = np.bincount(doc_topic, minlength=n_topics)
    keep = counts > 0
    ap = ap[:, keep]
    atomized = _topic_means(1.0 / values, doc_topic, n_topics)[:, keep]
    asl_q = _topic_means(values, doc_topic, n_topics)[:, keep]
    inverse_q = 1.0 / asl_q
    asl_mean = exact_mean(asl_q)
    map_value = exact_mean(ap)
    atomized_value = exact_mean(atomized)
    within_value = exact_mean(inverse_q)
    return [
        MetricVariant("MAP", ap, map_value, True, map_value),
        MetricVariant("atomized_P", atomized, atomized_value, True, atomized_value),
        MetricVariant("harmonic_within_topic", inverse_q, within_value, True, within_value),
        MetricVariant("harmonic_across_topics", inverse_q, 1.0 / asl_mean, True, 1.0 / asl_mean),
        MetricVariant("ASL", asl_q, asl_mean, False, 1.0 / asl_mean),
    ]


def paired_t_pvalues(per_topic, test: Literal["paired", "independent"] = "paired") -> np.ndarray:
    """(runs, runs) two-tailed p-values of Student's t-test between every two runs'
    per-topic values: ``paired`` (on the topic-wise differences, df = T - 1; scipy's
    ``ttest_rel``) or ``independent`` (pooled variance, df = 2T - 2; ``ttest_ind``).
    Identical values give p = 1, a constant non-zero difference p = 0; 1 on the diagonal."""
    from scipy.special import stdtr  # t.sf(x, df) is stdtr(df, -x); scipy.stats costs a second to import

    from irmeta.metaeval.stats.blocks import block_size

    x = np.asarray(per_topic, dtype=np.float64)
    n_runs, n = x.shape
    p = np.ones((n_runs, n_runs))
    if n < 2:
        p[~np.eye(n_runs, dtype=bool)] = np.nan
        return p
    if test not in ("paired", "independent"):
        raise ValueError(f"test must be 'paired' or 'independent', not {test!r}")
    a, b = np.triu_indices(n_runs, 1)
    df = n - 1 if test == "paired" else 2 * n - 2
    batch = block_size(n * 8 * 2)  # pairs per block: (pairs, topics) differences
    for start in range(0, len(a), batch):
        pa, pb = a[start:start + batch], b[start:start + batch]
        if test == "paired":
            d = x[pb] - x[pa]
            mean = d.mean(axis=1)
            se = d.std(axis=1, ddof=1) / math.sqrt(n)
        else:
            mean = x[pb].mean(axis=1) - x[pa].mean(axis=1)
            var = (x[pa].var(axis=1, ddof=1) + x[pb].var(axis=1, ddof=1)) / 2
            se = np.sqrt(2 * var / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(mean) / se
        # no spread: identical values (0/0) are no evidence (p = 1), a constant shift is certain (p = 0)
        t = np.where(se == 0, np.where(mean == 0, 0.0, np.inf), t)
        pair_p = np.minimum(2.0 * stdtr(df, -t), 1.0)
        p[pa, pb] = pair_p
        p[pb, pa] = pair_p
    return p


def better_counts(per_topic, value, higher_is_better: bool, *, relative: float = 0.10, alpha: float = 0.05,
                  test: Literal["paired", "independent"] = "paired", tolerance: float = 1e-12) -> np.ndarray:
    """n_s: how many systems are *better* than each system s (Table 2).

    t is better than s when both tests pass (the paper: "the absolute value of the metric
    is 10% better, and a two-tailed Student t-test on the per-query metrics returned a
    probability ... no greater than 5%"):

    * the improvement of t over s, relative to s, is at least ``relative``:
      (v_t - v_s) >= relative |v_s| (higher is better) or (v_s - v_t) >= relative |v_s|
      (lower is better: ASL 10% lower), and strictly positive; ``tolerance`` (relative)
      absorbs float rounding at exactly 10%;
    * :func:`paired_t_pvalues` p <= ``alpha``.
    """
    x = np.asarray(per_topic, dtype=np.float64)
    v = np.asarray(value, dtype=np.float64)
    gain = v[None, :] - v[:, None]  # gain[s, t] = v_t - v_s
    if not higher_is_better:
        gain = -gain
    scale = np.abs(v)[:, None]
    big = (gain > 0) & (gain >= (relative - tolerance) * scale)
    significant = paired_t_pvalues(x, test) <= alpha
    return (big & significant).sum(axis=1).astype(np.int64)


def delta_sort(old: MetricVariant, new: MetricVariant, **criteria) -> np.ndarray:
    """Delta Sort_s = 100 |n0 - n1| / |S| for every system s: n0 systems better than s
    by the old metric, n1 by the new (:func:`better_counts`), |S| the systems."""
    n0 = better_counts(old.per_topic, old.value, old.higher_is_better, **criteria)
    n1 = better_counts(new.per_topic, new.value, new.higher_is_better, **criteria)
    return 100.0 * np.abs(n0 - n1) / len(n0)


def _oriented(variant: MetricVariant) -> np.ndarray:
    return variant.value if variant.higher_is_better else -variant.value


def reordering_row(old: MetricVariant, new: MetricVariant, *, runs: Sequence[str] | None = None,
                   step: str | None = None, **criteria) -> dict:
    """One row of Table 2 for a change of metric from ``old`` to ``new``.

    ``delta_sort_max``: the largest Delta Sort_s (the paper's per-track figure) and
    ``delta_sort_run`` the system it belongs to (first on ties), ``delta_sort_mean`` the
    mean over systems; ``kendall_tau``: tau-b between the two metrics' system rankings
    (both oriented best-first, so agreement is +1); ``delta_value_mean`` and ``_sd``:
    new/old of the metrics in precision space (AP against 1/ASL) over the systems.
    """
    from irmeta.metaeval.stats.correlation import kendall_tau

    ds = delta_sort(old, new, **criteria)
    worst = int(np.argmax(ds)) if len(ds) else 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(old.rate != 0, new.rate / old.rate, np.nan)
    finite = ratio[np.isfinite(ratio)]
    names = list(runs) if runs is not None else [str(i) for i in range(len(ds))]
    return {
        "step": step or f"{old.name} -> {new.name}",
        "old": old.name,
        "new": new.name,
        "delta_sort_max": float(ds.max()) if len(ds) else math.nan,
        "delta_sort_run": names[worst] if len(ds) else None,
        "delta_sort_mean": float(ds.mean()) if len(ds) else math.nan,
        "kendall_tau": kendall_tau(_oriented(old), _oriented(new)),
        "delta_value_mean": float(finite.mean()) if len(finite) else math.nan,
        "delta_value_sd": float(finite.std(ddof=1)) if len(finite) > 1 else math.nan,
        "n_runs": len(ds),
        "n_topics": old.per_topic.shape[1],
    }


_STEPS = (
    ("atomize_P", 0, 1),
    ("harmonic_mean_within_topic", 1, 2),
    ("harmonic_mean_across_topics", 2, 3),
    ("cumulative", 0, 4),
)


def reordering_table(per_topic_map, per_topic_asl=None, *, per_doc_asl=None, doc_topic=None,
                     runs: Sequence[str] | None = None, relative: float = 0.10, alpha: float = 0.05,
                     test: Literal["paired", "independent"] = "paired") -> pd.DataFrame:
    """Table 2: how the system ranking changes from MAP to ASL, one row per step.

    Rows (the paper's order; each ablation relative to the previous row's metric, the
    cumulative row MAP against ASL itself, see :func:`ablation_variants`):

    ========================== ========================================================
    ``atomize_P``               MAP -> mean_q mean_d 1/ASL_{q,d}
    ``harmonic_mean_within_topic`` -> mean_q 1/ASL_q (harmonic mean over documents)
    ``harmonic_mean_across_topics`` -> 1/ASL (harmonic mean over topics)
    ``cumulative``              MAP -> ASL (per-query ASL_q, lower is better)
    ========================== ========================================================

    Columns: see :func:`reordering_row` (Delta Sort by the 10%-and-t-test criterion of
    :func:`better_counts`, Kendall's tau, Delta Value).

    ``per_topic_map`` (runs, topics): AP_q over all relevant documents. The ablation rows
    need the per-document ASLs: ``per_doc_asl`` (runs, J) and ``doc_topic`` (J,), e.g.
    ``atomized_search_lengths(matrix, unretrieved="plus_one")``'s ``values`` and
    ``topic``; topics without a relevant document are left out of every metric. With
    ``per_topic_asl`` (runs, topics) alone, only the cumulative row is computed. When
    both are given, ``per_topic_asl`` must be the topic means of ``per_doc_asl``.
    """
    import pandas as pd

    ap = np.asarray(per_topic_map, dtype=np.float64)
    criteria = {"relative": relative, "alpha": alpha, "test": test}
    if per_doc_asl is None:
        if per_topic_asl is None:
            raise ValueError("give per_topic_asl, or per_doc_asl and doc_topic")
        asl_q = np.asarray(per_topic_asl, dtype=np.float64)
        if asl_q.shape != ap.shape:
            raise ValueError(f"per_topic_map {ap.shape} and per_topic_asl {asl_q.shape} differ in shape")
        asl_mean = exact_mean(asl_q)
        old = MetricVariant("MAP", ap, exact_mean(ap), True, exact_mean(ap))
        with np.errstate(divide="ignore"):
            new = MetricVariant("ASL", asl_q, asl_mean, False, 1.0 / asl_mean)
        return pd.DataFrame([reordering_row(old, new, runs=runs, step="cumulative", **criteria)],
                            columns=list(_ROW_COLUMNS))
    if doc_topic is None:
        raise ValueError("per_doc_asl needs doc_topic, the topic index of each column")
    variants = ablation_variants(ap, per_doc_asl, doc_topic)
    if per_topic_asl is not None:
        given = np.asarray(per_topic_asl, dtype=np.float64)
        keep = np.bincount(np.asarray(doc_topic, dtype=np.int64), minlength=ap.shape[1]) > 0
        if given.shape != ap.shape or not np.allclose(given[:, keep], variants[-1].per_topic, rtol=1e-12, atol=0):
            raise ValueError("per_topic_asl is not the topic means of per_doc_asl")
    rows = [reordering_row(variants[i], variants[j], runs=runs, step=step, **criteria) for step, i, j in _STEPS]
    return pd.DataFrame(rows, columns=list(_ROW_COLUMNS))


def asl_analysis(matrix: RelevanceMatrix, *, unretrieved: Unretrieved = "plus_one",
                 pair: Sequence[str] | None = None) -> dict:
    """The analyses of Alex, Hall and Metzler on one collection (full depth).

    - ``reordering``: Table 2, MAP to ASL with the ablation rows (:func:`reordering_table`);
    - ``rrie``: RRIE (eq. 11-12) from run a to run b by MAP, ASL, ASL@g1-1 and ASL@g1-10,
      a and b the configured ``pair`` or the two best runs by MAP (b the best);
    - ``per_document``: the per-document ASLs of a and b, for Figures 5 and 6.

    Topics without a relevant document are left out of every mean (eq. 4).
    """
    import pandas as pd

    found = atomized_search_lengths(matrix, None, unretrieved=unretrieved)
    ap = average_precision(matrix, None)
    keep = matrix.n_relevant > 0
    reordering = reordering_table(ap, per_doc_asl=found.values, doc_topic=found.topic, runs=matrix.runs)
    map_mean = exact_mean(ap[:, keep])
    if pair is None:
        order = np.argsort(-map_mean, kind="stable")
        a, b = int(order[1]), int(order[0])
    else:
        missing = [name for name in pair if name not in matrix.runs]
        if missing or len(pair) != 2:
            raise ValueError(f"asl pair must name two runs of the collection; unknown: {missing}")
        a, b = matrix.runs.index(pair[0]), matrix.runs.index(pair[1])
    rows = []
    for name, values, higher in (
        ("MAP", map_mean, True),
        ("ASL", exact_mean(asl(matrix, None, asl_unretrieved=unretrieved)[:, keep]), False),
        ("ASL@g1-1", exact_mean(asl_g1(matrix, 1, asl_unretrieved=unretrieved)[:, keep]), False),
        ("ASL@g1-10", exact_mean(asl_g1(matrix, 10, asl_unretrieved=unretrieved)[:, keep]), False),
    ):
        rows.append({"measure": name, "run_a": matrix.runs[a], "run_b": matrix.runs[b], "value_a": values[a],
                     "value_b": values[b], "rrie": rrie(values[a], values[b], higher_is_better=higher),
                     "asl_unretrieved": unretrieved})
    return {"reordering": reordering.assign(asl_unretrieved=unretrieved)[list(REORDERING_COLUMNS)],
            "rrie": pd.DataFrame(rows, columns=list(RRIE_COLUMNS)),
            "per_document": (matrix.runs[a], found.values[a], matrix.runs[b], found.values[b])}
