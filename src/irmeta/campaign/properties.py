"""A campaign's properties, the ones that may explain why a claim of Türkmen, Lease and
Kutlu (ECIR 2023) holds on one collection and not on another: its size (runs, groups,
topics), its judging (judged and relevant documents per topic, the pool depth) and how
rare its relevant documents are among the runs (eq. 2).

Rarity is read at a depth k (the configured rarity depth, else the first rareness
measure's cutoff): S_d is the number of runs whose top k holds relevant document d, and
only documents some run finds (S_d >= 1) count: ``unique_run_relevant_share`` is the
share of them exactly one run finds, ``unique_group_relevant_share`` the share exactly
one group's runs find (Zobel 1998 counts the relevant documents only one group
contributed to a pool), ``mean_rarity`` the mean of R(d) = 1 - S_d / S over them.

Beside the pool depth D the collection states, what the runs say of it
(:mod:`irmeta.campaign.pools`): each run's judged depth, the median over the topics it
returned of how deep its ranking is wholly judged (counted to twice D); ``judged_depth_median`` and
``judged_depth_min`` over the runs, and ``runs_judged_to_pool_depth``, the share of runs
wholly judged to D on most of their topics (pools of depth D judge them all).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from irmeta.campaign.pools import JudgedDepth
from irmeta.campaign.postings import RelevanceMatrix

#: The columns of ``collection_properties.csv``, in order.
PROPERTY_COLUMNS = ("collection", "runs", "groups", "topics", "judged_per_topic_mean", "judged_per_topic_median",
                    "relevant_per_topic_mean", "relevant_per_topic_median", "unique_run_relevant_share",
                    "unique_group_relevant_share", "mean_rarity", "pool_depth", "judged_depth_median",
                    "judged_depth_min", "runs_judged_to_pool_depth")

#: The columns that need the runs' rankings (empty for a collection of scores only).
RANKING_COLUMNS = ("unique_run_relevant_share", "unique_group_relevant_share", "mean_rarity", "judged_depth_median",
                   "judged_depth_min", "runs_judged_to_pool_depth")


def groups_of_runs(path: str | Path, runs: Sequence[str]) -> dict[str, str]:
    """Run -> group of each of ``runs``: :func:`irmeta.campaign.run_groups.groups_for_runs`,
    the reader reusability uses too (a header line, the run first, the group column
    ``group``, ``participant`` or the second, e.g. TREC-8's ``runs_participants.tsv``;
    every run named, no other run)."""
    from irmeta.campaign.run_groups import groups_for_runs

    return groups_for_runs(path, runs)


def judgment_properties(qrels_topic: np.ndarray, qrels_grade: np.ndarray, threshold: int,
                        n_topics: int) -> dict[str, float]:
    """Mean and median of the judged (every qrels row) and relevant (grade >= ``threshold``)
    documents per qrels topic (a topic with none counts 0)."""
    judged = np.bincount(np.asarray(qrels_topic, dtype=np.int64), minlength=n_topics)
    relevant = np.bincount(np.asarray(qrels_topic, dtype=np.int64)[np.asarray(qrels_grade) >= threshold],
                           minlength=n_topics)
    return {"judged_per_topic_mean": float(judged.mean()) if n_topics else np.nan,
            "judged_per_topic_median": float(np.median(judged)) if n_topics else np.nan,
            "relevant_per_topic_mean": float(relevant.mean()) if n_topics else np.nan,
            "relevant_per_topic_median": float(np.median(relevant)) if n_topics else np.nan}


def retrieval_counts(matrix: RelevanceMatrix, depth: int, unit_of_run: np.ndarray | None = None) -> np.ndarray:
    """(J,) int64: for each qrels row, how many distinct units (runs, or the groups
    ``unit_of_run`` codes each run with) hold it in their top ``depth``; 0 for a row no
    run finds or that is not relevant. With units = runs this is S_d (eq. 2)."""
    hits = matrix.hits.top(depth)
    runs = matrix.run_of(hits)
    units = runs if unit_of_run is None else np.asarray(unit_of_run, dtype=np.int64)[runs]
    n_units = int(units.max(initial=0)) + 1
    # a run holds a document at most once per topic, but two runs of a group may both hold it
    pairs = np.unique(hits.judgment.astype(np.int64) * n_units + units)
    return np.bincount(pairs // n_units, minlength=len(matrix.qrels_grade)).astype(np.int64)


def rarity_properties(matrix: RelevanceMatrix, depth: int | None,
                      run_groups: Mapping[str, str] | None = None) -> dict[str, float]:
    """``unique_run_relevant_share``, ``unique_group_relevant_share`` (NaN without
    ``run_groups``) and ``mean_rarity`` at ``depth`` (None: the depth the runs were kept
    to; a depth beyond it reads it), over the relevant documents some run finds; NaN
    when none does."""
    kept = matrix.run_depth or matrix.depth
    d = kept if depth is None else min(int(depth), kept)
    if d < 1:
        raise ValueError(f"the rarity depth must be at least 1, not {depth!r}")
    s_d = retrieval_counts(matrix, d)
    found = s_d > 0
    n_found = int(found.sum())
    out = {"unique_run_relevant_share": np.nan, "unique_group_relevant_share": np.nan, "mean_rarity": np.nan}
    if not n_found:
        return out
    out["unique_run_relevant_share"] = float((s_d == 1).sum() / n_found)
    out["mean_rarity"] = float(np.mean(1.0 - s_d[found] / matrix.n_runs))  # eq. 2
    if run_groups is not None:
        codes = {g: i for i, g in enumerate(dict.fromkeys(run_groups[r] for r in matrix.runs))}
        unit = np.array([codes[run_groups[r]] for r in matrix.runs], dtype=np.int64)
        by_group = retrieval_counts(matrix, d, unit)
        out["unique_group_relevant_share"] = float((by_group[found] == 1).sum() / n_found)
    return out


def judged_depth_properties(judged: JudgedDepth) -> dict[str, float]:
    """``judged_depth_median``, ``judged_depth_min`` and ``runs_judged_to_pool_depth`` of
    the runs against the pool depth (:func:`irmeta.campaign.pools.judged_depth`)."""
    return {"judged_depth_median": judged.median, "judged_depth_min": judged.least,
            "runs_judged_to_pool_depth": judged.share_judged_to_pool}


def collection_properties(matrix: RelevanceMatrix, *, collection: str, rarity_depth: int | None,
                          pool_depth: int | None, run_groups: Mapping[str, str] | None = None,
                          judged: JudgedDepth | None = None) -> dict[str, Any]:
    """One row of ``collection_properties.csv`` (:data:`PROPERTY_COLUMNS`) for a campaign
    with rankings (``groups`` NaN without ``run_groups``); ``judged``: the runs against
    ``pool_depth`` when already measured (:func:`irmeta.campaign.pools.judged_depth`)."""
    row: dict[str, Any] = {"collection": collection, "runs": matrix.n_runs,
                           "groups": len(set(run_groups.values())) if run_groups is not None else np.nan,
                           "topics": matrix.n_topics}
    row |= judgment_properties(matrix.qrels_topic, matrix.qrels_grade, matrix.threshold, matrix.n_topics)
    row |= rarity_properties(matrix, rarity_depth, run_groups)
    row["pool_depth"] = pool_depth if pool_depth is not None else np.nan
    if judged is None and pool_depth is not None:
        from irmeta.campaign.pools import judged_depth

        judged = judged_depth(matrix, pool_depth)
    row |= judged_depth_properties(judged) if judged is not None else {c: np.nan for c in RANKING_COLUMNS[3:]}
    return {c: row[c] for c in PROPERTY_COLUMNS}


def scores_only_properties(*, collection: str, runs: Sequence[str], topics: Sequence[str],
                           qrels: tuple[np.ndarray, np.ndarray, int] | None, pool_depth: int | None,
                           run_groups: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The row of a collection of per-topic scores without rankings: its runs and topics,
    the judging when its qrels are given (``qrels``: topic index of each row over
    ``topics``, grade, threshold), and :data:`RANKING_COLUMNS` empty (no ranking says which
    run found which document)."""
    row: dict[str, Any] = {"collection": collection, "runs": len(runs),
                           "groups": len(set(run_groups.values())) if run_groups is not None else np.nan,
                           "topics": len(topics)}
    if qrels is not None:
        row |= judgment_properties(qrels[0], qrels[1], qrels[2], len(topics))
    row["pool_depth"] = pool_depth if pool_depth is not None else np.nan
    return {c: row.get(c, np.nan) for c in PROPERTY_COLUMNS}
