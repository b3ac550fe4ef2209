"""Shallower pools and sampled judgments: judgment sets generated from a campaign's own
qrels, compared with the full qrels by the judgment-agreement experiment
(:mod:`.judgment_agreement`), as the ``alternative_qrels`` a collection lists are.

Two kinds of generated set, each a subset of the qrels rows (the dropped rows become
unjudged documents, :meth:`~irmeta.campaign.postings.RelevanceMatrix.with_judgments`):

- ``pool_depth_<d>``: the judgments of documents some run ranks in its top d, after the
  collection's own reading (trec_eval order, depth cut): the pool TREC would have judged
  at depth d (Zobel, "How reliable are the results of large-scale information retrieval
  experiments?", SIGIR 1998; Voorhees and Harman 2005);
- ``fraction_<f>_trial_<t>``: per topic, ceil(f n_rel) of its n_rel judged relevant
  documents and ceil(f n_non) of its n_non judged non-relevant ones (grade below the
  relevance threshold), drawn at random, so a topic with a relevant document keeps at
  least one (Buckley and Voorhees, "Retrieval evaluation with incomplete information",
  SIGIR 2004, who sample so too). Within a trial the samples are nested: each row gets
  one uniform key from the trial's stream and each (topic, relevance) stratum keeps its
  rows of smallest key, so the sample at 0.1 lies inside that at 0.2 (B&V's nesting):
  the curve over fractions moves by adding judgments, not by redrawing them;
- ``error_<q>_trial_<t>``: generated assessors (Carterette and Soboroff, "The effect of
  assessor error on IR system evaluation", SIGIR 2010): every qrels row keeps its
  document, and its relevance is flipped with probability q, a relevant row (grade at
  or above the threshold) to grade 0, a non-relevant one (negative grades too) to the
  threshold's grade. Within a trial the errors are nested (a row flipped at 0.1 is
  flipped at 0.2): each row draws one uniform u from the trial's error stream and is
  flipped when u < q.

Every run is scored under a generated set as under any judgment set: trec_eval's rules
(unjudged = non-relevant, N_R and ideal gains from the set), rarity S_d counted over all
runs at the rarity depth with relevance from the set (what
:func:`~irmeta.measures.averaging.score_arrays` does on the reduced campaign). A topic the
set leaves without a single judgment leaves the comparison, as trec_eval drops a topic
absent from its qrels (``topics_excluded`` counts it; a shallow pool on a small campaign
can do this, a sample cannot).

Draws: trial t's keys come from ``default_rng([seed, t])`` (its errors' uniforms from
``default_rng([seed, t, ERROR_STREAM])``) with ``seed`` =
``experiments.seed + SEED_OFFSET`` (:func:`irmeta.pipeline.experiment_settings.experiment_seed`), one
stream per trial shared by every fraction, so a set's judgments depend on its name alone,
never on how the sets are split into shards.

``judgment_reduction.csv`` (:func:`judgment_reduction_table`) summarises the generated
sets' rows of ``judgment_agreement.csv`` per kind, value, measure and alpha; for a
fraction over its trials (means, and the lowest tau), for a pool depth its one set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from irmeta.campaign.pools import pooled_judgments
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.averaging import Scores, exact_mean, score_arrays
from irmeta.measures.names import depth_read
from irmeta.metaeval.generated_set_names import (
    ERROR,
    ERROR_STREAM,
    FRACTION,
    POOL_DEPTH,
    REFERENCE_NAME,
    check_error_rate,
    check_fraction,
    fraction_label,
    parse_set_name,
)
from irmeta.metaeval.judgment_agreement import (
    JUDGMENT_AGREEMENT_COLUMNS,
    agreement_columns,
    judgment_agreement_table,
)
from irmeta.metaeval.judgment_agreement import OPTIONAL_COLUMNS as AGREEMENT_OPTIONAL
from irmeta.metaeval.score_matrices import sort_by_alpha
from irmeta.metaeval.stats.blocks import trial_rng

#: Added to ``experiments.seed``: trial t of the sampled judgments draws its keys from
#: ``default_rng([seed + SEED_OFFSET, t])``, a stream no other experiment of the same
#: seed draws from. Part of the published numbers: changing it changes every sampled set.
SEED_OFFSET = 6

#: ``judgment_reduction.csv``: one row per kind, value, measure and alpha.
JUDGMENT_REDUCTION_COLUMNS = (
    "reference", "kind", "value", "measure", "alpha", "sets", "kendall_tau", "kendall_tau_min", "tau_ap",
    "swapped_significant", "significant_reference",
)

# ------------------------------------------------------------------------ the masks

def pool_depth_mask(matrix: RelevanceMatrix, depth: int) -> np.ndarray:
    """(J,) bool: the qrels rows of documents some run ranks in its top ``depth``
    (:func:`~irmeta.campaign.pools.pooled_judgments`)."""
    return pooled_judgments(matrix, depth)


# A row's key: 32 random bits below its stratum's (2 Q strata fit the other 31 bits).
_KEY_BITS = 32


def _kept_counts(sizes: np.ndarray, fraction: float) -> np.ndarray:
    """ceil(f n) per stratum of n rows, in exact arithmetic: f is the decimal the set's
    name writes, so 0.55 x 100 keeps 55 (the float product, 55.00000000000001, would keep 56)."""
    exact = Fraction(fraction_label(fraction))
    return -((-sizes * exact.numerator) // exact.denominator)


def fraction_mask(matrix: RelevanceMatrix, fraction: float, trial: int, seed: int) -> np.ndarray:
    """(J,) bool: trial ``trial``'s sample of ``fraction`` of each topic's judged relevant
    and of its judged non-relevant qrels rows (each count rounded up), from
    ``default_rng([seed, trial])``: the rows of smallest key in each (topic, relevance)
    stratum, so a trial's samples are nested across fractions."""
    fraction = check_fraction(fraction)
    n_rows = len(matrix.qrels_grade)
    keys = trial_rng(seed, trial).integers(0, 2**_KEY_BITS, n_rows, dtype=np.int64)
    stratum = matrix.qrels_topic.astype(np.int64) * 2 + (matrix.qrels_grade >= matrix.threshold)
    # By stratum, then key (ties by row): one integer sort, five times faster than lexsort.
    order = np.argsort((stratum << _KEY_BITS) | keys, kind="stable")
    sizes = np.bincount(stratum, minlength=2 * matrix.n_topics)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.arange(n_rows) - start[stratum[order]]  # 0-based place of each row in its stratum
    keep = np.zeros(n_rows, dtype=bool)
    keep[order] = position < _kept_counts(sizes, fraction)[stratum[order]]
    return keep


def error_grades(matrix: RelevanceMatrix, rate: float, trial: int, seed: int) -> np.ndarray:
    """(J,) int64: the qrels grades as trial ``trial``'s assessor of error rate ``rate``
    gives them: each row flipped when its uniform from ``default_rng([seed, trial,
    ERROR_STREAM])`` is below ``rate``, relevant to 0, non-relevant to the threshold."""
    rate = check_error_rate(rate)
    uniform = np.random.default_rng([int(seed), int(trial), ERROR_STREAM]).random(len(matrix.qrels_grade))
    relevant = matrix.qrels_grade >= matrix.threshold
    flipped = np.where(relevant, 0, matrix.threshold).astype(np.int64)
    return np.where(uniform < rate, flipped, matrix.qrels_grade).astype(np.int64)


def generated_matrix(matrix: RelevanceMatrix, name: str, seed: int) -> RelevanceMatrix:
    """The campaign judged by the generated set ``name``: a subset of its qrels rows, or
    (an assessor's errors) its rows with other grades."""
    generated = parse_set_name(name)
    if generated.kind == ERROR:
        return matrix.with_grades(error_grades(matrix, float(generated.value), int(generated.trial or 0), seed))
    return matrix.with_judgments(judgment_mask(matrix, name, seed))


def judgment_mask(matrix: RelevanceMatrix, name: str, seed: int) -> np.ndarray:
    """(J,) bool: the qrels rows the generated set ``name`` keeps (``seed``: for fractions;
    an assessor's errors keep every row)."""
    generated = parse_set_name(name)
    if generated.kind == ERROR:
        return np.ones(len(matrix.qrels_grade), dtype=bool)
    if generated.kind == POOL_DEPTH:
        return pool_depth_mask(matrix, int(generated.value))
    return fraction_mask(matrix, float(generated.value), int(generated.trial or 0), seed)


# ------------------------------------------------------------- scores and rows

def depth_needed(names: Iterable[str], measures: Sequence[str], rarity_depth: int | None = None) -> int | None:
    """How deep the campaign must be read to score ``measures`` under the generated sets
    ``names``: the measures' depth (:func:`~irmeta.measures.names.depth_read`) and the
    deepest pool; None (everything) when a measure reads the whole run. A job loads the
    campaign to that depth (:func:`irmeta.campaign.store.load_matrix`) and every set's
    scores are the same, from less: TREC-8 is stored to depth 1000, its measures read 100."""
    depth = depth_read(measures, rarity_depth)
    if depth is None:
        return None
    pools = [int(g.value) for g in map(parse_set_name, names) if g.kind == POOL_DEPTH]
    return max([depth, *pools])


def _judged_topics_only(scores: Scores, matrix: RelevanceMatrix) -> Scores:
    """``scores`` without the topics ``matrix`` holds no judgment of (trec_eval would not
    know them); their means over the rest are exact sorted sums (every-topic averaging),
    as :func:`~irmeta.metaeval.judgment_agreement.judgment_agreement_table` recomputes them."""
    judged = np.bincount(matrix.qrels_topic, minlength=matrix.n_topics) > 0
    if judged.all():
        return scores
    per_topic = scores.per_topic[:, :, judged]
    return Scores(runs=scores.runs, topics=[t for t, j in zip(scores.topics, judged) if j],
                  measures=scores.measures, alphas=scores.alphas, per_topic=per_topic,
                  means={"all_topics": exact_mean(per_topic)}, parsed=scores.parsed)


def reduced_scores(matrix: RelevanceMatrix, keep: np.ndarray, measures: Sequence[str], **options) -> Scores:
    """Every run scored with ``measures`` under the qrels rows ``keep``, with the
    pipeline's ``options`` (alphas, rarity_depth, measure options), means over every topic
    the set judged."""
    return judged_scores(matrix.with_judgments(keep), measures, **options)


def judged_scores(reduced: RelevanceMatrix, measures: Sequence[str], **options) -> Scores:
    """Every run scored with ``measures`` on a campaign judged by a generated set (:func:`reduced_scores`)."""
    options = {k: v for k, v in options.items() if v is not None}
    return _judged_topics_only(score_arrays(reduced, list(measures), averaging=("all",), **options), reduced)


def generated_agreement_rows(matrix: RelevanceMatrix, reference: Scores, names: Sequence[str], *,
                             measures: Sequence[str], seed: int, level: float = 0.05,
                             reference_name: str = REFERENCE_NAME, options: Mapping | None = None,
                             each: Callable[[str, Scores], None] | None = None,
                             ties: Sequence[str] = ()) -> pd.DataFrame:
    """The rows of ``judgment_agreement.csv`` of the generated sets ``names``: each set's
    scores (:func:`reduced_scores`) against ``reference`` (the runs' scores under the full
    qrels), by :func:`~irmeta.metaeval.judgment_agreement.judgment_agreement_table`, one
    set at a time (never two sets' scores in memory). ``seed``: experiments.seed +
    :data:`SEED_OFFSET`. ``each(name, scores)``, if given, also sees each set's scores;
    ``ties``: the tie-aware variants' columns, as the table takes them."""
    frames = []
    reference_tests: dict = {}
    if sum(parse_set_name(n).kind in (POOL_DEPTH, ERROR) for n in names) > 1:
        # each reads the judged non-relevant postings: decoded once and kept, not once a set
        # (13 s each at MS MARCO's size; the assessors' sets keep them anyway)
        matrix.misses  # noqa: B018
    for name in names:
        scores = judged_scores(generated_matrix(matrix, name, seed), measures, **dict(options or {}))
        if each is not None:
            each(name, scores)
        frames.append(judgment_agreement_table(reference, {name: scores}, reference_name=reference_name,
                                               level=level, reference_tests=reference_tests, ties=ties))
    if not frames:
        return pd.DataFrame(columns=agreement_columns(ties))
    return pd.concat(frames, ignore_index=True)


def gathered_agreement(alternatives: pd.DataFrame, generated: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``judgment_agreement.csv``: the alternative sets' rows, then the generated sets'
    (the shards' rows, in shard order), columns :data:`JUDGMENT_AGREEMENT_COLUMNS`, the
    tie-aware variants' those the rows have (all made with the same ``ties``)."""
    given = [frame for frame in [alternatives, *generated] if len(frame)]
    columns = [c for c in JUDGMENT_AGREEMENT_COLUMNS if c not in AGREEMENT_OPTIONAL
               or any(c in frame.columns for frame in [alternatives, *generated])]
    frames = [frame[columns] for frame in given]
    if not frames:
        return pd.DataFrame(columns=columns)
    table = pd.concat(frames, ignore_index=True)
    table["alpha"] = table["alpha"].fillna("").astype(str)
    return table


# ------------------------------------------------------------------- summaries

def _generated_rows(agreement: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The rows of the generated sets ``names``, with their kind and value."""
    rows = agreement[agreement["judgments"].astype(str).isin(set(names))]
    parsed = {name: parse_set_name(name) for name in names}
    # value as object: depths stay integers (10), fractions floats (0.1), in one column
    values = pd.Series([parsed[n].value for n in rows["judgments"]], index=rows.index, dtype=object)
    return rows.assign(kind=rows["judgments"].map(lambda n: parsed[n].kind), value=values)


def judgment_reduction_table(agreement: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """``judgment_reduction.csv`` from the rows of ``judgment_agreement.csv`` of the
    generated sets ``names``: one row per kind, value (in ``names``' order), measure and
    alpha, with columns :data:`JUDGMENT_REDUCTION_COLUMNS`:

    - ``kind``: ``pool_depth`` or ``fraction``; ``value``: the depth d or the fraction f;
      ``sets``: the sets summarised (1 for a depth, the trials for a fraction);
    - ``kendall_tau``, ``tau_ap``: the mean over the sets (a depth's own value);
    - ``kendall_tau_min``: the lowest tau over the sets, the worst trial;
    - ``swapped_significant``: the mean over the sets of the reference's significant pairs
      the set's ranking puts in the opposite order (a float for fractions);
    - ``significant_reference``: the pairs the reference finds significant (the same for
      every set).
    """
    rows = _generated_rows(agreement, names)
    if rows.empty:
        return pd.DataFrame(columns=list(JUDGMENT_REDUCTION_COLUMNS))
    order = list(dict.fromkeys((parse_set_name(n).kind, parse_set_name(n).value) for n in names))
    grouped = rows.groupby(["reference", "kind", "value", "measure", "alpha"], sort=False, dropna=False)
    table = grouped.agg(
        sets=("judgments", "nunique"), kendall_tau=("kendall_tau", "mean"), kendall_tau_min=("kendall_tau", "min"),
        tau_ap=("tau_ap", "mean"), swapped_significant=("swapped_significant", "mean"),
        significant_reference=("significant_reference", "max"),
    ).reset_index()
    table["_set"] = [order.index((k, v)) for k, v in zip(table["kind"], table["value"])]
    table = sort_by_alpha(table, ["_set", "measure", "alpha"]).drop(columns="_set")
    # one column of depths (10) and fractions (0.1): object, or grouping makes them all floats
    table["value"] = pd.Series([int(v) if k == POOL_DEPTH else float(v) for k, v in zip(table["kind"], table["value"])],
                               dtype=object)
    return table[list(JUDGMENT_REDUCTION_COLUMNS)]


def trial_means(agreement: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """``agreement`` with each fraction's trials replaced by one row per measure and alpha,
    the trials' mean (judgments ``fraction_<f>``), for a figure with one mark per set
    (``top1_same``: the share of trials; ``largest_rank_change_run``: blank)."""
    rows = _generated_rows(agreement, names)
    fractions = rows[rows["kind"].isin([FRACTION, ERROR])]  # the kinds drawn in trials
    if fractions.empty:
        return agreement.reset_index(drop=True)
    means = fractions.assign(judgments=fractions["kind"] + "_" + fractions["value"].map(fraction_label))
    numeric = ["kendall_tau", "tau_ap", "swapped_significant", "significant_reference", "significant_alternative",
               "reversed_significant", "swapped_share", "top1_same", "top5_overlap", "top10_overlap",
               "largest_rank_change"]
    numeric = [c for c in numeric if c in agreement.columns]
    # a trial's own run names no mean of trials: blank, and not a grouping key
    means = means.assign(**{c: "" for c in ("largest_rank_change_run",) if c in means.columns})
    means = means.assign(**{c: means[c].astype(float) for c in ("top1_same",) if c in means.columns})
    keys = [c for c in agreement.columns if c not in numeric]
    means = means.groupby(keys, sort=False, dropna=False)[numeric].mean().reset_index()[list(agreement.columns)]
    kept = agreement[~agreement["judgments"].isin(set(fractions["judgments"]))]
    return pd.concat([kept, means], ignore_index=True)
