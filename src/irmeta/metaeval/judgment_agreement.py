"""Bring your own judgments: how far the conclusions drawn under alternative judgment
sets (shallower pools, other assessors, grades thresholded differently) agree with those
drawn under a reference set (the official qrels), the same runs scored under each.

For each alternative set, measure and alpha: the rank correlation of the two system
rankings (Voorhees, "Variations in relevance judgments and the measurement of retrieval
effectiveness", IPM 2000, with Kendall's tau-b; Yilmaz, Aslam and Robertson's tau_AP,
top-weighted), and what becomes of the run pairs the reference calls significantly
different (two-way ANOVA Tukey HSD, as in :mod:`.discriminative_power`).

Topics: the two sets are compared on the topics they share (an alternative set may lack
topics its assessors never judged). When both sets judged the same topics, the means are
the pipeline's own (``Scores.means``). When not, both sets' means are recomputed over the
shared topics the same way (sorted sums, :func:`exact_mean`; only for the paper's
averaging over all topics, since ``Scores`` does not record which topics a run returned):
mixing a set's integer-total means with the other's sorted sums would break exact ties on
one side only. The ``topics`` and ``topics_excluded`` columns say which case a row is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from irmeta.measures.averaging import Scores, exact_mean
from irmeta.metaeval.score_matrices import oriented, sort_by_alpha
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.correlation import kendall_tau, tau_ap
from irmeta.metaeval.stats.tukey_hsd import tukey_hsd_critical_values, tukey_hsd_statistics
from irmeta.metaeval.tied_agreement import TAU_ONLY, tied_agreement, tied_columns, tied_variants
from irmeta.metaeval.top_ranks import TOP_COLUMNS, top_agreement

#: ``kendall_tau`` is tau-b, ``tau_ap`` tau_AP with the reference as the truth; the
#: tie-aware variants last, only when ``ties`` names them (:mod:`.tied_agreement`).
JUDGMENT_AGREEMENT_COLUMNS = (
    "reference", "judgments", "measure", "alpha", "averaging", "level", "runs", "topics", "topics_excluded",
    "pairs", "kendall_tau", "tau_ap", "significant_reference", "significant_alternative",
    "swapped_significant", "reversed_significant", "swapped_share", *TOP_COLUMNS,
    *tied_columns(TAU_ONLY, with_rbo=False),
)
#: Columns of :data:`JUDGMENT_AGREEMENT_COLUMNS` written only under some settings, with when.
OPTIONAL_COLUMNS = {column: f"experiments.judgment_agreement.ties names {variant}"
                    for variant in TAU_ONLY for column in tied_columns([variant], with_rbo=False)}


@dataclass(frozen=True)
class _Aligned:
    """One judgment set's scores restricted to the shared topics, runs in the reference's order."""

    per_topic: np.ndarray  # (blocks, runs, shared topics)
    means: np.ndarray  # (blocks, runs)


def _shared_topics(reference: Scores, alternative: Scores) -> list[str]:
    """The topics both sets judged, in the reference's order."""
    theirs = set(alternative.topics)
    return [t for t in reference.topics if t in theirs]


def _aligned(scores: Scores, runs: list[str], topics: list[str], averaging: str, name: str, *,
             recompute: bool) -> _Aligned:
    """``scores`` with runs in ``runs``' order and only ``topics``; the pipeline's means,
    or with ``recompute`` sorted-sum means over ``topics``."""
    if sorted(scores.runs) != sorted(runs):
        raise ValueError(f"judgments {name!r}: scores other runs than the reference")
    if averaging not in scores.means:
        raise ValueError(f"judgments {name!r}: no means of averaging {averaging!r}")
    run_position = {r: i for i, r in enumerate(scores.runs)}
    run_index = [run_position[r] for r in runs]
    topic_position = {t: i for i, t in enumerate(scores.topics)}
    if run_index == list(range(len(scores.runs))) and list(topics) == list(scores.topics):
        per_topic = scores.per_topic  # already aligned: no copy (8 MB a block at 1,000 x 1,000)
    else:
        per_topic = scores.per_topic[:, run_index][:, :, [topic_position[t] for t in topics]]
    # C order whichever way it came: numpy's sums follow the memory layout (fancy indexing
    # can return F order), and both sets' means must be summed alike to the last bit.
    per_topic = np.ascontiguousarray(per_topic)
    if not recompute:
        return _Aligned(per_topic, scores.means[averaging][:, run_index])
    # Scores keeps no record of which topics each run returned, so only the paper's
    # averaging (every topic, a topic not returned scoring 0) can be recomputed.
    if averaging != "all_topics":
        raise ValueError(f"judgments {name!r}: the topic sets differ, and means over the shared topics "
                         f"can be recomputed for averaging 'all_topics' only, not {averaging!r}")
    return _Aligned(per_topic, exact_mean(per_topic))


def _block_pairs(reference: Scores, alternative: Scores, name: str) -> list[tuple[int, int]]:
    """(reference block, alternative block) for each of the reference's measure-alpha blocks."""
    pairs = []
    for i, (measure, alpha) in enumerate(zip(reference.measures, reference.alphas)):
        try:
            pairs.append((i, alternative.block(measure, alpha)))
        except KeyError:
            raise ValueError(f"judgments {name!r}: no scores of {measure} at alpha {alpha or '-'}") from None
    return pairs


def _pair_signs(means: np.ndarray) -> np.ndarray:
    """sign(mean_a - mean_b) of every run pair a < b (``run_pairs`` order): +1 when a is better."""
    a, b = run_pairs(len(means))
    return np.sign(means[a] - means[b])


@lru_cache(maxsize=64)
def _critical_value(k: int, df: int, level: float) -> float:
    """q_crit of the studentized range, cached across calls: the quantile is the slow part
    (0.05 s at TREC-8's size), and generated judgment sets call the table once per set."""
    return tukey_hsd_critical_values(k, df, [level])[float(level)]


def _significant(values: np.ndarray, level: float, critical: dict[tuple[int, int], float]) -> np.ndarray:
    """Run pairs (``run_pairs`` order) the two-way Tukey HSD rejects at ``level``: q > q_crit.
    ``critical`` caches q_crit by (runs, df): the studentized range quantile is the slow part."""
    q, k, df = tukey_hsd_statistics(values)
    if (k, df) not in critical:
        critical[(k, df)] = _critical_value(int(k), int(df), float(level))
    return q > critical[(k, df)]


def _agreement(reference_means: np.ndarray, alternative_means: np.ndarray, significant_reference: np.ndarray,
               significant_alternative: np.ndarray, runs: list[str], ties: list[str]) -> dict[str, object]:
    """The columns comparing one measure-alpha's two rankings (means oriented, higher better)."""
    opposite = _pair_signs(reference_means) * _pair_signs(alternative_means) < 0
    swapped = int(np.count_nonzero(significant_reference & opposite))
    n_significant = int(np.count_nonzero(significant_reference))
    return {
        "kendall_tau": kendall_tau(alternative_means, reference_means),
        "tau_ap": tau_ap(alternative_means, reference_means, higher_is_better=True),
        "significant_reference": n_significant,
        "significant_alternative": int(np.count_nonzero(significant_alternative)),
        "swapped_significant": swapped,
        "reversed_significant": int(np.count_nonzero(significant_reference & significant_alternative & opposite)),
        "swapped_share": swapped / n_significant if n_significant else np.nan,
        **top_agreement(reference_means, alternative_means, runs),
        **tied_agreement(reference_means, alternative_means, ties),
    }


def agreement_columns(ties: Sequence[str] = ()) -> list[str]:
    """The table's columns with the tie-aware variants ``ties`` (checked) and no others."""
    written = set(tied_columns(tied_variants(ties, TAU_ONLY, "judgment agreement ties"), with_rbo=False))
    return [c for c in JUDGMENT_AGREEMENT_COLUMNS if c not in OPTIONAL_COLUMNS or c in written]


@dataclass(frozen=True)
class AlignedSets:
    """A reference and an alternative set's scores on the topics both judged, runs in the
    reference's order; ``blocks``: (reference block, alternative block) of each of the
    reference's measure-alpha blocks; ``excluded``: topics judged in only one set."""

    topics: list[str]
    excluded: int
    reference: _Aligned
    alternative: _Aligned
    blocks: list[tuple[int, int]]


def aligned_sets(reference: Scores, alternative: Scores, name: str, reference_name: str,
                 averaging: str = "all_topics") -> AlignedSets:
    """Both sets' scores as :func:`judgment_agreement_table` compares them (the module's
    docstring: shared topics, means recomputed over them when the topic sets differ)."""
    topics = _shared_topics(reference, alternative)
    if len(topics) < 2:
        raise ValueError(f"judgments {name!r}: {len(topics)} topic(s) in common with {reference_name!r}, need 2")
    excluded = len(set(reference.topics) ^ set(alternative.topics))
    ref = _aligned(reference, reference.runs, topics, averaging, reference_name, recompute=excluded > 0)
    alt = _aligned(alternative, reference.runs, topics, averaging, name, recompute=excluded > 0)
    return AlignedSets(topics, excluded, ref, alt, _block_pairs(reference, alternative, name))


def _alternative_rows(reference: Scores, alternative: Scores, name: str, reference_name: str, level: float,
                      averaging: str, critical: dict[tuple[int, int], float],
                      reference_tests: dict[tuple, np.ndarray], ties: list[str]) -> list[dict]:
    aligned = aligned_sets(reference, alternative, name, reference_name, averaging)
    topics, excluded, ref, alt = aligned.topics, aligned.excluded, aligned.reference, aligned.alternative
    n_runs = len(reference.runs)
    rows = []
    for i, j in aligned.blocks:
        measure = reference.measures[i]
        # Both rankings best first: a lower-is-better measure (ASL) is negated, exactly.
        read = reference.parsed[i]
        ref_means, alt_means = oriented(ref.means[i], read), oriented(alt.means[j], read)
        key = (i, tuple(topics))  # the reference's test on these topics: the same for every set
        if key not in reference_tests:
            reference_tests[key] = _significant(ref.per_topic[i], level, critical)
        rows.append({
            "reference": reference_name, "judgments": name, "measure": measure, "alpha": reference.alphas[i] or "",
            "averaging": averaging, "level": float(level), "runs": n_runs, "topics": len(topics),
            "topics_excluded": excluded,
            "pairs": n_runs * (n_runs - 1) // 2,
            **_agreement(ref_means, alt_means, reference_tests[key],
                         _significant(alt.per_topic[j], level, critical), list(reference.runs), ties),
        })
    return rows


def judgment_agreement_table(reference: Scores, alternatives: Mapping[str, Scores], *,
                             reference_name: str = "official", level: float = 0.05,
                             averaging: str = "all_topics",
                             reference_tests: dict[tuple, np.ndarray] | None = None,
                             ties: Sequence[str] = ()) -> pd.DataFrame:
    """Agreement of each alternative judgment set with the reference, per measure and alpha.

    ``reference`` and each of ``alternatives`` (name -> scores) score the same runs with
    the same measures and alphas, each under its own judgments. Topics: those both sets
    judged (see the module docstring). One row per alternative (in the mapping's order),
    measure and alpha (sorted as :func:`~irmeta.metaeval.kendall_tau.kendall_tau_table`
    sorts them), with columns :data:`JUDGMENT_AGREEMENT_COLUMNS`:

    - ``reference``, ``judgments``: the two sets' names; ``measure``; ``alpha`` (label,
      ``""`` for a measure without one); ``averaging``, ``level``: the settings;
    - ``runs``: S; ``topics``: T, the topics compared (both sets judged them);
      ``topics_excluded``: topics judged in only one of the two sets (left out);
      ``pairs``: S(S - 1)/2;
    - ``kendall_tau``: tau-b between the runs' means under the alternative and under the
      reference; ``tau_ap``: tau_AP of the alternative's ranking with the reference's as
      the truth (both rankings oriented best first: lower-is-better measures negated);
    - ``significant_reference`` (``significant_alternative``): run pairs (a, b) the
      two-way ANOVA Tukey HSD over all S runs on the (S, T) matrix rejects at ``level``
      (q > q_crit) under the reference (alternative) judgments;
    - ``swapped_significant``: pairs significant under the reference whose means are in
      strictly the opposite order under the alternative,
      sign(m_a - m_b) * sign(m'_a - m'_b) < 0 (a tie under the alternative is no swap);
    - ``reversed_significant``: the swapped pairs that are also significant under the
      alternative (significant under both, with opposite signs);
    - ``swapped_share``: swapped_significant / significant_reference (NaN when the
      reference finds no significant pair);
    - ``top1_same``, ``top5_overlap``, ``top10_overlap``, ``largest_rank_change``,
      ``largest_rank_change_run``: agreement at the top of the two rankings of the
      oriented means (:mod:`.top_ranks`: ties by run name; an overlap is NaN with fewer
      runs than its k; the run is "" when no run moves);
    - with ``ties`` (:mod:`.tied_agreement`, runs whose means are equal tied): ``a``,
      ``tau_a`` and ``tau_ap_a`` with the reference as the true ranking (NaN where it
      ties); ``b``, ``tau_ap_b``.

    ``reference_tests``: the reference's significant pairs by block and topics, kept for
    later calls with the same reference, level and averaging (generated judgment sets
    call once per set: the reference's Tukey HSD is then run once, not once a set).
    """
    variants = tied_variants(ties, TAU_ONLY, "judgment agreement ties")
    columns = agreement_columns(variants)
    critical: dict[tuple[int, int], float] = {}
    reference_tests = {} if reference_tests is None else reference_tests
    frames = []
    for name, alternative in alternatives.items():
        rows = _alternative_rows(reference, alternative, str(name), reference_name, level, averaging, critical,
                                 reference_tests, variants)
        frames.append(sort_by_alpha(pd.DataFrame(rows, columns=columns), ["measure", "alpha"]))
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)
