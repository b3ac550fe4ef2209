"""Evaluation measures, vectorised over runs and topics, with trec_eval's arithmetic.

Every measure maps a :class:`~irmeta.ranking.RelevanceMatrix` to per-topic scores of
shape (runs, topics). Measures are named like trec_eval and ir_measures: ``P@100``,
``AP@100`` (no ``@k``: the full depth of the runs). Each declares once whether higher
is better, and experiments read the direction from here.

Numerical care: AP sums precisions at relevant ranks sequentially (``np.cumsum``), as
trec_eval does, then divides by the topic's relevant count. Means over topics sum a
sorted copy of each run's per-topic scores, so two runs with the same multiset of
scores get bit-identical means and exact ties stay ties (PROTOCOL.md, numerical care).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Literal, Sequence

import numpy as np

from .ranking import Postings, RelevanceMatrix

if TYPE_CHECKING:
    import pandas as pd
    from .rarity import Rarity

Averaging = Literal["all", "returned"]
AVERAGING_NAMES = {
    "all": "all_topics",  # every qrels topic, missing ones score 0 (trec_eval -c)
    "returned": "returned_topics",  # only topics the run returned (trec_eval default)
}


@dataclass(frozen=True)
class Measure:
    """A measure family at a cutoff: ``Measure("P", 100)`` is ``P@100``."""

    family: str
    cutoff: int | None = None

    def __str__(self) -> str:
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"

    @property
    def definition(self) -> "MeasureDefinition":
        return MEASURES[self.family]

    @property
    def higher_is_better(self) -> bool:
        return self.definition.higher_is_better

    @property
    def uses_alpha(self) -> bool:
        return self.definition.uses_alpha


@dataclass(frozen=True)
class MeasureDefinition:
    """A measure family: ``compute(matrix, cutoff, **options) -> (runs, topics)`` (or
    (alphas, runs, topics) when ``uses_alpha``); ``options`` names the keyword settings
    it reads (e.g. ``gains``), which :func:`evaluate` passes through when given.
    ``cutoff_is_depth``: the measure reads nothing below rank k (false for ASL_g1@n,
    whose n counts relevant documents)."""

    family: str
    compute: Callable[..., np.ndarray]
    description: str
    higher_is_better: bool = True
    uses_alpha: bool = False
    options: tuple[str, ...] = ()
    cutoff_is_depth: bool = True


MEASURES: dict[str, MeasureDefinition] = {}


def register(definition: MeasureDefinition) -> MeasureDefinition:
    MEASURES[definition.family] = definition
    return definition


_MEASURE = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_+]*)(?:@(?P<cutoff>\d+))?$")
MAX_CUTOFF = 2**31 - 1  # ranks are int32
# trec_eval's names (and ir_measures' R@k) -> irmeta's families.
_ALIASES = {"map": "AP", "MAP": "AP", "P_": "P", "recip_rank": "RR", "ndcg": "nDCG", "R": "Recall",
            "bpref": "Bpref", "set_P": "SetP", "set_recall": "SetR", "set_F": "SetF"}
# trec_eval's names with a cutoff: P_10, map_cut_100, ndcg_cut_10, recall_100, success_10;
# ASL@g1-10 (Alex et al.).
_SPELLINGS = [(re.compile(r"P_(\d+)"), "P@{}"), (re.compile(r"map_cut_(\d+)"), "AP@{}"),
              (re.compile(r"ndcg_cut_(\d+)"), "nDCG@{}"), (re.compile(r"recall_(\d+)"), "Recall@{}"),
              (re.compile(r"success_(\d+)"), "Success@{}"), (re.compile(r"ASL@g1-(\d+)"), "ASL_g1@{}")]


def parse_measure(text: str | Measure) -> Measure:
    """``"P@100"`` -> ``Measure("P", 100)``; also accepts trec_eval's names (``P_100``,
    ``map``, ``map_cut_100``, ``ndcg``, ``ndcg_cut_10``, ``recip_rank``, ``recall_100``,
    ``Rprec``, ``bpref``, ``set_P``, ``set_recall``, ``set_F``, ``success_10``) and ``ASL@g1-10``."""
    if isinstance(text, Measure):
        return text
    raw = text.strip()
    for pattern, spelling in _SPELLINGS:
        m = pattern.fullmatch(raw)
        if m:
            raw = spelling.format(m.group(1))
    match = _MEASURE.match(raw)
    if not match:
        raise ValueError(f"cannot read measure {text!r}; write it like P@100 or AP@100")
    family = _ALIASES.get(match.group("family"), match.group("family"))
    if family not in MEASURES:
        known = ", ".join(sorted(MEASURES))
        raise ValueError(f"unknown measure {text!r}; known measures: {known}")
    cutoff = match.group("cutoff")
    if cutoff is not None and int(cutoff) < 1:
        raise ValueError(f"measure {text!r}: the cutoff must be at least 1")
    if cutoff is not None and int(cutoff) > MAX_CUTOFF:
        raise ValueError(f"measure {text!r}: the cutoff must be at most {MAX_CUTOFF}")
    return Measure(family, int(cutoff) if cutoff is not None else None)


def depth_read(measures: Iterable[str | Measure], rarity_depth: int | None = None) -> int | None:
    """How deep the runs must be read for the measures: the deepest cutoff (and rarity
    depth); None (everything) when a measure reads the whole run. Reading no deeper
    changes no score and keeps less."""
    depths = []
    for item in measures:
        m = parse_measure(item)
        if m.cutoff is None or not m.definition.cutoff_is_depth:
            return None
        depths.append(m.cutoff)
    return max(depths + ([rarity_depth] if rarity_depth else []), default=None)


def measure_depth(matrix: RelevanceMatrix, cutoff: int | None, what: str = "a measure without @k") -> int:
    """k of a measure that needs one (P divides by it): its cutoff, else the depth the
    runs were cut to (trec_eval -M), never the deepest list among the runs scored
    together, so a run's score does not depend on the other runs."""
    if cutoff is not None:
        return int(cutoff)
    if matrix.run_depth is None:
        raise ValueError(f"{what} needs the depth k the runs were cut to, and these runs were read without "
                         f"one: write @k, or read the runs with a depth (--depth, or depth: in the collection)")
    return matrix.run_depth


def top_ranks(matrix: RelevanceMatrix, cutoff: int | None) -> Postings:
    """The relevant postings within the top ``cutoff`` ranks (all for None)."""
    return matrix.hits.top(cutoff)


def _cut(matrix: RelevanceMatrix, cutoff: int | None) -> tuple[Postings, int]:
    """The relevant postings within the top k ranks, and k (:func:`measure_depth`)."""
    k = measure_depth(matrix, cutoff)
    return matrix.hits.top(k), k


def precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """P@k = |relevant in top k| / k (trec_eval ``P_k``; missing ranks count as non-relevant)."""
    hits, k = _cut(matrix, cutoff)
    return matrix.cell_counts(hits) / k


def relevant_count(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """Relevant documents in the top k (all the run returned for None), as integers."""
    return matrix.cell_counts(top_ranks(matrix, cutoff))


def precision_at_relevant_ranks(hits: Postings) -> np.ndarray:
    """|relevant in top i| / i at each relevant posting's rank i: AP's summands."""
    return (hits.position + 1) / hits.rank.astype(np.float64)


def average_precision(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """AP@k = (1/N_R) sum_{i<=k} rel(d_i) P@i, N_R = relevant documents in the qrels.

    trec_eval ``map`` with ``-M k``: the sum runs in rank order, as trec_eval's loop,
    so results agree to the last bit. A topic with N_R = 0 scores 0.
    """
    hits = top_ranks(matrix, cutoff)
    total = matrix.grid(hits.ordered_sums(precision_at_relevant_ranks(hits)))
    return divide_by_relevant(total, matrix.n_relevant)


def divide_by_relevant(total: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
    """total / N_R per topic (last axis), 0 where the topic has no relevant document."""
    n = np.broadcast_to(n_relevant.astype(np.float64), total.shape)
    return np.divide(total, n, out=np.zeros_like(total, dtype=np.float64), where=n > 0)


register(MeasureDefinition("P", precision, "precision at k (trec_eval P_k)"))
register(MeasureDefinition("AP", average_precision, "average precision cut at k (trec_eval map -M k)"))


# ------------------------------------------------------------------ rareness measures

PER_TOPIC_ALPHA = "1/R"  # the authors' "document importance": alpha = 1 / N_R per topic

Alpha = float | str


def parse_alpha(value: Alpha) -> Alpha:
    """A rarity weight: a number >= 0, or ``"1/R"`` for alpha = 1/N_R per topic.

    Eq. 1 and 3, Rel (1 + alpha R), take any alpha >= 0 (above 1, rarity weighs more
    than relevance; eq. 4 at alpha in [0, 1) is eq. 1 at alpha S / ((1 - alpha)(S - 1))).
    The [0, 1] forms of eq. 4 are convex combinations and take alpha in [0, 1] only:
    :func:`check_unit_alphas`.
    """
    given = value
    if isinstance(value, str):
        text = value.strip()
        if text.replace(" ", "") in ("1/R", "1/N_R"):
            return PER_TOPIC_ALPHA
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"alpha {given!r} is neither a number nor 1/R") from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"alpha {given!r} is neither a number nor 1/R")
    alpha = float(value)
    if not 0.0 <= alpha < np.inf:  # also refuses NaN
        raise ValueError(f"alpha {given!r} is not a finite number >= 0")
    return alpha


def check_unit_alphas(alphas: Sequence[Alpha], measure: str) -> None:
    """Alphas of a [0, 1] form (eq. 4): (1 - alpha) Rel + alpha Rel R' leaves [0, 1] for alpha > 1."""
    for a in alphas:
        value = parse_alpha(a)
        if value != PER_TOPIC_ALPHA and value > 1.0:
            raise ValueError(f"alpha {a!r} is outside [0, 1], the range of {measure} (eq. 4 is a convex "
                             f"combination; only P_rareness and AP_rareness take alpha > 1)")


def alpha_label(alpha: Alpha) -> str:
    """Canonical text of an alpha: ``0``, ``0.25``, ``1``, ``1/R`` (shortest round-trip digits)."""
    alpha = parse_alpha(alpha)
    return alpha if isinstance(alpha, str) else np.format_float_positional(alpha, trim="-")


def measure_label(measure: str | Measure, alpha: Alpha | None = None) -> str:
    """A measure's name with its alpha in ir_measures' notation: ``P_rareness(alpha=0.5)@100``."""
    m = parse_measure(measure)
    if alpha is None:
        return str(m)
    text = f"{m.family}(alpha={alpha_label(alpha)})"
    return text if m.cutoff is None else f"{text}@{m.cutoff}"


def alpha_weights(alphas: Sequence[Alpha], n_relevant: np.ndarray) -> np.ndarray:
    """(A, 1, Q) weights: each alpha broadcast over topics (1/N_R per topic for ``1/R``)."""
    rows = []
    for a in map(parse_alpha, alphas):
        if a == PER_TOPIC_ALPHA:
            rows.append(divide_by_relevant(np.ones(len(n_relevant)), n_relevant))
        else:
            rows.append(np.full(len(n_relevant), a))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), 1, len(n_relevant))


def precision_rarity_term(matrix: RelevanceMatrix, hits: Postings, weight: np.ndarray, k: int) -> np.ndarray:
    """(1/k) sum_{i<=k} rel(d_i) w(d_i): the part of eq. 1 (or eq. 4) that alpha scales;
    ``weight`` per posting of ``hits``."""
    return matrix.grid(hits.ordered_sums(weight)) / k


def average_precision_rarity_term(matrix: RelevanceMatrix, hits: Postings, weight: np.ndarray) -> np.ndarray:
    """The part of eq. 3 that alpha scales.

    AP_rareness = AP + alpha (1/N_R) sum_i rel_i (1/i) sum_{j<=i} rel_j R_j
                = AP + alpha (1/N_R) sum_j rel_j R_j W_j,   W_j = sum_{i=j..k} rel_i / i,
    so the weights W do not depend on rarity (and subsampling trials are dot products).
    """
    total = matrix.grid(hits.ordered_sums(weight * tail_weights(hits)))
    return divide_by_relevant(total, matrix.n_relevant)


def tail_weights(hits: Postings) -> np.ndarray:
    """W_j = sum_{i >= j} rel_i / i at each relevant posting j, summed from the deepest up."""
    return hits.running_sums(1.0 / hits.rank.astype(np.float64), reverse=True)


def _rarity_for(matrix: RelevanceMatrix, k: int, rarity: "Rarity | None", rarity_depth: int | None,
                cache: dict[int, "Rarity"] | None = None) -> "Rarity":
    """The rarity a measure cut at ``k`` is scored with: ``rarity`` when given, else S_d
    over all runs at ``rarity_depth`` (default: k), counted once per depth in ``cache``."""
    from .rarity import document_rarity

    if rarity is not None:
        return rarity
    depth = k if rarity_depth is None else rarity_depth
    if depth < k:
        raise ValueError(
            f"rarity depth {depth} is shallower than the scoring cutoff {k}: documents ranked "
            f"below it would count as found by no run"
        )
    cache = {} if cache is None else cache
    if depth not in cache:  # no run holds a document below the depth it was cut to
        cache[depth] = document_rarity(matrix, depth=min(depth, matrix.run_depth or matrix.depth))
    return cache[depth]


def _rareness(matrix: RelevanceMatrix, cutoff: int | None, *, kind: str, normalised: bool,
              alphas: Sequence[Alpha] = (0.0,), rarity: "Rarity | None" = None,
              rarity_depth: int | None = None, **_: object) -> np.ndarray:
    if normalised:
        check_unit_alphas(alphas, f"{kind}_rareness_norm")
    hits, k = _cut(matrix, cutoff)
    found = _rarity_for(matrix, k, rarity, rarity_depth)
    weight = found.per_posting(hits, found.rarity_prime if normalised else found.rarity)
    if kind == "P":
        base = precision(matrix, cutoff)
        term = precision_rarity_term(matrix, hits, weight, k)
    else:
        base = average_precision(matrix, cutoff)
        term = average_precision_rarity_term(matrix, hits, weight)
    a = alpha_weights(alphas, matrix.n_relevant)
    if normalised:  # eq. 4: (1 - alpha) Rel + alpha Rel R'
        return (1.0 - a) * base[None] + a * term[None]
    return base[None] + a * term[None]  # eq. 1 and 3: Rel (1 + alpha R)


def precision_rareness(matrix: RelevanceMatrix, cutoff: int | None, **options) -> np.ndarray:
    """P@k_rareness = (1/k) sum_{i<=k} Rel(d_i) (1 + alpha R(d_i)) (eq. 1); (A, S, Q)."""
    return _rareness(matrix, cutoff, kind="P", normalised=False, **options)


def average_precision_rareness(matrix: RelevanceMatrix, cutoff: int | None, **options) -> np.ndarray:
    """AP_rareness = (1/N_R) sum_{i<=k} Rel(d_i) P@i_rareness (eq. 3); (A, S, Q)."""
    return _rareness(matrix, cutoff, kind="AP", normalised=False, **options)


def precision_rareness_norm(matrix: RelevanceMatrix, cutoff: int | None, **options) -> np.ndarray:
    """P'@k_rareness = (1/k) sum [(1 - alpha) Rel(d_i) + alpha Rel(d_i) R'(d_i)] (eq. 4), in [0, 1]."""
    return _rareness(matrix, cutoff, kind="P", normalised=True, **options)


def average_precision_rareness_norm(matrix: RelevanceMatrix, cutoff: int | None, **options) -> np.ndarray:
    """AP'_rareness = (1/N_R) sum Rel(d_i) P'@i_rareness (eq. 4 inside eq. 3), in [0, 1]."""
    return _rareness(matrix, cutoff, kind="AP", normalised=True, **options)


register(MeasureDefinition("P_rareness", precision_rareness,
                           "rareness-weighted precision at k (Turkmen et al. 2023, eq. 1)", uses_alpha=True))
register(MeasureDefinition("AP_rareness", average_precision_rareness,
                           "rareness-weighted average precision (eq. 3)", uses_alpha=True))
register(MeasureDefinition("P_rareness_norm", precision_rareness_norm,
                           "[0, 1] rareness-weighted precision with R' (eq. 4)", uses_alpha=True))
register(MeasureDefinition("AP_rareness_norm", average_precision_rareness_norm,
                           "[0, 1] rareness-weighted average precision with R' (eq. 4)", uses_alpha=True))


# ------------------------------------------------------------------------ averaging


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
                  alphas: Sequence[Alpha] = (0.0,), rarity: "Rarity | None" = None,
                  rarity_depth: int | None = None) -> np.ndarray | None:
    """Means of the precision family from integer totals, one division per run (and alpha).

    P@k's mean is C / (k Q), C the relevant documents a run holds in its top k over the
    topics; P_rareness's is ((1 + alpha) S C - alpha D) / (k S Q) and P_rareness_norm's
    ((1 - alpha)(S - 1) C + alpha (S C - D)) / (k (S - 1) Q), D the sum of S_d over those
    documents. Runs with equal totals get bit-identical means, and at alpha = 0 all three
    equal P@k's mean to the last bit: summing per-topic quotients cannot promise either
    (PROTOCOL.md, numerical care). (A, runs) for alpha measures, (runs,) otherwise; None
    for other measures. A per-topic alpha (1/R) has no integer form: its row is NaN,
    and its mean is a sorted sum.
    """
    if measure.family not in _COUNTED:
        return None
    top, k = _cut(matrix, measure.cutoff)
    mask = _topic_mask(matrix, averaging)
    n_topics = mask.sum(axis=1)
    hits = np.where(mask, matrix.cell_counts(top), 0).sum(axis=1)  # C
    if not measure.uses_alpha:
        return _safe_divide(hits.astype(np.float64), (k * n_topics).astype(np.float64))
    found = _rarity_for(matrix, k, rarity, rarity_depth)
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


# --------------------------------------------------------------------------- tables


def evaluate(matrix: RelevanceMatrix, measures: Iterable[str | Measure], *,
             alphas: Sequence[Alpha] = (0.0,), rarity_depth: int | None = None,
             rarity: "Rarity | None" = None, **options) -> dict[Measure, np.ndarray]:
    """Per-topic scores of each measure: (runs, topics), or (alphas, runs, topics) for
    measures weighted by alpha. Rarity is counted once per depth and shared. Other
    ``options`` (e.g. ``gains``) go to the measures that declare them."""
    out: dict[Measure, np.ndarray] = {}
    counted: dict[int, "Rarity"] = {}
    for item in measures:
        m = parse_measure(item)
        if not m.uses_alpha:
            given = {key: options[key] for key in m.definition.options if key in options}
            out[m] = m.definition.compute(matrix, m.cutoff, **given)
            continue
        found = _rarity_for(matrix, _cutoff(matrix, m), rarity, rarity_depth, counted)
        out[m] = m.definition.compute(matrix, m.cutoff, alphas=alphas, rarity=found)
    return out


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
    rarities: dict[int, "Rarity"] = {}  # S_d counted once per depth, for scores and means
    names, labels, blocks = [], [], []
    means: dict[str, list[np.ndarray]] = {AVERAGING_NAMES[mode]: [] for mode in averaging}
    for item in measures:
        measure = parse_measure(item)
        found = (_rarity_for(matrix, _cutoff(matrix, measure), options.get("rarity"), options.get("rarity_depth"),
                             rarities) if measure.uses_alpha else None)
        values = evaluate(matrix, [measure], **dict(options, rarity=found))[measure]
        stacked = values if measure.uses_alpha else values[None]
        counted = {mode: counted_means(matrix, measure, mode, alphas=alphas, rarity=found) for mode in averaging}
        for a_index, alpha in enumerate([alpha_label(a) for a in alphas] if measure.uses_alpha else [None]):
            names.append(str(measure))
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


from . import binary  # noqa: E402,F401  (registers trec_eval's other binary measures)
from . import graded  # noqa: E402,F401  (registers the graded measures)
from . import asl  # noqa: E402,F401  (registers ASL)
