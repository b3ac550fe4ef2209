"""Figure 1 of the paper: hypothetical systems that retrieve the rarest or the most
common relevant documents of one topic, ranked against the real runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.names import parse_measure
from irmeta.measures.rareness import rarity_for

#: The columns of ``synthetic_rare_common.csv``, in order (the experiment manifest names
#: this constant; the documentation's table reference is written from it): a row of
#: :func:`synthetic_rare_common`, then the settings :func:`synthetic_rare_common_table` adds.
COLUMNS = ("topic", "system", "alpha", "n_relevant", "n_relevant_retrieved", "rank", "rare_systems", "n_systems",
           "rarity_depth")
#: Columns of :data:`COLUMNS` written only under some settings, with when.
OPTIONAL_COLUMNS = {"rarity_depth": "rarity_depth is set, not null as by default"}
_ROW_COLUMNS = COLUMNS[:6]  # one system's rank (_rank_row)


def synthetic_rare_common(
    matrix: RelevanceMatrix,
    topic: str,
    *,
    cutoff: int = 100,
    alphas: Sequence[float] = (0.0, 0.5, 1.0),
    max_relevant: int = 45,
    rare_systems: str = "protocol",
    rarity_depth: int | None = None,
) -> pd.DataFrame:
    """Figure 1: rank of a hypothetical system among the real runs on one topic by
    P@k_rareness, as it retrieves D = 1..max_relevant relevant documents.

    - S_rare retrieves D relevant documents no other run retrieved: S_d = 1, with S' = S + 1
      runs (``rare_systems="protocol"``) or S (``"paper_script"``, as the authors' script).
    - S_common retrieves the D real relevant documents most often retrieved by the real
      runs (most common first, ties by document code), raising their S_d by one.
    Adding either system makes S + 1 runs, so every real run is re-scored with S' = S + 1.
    S_d counts the real runs holding a document within ``rarity_depth`` (None: the cutoff
    k), as scoring counts it (:func:`irmeta.measures.rareness.rarity_for`).
    Ranks: 1 is best, ties take the average rank.
    """
    if rare_systems not in ("protocol", "paper_script"):
        raise ValueError("rare_systems must be 'protocol' or 'paper_script'")
    if topic not in matrix.topics:
        raise KeyError(f"topic {topic} is not in the qrels")
    q = matrix.topics.index(topic)
    k = cutoff
    found = rarity_for(matrix, k, None, rarity_depth)
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
    return pd.DataFrame(rows, columns=list(_ROW_COLUMNS))


def synthetic_rare_common_table(matrix: RelevanceMatrix, topic: str, settings: Mapping[str, Any],
                                rarity_depth: int | None = None) -> pd.DataFrame:
    """Figure 1's table for ``experiments.synthetic`` (``measure``, ``alphas``,
    ``max_relevant``, ``rare_systems``): each way of counting S_rare's rarity one after
    the other, with the number of systems ranked, and with S_d counted at ``rarity_depth``
    (None: the measure's cutoff; then no ``rarity_depth`` column, as before the setting
    existed)."""
    cutoff = parse_measure(settings["measure"]).cutoff
    if cutoff is None:
        raise ValueError(f"the synthetic systems need a cutoff (P_rareness@k), not {settings['measure']}")
    tables = []
    for variant in settings["rare_systems"]:
        table = synthetic_rare_common(matrix, topic, cutoff=cutoff, alphas=settings["alphas"],
                                      max_relevant=settings["max_relevant"], rare_systems=variant,
                                      rarity_depth=rarity_depth)
        table = table.assign(rare_systems=variant, n_systems=len(matrix.runs) + 1)
        if rarity_depth is not None:
            table["rarity_depth"] = int(rarity_depth)
        tables.append(table)
    columns = [c for c in COLUMNS if c not in OPTIONAL_COLUMNS or rarity_depth is not None]
    return pd.concat(tables, ignore_index=True)[columns]


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
