"""Plain-Python references for issue 20's measures (rareness forms of nDCG and RBP, RBP's
residual, ERR, the rarity functions), one ranked list at a time, written from the
definitions in docs/PROTOCOL.md and independent of irmeta's vectorised code; small random
campaigns for hypothesis; DL 2020 passage read once per session.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

from hypothesis import strategies as st

from campaigns import ranked_matrix
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs

Qrels = dict[str, dict[str, int]]  # topic -> doc -> grade
Runs = dict[str, dict[str, list[str]]]  # run -> topic -> docs in rank order

_doc = st.sampled_from([f"d{i}" for i in range(10)] + ["u1", "u2"])


@st.composite
def campaigns(draw) -> tuple[Qrels, Runs, int]:
    """(qrels, runs, threshold): 1-4 graded topics (grades -2..3), 1-4 runs of up to 12
    documents per topic (some unjudged, some topics missing, one topic outside the qrels)."""
    qrels: Qrels = {}
    for t in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(_doc, min_size=1, max_size=8, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-2, 3)) for d in judged}
    runs: Runs = {}
    for r in range(draw(st.integers(1, 4))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels) + ["77"]), min_size=1, max_size=5, unique=True))
        runs[f"run{r}"] = {t: draw(st.lists(_doc, min_size=1, max_size=12, unique=True)) for t in topics}
    return qrels, runs, draw(st.sampled_from([1, 2]))


gain_maps = st.one_of(st.none(), st.dictionaries(st.integers(-2, 3), st.sampled_from([0, 0.5, 1, 2, 3]), max_size=5))


def campaign_matrix(root: Path, qrels: Qrels, runs: Runs, *, threshold: int = 1, depth: int = 12):
    """TREC files for ``qrels`` and ``runs`` read back and joined at ``depth``
    (:func:`campaigns.ranked_matrix`)."""
    return ranked_matrix(root, qrels, runs, depth=depth, threshold=threshold)


def retrieving(runs: Runs, topic: str, doc: str, depth: int) -> int:
    """S_d: the runs holding ``doc`` in their top ``depth`` for ``topic``."""
    return sum(1 for lists in runs.values() if doc in lists.get(topic, [])[:depth])


def rarity(function: str, s_d: int, s: int, normalised: bool = False) -> float:
    """The rarity functions as docs/PROTOCOL.md defines them, written out case by case."""
    if function == "linear":
        return 1 - (s_d - 1) / (s - 1) if normalised else 1 - s_d / s
    s_d = max(s_d, 1)
    if function == "log":
        return math.log(s / s_d) / math.log(s)
    if function == "inverse":
        if normalised:  # min-max over S_d = 1..S: (1/S_d - 1/S) / (1 - 1/S)
            return (1 / s_d - 1 / s) / (1 - 1 / s)
        return 1 / s_d
    raise AssertionError(function)


def rarities(qrels: Qrels, runs: Runs, topic: str, *, threshold: int, depth: int, function: str,
             normalised: bool = False) -> dict[str, float]:
    """R(d) of every relevant document of ``topic`` (S = every run)."""
    return {d: rarity(function, retrieving(runs, topic, d, depth), len(runs), normalised)
            for d, g in qrels.get(topic, {}).items() if g >= threshold}


# ------------------------------------------------------------ one ranked list


def alpha_of(alpha: float | str, n_relevant: int) -> float:
    if alpha == "1/R":
        return 1 / n_relevant if n_relevant else 0.0
    return float(alpha)


def p_rareness(ranking, judged, rare, *, threshold, k, alpha, normalised=False) -> float:
    total = 0.0
    for d in ranking[:k]:
        if d in judged and judged[d] >= threshold:
            total += (1 - alpha) + alpha * rare[d] if normalised else 1 + alpha * rare[d]
    return total / k


def ap_rareness(ranking, judged, rare, *, threshold, k, alpha, normalised=False) -> float:
    n_rel = sum(1 for g in judged.values() if g >= threshold)
    total = 0.0
    for i, d in enumerate(ranking[:k], start=1):
        if d in judged and judged[d] >= threshold:
            total += p_rareness(ranking, judged, rare, threshold=threshold, k=i, alpha=alpha, normalised=normalised)
    return total / n_rel if n_rel else 0.0


def dcg_gain(judged, doc, gains) -> float:
    """nDCG's gain: the grade when positive (whatever the threshold), or the map's."""
    if doc not in judged:
        return 0.0
    if gains is None:
        return float(max(judged[doc], 0))
    return float(gains.get(judged[doc], 0))


def _dcg(values) -> float:
    total = 0.0
    for i, v in enumerate(values, start=1):
        total += v / math.log2(i + 1)
    return total


def ndcg_rareness(ranking, judged, rare, *, gains, k, alpha, normalised=False) -> float:
    weight = {d: dcg_gain(judged, d, gains) * (1 + alpha * rare.get(d, 0.0)) for d in judged}
    numerator = _dcg([weight.get(d, 0.0) for d in ranking[:k]])
    if normalised:
        ideal = sorted((w for w in weight.values() if w > 0), reverse=True)
    else:
        ideal = sorted((g for g in (dcg_gain(judged, d, gains) for d in judged) if g > 0), reverse=True)
    best = _dcg(ideal[:k])
    return numerator / best if best > 0 else 0.0


def rbp_rel(judged, doc, *, threshold, gains) -> float:
    if doc not in judged:
        return 0.0
    if gains is None:
        return 1.0 if judged[doc] >= threshold else 0.0
    top = max(gains.values(), default=0)
    return gains.get(judged[doc], 0) / top if top > 0 else 0.0


def rbp(ranking, judged, rare, *, threshold, gains, p, alpha=0.0, k=None) -> float:
    total = 0.0
    for i, d in enumerate(ranking[:k], start=1):
        total += (1 - p) * rbp_rel(judged, d, threshold=threshold, gains=gains) * (1 + alpha * rare.get(d, 0.0)) \
            * p ** (i - 1)
    return total


def rbp_residual(ranking, judged, *, p, k=None) -> float:
    top = ranking[:k]
    unjudged = 0.0
    for i, d in enumerate(top, start=1):
        if d not in judged:
            unjudged += (1 - p) * p ** (i - 1)
    return unjudged + p ** len(top)


def err(ranking, judged, *, gains, g_max, k) -> float:
    total, reach = 0.0, 1.0
    for i, d in enumerate(ranking[:k], start=1):
        stop = (2 ** dcg_gain(judged, d, gains) - 1) / 2 ** g_max
        total += reach * stop / i
        reach *= 1 - stop
    return total


# ---------------------------------------------------------------- DL 2020


@functools.cache
def dl2020_passage(root: Path, threshold: int = 1):
    """(runs, qrels, matrix) of TREC DL 2020 passage (59 runs, 54 graded topics, depth 1000)."""
    runs = read_runs(root / "dl2020_passage" / "runs", depth=1000)
    qrels = read_qrels(root / "dl2020_passage" / "qrels.txt")
    return runs, qrels, relevance_matrix(runs, qrels, depth=1000, threshold=threshold)
