"""Agreement on conclusions: which run pairs a paired significance test calls different,
and in which direction, under a reference judgment set and under an alternative one (the
same runs scored under each), for every paired test and correction of discriminative
power (``experiments.discriminative_power.methods`` and ``corrections``, the registry of
:mod:`.stats.registry`).

The tests are the discriminative power's own: the registry's dispatch
:func:`~.stats.paired_tests.run_test` on each set's (runs, topics) matrix, runs in the
byte order of their names, as :func:`~.stats.paired_tests.pairwise_tests` (the function
behind ``tables/pairwise_tests.parquet``) runs it; each p corrected by the registry's
:data:`~.stats.registry.CORRECTIONS` over the family of all pairs; significant when
p < level (strictly, as :func:`~.stats.paired_tests.count_significant_pairs`).
The randomised tests draw from the seed the pipeline gives the
pairwise tests (``experiments.seed`` + :data:`.pairwise_tests.SEED_OFFSET`, plus the
test's own offset), the same draws under both sets (common random numbers).

Topics: those both sets judged (:func:`~.judgment_agreement.aligned_sets`, as
``judgment_agreement.csv``). A pair's decision under one set is

    +1  a > b significant: p < level and the mean per-topic difference (oriented: a
        lower-is-better measure's differences negated) is > 0,
    -1  b > a significant: p < level and that difference is < 0,
     0  none: p >= level, or (a sign or signed-rank test) significant with a mean
        difference of exactly 0, which names no better run;

and, with D the reference's decision and D' the alternative's, per pair:
``same_decision`` D = D'; ``lost`` D != 0 = D'; ``gained`` D = 0 != D'; ``reversed``
D = -D' != 0; ``both_significant_same_direction`` D = D' != 0. The four of
same/lost/gained/reversed partition the pairs: they sum to ``pairs``.
``significant_reference`` (``significant_judgments``) counts D != 0 (D' != 0).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.measures.averaging import Scores
from irmeta.metaeval.judgment_agreement import aligned_sets
from irmeta.metaeval.pairwise_tests import paired_methods
from irmeta.metaeval.score_matrices import sort_by_alpha
from irmeta.metaeval.stats.pair_differences import mean_and_variance, n_pairs, pair_blocks
from irmeta.metaeval.stats.paired_tests import run_test, runs_in_byte_order
from irmeta.metaeval.stats.registry import CORRECTIONS, corrected_names, parse_test_name

#: ``conclusion_agreement.csv``: one row per judgment set, measure, alpha, method and level.
CONCLUSION_AGREEMENT_COLUMNS = (
    "judgments", "measure", "alpha", "method", "level", "pairs", "same_decision", "significant_reference",
    "significant_judgments", "both_significant_same_direction", "lost", "gained", "reversed",
)

#: (method name, level) -> decisions of every pair (int8 +1, -1, 0), pairs in
#: ``pairwise_tests``' order (run_pairs of the byte-sorted run names).
Decisions = dict[tuple[str, float], np.ndarray]


def _mean_differences(m: np.ndarray) -> np.ndarray:
    """mean(x_a - x_b) of every pair in ``run_pairs`` order, as the pairwise tests'
    ``mean_difference`` (:func:`~.stats.pair_differences.mean_and_variance`, in blocks)."""
    out = np.empty(n_pairs(len(m)))
    for where, a, b in pair_blocks(len(m), 3 * m.shape[1] * 8):
        out[where] = mean_and_variance(m[a] - m[b])[0]
    return out


def pair_decisions(values: np.ndarray, runs: Sequence[str], *, higher_is_better: bool = True,
                   methods: Sequence[str] = ("paired_t",), corrections: Sequence[str] = ("holm",),
                   levels: Sequence[float] = (0.05,), permutations: int = 1000, seed: int = 0) -> Decisions:
    """Each pair's decision (module docstring) under every paired test of ``methods``
    (the all-runs tests among them are skipped, as the pairwise tests skip them), each
    corrected name (``paired_t``, ``paired_t+holm``...) and level, from one (runs, topics)
    matrix: the registry's dispatch (:func:`~.stats.paired_tests.run_test`) on the runs
    in byte order of their names, as :func:`~.stats.paired_tests.pairwise_tests` runs it."""
    m, names = runs_in_byte_order(values, runs)
    orientation = 1.0 if higher_is_better else -1.0
    direction = np.sign(orientation * _mean_differences(m)).astype(np.int8)
    out: Decisions = {}
    for method in dict.fromkeys(paired_methods(methods)):
        p = run_test(method, m, permutations, seed, runs=names).p_value
        for name in corrected_names(method, corrections):
            correction = parse_test_name(name)[1]
            adjusted = p if correction is None else CORRECTIONS[correction].adjust(p)
            for level in levels:
                out[(name, float(level))] = np.where(adjusted < float(level), direction, 0).astype(np.int8)
    return out


def decision_counts(reference: np.ndarray, judgments: np.ndarray) -> dict[str, int]:
    """The counting columns of two sets' decisions of the same pairs (module docstring)."""
    if reference.shape != judgments.shape:
        raise ValueError(f"{reference.shape} and {judgments.shape} decisions: not the same pairs")
    significant_ref, significant_alt = reference != 0, judgments != 0
    return {
        "pairs": int(reference.size),
        "same_decision": int(np.count_nonzero(reference == judgments)),
        "significant_reference": int(np.count_nonzero(significant_ref)),
        "significant_judgments": int(np.count_nonzero(significant_alt)),
        "both_significant_same_direction": int(np.count_nonzero(significant_ref & (reference == judgments))),
        "lost": int(np.count_nonzero(significant_ref & ~significant_alt)),
        "gained": int(np.count_nonzero(~significant_ref & significant_alt)),
        "reversed": int(np.count_nonzero(significant_ref & (reference == -judgments))),
    }


def conclusion_agreement_table(reference: Scores, alternatives: Mapping[str, Scores], *,
                               methods: Sequence[str] = ("paired_t",), corrections: Sequence[str] = ("holm",),
                               levels: Sequence[float] = (0.05,), permutations: int = 1000, seed: int = 0,
                               reference_name: str = "qrels", averaging: str = "all_topics") -> pd.DataFrame:
    """``conclusion_agreement.csv``: for each alternative (mapping order), measure and
    alpha (sorted as ``judgment_agreement.csv``), paired test of ``methods`` with each of
    ``corrections`` (``none`` or the registry's) and level, the counts of
    :func:`decision_counts` between the decisions under ``reference`` and under the
    alternative, on the topics both judged. ``seed``: the pairwise tests' (experiments.seed
    + :data:`irmeta.metaeval.pairwise_tests.SEED_OFFSET`)."""
    settings = {"methods": list(methods), "corrections": list(corrections),
                "levels": [float(level) for level in levels], "permutations": permutations, "seed": seed}
    runs = list(reference.runs)
    cache: dict[tuple[bytes, bool], Decisions] = {}

    def decided(values: np.ndarray, higher: bool) -> Decisions:
        # Decisions depend on the matrix alone (the draws are shared): the reference's are
        # made once for every set, and a rareness measure at alpha 0, its baseline bit
        # for bit, reuses the baseline's.
        key = (hashlib.blake2b(np.ascontiguousarray(values).tobytes(), digest_size=16).digest()
               + str(values.shape).encode(), higher)
        if key not in cache:
            cache[key] = pair_decisions(values, runs, higher_is_better=higher, **settings)
        return cache[key]

    frames = []
    for name, alternative in alternatives.items():
        aligned = aligned_sets(reference, alternative, str(name), reference_name, averaging)
        rows = []
        for i, j in aligned.blocks:
            measure = reference.measures[i]
            higher = reference.parsed[i].higher_is_better
            theirs = decided(aligned.alternative.per_topic[j], higher)
            rows += [{"judgments": str(name), "measure": measure, "alpha": reference.alphas[i] or "",
                      "method": method, "level": level, **decision_counts(mine, theirs[(method, level)])}
                     for (method, level), mine in decided(aligned.reference.per_topic[i], higher).items()]
        frames.append(sort_by_alpha(pd.DataFrame(rows, columns=list(CONCLUSION_AGREEMENT_COLUMNS)),
                                    ["measure", "alpha"]))
    if not frames:
        return pd.DataFrame(columns=list(CONCLUSION_AGREEMENT_COLUMNS))
    return pd.concat(frames, ignore_index=True)
