"""Per-topic scores of many measures at once, and their means over topics.

One definition of a run's mean, whatever the path (runs, irmeta's TSV, trec_eval output,
tables): :func:`run_means` sums a sorted copy of the run's per-topic scores, so runs with
the same multiset of scores get bit-identical means, and snaps the mean of the precision
family to its rational grid, so equal integer totals tie bit for bit as
:func:`counted_means`' one division does (docs/PROTOCOL.md, Numerical care).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.alpha import PER_TOPIC_ALPHA, Alpha, alpha_label, check_unit_alphas, parse_alpha
from irmeta.measures.cutoffs import cut_at
from irmeta.measures.group_averaged import refuse_mismatch
from irmeta.measures.names import Measure, as_measure, parse_measure
from irmeta.measures.rareness import rarity_cutoff, rarity_for
from irmeta.support.progress import progress_steps

if TYPE_CHECKING:
    import pandas as pd

    from irmeta.campaign.rarity import Rarity


Averaging = Literal["all", "returned", "geometric"]


AVERAGING_NAMES = {
    "all": "all_topics",  # every qrels topic, missing ones score 0 (trec_eval -c)
    "returned": "returned_topics",  # only topics the run returned (trec_eval default)
    "geometric": "geometric_all_topics",  # gm_map's rule over every qrels topic (trec_eval -c -m gm_map)
}

# trec_eval's MIN_GEO_MEAN: a per-topic score below it counts as it in a geometric mean
GEOMETRIC_FLOOR = 1e-5


def exact_mean(values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean over the last axis, summing a sorted copy (order-independent, tie-exact).

    With ``mask``, only the masked-in entries count (0 where none does). :func:`run_means`
    without a grid: the same bits.
    """
    return run_means(values, mask)


_COUNTED = ("P", "P_rareness", "P_rareness_norm")  # the precision family: integer totals


@dataclass(frozen=True)
class MeanGrid:
    """Per-topic scores that are integers over ``q``: a run's total over n topics is I/q
    and its mean I/(q n), I an integer. ``terms``: how many rounded terms a per-topic
    score may sum (its float error is at most about ``terms`` eps of its size)."""

    q: int
    terms: int


def linear_rarity(measure: Measure) -> bool:
    """The measure reads the paper's linear rarity R = 1 - S_d/S (eq. 2), or none: only then
    are its per-topic scores on a rational grid (log and inverse rarity are not)."""
    return "rarity" not in dict(measure.params)  # linear is the default, so never in a canonical name


# alpha = p / 2^j with j at most this keeps the grid (and q n) well inside 2^53
_DYADIC_BITS = 8


def mean_grid(measure: str | Measure, alpha: Alpha | None = None, n_systems: int | None = None) -> MeanGrid | None:
    """The rational grid of a measure's per-topic scores, from its name alone (so every
    path finds the same one), None when it has none.

    P@k: c/k, q = k. P_rareness@k at alpha = p/2^j: ((1 + alpha) S c - alpha d)/(k S),
    q = k S 2^j (eq. 1 summed over the top k, d the sum of S_d over its relevant
    documents); P_rareness_norm@k: ((1 - alpha)(S - 1) c + alpha (S c - d))/(k (S - 1)),
    q = k (S - 1) 2^j (eq. 4). ``alpha``: the block's (the name's own wins); ``n_systems``:
    S, the runs rarity is counted over. No grid without @k (k would be the runs' depth,
    which a scores file does not tell), for 1/R or an alpha that is no p/2^j with j <= 8,
    or without S.
    """
    m = as_measure(measure)  # passed on read; a caller's name is read here
    if m.family not in _COUNTED or m.cutoff is None or not linear_rarity(m):
        return None
    k = int(m.cutoff)
    if not m.uses_alpha:
        return MeanGrid(k, 1)
    a = m.alpha if m.alpha is not None else (None if alpha is None else parse_alpha(alpha))
    if a is None or a == PER_TOPIC_ALPHA or n_systems is None:
        return None
    scale = next((1 << j for j in range(_DYADIC_BITS + 1) if float(a) * (1 << j) == round(float(a) * (1 << j))), None)
    runs = n_systems if m.family == "P_rareness" else n_systems - 1
    if scale is None or runs < 1:
        return None
    return MeanGrid(k * runs * scale, k + 2)  # k rarity weights summed, then one product and one sum


def run_means(values: np.ndarray, mask: np.ndarray | None = None, *, grid: MeanGrid | None = None,
              counts: np.ndarray | None = None, presorted: bool = False) -> np.ndarray:
    """A run's mean over topics, the one definition every path uses (runs, irmeta's TSV,
    trec_eval output, tables): m = (sum of the sorted per-topic scores) / n, over the last
    axis, as :func:`exact_mean` (``mask``: the topics counted, the others as 0; ``counts``:
    n itself, when the scores of the topics not counted are already 0; ``presorted``: the
    rows are in the order to sum already, sorted ascending or terms in that order).

    On a ``grid`` (:func:`mean_grid`) the mean is snapped to it: I = rint(m q n), and
    fl(I / (q n)) replaces m when |fl(I / (q n)) - m| <= 8 (n + terms) eps |m|, the sum's
    own float error: the correctly rounded exact mean, so equal integer totals give equal
    means to the last bit whatever the order or rounding of the per-topic floats, and
    :func:`counted_means`' one division of integers is reproduced bit for bit. Scores off
    the grid (rounded to 4 decimals, or counted over other runs) keep m
    (docs/PROTOCOL.md, Numerical care).
    """
    kept = values if mask is None else np.where(mask, values, 0.0)  # adding 0.0 is exact
    if counts is not None:
        n = np.asarray(counts)
    elif mask is None:
        n = np.full(values.shape[:-1], values.shape[-1])
    else:
        n = mask.sum(axis=-1)
    total = (kept if presorted and mask is None else np.sort(kept, axis=-1)).sum(axis=-1)
    mean = np.divide(total, n, out=np.zeros_like(total, dtype=np.float64), where=n > 0)
    if grid is None:
        return mean
    qn = (grid.q * n).astype(np.float64)  # exact below 2^53
    whole = np.rint(total * grid.q)
    on = np.divide(whole, qn, out=np.zeros_like(mean), where=n > 0)
    eps = np.finfo(np.float64).eps
    close = np.abs(on - mean) <= 8 * (n + grid.terms) * eps * np.abs(mean) + np.finfo(np.float64).tiny
    return np.where(close & (n > 0) & (qn < 2.0 ** 53) & (np.abs(whole) < 2.0 ** 53), on, mean)


def block_means(per_topic: np.ndarray, measures: Sequence[str | Measure], alphas: Sequence[str | None], n_systems: int,
                present: np.ndarray | None = None) -> np.ndarray:
    """:func:`run_means` of (blocks, runs, topics) block by block (block i is ``measures[i]``
    at ``alphas[i]``, on its :func:`mean_grid` with S = ``n_systems``); ``present``: the
    topics counted, per block (None: all). One block's temporary arrays at a time."""
    out = np.zeros(per_topic.shape[:-1])
    for i, block in enumerate(per_topic):
        out[i] = run_means(block, None if present is None else present[i],
                           grid=mean_grid(measures[i], alphas[i], n_systems))
    return out


def _topic_mask(matrix: RelevanceMatrix, averaging: Averaging) -> np.ndarray:
    if averaging == "all":
        return np.ones((len(matrix.runs), len(matrix.topics)), dtype=bool)
    if averaging == "returned":
        return matrix.returned
    raise ValueError(f"averaging must be 'all' or 'returned', not {averaging!r}")


def counted_means(matrix: RelevanceMatrix, measure: Measure, averaging: Averaging = "all",
                  alphas: Sequence[Alpha] = (0.0,), rarity_counts: Rarity | None = None,
                  rarity_depth: int | None = None) -> np.ndarray | None:
    """Means of the precision family from integer totals, one division per run (and alpha).

    P@k's mean is C / (k Q), C the relevant documents a run holds in its top k over the
    topics; P_rareness's is ((1 + alpha) S C - alpha D) / (k S Q) and P_rareness_norm's
    ((1 - alpha)(S - 1) C + alpha (S C - D)) / (k (S - 1) Q), D the sum of S_d over those
    documents. Runs with equal totals get bit-identical means, and at alpha = 0 all three
    equal P@k's mean to the last bit: summing per-topic quotients cannot promise either
    (docs/PROTOCOL.md, Numerical care). :func:`run_means` on :func:`mean_grid` gives these
    bits from the per-topic floats alone (tests/unit/measures/test_one_mean.py checks it).
    (A, runs) for alpha measures, (runs,) otherwise; None
    for other measures. A per-topic alpha (1/R) has no integer form: its row is NaN,
    and its mean is a sorted sum.
    """
    if measure.family not in _COUNTED or not linear_rarity(measure):
        return None
    mask = _topic_mask(matrix, averaging)  # the runs' own lists say which topics were returned
    matrix = scored_lists(matrix, measure)
    top, k = cut_at(matrix, measure.cutoff)
    n_topics = mask.sum(axis=1)
    hits = np.where(mask, matrix.cell_counts(top), 0).sum(axis=1)  # C
    if not measure.uses_alpha:
        return _safe_divide(hits.astype(np.float64), (k * n_topics).astype(np.float64))
    found = rarity_for(matrix, k, rarity_counts, rarity_depth)
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


def mean_scores(matrix: RelevanceMatrix, per_topic: np.ndarray, averaging: Averaging = "all",
                grid: MeanGrid | None = None) -> np.ndarray:
    """Runs' means over topics (:func:`run_means`): every qrels topic (``all``), those
    returned (``returned``), or the geometric mean over every qrels topic (``geometric``,
    :func:`geometric_means`; ``grid`` does not apply)."""
    if averaging == "all":
        return run_means(per_topic, grid=grid)
    if averaging == "returned":
        return run_means(per_topic, np.broadcast_to(matrix.returned, per_topic.shape), grid=grid)
    if averaging == "geometric":
        return geometric_means(per_topic)
    raise ValueError(f"averaging must be 'all', 'returned' or 'geometric', not {averaging!r}")


def geometric_means(values: np.ndarray) -> np.ndarray:
    """Geometric mean over the last axis (topics), trec_eval's gm_map rule (Robertson, GMAP,
    TREC 2004 robust track): exp(mean(log(max(x, 1e-5)))), so a topic scoring 0 (or below
    the floor, or negative) weighs as 1e-5 instead of zeroing the mean. Every topic counts,
    as trec_eval -c counts every qrels topic; the logs are summed sorted (:func:`run_means`),
    so equal multisets of scores give equal bits."""
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    return np.exp(run_means(np.log(np.maximum(values, GEOMETRIC_FLOOR))))


def evaluate(matrix: RelevanceMatrix, measures: Iterable[str | Measure], *,
             alphas: Sequence[Alpha] = (0.0,), rarity_depth: int | None = None,
             rarity_counts: Rarity | None = None, **options) -> dict[Measure, np.ndarray]:
    """Per-topic scores of each measure, keyed as the measure is named: (runs, topics), or
    (alphas, runs, topics) for measures weighted by alpha (one alpha when the name fixes
    it). Rarity is counted once per depth and shared. Other ``options`` (e.g. ``gains``)
    go to the measures that declare them, unless the name sets its own
    (``nDCG(gains={1:1,2:3})@10``).

    A measure named ``judged_only=true`` is scored on the condensed lists
    (:meth:`RelevanceMatrix.condensed`, Sakai 2007), its rarity counted on them too,
    unless ``rarity_counts`` is given (used as given)."""
    out: dict[Measure, np.ndarray] = {}
    counted: dict[bool, dict[int, Rarity]] = {False: {}, True: {}}  # per list kind, per depth
    for item in measures:
        named = as_measure(item)  # a library caller's name read here; a Measure passed on
        m = named.with_defaults(options)  # the name's parameters, else the options, else the defaults
        refuse_mismatch([m], matrix.judgment_groups is not None)  # judgment groups, or one judgment per document
        lists = scored_lists(matrix, m)
        if not m.uses_alpha:
            out[named] = m.definition.compute(lists, m.cutoff, **m.options())
            continue
        found = rarity_for(lists, _cutoff(lists, m), rarity_counts, rarity_depth, counted[m.judged_only])
        out[named] = m.definition.compute(lists, m.cutoff, alphas=_alphas_of(m, alphas), rarity_counts=found,
                                          **m.options())  # e.g. rarity=log, gains, p
    return out


def scored_lists(matrix: RelevanceMatrix, measure: Measure) -> RelevanceMatrix:
    """The lists a measure is scored on: the condensed ones for ``judged_only=true``
    (unjudged documents removed first, then the cutoff; trec_eval -J), else the runs'."""
    return matrix.condensed() if measure.judged_only else matrix


def _alphas_of(measure: Measure, alphas: Sequence[Alpha]) -> Sequence[Alpha]:
    """The alpha a name fixes (``P_rareness(alpha=0.5)@100``), else the grid."""
    return alphas if measure.alpha is None else [measure.alpha]


def _cutoff(matrix: RelevanceMatrix, measure: Measure) -> int:
    """The depth a measure reads, for its rarity (:func:`rarity_cutoff`)."""
    return rarity_cutoff(matrix, measure.cutoff)


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
    #: block i's measure as read (``measures[i]`` is its name): given where the scores were
    #: computed from parsed measures, else read from the names once, here, as they enter
    parsed: list[Measure] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.parsed) != len(self.measures):
            object.__setattr__(self, "parsed", [parse_measure(m) for m in self.measures])

    def labelled(self) -> list[Measure]:
        """Each block's measure with its alpha in the name (``P_rareness(alpha=0.5)@100``)."""
        return [m.with_alpha(a) for m, a in zip(self.parsed, self.alphas)]

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

    Means are :func:`run_means` (sorted sums, snapped to the grid of the precision family,
    so they equal :func:`counted_means`' integer totals bit for bit); rarity is counted
    once per depth.
    """
    alphas = options.get("alphas", (0.0,))
    rarities: dict[bool, dict[int, Rarity]] = {False: {}, True: {}}  # S_d once per list kind and depth
    names, parsed, labels, blocks = [], [], [], []
    means: dict[str, list[np.ndarray]] = {AVERAGING_NAMES[mode]: [] for mode in averaging}
    with progress_steps("runs scored", matrix.n_runs * len(measures), "run") as step:  # each measure: every run
        for item in measures:
            named = as_measure(item)  # rows keep the name as given; the options fill what it leaves
            measure = named.with_defaults(options)
            own = _alphas_of(measure, alphas)
            lists = scored_lists(matrix, measure)  # rarity on the lists scored (condensed for judged_only)
            found = (rarity_for(lists, _cutoff(lists, measure), options.get("rarity_counts"),
                                options.get("rarity_depth"), rarities[measure.judged_only])
                     if measure.uses_alpha else None)
            values = evaluate(matrix, [measure], **dict(options, rarity_counts=found))[measure]
            stacked = values if measure.uses_alpha else values[None]
            for a_index, alpha in enumerate(own if measure.uses_alpha else [None]):
                names.append(str(named.without_alpha()))
                parsed.append(named.without_alpha())
                labels.append(None if alpha is None else alpha_label(alpha))
                blocks.append(stacked[a_index])
                grid = mean_grid(measure, alpha, None if found is None else found.n_systems)
                for mode in averaging:
                    means[AVERAGING_NAMES[mode]].append(mean_scores(matrix, stacked[a_index], mode, grid))
            step(matrix.n_runs)
    shape = (0, matrix.n_runs, matrix.n_topics)
    return Scores(runs=list(matrix.runs), topics=list(matrix.topics), measures=names, alphas=labels, parsed=parsed,
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
    no averaging; mean rows have qid ``all`` and name their averaging mode. Means are
    :func:`run_means`.
    """
    return score_arrays(matrix, measures, averaging=averaging, **options).to_frame(per_topic)
