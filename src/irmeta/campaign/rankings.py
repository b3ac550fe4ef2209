"""Runs as rankings: per run and topic the documents in trec_eval's order (score
descending, ties by docid descending), as the document-order measures of
:mod:`irmeta.metaeval.reproducibility` read them."""

from __future__ import annotations

import numpy as np

from irmeta.campaign.runs import RunFile, Runs

Ranking = dict[str, list[str]]  # topic -> documents, best first


def rankings_of(runs: Runs) -> dict[str, Ranking]:
    """Every run's ranking per topic it returned, topics in the runs' order of codes."""
    docids = np.asarray(runs.docids.to_pylist(), dtype=object)
    out: dict[str, Ranking] = {}
    order = np.lexsort((runs.rank, runs.qid, runs.run))
    run, qid, doc = runs.run[order], runs.qid[order], docids[runs.docid[order]]
    starts = np.flatnonzero(np.diff(run.astype(np.int64) * (len(runs.topics) + 1) + qid, prepend=-1))
    ends = np.append(starts[1:], len(run))
    for s, e in zip(starts, ends):
        out.setdefault(runs.names[run[s]], {})[runs.topics[qid[s]]] = doc[s:e].tolist()
    for name in runs.names:
        out.setdefault(name, {})
    return out


def ranking_of_file(run: RunFile) -> Ranking:
    """One run read by :func:`~irmeta.campaign.runs.ordered_run` (rows already in
    trec_eval's order, topics in blocks) as its ranking per topic."""
    qid = run.qid.indices.to_numpy(zero_copy_only=False)
    topics = run.qid.dictionary.to_pylist()
    docs = np.asarray(run.docid.dictionary.to_pylist(), dtype=object)[run.docid.indices.to_numpy(zero_copy_only=False)]
    starts = np.flatnonzero(np.diff(qid.astype(np.int64), prepend=-1))
    ends = np.append(starts[1:], len(qid))
    return {topics[qid[s]]: docs[s:e].tolist() for s, e in zip(starts, ends)}


def scores_of_file(run: RunFile) -> dict[str, np.ndarray]:
    """The scores of :func:`ranking_of_file`'s documents, per topic, in the same order."""
    qid = run.qid.indices.to_numpy(zero_copy_only=False)
    topics = run.qid.dictionary.to_pylist()
    starts = np.flatnonzero(np.diff(qid.astype(np.int64), prepend=-1))
    ends = np.append(starts[1:], len(qid))
    return {topics[qid[s]]: np.asarray(run.score[s:e], dtype=np.float64) for s, e in zip(starts, ends)}


def scored_rankings_of(runs: Runs) -> dict[str, dict[str, tuple[list[str], np.ndarray]]]:
    """Every run's (documents, scores) per topic it returned, in trec_eval's order: what
    :mod:`irmeta.campaign.degrade` degrades."""
    docids = np.asarray(runs.docids.to_pylist(), dtype=object)
    out: dict[str, dict[str, tuple[list[str], np.ndarray]]] = {name: {} for name in runs.names}
    order = np.lexsort((runs.rank, runs.qid, runs.run))
    run, qid = runs.run[order], runs.qid[order]
    doc, score = docids[runs.docid[order]], runs.score[order]
    starts = np.flatnonzero(np.diff(run.astype(np.int64) * (len(runs.topics) + 1) + qid, prepend=-1))
    for s, e in zip(starts, np.append(starts[1:], len(run))):
        out[runs.names[run[s]]][runs.topics[qid[s]]] = (doc[s:e].tolist(), score[s:e].copy())
    return out
