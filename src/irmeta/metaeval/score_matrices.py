"""The (runs, topics) score matrices the experiments compare, read from the scored
blocks, each oriented so that higher is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from irmeta.measures.alpha import alpha_label, alpha_sort_key
from irmeta.measures.averaging import Scores
from irmeta.measures.names import Measure, parse_measure

if TYPE_CHECKING:  # pandas only in the functions that take its tables: it costs every job's start
    import pandas as pd


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-topic scores of one measure at one alpha: (runs, topics)."""

    measure: str
    alpha: str | None  # label ("0.5", "1/R"), None for measures without one
    runs: list[str]
    topics: list[str]
    values: np.ndarray
    higher_is_better: bool = True
    #: ``measure`` as read: passed on where it was read already, else read from the name once, here
    parsed: Measure = field(default=cast(Measure, None), compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.parsed is None:
            object.__setattr__(self, "parsed", parse_measure(self.measure))

    @property
    def key(self) -> tuple[str, str]:
        return self.measure, self.alpha or ""


def score_matrices(scores: pd.DataFrame | Scores, measures: Sequence[str] | None = None,
                   alphas: Sequence[str] | None = None) -> list[ScoreMatrix]:
    """The per-topic scores as (runs, topics) matrices, one per (measure, alpha): from
    :class:`~irmeta.measures.averaging.Scores` (as loaded from ``scores.npz``), or from the per-topic
    rows of a long scores table, runs and topics in the table's order (every qrels topic,
    a topic a run did not return scoring 0: the paper's averaging over all topics)."""
    if isinstance(scores, Scores):
        wanted = None if alphas is None else {alpha_label(a) for a in alphas}
        return [ScoreMatrix(measure=m, alpha=a, runs=scores.runs, topics=scores.topics, values=scores.per_topic[i],
                            higher_is_better=parsed.higher_is_better, parsed=parsed)
                for i, (m, a, parsed) in enumerate(zip(scores.measures, scores.alphas, scores.parsed))
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
        read = parse_measure(measure)  # a table's label, read back here
        out.append(ScoreMatrix(measure=measure, alpha=alpha or None, runs=runs, topics=topics,
                               values=table.to_numpy(dtype=np.float64), higher_is_better=read.higher_is_better,
                               parsed=read))
    return out


def mean_table(scores: pd.DataFrame, averaging: str = "all_topics") -> pd.DataFrame:
    """Runs' means: one row per run, one column per (measure, alpha label)."""
    means = scores[scores["averaging"] == averaging]
    return means.pivot_table(index="run", columns=["measure", means["alpha"].fillna("")],
                             values="value", sort=False)


def oriented(values: np.ndarray, measure: Measure) -> np.ndarray:
    return values if measure.higher_is_better else -values


def sort_by_alpha(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    import pandas as pd

    if frame.empty:
        return frame
    # each distinct cell keyed once, its place among the keys sorted (a table repeats a few)
    codes, cells = pd.factorize(frame["alpha"], use_na_sentinel=False)
    keys = [alpha_sort_key(cell) for cell in cells]
    place = {key: n for n, key in enumerate(sorted(set(keys)))}
    alpha_rank = np.array([place[key] for key in keys], dtype=np.int64)[codes]
    # a stable sort on every column's rank (a missing value last, as sort_values puts it):
    # sort_values' order, without a frame copied twice (it was most of a small table's cost)
    ranks = [alpha_rank if b == "alpha" else _sort_rank(frame[b]) for b in by]
    order = np.lexsort(ranks[::-1]) if ranks else np.arange(len(frame))
    return frame.take(order).reset_index(drop=True)


def _sort_rank(column: pd.Series) -> np.ndarray:
    """Each cell's place among the column's sorted distinct values; missing ones last."""
    import pandas as pd

    codes, _ = pd.factorize(column, sort=True)
    return np.where(codes < 0, codes.max(initial=-1) + 1, codes)
