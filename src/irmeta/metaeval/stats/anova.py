"""Two-way ANOVA without replication on a (runs, topics) score matrix: systems and
topics as the two factors, one score per cell, in closed form.

The table is the one ``statsmodels.formula.api.ols("score ~ C(system) + C(topic)")``
followed by ``statsmodels.stats.anova.anova_lm(fit)`` (type I sums of squares) gives;
the design is balanced, so the sequential sums of squares are the textbook ones and no
least-squares fit is needed. Its residual mean square V_E is the error variance of
Sakai's effect size ES_E and of topic set size design (Sakai, "Topic set size design",
Information Retrieval Journal 19(3), 2016).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irmeta.metaeval.stats.blocks import as_score_matrix
from irmeta.metaeval.stats.distributions import f_sf

if TYPE_CHECKING:  # pandas in two_way_anova only: irmeta compare's residual variance needs none
    import pandas as pd

SOURCES = ("system", "topic", "residual", "total")
ANOVA_COLUMNS = ("source", "ss", "df", "ms", "f", "p", "omega_squared")


def _checked(scores: np.ndarray) -> np.ndarray:
    m = as_score_matrix(scores, min_topics=2)
    if m.shape[0] < 2:
        raise ValueError(f"need at least 2 runs, got {m.shape[0]}")
    return m


def _residuals(m: np.ndarray) -> np.ndarray:
    """e_ij = x_ij - xbar_i. - xbar_.j + xbar_.. (the additive model's residuals)."""
    return m - m.mean(axis=1, keepdims=True) - m.mean(axis=0, keepdims=True) + m.mean()


def residual_variance(scores: np.ndarray) -> float:
    """V_E = sum_ij e_ij^2 / ((S - 1)(T - 1)): the residual mean square of the two-way
    ANOVA without replication over all S runs and T topics (Sakai 2016, the variance
    estimate topic set size design starts from; ES_E = difference / sqrt(V_E))."""
    m = _checked(scores)
    n_runs, n_topics = m.shape
    return float((_residuals(m) ** 2).sum()) / ((n_runs - 1) * (n_topics - 1))


def _f_ratio(ms: float, ms_residual: float) -> float:
    """ms / ms_residual, for a matrix the additive model fits exactly (ms_residual = 0):
    0 when the factor has no variation either (no evidence: p = 1), inf otherwise
    (p = 0), as the pairwise tests treat 0/0 and d/0; the table shows that inf as a
    missing F (no table holds an infinity), its p-value 0."""
    if ms_residual > 0:
        return ms / ms_residual
    return 0.0 if ms == 0 else float("inf")


def _omega_squared(ss: float, df: int, ms_residual: float, ss_total: float) -> float:
    """omega^2 = (SS_effect - df_effect MS_E) / (SS_total + MS_E) (Hays 1963; Olejnik and
    Algina, Psychological Methods 8(4), 2003); 0 for a constant matrix (0/0)."""
    denominator = ss_total + ms_residual
    return (ss - df * ms_residual) / denominator if denominator > 0 else 0.0


def two_way_anova(scores: np.ndarray) -> pd.DataFrame:
    """ANOVA table of the additive model x_ij = mu + system_i + topic_j + e_ij.

    Rows ``system``, ``topic``, ``residual``, ``total``; columns ``source, ss, df, ms, f,
    p, omega_squared``. With S runs, T topics and grand mean xbar:

        SS_system = T sum_i (xbar_i. - xbar)^2,      df = S - 1
        SS_topic  = S sum_j (xbar_.j - xbar)^2,      df = T - 1
        SS_E      = sum_ij e_ij^2,                   df = (S - 1)(T - 1)
        SS_total  = sum_ij (x_ij - xbar)^2,          df = ST - 1

    ms = ss / df; f = ms / MS_E and p = ``scipy.stats.f.sf(f, df, df_E)`` (:func:`~.distributions.f_sf`) for system and
    topic. Not applicable, hence NaN: f, p and omega_squared of residual and total, and
    ms of total. SS_E is summed from the residuals, not by subtraction, so it keeps its
    relative accuracy when the model fits almost exactly.
    """
    import pandas as pd

    m = _checked(scores)
    n_runs, n_topics = m.shape
    grand = m.mean()
    ss = {"system": n_topics * float(((m.mean(axis=1) - grand) ** 2).sum()),
          "topic": n_runs * float(((m.mean(axis=0) - grand) ** 2).sum()),
          "residual": float((_residuals(m) ** 2).sum()),
          "total": float(((m - grand) ** 2).sum())}
    df = {"system": n_runs - 1, "topic": n_topics - 1, "residual": (n_runs - 1) * (n_topics - 1),
          "total": n_runs * n_topics - 1}
    ms_residual = ss["residual"] / df["residual"]
    rows = []
    for source in SOURCES:
        ms, f, p, omega = np.nan, np.nan, np.nan, np.nan
        if source != "total":
            ms = ss[source] / df[source]
        if source in ("system", "topic"):
            f = _f_ratio(ms, ms_residual)
            p = f_sf(f, df[source], df["residual"])
            omega = _omega_squared(ss[source], df[source], ms_residual, ss["total"])
        rows.append((source, ss[source], df[source], ms, f if np.isfinite(f) else np.nan, p, omega))
    return pd.DataFrame(rows, columns=list(ANOVA_COLUMNS))
