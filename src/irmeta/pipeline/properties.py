"""The collection-properties step: one row per collection (:mod:`irmeta.campaign.properties`),
gathered into ``results/collection_properties.csv`` beside the claims."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irmeta.campaign.pools import JudgedDepth
from irmeta.campaign.properties import (
    PROPERTY_COLUMNS,
    collection_properties,
    groups_of_runs,
    scores_only_properties,
)
from irmeta.pipeline.stored_scores import write_csv


def describe_collection(*, out: str | Path, collection: str, pool_depth: int | None, rarity_depth: int | None,
                        judged: str | Path | None = None, scores: str | Path | None = None,
                        qrels: str | Path | None = None, run_groups: str | Path | None = None,
                        threshold: int = 1, pool_depth_origin: str = "stated",
                        source: str = "the collection") -> dict[str, Any]:
    """Write one collection's row (:data:`~irmeta.campaign.properties.PROPERTY_COLUMNS`) to
    ``out``: from ``judged`` (judged.npz) when the collection has rankings, else from its
    ``scores`` (scores.npz) and, when given, its ``qrels`` (the ranking columns empty).
    ``collection``: its label, as the claims name it. Returns the row.

    With rankings, ``pool_depth`` is checked against how deep the runs are judged
    (:func:`refuse_contradicted_pool_depth`; ``pool_depth_origin``: ``stated``,
    ``simulated`` or ``default``, as the collection file ``source`` gave it)."""
    if judged is not None:
        from irmeta.campaign.pools import JUDGED_REACH, judged_depth
        from irmeta.campaign.store import load_matrix

        measured = None  # read to the depth it counts: the judged postings to there, not all
        if pool_depth is not None:
            measured = judged_depth(load_matrix(judged, depth=JUDGED_REACH * int(pool_depth)), pool_depth)
            refuse_contradicted_pool_depth(measured, pool_depth_origin, source)
        matrix = load_matrix(judged)
        groups = None if run_groups is None else groups_of_runs(run_groups, matrix.runs)
        row = collection_properties(matrix, collection=collection, rarity_depth=rarity_depth,
                                    pool_depth=pool_depth, run_groups=groups, judged=measured)
    elif scores is not None:
        row = _scores_only_row(collection, scores, qrels, run_groups, threshold, pool_depth)
    else:
        raise ValueError(f"collection {collection}: describing it needs its judged.npz or its scores.npz")
    write_csv(pd.DataFrame([row], columns=list(PROPERTY_COLUMNS)), out)
    return row


def refuse_contradicted_pool_depth(measured: JudgedDepth, origin: str, source: str) -> None:
    """A pool depth most runs' rankings contradict (:attr:`JudgedDepth.contradicted`: most
    runs are not wholly judged to it on most of their topics) is a one-line ValueError
    naming the collection file ``source`` and the key, ``origin`` saying whether it was
    stated or defaulted (docs/PROTOCOL.md, Collection properties)."""
    if not measured.contradicted:
        return
    given = {"stated": f"{measured.pool_depth}", "simulated": f"{measured.pool_depth} (the simulation's pools)"}.get(
        origin, f"not given, and its default, {measured.pool_depth},")
    raise ValueError(f"{source}: key 'pool_depth': {given} is contradicted by the runs: {measured.contradiction()}; "
                     f"state the depth the campaign's pools were built to")


def _scores_only_row(collection: str, scores: str | Path, qrels: str | Path | None, run_groups: str | Path | None,
                     threshold: int, pool_depth: int | None) -> dict[str, Any]:
    from irmeta.pipeline.stored_scores import load_scores

    stored = load_scores(scores, measures=[])  # the runs and topics only
    groups = None if run_groups is None else groups_of_runs(run_groups, stored.runs)
    judged = None
    topics = list(stored.topics)
    if qrels is not None:
        import pyarrow as pa
        import pyarrow.compute as pc

        from irmeta.campaign.qrels import read_qrels

        q = read_qrels(qrels)
        topics = q.topics
        at = pc.index_in(q.qid, value_set=pa.array(topics, q.qid.type)).to_numpy(zero_copy_only=False)
        judged = (np.asarray(at, dtype=np.int64), q.grade, threshold)
    return scores_only_properties(collection=collection, runs=stored.runs, topics=topics, qrels=judged,
                                  pool_depth=pool_depth, run_groups=groups)


def gather_properties(parts: Sequence[str | Path], out: str | Path) -> pd.DataFrame:
    """``collection_properties.csv``: the rows of ``parts`` (one per collection, in order)."""
    frame = pd.concat([pd.read_csv(p) for p in parts], ignore_index=True) if parts else pd.DataFrame()
    frame = frame.reindex(columns=list(PROPERTY_COLUMNS))
    counts = ["runs", "groups", "topics", "pool_depth"]  # integers, empty where unknown
    frame[counts] = frame[counts].apply(pd.to_numeric).astype("Int64")
    write_csv(frame, out)
    return frame


def read_properties(path: str | Path) -> pd.DataFrame:
    """``collection_properties.csv`` as written, the collection as text."""
    return pd.read_csv(path, dtype={"collection": str, "runs": "Int64", "groups": "Int64", "topics": "Int64",
                                    "pool_depth": "Int64"})
