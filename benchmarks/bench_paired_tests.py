"""Benchmark: the five paired tests over every run pair (irmeta.metaeval.stats.paired_tests).

Target (issue 21): the discriminative-power statistics of a 500 runs x 500 topics matrix
(124,750 pairs) within 5 minutes, no job above 2 GB; on TREC-8 (129 runs, 8,256 pairs, 50
topics) the five tests at 1,000 permutations in a few seconds per measure. Prints each
test's time and peak traced memory (numpy's allocations, via tracemalloc), the whole
table (:func:`pairwise_tests`: the tests, effect sizes, intervals and corrections) and
the process's peak resident memory.

    python benchmarks/bench_paired_tests.py [--runs 500] [--topics 500] [--permutations 1000]
                                            [--data ../shared/data] [--no-trec8]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

from irmeta.metaeval.stats.paired_tests import METHODS, pairwise_tests, run_test

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS, TARGET_MB = 5 * 60, 2048


def random_scores(n_runs: int, n_topics: int, seed: int = 0) -> np.ndarray:
    """AP-like per-topic scores: run effect + topic effect + noise, clipped to [0, 1]."""
    rng = np.random.default_rng(seed)
    run = rng.beta(2, 5, n_runs)[:, None]
    topic = rng.normal(0, 0.15, n_topics)[None, :]
    return np.clip(run + topic + rng.normal(0, 0.1, (n_runs, n_topics)), 0, 1)


def measured(work: Callable[[], object]) -> tuple[float, float]:
    """(seconds, peak traced MB) of one call."""
    tracemalloc.start()
    start = time.perf_counter()
    work()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak


def bench_matrix(label: str, scores: np.ndarray, permutations: int) -> tuple[float, float]:
    n_runs, n_topics = scores.shape
    print(f"{label}: {n_runs} runs x {n_topics} topics, {n_runs * (n_runs - 1) // 2:,} pairs, "
          f"{permutations} permutations")
    for method in METHODS:
        seconds, peak = measured(lambda method=method: run_test(method, scores, permutations, seed=1))
        print(f"  {method:<17} {seconds:7.2f} s   peak {peak:6.0f} MB")
    names = [f"run{i:04d}" for i in range(n_runs)]
    seconds, peak = measured(lambda: pairwise_tests(scores, names, METHODS, permutations, seed=1))
    print(f"  {'whole table':<17} {seconds:7.2f} s   peak {peak:6.0f} MB  (5 tests, effect sizes, intervals, "
          f"corrections)")
    return seconds, peak


def trec8_scores(data: Path) -> dict[str, np.ndarray]:
    from irmeta.campaign.judge import relevance_matrix
    from irmeta.campaign.qrels import read_qrels
    from irmeta.campaign.runs import read_runs
    from irmeta.measures.averaging import evaluate

    folder = data / "trec8_adhoc"
    matrix = relevance_matrix(read_runs(folder / "runs", depth=100), read_qrels(folder / "qrels.txt"), depth=100)
    return {str(k): v for k, v in evaluate(matrix, ["AP@100", "P@100"]).items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--topics", type=int, default=500)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--no-trec8", action="store_true")
    args = parser.parse_args()
    ok = True
    for method in METHODS:  # imports (scipy.stats: about a second) and first calls off the clock
        run_test(method, random_scores(3, 60), 10)
    if not args.no_trec8:
        for measure, scores in trec8_scores(Path(args.data)).items():
            bench_matrix(f"TREC-8 {measure}", scores, args.permutations)
    seconds, _ = bench_matrix("random", random_scores(args.runs, args.topics), args.permutations)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    if (args.runs, args.topics) == (500, 500):
        ok = seconds < TARGET_SECONDS and rss < TARGET_MB
        print(f"500 x 500: whole table {seconds:.0f} s (target < {TARGET_SECONDS} s), process peak RSS "
              f"{rss:.0f} MB (target < {TARGET_MB} MB): {'met' if ok else 'missed'}")
    else:
        print(f"process peak RSS {rss:.0f} MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
