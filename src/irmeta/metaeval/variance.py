"""Variance components and topic set size design per measure (issue 21, parts 2 and 3).

- :func:`anova_table`: the two-way ANOVA without replication of each measure's and
  alpha's (runs, topics) score matrix (:func:`~irmeta.metaeval.stats.anova.two_way_anova`),
  ``anova.csv``.
- :func:`topic_set_size_table`: from each matrix's residual variance V_E, the topics a
  paired t-test or a one-way ANOVA needs to detect a minimum difference with power
  1 - beta (Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016),
  ``topic_set_size.csv``.
- :func:`minimum_detectable_difference_table`: the smallest difference the paired
  t-test detects with that power at the collection's own topic count (Sakai 2016's minD
  for a given n), ``minimum_detectable_difference.csv``.

Scores are taken as stored, not oriented: negating a lower-is-better measure changes
no sum of squares, and a difference is a magnitude.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irmeta.measures.averaging import Scores
from irmeta.metaeval.score_matrices import score_matrices
from irmeta.metaeval.stats.anova import ANOVA_COLUMNS, residual_variance, two_way_anova
from irmeta.metaeval.stats.topic_set_size import anova_topics, minimum_detectable_difference, paired_t_topics

ANOVA_TABLE_COLUMNS = ("measure", "alpha", *ANOVA_COLUMNS)
TOPIC_SET_SIZE_COLUMNS = ("measure", "alpha", "design", "alpha_level", "beta", "min_difference", "systems",
                          "n_topics", "variance_e")
MDD_COLUMNS = ("measure", "alpha", "n_topics", "alpha_level", "beta", "variance_e", "min_difference")
#: ``systems`` of the paired t-test's rows: it compares two systems.
PAIRED_SYSTEMS = 2
DEFAULT_TOLERANCE = 1e-6  # minimum detectable difference: the returned d detects, d - 1e-6 does not


def anova_table(scores: pd.DataFrame | Scores) -> pd.DataFrame:
    """``anova.csv``: per measure and alpha (empty for measures without one), the rows
    ``system``, ``topic``, ``residual``, ``total`` of :func:`two_way_anova` on its
    (runs, topics) matrix over every qrels topic."""
    frames = [two_way_anova(m.values).assign(measure=m.measure, alpha=m.alpha) for m in score_matrices(scores)]
    if not frames:
        return pd.DataFrame(columns=list(ANOVA_TABLE_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(ANOVA_TABLE_COLUMNS)]


def residual_variances(scores: pd.DataFrame | Scores) -> pd.DataFrame:
    """One row per measure and alpha: ``measure, alpha, n_topics, variance_e``, V_E of
    :func:`~irmeta.metaeval.stats.anova.residual_variance` (the design's pilot variance)."""
    rows = [{"measure": m.measure, "alpha": m.alpha, "n_topics": m.values.shape[1],
             "variance_e": residual_variance(m.values)} for m in score_matrices(scores)]
    return pd.DataFrame(rows, columns=["measure", "alpha", "n_topics", "variance_e"])


def _design_topics(design: str, alpha_level: float, beta: float, min_difference: float, variance_e: float,
                   systems: int) -> int:
    """n of one design; V_E = 0 (the additive model fits exactly, every paired
    difference is the systems' difference) detects any difference with certainty from
    the smallest n, 2."""
    if variance_e == 0:
        return 2
    if design == "paired_t":
        return paired_t_topics(alpha_level, beta, min_difference, variance_e)
    return anova_topics(alpha_level, beta, min_difference, variance_e, systems)


def topic_set_size_table(variances: pd.DataFrame, alpha_level: float, beta: float,
                         min_differences: Sequence[float], systems: Sequence[int]) -> pd.DataFrame:
    """``topic_set_size.csv``: per measure and alpha of ``variances`` (as
    :func:`residual_variances`) and per ``min_difference``, a ``paired_t`` row (systems
    :data:`PAIRED_SYSTEMS`; :func:`~irmeta.metaeval.stats.topic_set_size.paired_t_topics`)
    and an ``anova`` row per number of ``systems``
    (:func:`~irmeta.metaeval.stats.topic_set_size.anova_topics`), Sakai (2016)."""
    designs = [("paired_t", PAIRED_SYSTEMS)] + [("anova", int(m)) for m in systems]
    rows = []
    for v in variances.itertuples(index=False):
        for difference in min_differences:
            for design, m in designs:
                n = _design_topics(design, alpha_level, beta, float(difference), float(v.variance_e), m)
                rows.append((v.measure, v.alpha, design, alpha_level, beta, float(difference), m, n, v.variance_e))
    return pd.DataFrame(rows, columns=list(TOPIC_SET_SIZE_COLUMNS))


def minimum_detectable_difference_table(variances: pd.DataFrame, alpha_level: float, beta: float,
                                        tolerance: float = DEFAULT_TOLERANCE) -> pd.DataFrame:
    """``minimum_detectable_difference.csv``: per measure and alpha, the smallest
    difference the two-sided paired t-test at ``alpha_level`` on the collection's
    ``n_topics`` detects with power >= 1 - ``beta``, to ``tolerance``
    (:func:`~irmeta.metaeval.stats.topic_set_size.minimum_detectable_difference`;
    0 when V_E = 0: any difference is detected)."""
    rows = []
    for v in variances.itertuples(index=False):
        variance_e, n_topics = float(v.variance_e), int(v.n_topics)
        difference = 0.0 if variance_e == 0 else minimum_detectable_difference(
            n_topics, alpha_level, beta, variance_e, tolerance)
        rows.append((v.measure, v.alpha, n_topics, alpha_level, beta, variance_e, difference))
    return pd.DataFrame(rows, columns=list(MDD_COLUMNS))


def variance_tables(scores: pd.DataFrame | Scores, alpha_level: float = 0.05, beta: float = 0.2,
                    min_differences: Sequence[float] = (0.02, 0.05, 0.1),
                    systems: Sequence[int] = (2, 10, 50)) -> dict[str, pd.DataFrame]:
    """The three tables of one collection by file stem: ``anova``, ``topic_set_size``,
    ``minimum_detectable_difference`` (defaults: ``experiments.topic_set_size``'s)."""
    variances = residual_variances(scores)
    if not np.isfinite(variances["variance_e"].to_numpy(dtype=float)).all():
        raise ValueError("a score matrix has a non-finite residual variance (NaN or infinite scores)")
    return {"anova": anova_table(scores),
            "topic_set_size": topic_set_size_table(variances, alpha_level, beta, min_differences, systems),
            "minimum_detectable_difference": minimum_detectable_difference_table(variances, alpha_level, beta)}
