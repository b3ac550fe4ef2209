"""Corrections of p-values for a family of tests (all run pairs of one measure, alpha
and test): Holm's step-down, Benjamini and Hochberg's step-up false discovery rate,
and Bonferroni's, each as ``statsmodels.stats.multitest.multipletests`` computes it
(methods ``holm``, ``fdr_bh``, ``bonferroni``), with the same floating-point operations
so the adjusted p-values agree to the last bit or nearly.
"""

from __future__ import annotations

import numpy as np

from irmeta.metaeval.stats.registry import CORRECTIONS


def _as_pvalues(pvalues: np.ndarray) -> np.ndarray:
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p-values must be a vector, not of shape {p.shape}")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must lie in [0, 1]")
    return p


def bonferroni(pvalues: np.ndarray) -> np.ndarray:
    """min(1, m p_i) over a family of m tests (Bonferroni; Dunn, JASA 56, 1961)."""
    p = _as_pvalues(pvalues)
    return np.minimum(p * float(len(p)), 1.0)


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment (Holm, Scand. J. Statistics 6(2), 1979): with p
    sorted ascending, p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)). Tied p-values get
    the same adjustment whatever their order, so the sort need not be stable."""
    p = _as_pvalues(pvalues)
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1))
    out = np.empty_like(p)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def benjamini_hochberg(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini and Hochberg's step-up adjustment (JRSS B 57(1), 1995): with p sorted
    ascending, p~_(i) = min(1, min_{j >= i} p_(j) / (j / m)). Divided by j / m, not
    multiplied by m / j, as statsmodels' ``fdrcorrection`` does, for the same rounding."""
    p = _as_pvalues(pvalues)
    order = np.argsort(p)
    m = len(p)
    raw = p[order] / (np.arange(1, m + 1) / float(m))
    adjusted = np.minimum.accumulate(raw[::-1])[::-1]
    out = np.empty_like(p)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _as_families(pvalues: np.ndarray) -> np.ndarray:
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 1:
        raise ValueError(f"p-values of families must be (families, tests), not of shape {p.shape}")
    return p


def smallest_scaled(pvalues: np.ndarray) -> np.ndarray:
    """Each row's smallest Holm or Bonferroni adjusted p-value, min(1, m p_(1)) (Holm's
    first step is the smallest of its running maxima), the very product :func:`holm`
    and :func:`bonferroni` form."""
    p = _as_families(pvalues)
    return np.minimum(p.min(axis=1) * float(p.shape[1]), 1.0)


def smallest_benjamini_hochberg(pvalues: np.ndarray) -> np.ndarray:
    """Each row's smallest Benjamini-Hochberg adjusted p-value, min(1, min_j p_(j) / (j /
    m)) (the step-up's first running minimum), divided as :func:`benjamini_hochberg` does."""
    p = np.sort(_as_families(pvalues), axis=1)
    m = p.shape[1]
    return np.minimum((p / (np.arange(1, m + 1) / float(m))).min(axis=1), 1.0)


def adjusted_pvalue_columns(pvalues: np.ndarray) -> dict[str, np.ndarray]:
    """``p_adjusted_<correction>`` of one family, for each correction of the registry
    (:data:`.registry.CORRECTIONS`: ``holm``, ``bh``, ``bonferroni``)."""
    return {c.column: c.adjust(pvalues) for c in CORRECTIONS.values()}
