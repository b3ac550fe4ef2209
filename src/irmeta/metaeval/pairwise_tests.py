"""Paired significance tests as discriminative-power methods: every run pair of every
score matrix by the paired t-test, Wilcoxon's signed-rank test, the sign test, Fisher's
paired randomisation test and Sakai's paired bootstrap test
(:mod:`irmeta.metaeval.stats.paired_tests`), each alone or with a correction over the
family of all pairs of one measure, alpha and test (Sakai, "Statistical reform in
information retrieval?", SIGIR Forum 48(1), 2014).

A discriminative-power method of this kind is named ``<test>`` (raw p-values) or
``<test>+<correction>`` (``paired_t+holm``, ``randomisation+bh``): the names of
``discriminative_power.csv``, its figure and the claims.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.metaeval.stats.paired_tests import TABLE_COLUMNS, count_significant_pairs, pairwise_tests
from irmeta.metaeval.stats.registry import TESTS, attainable, corrected_names, paired_methods

#: The columns of ``tables/pairwise_tests.parquet``, in order.
COLUMNS = ("measure", "alpha", "run_a", "run_b", "method", *(c for c in TABLE_COLUMNS
                                                             if c not in ("method", "run_a", "run_b")))

#: Added to ``experiments.seed``: the randomisation test's sign flips and the bootstrap
#: test's topic resamples are drawn from ``PCG64(seed + SEED_OFFSET)`` (plus the test's own
#: ``seed_offset``, 0 for both), the same draws for every pair, measure and alpha (common
#: random numbers). Stability uses 0, the randomised Tukey HSD 1, system subsampling 2,
#: swaps 3, the Kendall tau bootstrap 4.
SEED_OFFSET = 5


def matrix_tests(matrix: ScoreMatrix, methods: Sequence[str], permutations: int, seed: int) -> pd.DataFrame:
    """:func:`pairwise_tests` of one matrix, its measure and alpha ("" without) first,
    columns :data:`COLUMNS`. ``seed`` is the experiment's plus :data:`SEED_OFFSET`."""
    table = pairwise_tests(matrix.values, matrix.runs, methods, permutations, seed)
    table.insert(0, "alpha", matrix.alpha or "")
    table.insert(0, "measure", matrix.measure)
    return table[list(COLUMNS)]


def identical_groups(matrices: Sequence[ScoreMatrix]) -> list[list[int]]:
    """Indices of ``matrices`` grouped by equal runs and values (bit for bit), groups in
    order of first occurrence: a rareness measure at alpha 0 is its baseline exactly, and
    the tests (their draws shared by every matrix) would only repeat themselves."""
    groups: dict[tuple[bytes, tuple[str, ...]], list[int]] = {}
    for i, matrix in enumerate(matrices):
        values = np.ascontiguousarray(matrix.values, dtype=np.float64)
        key = (hashlib.blake2b(values.tobytes(), digest_size=16).digest() + str(values.shape).encode(),
               tuple(matrix.runs))
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def shard_groups(matrices: Sequence[ScoreMatrix], shard: int = 0, shards: int = 1) -> list[list[int]]:
    """The groups of :func:`identical_groups` that shard ``shard`` of ``shards`` tests:
    every ``shards``-th, so the costliest (the largest matrices come in alpha runs) spread."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard must be in [0, {shards}), not {shard}")
    return identical_groups(matrices)[shard::shards]


def pairwise_test_blocks(matrices: Sequence[ScoreMatrix], methods: Sequence[str], permutations: int,
                         seed: int, shard: int = 0, shards: int = 1) -> Iterator[tuple[int, pd.DataFrame]]:
    """:func:`matrix_tests` of each matrix of the shard with its index in ``matrices``, one
    matrix's pairs in memory at a time; a matrix identical to one tested before gets that
    one's rows under its own name (the draws are the same, so the rows would be)."""
    for group in shard_groups(matrices, shard, shards):
        tested = matrix_tests(matrices[group[0]], paired_methods(methods), permutations, seed)
        for i in group:
            tested = tested.assign(measure=matrices[i].measure, alpha=matrices[i].alpha or "")
            yield i, tested


def pairwise_tests_table(matrices: Sequence[ScoreMatrix], methods: Sequence[str], permutations: int = 1000,
                         seed: int = 0) -> pd.DataFrame:
    """Every paired test of ``methods`` on every pair of every matrix, one frame."""
    blocks = [block for _, block in sorted(pairwise_test_blocks(matrices, methods, permutations, seed),
                                           key=lambda item: item[0])]  # in the order of the matrices
    if not blocks:
        return pd.DataFrame({c: pd.Series(dtype=np.float64 if c not in COLUMNS[:5] else object) for c in COLUMNS})
    return pd.concat(blocks, ignore_index=True)


Families = dict[tuple[str, str, str], pd.DataFrame]


def families(tests: pd.DataFrame) -> Families:
    """The rows of a pairwise tests table by (measure, alpha, method), one grouping
    (selecting each family by comparing strings would scan the whole table each time)."""
    return {key: rows for key, rows in tests.groupby(["measure", "alpha", "method"], sort=False)}


def paired_power_rows(matrix: ScoreMatrix, tests: Mapping[tuple[str, str, str], pd.DataFrame], method: str,
                      corrections: Sequence[str], levels: Sequence[float], permutations: int | None) -> list[dict]:
    """``discriminative_power`` rows of one matrix and paired test, one per corrected
    name and level: pairs with p (or adjusted p) < level in its family of ``tests``
    (:func:`families` of ``tables/pairwise_tests.parquet``), and whether any pair could be
    (``attainable``: :func:`.stats.registry.attainable` of its draws and family)."""
    mine = tests.get((matrix.measure, matrix.alpha or "", method), pd.DataFrame(columns=list(COLUMNS)))
    total = len(matrix.runs) * (len(matrix.runs) - 1) // 2
    if len(mine) != total:
        raise ValueError(f"{matrix.measure} alpha {matrix.alpha or '-'}: {len(mine)} {method} pairs in the "
                         f"pairwise tests, expected {total}")
    counts = count_significant_pairs(mine, corrected_names(method, corrections), levels)
    draws = permutations if TESTS[method].randomised else None
    return [{"measure": matrix.measure, "alpha": matrix.alpha or "", "method": row.test, "level": float(row.level),
             "significant_pairs": int(row.significant), "total_pairs": total, "permutations": draws,
             "attainable": attainable(row.test, row.level, draws, total)}
            for row in counts.itertuples(index=False)]
