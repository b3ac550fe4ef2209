"""Per-topic scores of many measures at once, and their means over topics.

Means of the precision family are one division of integer totals; other means sum a
sorted copy of each run's per-topic scores, so runs with the same multiset of scores
get bit-identical means and exact ties stay ties (docs/PROTOCOL.md, Numerical care).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.alpha import PER_TOPIC_ALPHA, Alpha, alpha_label, check_unit_alphas, parse_alpha
from irmeta.measures.cutoffs import cut_at, measure_depth
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.rareness import rarity_for

if TYPE_CHECKING:
    import pandas as pd

    from irmeta.campaign.rarity import Rarity


Averaging = Literal["all", "returned"]


AVERAGING_NAMES = {
    "all": "all_topics",  # every qrels topic, missing ones score 0 (trec_eval -c)
    "returned": "returned_topics",  # only topics the run returned (trec_eval default)
}


def exact_mean(values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean over the last axis, summing a sorted copy (order-independent, tie-exact).

    With ``mask``, only the masked-in entries count (0 where none does).
    """
    if mask is None:
        n = values.shape[-1]
        return np.sort(values, axis=-1).sum(axis=-1) / n if n else np.zeros(values.shape[:-1])
    kept = np.where(mask, values, 0.0)  # adding 0.0 is exact
    n = mask.sum(axis=-1)
    total = np.sort(kept, axis=-1).sum(axis=-1)
    return np.divide(total, n, out=np.zeros_like(total, dtype=np.float64), where=n > 0)


def _topic_mask(matrix: RelevanceMatrix, averaging: Averaging) -> np.ndarray:
    if averaging == "all":
        return np.ones((len(matrix.runs), len(matrix.topics)), dtype=bool)
    if averaging == "returned":
        return matrix.returned
    raise ValueError(f"averaging must be 'all' or 'returned', not {averaging!r}")


_COUNTED = ("P", "P_rareness", "P_rareness_norm")


def counted_means(matrix: RelevanceMatrix, measure: Measure, averaging: Averaging = "all",
                  alphas: Sequence[Alpha] = (0.0,), rarity: Rarity | None = None,
                  rarity_depth: int | None = None) -> np.ndarray | None:
    """Means of the precision family from integer totals, one division per run (and alpha).

    P@k's mean is C / (k Q), C the relevant documents a run holds in its top k over the
    topics; P_rareness's is ((1 + alpha) S C - alpha D) / (k S Q) and P_rareness_norm's
    ((1 - alpha)(S - 1) C + alpha (S C - D)) / (k (S - 1) Q), D the sum of S_d over those
    documents. Runs with equal totals get bit-identical means, and at alpha = 0 all three
    equal P@k's mean to the last bit: summing per-topic quotients cannot promise either
    (docs/PROTOCOL.md, Numerical care). (A, runs) for alpha measures, (runs,) otherwise; None
    for other measures. A per-topic alpha (1/R) has no integer form: its row is NaN,
    and its mean is a sorted sum.
    """
    if measure.family not in _COUNTED:
        return None
    top, k = cut_at(matrix, measure.cutoff)
    mask = _topic_mask(matrix, averaging)
    n_topics = mask.sum(axis=1)
    hits = np.where(mask, matrix.cell_counts(top), 0).sum(axis=1)  # C
    if not measure.uses_alpha:
        return _safe_divide(hits.astype(np.float64), (k * n_topics).astype(np.float64))
    found = rarity_for(matrix, k, rarity, rarity_depth)
    s = found.n_systems
    s_d = np.bincount(top.cell, weights=found.per_posting(top, found.n_retrieving), minlength=top.n_cells)
    shared = np.where(mask, matrix.grid(np.rint(s_d).astype(np.int64)), 0).sum(axis=1)  # D
    a = np.asarray([np.nan if parse_alpha(x) == PER_TOPIC_ALPHA else parse_alpha(x) for x in alphas],
                   dtype=np.float64)[:, None]
    if measure.family == "P_rareness":
        numerator = (1.0 + a) * (s * hits) - a * shared
        denominator = k * s * n_topics
    else:
        check_unit_alphas(alphas, measure.family)
        if s < 2:
            raise ValueError("R'(d) needs at least two runs (S - 1 > 0)")
        numerator = (1.0 - a) * ((s - 1) * hits) + a * (s * hits - shared)
        denominator = k * (s - 1) * n_topics
    return _safe_divide(numerator, np.broadcast_to(denominator.astype(np.float64), numerator.shape))


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.where(np.isnan(numerator), np.nan, 0.0)
    return np.divide(numerator, denominator, out=out, where=(denominator > 0) & ~np.isnan(numerator))


def mean_scores(matrix: RelevanceMatrix, per_topic: np.ndarray, averaging: Averaging = "all") -> np.ndarray:
    """Runs' means over topics: every qrels topic (``all``) or those returned (``returned``)."""
    if averaging == "all":
        return exact_mean(per_topic)
    if averaging == "returned":
        return exact_mean(per_topic, np.broadcast_to(matrix.returned, per_topic.shape))
    raise ValueError(f"averaging must be 'all' or 'returned', not {averaging!r}")


def evaluate(matrix: RelevanceMatrix, measures: Iterable[str | Measure], *,
             alphas: Sequence[Alpha] = (0.0,), rarity_depth: int | None = None,
             rarity: Rarity | None = None, **options) -> dict[Measure, np.ndarray]:
    """Per-topic scores of each measure, keyed as the measure is named: (runs, topics), or
    (alphas, runs, topics) for measures weighted by alpha (one alpha when the name fixes
    it). Rarity is counted once per depth and shared. Other ``options`` (e.g. ``gains``)
    go to the measures that declare them, unless the name sets its own
    (``nDCG(gains={1:1,2:3})@10``)."""
    out: dict[Measure, np.ndarray] = {}
    counted: dict[int, Rarity] = {}
    for item in measures:
        named = parse_measure(item)
        m = parse_measure(named, options)  # the name's parameters, else the options, else the defaults
        if not m.uses_alpha:
            out[named] = m.definition.compute(matrix, m.cutoff, **m.options())
            continue
        found = rarity_for(matrix, _cutoff(matrix, m), rarity, rarity_depth, counted)
        out[named] = m.definition.compute(matrix, m.cutoff, alphas=_alphas_of(m, alphas), rarity=found)
    return out


def _alphas_of(measure: Measure, alphas: Sequence[Alpha]) -> Sequence[Alpha]:
    """The alpha a name fixes (``P_rareness(alpha=0.5)@100``), else the grid."""
    return alphas if measure.alpha is None else [measure.alpha]


def _cutoff(matrix: RelevanceMatrix, measure: Measure) -> int:
    return measure_depth(matrix, measure.cutoff)


def _mean_row(matrix: RelevanceMatrix, block: np.ndarray, mode: Averaging, counted: np.ndarray | None,
              a_index: int) -> np.ndarray:
    if counted is not None:
        row = counted.reshape(-1, len(matrix.runs))[a_index]
        if not np.isnan(row).any():
            return row
    return mean_scores(matrix, block, mode)


@dataclass(frozen=True, eq=False)
class Scores:
    """Scores of several measures as arrays: block ``i`` is ``measures[i]`` at ``alphas[i]``
    (None for a measure without one); ``per_topic`` (blocks, runs, topics), every qrels
    topic (0 where the run returned nothing); ``means`` per averaging name
    (``all_topics``, ``returned_topics``): (blocks, runs)."""

    runs: list[str]
    topics: list[str]
    measures: list[str]
    alphas: list[str | None]
    per_topic: np.ndarray
    means: dict[str, np.ndarray]

    def block(self, measure: str, alpha: str | None = None) -> int:
        for i, (m, a) in enumerate(zip(self.measures, self.alphas)):
            if m == measure and (a or None) == (alpha or None):
                return i
        raise KeyError(f"no scores of {measure} at alpha {alpha}")

    def mean_frame(self, averaging: str = "all_topics") -> pd.DataFrame:
        """Runs' means: one row per run, one column per (measure, alpha label, '' for none)."""
        import pandas as pd

        columns = pd.MultiIndex.from_arrays([self.measures, [a or "" for a in self.alphas]],
                                            names=["measure", "alpha"])
        return pd.DataFrame(self.means[averaging].T, index=pd.Index(self.runs, name="run"), columns=columns)

    def to_frame(self, per_topic: bool = True) -> pd.DataFrame:
        """Long table: run, qid, measure, alpha, value, averaging (see :func:`score_table`)."""
        import pandas as pd

        n_runs, n_topics = len(self.runs), len(self.topics)
        frames = []
        for i, (measure, alpha) in enumerate(zip(self.measures, self.alphas)):
            if per_topic:
                frames.append(pd.DataFrame({
                    "run": np.repeat(self.runs, n_topics), "qid": np.tile(self.topics, n_runs),
                    "measure": measure, "alpha": alpha, "value": self.per_topic[i].reshape(-1), "averaging": None,
                }))
            for name, means in self.means.items():
                frames.append(pd.DataFrame({"run": self.runs, "qid": "all", "measure": measure, "alpha": alpha,
                                            "value": means[i], "averaging": name}))
        table = pd.concat(frames, ignore_index=True)
        table["alpha"] = table["alpha"].astype("string")
        table["averaging"] = table["averaging"].astype("string")
        return table


def score_arrays(
    matrix: RelevanceMatrix,
    measures: Sequence[str | Measure],
    *,
    averaging: Sequence[Averaging] = ("all", "returned"),
    **options,
) -> Scores:
    """Every measure (and alpha) scored on every run and qrels topic, with its means.

    Means of the precision family come from integer totals (:func:`counted_means`), the
    others are sorted sums (:func:`exact_mean`); rarity is counted once per depth.
    """
    alphas = options.get("alphas", (0.0,))
    rarities: dict[int, Rarity] = {}  # S_d counted once per depth, for scores and means
    names, labels, blocks = [], [], []
    means: dict[str, list[np.ndarray]] = {AVERAGING_NAMES[mode]: [] for mode in averaging}
    for item in measures:
        named = parse_measure(item)  # rows keep the name as given; the options fill what it leaves
        measure = parse_measure(named, options)
        own = _alphas_of(measure, alphas)
        found = (rarity_for(matrix, _cutoff(matrix, measure), options.get("rarity"), options.get("rarity_depth"),
                             rarities) if measure.uses_alpha else None)
        values = evaluate(matrix, [measure], **dict(options, rarity=found))[measure]
        stacked = values if measure.uses_alpha else values[None]
        counted = {mode: counted_means(matrix, measure, mode, alphas=own, rarity=found) for mode in averaging}
        for a_index, alpha in enumerate([alpha_label(a) for a in own] if measure.uses_alpha else [None]):
            names.append(str(named.without_alpha()))
            labels.append(alpha)
            blocks.append(stacked[a_index])
            for mode in averaging:
                means[AVERAGING_NAMES[mode]].append(_mean_row(matrix, stacked[a_index], mode, counted[mode], a_index))
    shape = (0, matrix.n_runs, matrix.n_topics)
    return Scores(runs=list(matrix.runs), topics=list(matrix.topics), measures=names, alphas=labels,
                  per_topic=np.stack(blocks) if blocks else np.zeros(shape),
                  means={k: np.stack(v) if v else np.zeros(shape[:2]) for k, v in means.items()})


def score_table(
    matrix: RelevanceMatrix,
    measures: Sequence[str | Measure],
    *,
    averaging: Sequence[Averaging] = ("all", "returned"),
    per_topic: bool = True,
    **options,
) -> pd.DataFrame:
    """Long table: run, qid, measure, alpha, value, averaging.

    ``alpha`` is text (``0.5``, ``1/R``), empty for measures without one.

    Per-topic rows cover every qrels topic (0 where the run returned nothing) and have
    no averaging; mean rows have qid ``all`` and name their averaging mode. Means of
    the precision family come from integer totals (:func:`counted_means`), the others
    are sorted sums (:func:`exact_mean`).
    """
    return score_arrays(matrix, measures, averaging=averaging, **options).to_frame(per_topic)
