"""irmeta from Python: the numbers of ``irmeta score``, as a pandas DataFrame.

    >>> import irmeta
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    >>> runs = {"bm25": {"q1": {"d1": 1.2, "d2": 0.8, "d3": 0.5}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.7}}}
    >>> table = irmeta.evaluate(qrels, runs, ["P@2", "AP", "nDCG(gains={1:1,2:3})@3"], depth=3)
    >>> for row in table[table.qid == "all"].itertuples():
    ...     print(row.run, row.measure, round(row.value, 4))
    bm25 P@2 0.5
    dense P@2 1.0
    bm25 AP 0.8333
    dense AP 1.0
    bm25 nDCG(gains={1:1,2:3})@3 0.6885
    dense nDCG(gains={1:1,2:3})@3 1.0

Qrels and runs may be paths, DataFrames, ``{qid: {docid: value}}`` dicts or iterables of
ir_measures' tuples (:mod:`irmeta.campaign.in_memory`); whatever the form, they go
through trec_eval's order and the file readers' checks, and give the numbers
``irmeta score`` gives for the same files and flags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from irmeta.campaign.in_memory import reader, run_sources, to_qrels
from irmeta.campaign.judge import judge_each
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.runs import DuplicatePolicy, RunNameSource
from irmeta.measures.alpha import Alpha, parse_alpha
from irmeta.measures.averaging import AVERAGING_NAMES, Averaging, Scores, score_arrays
from irmeta.measures.names import depth_read, measure_label, parse_measure

DEFAULT_MEASURES = ("P@10", "AP")
DEFAULT_ALPHAS: tuple[Alpha, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Scored:
    """What scoring a campaign gives: the scores, the campaign they were computed on,
    and how the runs were read (files, dropped duplicates), for the record."""

    scores: Scores
    matrix: RelevanceMatrix
    reading: dict


def score(qrels: Any, runs: Any, measures: Sequence[str] = DEFAULT_MEASURES, *, depth: int | None = None,
          threshold: int = 1, average: Averaging = "all", alphas: Sequence[Alpha] = DEFAULT_ALPHAS,
          rarity_depth: int | None = None, duplicates: DuplicatePolicy = "error",
          run_name: RunNameSource = "file", **options: Any) -> Scored:
    """Every run scored with every measure, as ``irmeta score`` scores it (trec_eval's
    flags: ``depth`` is -M, ``threshold`` -l, ``average="all"`` -c). Runs are read no
    deeper than the measures look, which changes no score. ``options`` (``gains``,
    ``beta``, ``asl_unretrieved``) go to the measures that declare them unless a name
    sets its own (``nDCG(gains={1:1,2:3})@10``)."""
    parsed = [parse_measure(m) for m in measures]
    needed = depth_read(parsed, rarity_depth)
    read_depth = depth if needed is None else min(depth or needed, needed)
    judgments = to_qrels(qrels)  # before the runs, as the file readers check them
    matrix, reading = judge_each(run_sources(runs), reader(run_name, read_depth, duplicates), judgments,
                                 depth=read_depth, threshold=threshold, duplicates=duplicates)
    scores = score_arrays(matrix, parsed, averaging=(average,), alphas=[parse_alpha(a) for a in alphas],
                          rarity_depth=rarity_depth, **options)
    return Scored(scores, matrix, reading)


def evaluate(qrels: Any, runs: Any, measures: Sequence[str] = DEFAULT_MEASURES, *, per_topic: bool = True,
             **settings: Any):
    """A long table (run, measure, qid, value): per measure, one row per run and qrels
    topic when ``per_topic``, then each run's mean (qid ``all``); rareness measures carry
    their alpha in the name (``P_rareness(alpha=0.5)@100``). ``settings``: those of
    :func:`score`. The same rows, in the same order, as ``irmeta score --per-topic``."""
    return scores_frame(score(qrels, runs, measures, **settings).scores, per_topic=per_topic)


def scores_frame(scores: Scores, *, per_topic: bool = True):
    """:class:`Scores` as the long table of :func:`evaluate` (one averaging mode)."""
    import pandas as pd

    n_runs, n_topics = len(scores.runs), len(scores.topics)
    means = scores.means.get(AVERAGING_NAMES["all"], next(iter(scores.means.values()), None))
    frames = []
    for i, (measure, alpha) in enumerate(zip(scores.measures, scores.alphas)):
        label = measure_label(measure, alpha)
        if per_topic:
            frames.append(pd.DataFrame({"run": np.repeat(scores.runs, n_topics), "measure": label,
                                        "qid": np.tile(scores.topics, n_runs),
                                        "value": scores.per_topic[i].reshape(-1)}))
        frames.append(pd.DataFrame({"run": scores.runs, "measure": label, "qid": "all", "value": means[i]}))
    columns = ["run", "measure", "qid", "value"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)
