"""Reproductions made on purpose, at a known fidelity: a run's rankings degraded at a
level q in [0, 1] by one of three kinds (issue 28, after Breuer et al.'s runs reproduced
at decreasing fidelity, SIGIR 2020):

* ``swap``: top down, each adjacent pair (i, i + 1) of the ranking swapped with
  probability q (a document swapped down may be swapped again at the next pair);
* ``replace``: each document replaced with probability q by one the run did not retrieve
  for that topic, drawn without replacement from the other runs' retrieved documents
  (the topic's pool minus the run's own; when the pool runs out, the document stays);
* ``noise``: each score plus Gaussian noise of sd q (max - min of the topic's scores),
  then re-ranked in trec_eval's order (score descending, docid descending).

Level 0 gives the run back unchanged. Each degraded ranking draws from its own stream,
keyed by the seed, the kind, the run's name, the level and the trial alone
(:func:`degradation_rng`), so a degraded run does not depend on which others are made,
in which order or in which shard.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np

KINDS = ("swap", "replace", "noise")
LEVELS = (0.0, 0.05, 0.1, 0.2, 0.4)

Scored = tuple[list[str], np.ndarray]  # documents best first, their scores


def name_key(name: str) -> int:
    """A run's name as a 63-bit integer (the first 8 bytes of its SHA-256): stable across
    processes and Python versions, unlike ``hash``."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") >> 1


def degradation_rng(seed: int, kind: str, run: str, level: float, trial: int) -> np.random.Generator:
    """The stream of one degraded run: ``default_rng([seed, kind, name, level in millionths, trial])``."""
    if kind not in KINDS:
        raise ValueError(f"degradation kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if not 0.0 <= level <= 1.0:
        raise ValueError(f"degradation level must be in [0, 1], not {level!r}")
    return np.random.default_rng([seed, KINDS.index(kind), name_key(run), round(level * 1_000_000), trial])


def swap_adjacent(docs: Sequence[str], level: float, rng: np.random.Generator) -> list[str]:
    """``swap``: top down, pair (i, i + 1) swapped with probability ``level``."""
    out = list(docs)
    draws = rng.random(max(len(out) - 1, 0))
    for i in np.flatnonzero(draws < level):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def replace_documents(docs: Sequence[str], level: float, pool: Sequence[str], rng: np.random.Generator) -> list[str]:
    """``replace``: each document, with probability ``level``, replaced by one of ``pool``
    (the other runs' documents for the topic) the run did not retrieve, without replacement."""
    out = list(docs)
    chosen = np.flatnonzero(rng.random(len(out)) < level)
    own = set(out)
    candidates = sorted(set(pool) - own)  # sorted: the draw must not depend on set order
    picks = rng.permutation(len(candidates))[:len(chosen)]
    for i, pick in zip(chosen, picks):
        out[i] = candidates[pick]
    return out


def perturb_scores(docs: Sequence[str], scores: np.ndarray, level: float, rng: np.random.Generator) -> list[str]:
    """``noise``: scores plus N(0, (level x range)^2), re-ranked score descending, docid
    descending (trec_eval's order)."""
    values = np.asarray(scores, dtype=np.float64)
    spread = float(values.max() - values.min()) if len(values) else 0.0
    noisy = values + rng.normal(0.0, 1.0, len(values)) * (level * spread)
    order = sorted(range(len(docs)), key=lambda i: (-noisy[i], _descending(docs[i])))
    return [docs[i] for i in order]


class _descending(str):
    """A docid that sorts in reverse (trec_eval breaks score ties by docid descending)."""

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)


def degrade_run(run: Mapping[str, Scored], kind: str, level: float, rng: np.random.Generator,
                pools: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[str]]:
    """One run's rankings (topic -> documents) degraded; ``pools``: per topic the
    documents every run retrieved (``replace`` only). Topics in the run's order, each
    drawing next from the one stream."""
    if kind not in KINDS:
        raise ValueError(f"degradation kind must be one of {', '.join(KINDS)}, not {kind!r}")
    out = {}
    for topic, (docs, scores) in run.items():
        if level == 0:
            out[topic] = list(docs)
        elif kind == "swap":
            out[topic] = swap_adjacent(docs, level, rng)
        elif kind == "replace":
            out[topic] = replace_documents(docs, level, (pools or {}).get(topic, ()), rng)
        else:
            out[topic] = perturb_scores(docs, scores, level, rng)
    return out


def topic_pools(runs: Mapping[str, Mapping[str, Scored]]) -> dict[str, list[str]]:
    """Per topic, every document some run retrieved, sorted."""
    pools: dict[str, set[str]] = {}
    for run in runs.values():
        for topic, (docs, _) in run.items():
            pools.setdefault(topic, set()).update(docs)
    return {topic: sorted(docs) for topic, docs in pools.items()}


def as_run(rankings: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """A degraded ranking as a run in memory (pytrec_eval's {topic: {doc: score}}), scores
    n, n - 1, ..., 1 so that trec_eval's order is the ranking's."""
    return {topic: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for topic, docs in rankings.items()}
