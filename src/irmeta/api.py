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
ir_measures' tuples, and runs a mapping of names to any of these, paths
(``{"INQ601": "runs/INQ601.gz"}``, ``str`` or :class:`pathlib.Path`) included
(:mod:`irmeta.campaign.in_memory`); whatever the form, they go
through trec_eval's order and the file readers' checks, and give the numbers
``irmeta score`` gives for the same files and flags.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import irmeta.settings as check
from irmeta.campaign.errors import TrecFormatWarning
from irmeta.campaign.in_memory import reader, run_sources, to_qrels
from irmeta.campaign.judge import judge_each
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.qrels import Qrels
from irmeta.campaign.runs import DuplicatePolicy, RunNameSource, ScorePrecision
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import AVERAGING_NAMES, Averaging, Scores, score_arrays
from irmeta.measures.diversity import refuse_without_subtopics
from irmeta.measures.group_averaged import refuse_mismatch
from irmeta.measures.names import Measure, as_measure, depth_read, parse_measure
from irmeta.measures.plugins import refuse_imported
from irmeta.measures.rareness import warn_rarity_over_one_run
from irmeta.measures.score_files import COLUMNS, Missing, score_grid, table_labels
from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.settings import DEFAULT_ALPHAS, ScoreSettings, experiment_parameters, score_settings
from irmeta.support.progress import progress_steps

DEFAULT_MEASURES = ("P@10", "AP")


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
          run_name: RunNameSource = "file", score_precision: ScorePrecision = "double", qrels_format: str = "trec",
          **options: Any) -> Scored:
    """Every run scored with every measure, as ``irmeta score`` scores it (trec_eval's
    flags: ``depth`` is -M, ``threshold`` -l, ``average="all"`` -c; ``average="geometric"``
    is the geometric mean over every qrels topic, -c -m gm_map's rule; ``score_precision``
    ``"double"`` orders documents on their scores as trec_eval >= 9.0.8 reads them,
    ``"float32"`` on each rounded to single precision first, as earlier trec_eval and
    pytrec_eval do: docs/PROTOCOL.md, Numerical care; ``qrels_format="subtopics"`` reads
    ndeval's subtopic qrels, ``topic subtopic docid grade``, which the diversity measures
    need and the others read collapsed to each document's largest grade;
    ``qrels_format="qrels_jg"`` reads trec_eval's judgment-group qrels, ``qid jg docid
    grade``, which the ``*_avgjg`` measures read and no other measure does). Runs are read no
    deeper than the measures look, which changes no score. ``options`` (``gains``,
    ``beta``, ``asl_unretrieved``) go to the measures that declare them unless a name
    sets its own (``nDCG(gains={1:1,2:3})@10``). Every setting is checked before a file
    is read (:mod:`irmeta.settings`): an unknown name, or a value out of the
    range ``irmeta score`` takes, is refused with one line. A run that shares no topic
    with the qrels is warned about (a :class:`TrecFormatWarning`: it scores 0 on every
    topic); when no run shares one, nothing is scored."""
    given = dict(depth=depth, threshold=threshold, average=average, alphas=alphas, rarity_depth=rarity_depth,
                 duplicates=duplicates, run_name=run_name, score_precision=score_precision, qrels_format=qrels_format,
                 **options)
    return score_checked(qrels, runs, score_settings("score", measures, given))


def score_checked(qrels: Any, runs: Any, s: ScoreSettings) -> Scored:
    """:func:`score` on settings already checked (:func:`~irmeta.settings.score_settings`)."""
    refuse_imported(s.measures)  # before the runs are read
    needed = depth_read(s.measures, s.rarity_depth)
    read_depth = s.depth if needed is None else min(s.depth or needed, needed)
    judgments = to_qrels(qrels, qrels_format=s.qrels_format)  # before the runs, as the file readers check them
    refuse_without_subtopics(s.measures, judgments.subtopics is not None, judgments.source or "the qrels")
    refuse_mismatch(s.measures, judgments.judgment_groups is not None, judgments.source or "the qrels")
    sources = run_sources(runs)
    with progress_steps("runs read", len(sources), "run") as step:
        matrix, reading = judge_each(sources, reader(s.run_name, read_depth, s.duplicates, s.score_precision),
                                     judgments, depth=read_depth, threshold=s.threshold, duplicates=s.duplicates,
                                     score_precision=s.score_precision, progress=lambda done, total, path: step(1))
    _refuse_disjoint(matrix, reading, judgments)
    warn_rarity_over_one_run(matrix.n_runs, s.measures, stacklevel=3)
    scores = score_arrays(matrix, s.measures, averaging=(s.average,), alphas=s.alphas,
                          rarity_depth=s.rarity_depth, **s.options)
    return Scored(scores, matrix, reading)


def _refuse_disjoint(matrix: RelevanceMatrix, reading: dict, qrels: Qrels) -> None:
    """Warn about each run sharing no topic with the qrels (it would score 0 everywhere,
    as ``irmeta score`` reports); refuse when none shares one, as the pipeline's ingest does."""
    shares = matrix.length.sum(axis=1) > 0
    if len(shares) and not shares.any():
        raise ValueError(f"none of the {len(shares)} run(s) shares a topic with the qrels ({qrels.source}: "
                         f"topics {_few(qrels.topics)}): nothing to score")
    for run, where, ok in zip(matrix.runs, reading["files"], shares):
        if not ok:
            warnings.warn(TrecFormatWarning(f"{where}: run {run} shares no topic with the qrels (its topics: "
                                            f"{_few(matrix.ignored_topics.get(run, []))}); it scores 0 on every "
                                            f"topic"), stacklevel=4)


def _few(topics: Sequence[str]) -> str:
    return " ".join(topics[:5]) + (" ..." if len(topics) > 5 else "")


def evaluate(qrels: Any, runs: Any, measures: Sequence[str] = DEFAULT_MEASURES, *, per_topic: bool = True,
             **settings: Any):
    """A long table (run, measure, qid, value): per measure, one row per run and qrels
    topic when ``per_topic``, then each run's mean (qid ``all``); rareness measures carry
    their alpha in the name (``P_rareness(alpha=0.5)@100``). ``settings``: those of
    :func:`score`, checked as it checks them (``evaluate() got an unknown setting
    'treshold' (did you mean 'threshold'?)``). The same rows, in the same order, as
    ``irmeta score --per-topic``."""
    per_topic = check.flag("per_topic", per_topic)
    return scores_frame(score_checked(qrels, runs, score_settings("evaluate", measures, settings)).scores,
                        per_topic=per_topic)


def scores_frame(scores: Scores, *, per_topic: bool = True):
    """:class:`Scores` as the long table of :func:`evaluate` (one averaging mode)."""
    import pandas as pd

    n_runs, n_topics = len(scores.runs), len(scores.topics)
    means = scores.means.get(AVERAGING_NAMES["all"], next(iter(scores.means.values()), None))
    frames = []
    for i, measure in enumerate(scores.labelled()):
        label = str(measure)
        if per_topic:
            frames.append(pd.DataFrame({"run": np.repeat(scores.runs, n_topics), "measure": label,
                                        "qid": np.tile(scores.topics, n_runs),
                                        "value": scores.per_topic[i].reshape(-1)}))
        frames.append(pd.DataFrame({"run": scores.runs, "measure": label, "qid": "all", "value": means[i]}))
    columns = ["run", "measure", "qid", "value"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


# --------------------------------------------------------------- meta-evaluation
#
# On a per-topic score table (evaluate's, or `irmeta score --per-topic`'s read back), the
# pipeline's experiments with its options. Each runs the same shard and table functions the
# pipeline's rules run, over all trials in one go, from the same seed (plus the same
# SEED_OFFSET): for the same scores and settings it gives the pipeline's table, since
# shards and blocks change no result.

DEFAULT_SEED = 20230402  # config's experiments.seed
TABLE_COLUMNS = COLUMNS
DEFAULT_FUZZINESS = ({"mode": "absolute", "value": 0.05}, {"mode": "relative", "value": 0.05})


def score_matrices(table, measures: Sequence[str | Measure] | None = None, *,
                   missing: Missing = "error") -> list[ScoreMatrix]:
    """One (runs, topics) matrix per measure and alpha from the per-topic rows of a score
    table (columns run, measure, qid, value; rows with qid ``all`` are means). Measures
    are named as :func:`evaluate` names them (``P_rareness(alpha=0.5)@100``); ``measures``
    picks some, by that name or without the alpha. Runs and topics in the table's order.
    Every run needs every topic's score, unless ``missing="zero"`` (a missing topic scores
    0, as trec_eval -c scores it; refused for measures where lower is better)."""
    source = "the scores table"
    read = {label: parse_measure(label) for label in table_labels(table, source)}  # the table's names, read back
    labels = list(read)
    if measures is not None:
        wanted = {as_measure(m) for m in measures}
        labels = [x for x in labels if read[x] in wanted or read[x].without_alpha() in wanted]
    if not labels:
        raise ValueError(f"the scores table has no per-topic scores of "
                         f"{', '.join(map(str, measures or ['any measure']))}")
    grid = score_grid(table, labels, missing=missing, source=source, topic_order="table")
    out = []
    for label, values in zip(grid.labels, grid.values):
        m = read[label]
        out.append(ScoreMatrix(str(m.without_alpha()), None if m.alpha is None else alpha_label(m.alpha), grid.runs,
                               grid.topics, values, m.higher_is_better, m.without_alpha()))
    return out


def matrices_of(table, measures: Sequence[str] | None = None, alphas: Sequence[Alpha] | None = None
                ) -> list[ScoreMatrix]:
    """The score matrices of ``measures`` (all: None), of ``alphas`` for measures with one
    (all: None), from a per-topic score table (:func:`score_matrices`) or from
    :class:`Scores` (:func:`score`'s, or ``scores.npz`` loaded). Every measure and alpha
    asked for must be there."""
    from irmeta.metaeval.score_matrices import score_matrices as blocks_of

    _check_table(table)
    read = experiment_parameters(measures=measures, alphas=alphas)["measures"]  # the names read, once
    if isinstance(table, Scores):
        names = None if read is None else [str(m.without_alpha()) for m in read]
        found = blocks_of(table, names, alphas)
    else:
        found = score_matrices(table, read)
        if alphas is not None:
            labels = {alpha_label(a) for a in alphas}
            found = [m for m in found if m.alpha is None or m.alpha in labels]
    have = {m.measure for m in found}
    absent = [str(typed) for typed, m in zip(measures or [], read or []) if str(m.without_alpha()) not in have]
    if absent or not found:
        source = "the scores have" if isinstance(table, Scores) else "the scores table has"
        at = "" if alphas is None else f" at alpha {', '.join(map(str, alphas))}"
        raise ValueError(f"{source} no per-topic scores of {', '.join(absent or measures or ['any measure'])}{at}")
    return found


def _check_table(table) -> None:
    """A score table (DataFrame) or :class:`Scores`; anything else is refused in one line."""
    if not isinstance(table, Scores) and not hasattr(table, "columns"):
        raise TypeError(f"table must be a score table (a DataFrame: run, measure, qid, value) or Scores, "
                        f"not {type(table).__name__}")


def _check_comparisons(table, comparisons, tau_ap) -> list[tuple[Measure, Measure]]:
    """kendall_tau_table's comparisons: (measure, baseline) pairs or mappings, each measure
    in the table (without alpha: each of its alphas gets a row), each baseline one ranking;
    the pairs as read."""
    _check_table(table)
    if not isinstance(tau_ap, str):
        check.items("tau_ap", tau_ap)
    if isinstance(table, Scores):
        have = {str(m) for m in table.parsed}
    else:
        have = {str(parse_measure(label).without_alpha()) for label in table_labels(table, "the scores table")}
    read = []
    for i, c in enumerate(check.items("comparisons", comparisons)):
        if isinstance(c, Mapping) and set(c) == {"measure", "baseline"}:
            pair = (c["measure"], c["baseline"])
        elif isinstance(c, (tuple, list)) and len(c) == 2:
            pair = tuple(c)
        else:
            raise TypeError(f"comparisons[{i}] must be a (measure, baseline) pair or {{'measure': ..., "
                            f"'baseline': ...}}, not {check.shown(c)}")
        measure, baseline = check.measure_names(f"comparisons[{i}]", pair)
        for role, m in (("measure", measure), ("baseline", baseline)):
            if m.alpha is not None:
                raise ValueError(f"comparisons[{i}]: write the {role} {m} without its alpha (each alpha gets a row)")
            if str(m) not in have:
                raise ValueError(f"comparisons[{i}]: the scores have no per-topic scores of the {role} {m} "
                                 f"(they have {', '.join(sorted(have)) or 'none'})")
        if baseline.uses_alpha:
            raise ValueError(f"comparisons[{i}]: the baseline {baseline} takes an alpha; a baseline is one "
                             f"ranking (a measure without alpha)")
        read.append((measure, baseline))
    return read


def kendall_tau_table(table, comparisons: Sequence[tuple[str, str] | Mapping[str, str]], *,
                      tau_ap: Sequence[str] = ("reference",), bootstrap_samples: int = 1000, rbo_p: float = 0.9,
                      seed: int = DEFAULT_SEED, ties: Sequence[str] = ()):
    """Kendall's tau-b and tau_AP between each measure's system ranking (each of its
    alphas) and its baseline's, as (measure, baseline) pairs or ``{"measure", "baseline"}``
    (the paper's Figure 2). ``tau_ap``: the forms of tau_AP, each a column: ``reference``
    (``tau_ap``, the baseline as the reference ranking) and/or ``symmetric``
    (``tau_ap_symmetric``, neither is). From :class:`Scores`, means are theirs; from a
    table, those of its per-topic rows by the one definition irmeta scores runs with
    (:func:`~irmeta.measures.averaging.run_means`), over every topic or, where a run's
    ``all`` row says so, over the topics it returned; ``all`` rows that contradict the
    per-topic rows are an error. ``tau_ci_low``, ``tau_ci_high``: tau-b's 95 % bootstrap
    interval over ``bootstrap_samples`` topic resamplings (0: none) drawn from ``seed``
    plus the experiment's SEED_OFFSET; ``rbo``: rank-biased overlap, persistence ``rbo_p``,
    ties broken by run name. ``ties``: tie-aware variants added as columns, runs whose
    means are equal tied (``a``: ``tau_a``, ``tau_ap_a``, ``rbo_a``, the baseline as the true
    ranking; ``b``: ``tau_ap_b``, ``rbo_b``; ``w``: ``rbo_w``; docs/statistics.md)."""
    pairs = _check_comparisons(table, comparisons, tau_ap)
    if not isinstance(ties, str):
        check.items("ties", ties, empty=True)
    from irmeta.metaeval import kendall_tau

    named = [{"measure": str(m), "baseline": str(b)} for m, b in pairs]
    forms = [tau_ap] if isinstance(tau_ap, str) else list(tau_ap)
    uncertainty = dict(bootstrap_samples=bootstrap_samples, rbo_p=rbo_p, seed=seed,
                       ties=[ties] if isinstance(ties, str) else list(ties))
    if isinstance(table, Scores):
        return kendall_tau.kendall_tau_table(table, named, tau_ap_forms=forms, **uncertainty)
    matrices = score_matrices(table, sorted({n for pair in named for n in pair.values()}))
    return kendall_tau.kendall_tau_table(_scores_of(matrices, table), named, tau_ap_forms=forms, **uncertainty)


def permutation_null(table, measures: Sequence[str] | None = None, *, trials: int | range = 1000,
                     seed: int = DEFAULT_SEED):
    """The randomised Tukey HSD's null distribution: per permutation trial (``trials``: how
    many, or which, as a range; the pipeline's shards take a range each), the largest
    difference of run means after permuting each topic's scores across runs."""
    from irmeta.metaeval import discriminative_power as dp

    p = experiment_parameters(trials=trials, seed=seed)
    return dp.randomised_null_shard(matrices_of(table, measures), p["trials"], p["seed"] + dp.SEED_OFFSET)


def pairwise_tests_table(table, measures: Sequence[str] | None = None, *, methods: Sequence[str] | None = None,
                         permutations: int = 1000, seed: int = DEFAULT_SEED):
    """Every paired test of ``methods`` (None: every registered paired test, a plugin's
    too) on every run pair of each measure (and alpha): ``tables/pairwise_tests.parquet``'s
    rows (:mod:`irmeta.metaeval.pairwise_tests`), the randomised tests drawing
    ``permutations`` sign flips or resamples from ``seed`` plus the experiment's SEED_OFFSET."""
    from irmeta.metaeval import pairwise_tests as pt
    from irmeta.metaeval.stats.registry import registered_tests

    if methods is None:
        methods = registered_tests(kind="paired")
    p = experiment_parameters(methods=methods, permutations=permutations, seed=seed)
    unknown = [m for m in p["methods"] if m not in pt.paired_methods(p["methods"])]
    if unknown:
        raise ValueError(f"unknown paired tests {unknown} (not paired tests); the paired tests are "
                         f"{', '.join(registered_tests(kind='paired'))}")
    return pt.pairwise_tests_table(matrices_of(table, measures), p["methods"], permutations,
                                   seed + pt.SEED_OFFSET)


def discriminative_power_table(table, measures: Sequence[str] | None = None, *,
                               methods: Sequence[str] | None = None,
                               levels: Sequence[float] = (0.05, 0.01), permutations: int = 1000,
                               seed: int = DEFAULT_SEED, null=None, randomised_p: str = "count",
                               corrections: Sequence[str] = ("none", "holm", "bh"), pairwise=None):
    """Run pairs significantly different at each level, by each method (the paper's Table
    1): the authors' per-pair Tukey HSD, the two-way Tukey HSD, the randomised Tukey HSD
    with ``permutations`` permutations (or the ``null`` :func:`permutation_null` drew, in
    shards, concatenated) and p-values ``randomised_p``: ``count`` (count / B, as Sakai
    and Carterette) or ``plus_one`` ((count + 1) / (B + 1), then in a ``randomised_p``
    column). The paired tests (``paired_t``, ``wilcoxon``, ``sign``, ``randomisation``,
    ``paired_bootstrap``, a plugin's) count over :func:`pairwise_tests_table` (or
    ``pairwise``: its table, or its families by (measure, alpha, method) as
    ``StoredFamilies`` reads them), once per entry of ``corrections`` (``none``, ``holm``,
    ``bh``, ``bonferroni``): methods ``paired_t``, ``paired_t+holm``, ... ``methods`` None:
    the paper's three."""
    from irmeta.metaeval import discriminative_power as dp
    from irmeta.metaeval import pairwise_tests as pt

    if methods is None:
        methods = dp.DP_METHODS
    experiment_parameters(methods=methods, levels=levels, permutations=permutations, seed=seed,
                          corrections=corrections)
    if randomised_p not in dp.RANDOMISED_P:  # before the permutations, not after
        raise ValueError(f"randomised_p must be one of {', '.join(dp.RANDOMISED_P)}, not {check.shown(randomised_p)}")
    for name, frame in (("null", null), ("pairwise", pairwise)):
        # pairwise may also be its families, (measure, alpha, method) -> rows (read as needed)
        if frame is not None and not hasattr(frame, "columns") and not (name == "pairwise" and hasattr(frame, "get")):
            raise TypeError(f"{name} must be a DataFrame, not {type(frame).__name__}")
    matrices = matrices_of(table, measures)
    if null is None and "randomised_tukey_hsd" in methods:
        null = permutation_null(table, measures, trials=permutations, seed=seed)
    if pairwise is None and pt.paired_methods(methods):
        pairwise = pt.pairwise_tests_table(matrices, pt.paired_methods(methods), permutations, seed + pt.SEED_OFFSET)
    return dp.discriminative_power_table(matrices, methods=list(methods), levels=list(levels), null=null,
                                         randomised_p=randomised_p, corrections=list(corrections),
                                         pairwise=pairwise, permutations=permutations)


def stability_trials(table, measures: Sequence[str] | None = None, *, trials: int | range = 1000,
                     topics_per_trial: int | None = None, fuzziness: Sequence[dict] = DEFAULT_FUZZINESS,
                     seed: int = DEFAULT_SEED):
    """Stability's counts over ``trials`` (how many, or which): per trial, each run pair's
    wins, losses and ties on ``topics_per_trial`` topics (None: round(topics / 2))."""
    from irmeta.metaeval import stability
    from irmeta.pipeline.experiments import stability_topics_per_trial

    p = experiment_parameters(trials=trials, topics_per_trial=topics_per_trial, fuzziness=fuzziness, seed=seed)
    matrices = matrices_of(table, measures)
    per_trial = stability_topics_per_trial(p["topics_per_trial"], len(matrices[0].topics))
    return stability.stability_shard(matrices, topics_per_trial=per_trial, trials=p["trials"],
                                     seed=p["seed"] + stability.SEED_OFFSET, fuzziness=p["fuzziness"])


def stability_table(table=None, measures: Sequence[str] | None = None, *, trials: int = 1000,
                    topics_per_trial: int | None = None, fuzziness: Sequence[dict] = DEFAULT_FUZZINESS,
                    seed: int = DEFAULT_SEED, counts: Sequence | None = None):
    """Buckley and Voorhees's stability (the paper's Table 2) under each fuzziness
    (``{"mode": "absolute" or "relative", "value": ...}``); ``topics_per_trial`` None is
    round(topics / 2), as the paper. ``counts``: :func:`stability_trials`' shards, when
    drawn apart (then ``table`` is not read)."""
    from irmeta.metaeval import stability

    experiment_parameters(trial_count=trials, topics_per_trial=topics_per_trial, fuzziness=fuzziness, seed=seed)
    if counts is not None:
        counts = check.items("counts", counts)
    else:
        counts = [stability_trials(table, measures, trials=trials, topics_per_trial=topics_per_trial,
                                   fuzziness=fuzziness, seed=seed)]
    return stability.stability_table(list(counts), topics_per_trial=counts[0].topics_per_trial, trials=trials,
                                     seed=seed + stability.SEED_OFFSET)


def swap_trials(table, measures: Sequence[str] | None = None, *, alphas: Sequence[Alpha] | None = None,
                trials: int | range = 1000, sampling: str = "bootstrap", topic_set_size: int | None = None,
                bin_width: float = 0.01, seed: int = DEFAULT_SEED):
    """The swap method's counts over ``trials`` (how many, or which): per trial, two topic
    sets, and per bin of mean difference the comparisons and the swaps."""
    from irmeta.metaeval import swap_sensitivity

    p = experiment_parameters(trials=trials, sampling=sampling, topic_set_size=topic_set_size, bin_width=bin_width,
                              seed=seed)
    return swap_sensitivity.swap_shard(matrices_of(table, measures, alphas), trials=p["trials"],
                                       seed=p["seed"] + swap_sensitivity.SEED_OFFSET, sampling=sampling,
                                       topic_set_size=topic_set_size, bin_width=bin_width)


def swap_sensitivity_table(table, measures: Sequence[str] | None = None, *, alphas: Sequence[Alpha] | None = None,
                           trials: int = 1000, sampling: str = "bootstrap", topic_set_size: int | None = None,
                           bin_width: float = 0.01, confidence: float = 0.95, seed: int = DEFAULT_SEED,
                           counts: Sequence | None = None):
    """Sakai's swap-method sensitivity: the difference a measure needs for a
    ``confidence`` sure comparison, and the share of comparisons that reach it.
    ``counts``: :func:`swap_trials`' shards, when drawn apart."""
    from irmeta.metaeval import swap_sensitivity
    from irmeta.pipeline.experiments import swap_topic_set_size

    experiment_parameters(trial_count=trials, sampling=sampling, topic_set_size=topic_set_size, bin_width=bin_width,
                          confidence=confidence, seed=seed)
    _check_table(table)
    if counts is not None:
        counts = check.items("counts", counts)
    else:
        counts = [swap_trials(table, measures, alphas=alphas, trials=trials, sampling=sampling,
                              topic_set_size=topic_set_size, bin_width=bin_width, seed=seed)]
    n_topics = len(table.topics) if isinstance(table, Scores) else len(matrices_of(table, measures)[0].topics)
    size = swap_topic_set_size({"topic_set_size": topic_set_size, "sampling": sampling}, n_topics)
    return swap_sensitivity.swap_table(list(counts), trials=trials, sampling=sampling, topic_set_size=size,
                                       bin_width=bin_width, confidence=confidence,
                                       seed=seed + swap_sensitivity.SEED_OFFSET)


def _scores_of(matrices: Sequence[ScoreMatrix], table) -> Scores:
    """The matrices as :class:`Scores`, each run's mean by the one definition
    (:func:`~irmeta.measures.averaging.run_means`, S the table's runs): over every topic,
    unless the run's ``all`` row is its sum over fewer (trec_eval without -c, evaluate's
    ``average="returned"``: the topics it did not return score 0). An ``all`` row that
    contradicts the per-topic rows is an error (:mod:`~irmeta.measures.score_files.mean_rows`)."""
    from irmeta.measures.score_files.mean_rows import checked_means, mean_rows_of

    first = matrices[0]
    scores = Scores(runs=first.runs, topics=first.topics, measures=[m.measure for m in matrices],
                    alphas=[m.alpha for m in matrices], per_topic=np.stack([m.values for m in matrices]), means={},
                    parsed=[m.parsed for m in matrices])
    scores.means[AVERAGING_NAMES["all"]] = checked_means(scores, mean_rows_of(table, "the scores table"))
    return scores
