"""Benchmark: fitting the simulation models of a collection (irmeta.metaeval.simulation).

Target (issue 41): the margins of TREC-8's 129 runs and their 8,256 pair copulas in at most
2 minutes on 2 cores, per measure (AP@1000, continuous; P@10, on its grid). This fits all
129 runs (the protocol's drops off, so every pair counts) in ``--workers`` processes and
prints, per measure, the margins' and the copulas' wall time and CPU time (this process and
its workers), the selected families, and the rate at which trials are then drawn (pair
trials of 50 topics at equal means and at delta 0.05, and group trials of 5 runs). On a
busy machine it also prints the CPU time spread over the workers: the wall time of the same
work on idle cores.

    python benchmarks/bench_simulation_fit.py [--data ../shared/data] [--workers 2]
                                              [--measures AP@1000,P@10]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

from irmeta.metaeval.simulation.copulas import fit_pair_copulas, library_version, pseudo_observations
from irmeta.metaeval.simulation.margins import fit_margin, support_of_measure
from irmeta.metaeval.simulation.models import FittedCollection, PooledCollections, SimulationProtocol

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 120


def trec8_scores(data: Path, measures: list[str]) -> tuple[list[str], dict[str, np.ndarray]]:
    from irmeta.campaign.judge import relevance_matrix
    from irmeta.campaign.qrels import read_qrels
    from irmeta.campaign.runs import read_runs
    from irmeta.measures.averaging import evaluate

    folder = data / "trec8_adhoc"
    runs = read_runs(folder / "runs", depth=1000)
    matrix = relevance_matrix(runs, read_qrels(folder / "qrels.txt"), depth=1000)
    return list(runs.names), {str(k): v for k, v in evaluate(matrix, measures).items()}


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench_measure(measure: str, names: list[str], scores: np.ndarray, workers: int) -> float:
    support = support_of_measure(measure, scores)
    n_runs = len(names)
    print(f"TREC-8 {measure}: {n_runs} runs x {scores.shape[1]} topics, {n_runs * (n_runs - 1) // 2:,} pairs, "
          f"support {support.kind}")
    start, cpu = time.perf_counter(), cpu_seconds()
    margins = []
    for name, row in zip(names, scores):
        if np.ptp(row) > 0:  # a run with one distinct score has no margin (the protocol refuses or drops it)
            margins.append(fit_margin(row, support, run=name))
    margin_wall, margin_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    print(f"  margins  {margin_wall:7.1f} s wall {margin_cpu:7.1f} s CPU  {len(margins)} runs: "
          f"{dict(Counter(m.family for m in margins).most_common())}")
    pobs = pseudo_observations(scores.T, seed=1)
    pairs = np.array([(i, j) for i in range(n_runs) for j in range(i + 1, n_runs)])
    start, cpu = time.perf_counter(), cpu_seconds()
    copulas = fit_pair_copulas(pobs, pairs, workers=workers)
    copula_wall, copula_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    print(f"  copulas  {copula_wall:7.1f} s wall {copula_cpu:7.1f} s CPU  {len(copulas):,} pairs ({workers} workers): "
          f"{dict(Counter(c.family for c in copulas).most_common(6))}")
    total = margin_wall + copula_wall
    # on a machine busy with other work the wall time says little; the CPU time spread
    # over the workers is the wall time the same work takes on idle cores
    idle = margin_cpu + copula_cpu / workers
    print(f"  margins + copulas: {total:.1f} s wall; {idle:.1f} s on {workers} idle cores (CPU / workers) "
          f"(target < {TARGET_SECONDS} s): {'met' if min(total, idle) < TARGET_SECONDS else 'missed'}")
    return min(total, idle)


def bench_trials(measure: str, names: list[str], scores: np.ndarray) -> None:
    """Trial rates on a 30-run slice of the collection fitted with the protocol's drops."""
    support = support_of_measure(measure, scores)
    fitted = FittedCollection.fit(scores[:30], names[:30], support, seed=1, protocol=SimulationProtocol(), workers=2)
    pool = PooledCollections([fitted])
    # common random numbers across deltas move the first run's own margin (first_run)
    shared = PooledCollections([replace(fitted, protocol=replace(fitted.protocol, power_margin="first_run"))])
    rng = np.random.default_rng(1)
    pool.pair_trials(50, 10, rng, 0.05)  # the reshaped margins, once
    for label, work, count in (
            ("pair trials, type I", lambda: pool.pair_trials(50, 5000, rng, None), 5000),
            ("pair trials, delta 0.05", lambda: pool.pair_trials(50, 5000, rng, 0.05), 5000),
            ("pair trials, 10 deltas at once", lambda: shared.pair_trials_by_delta(
                50, 5000, rng, [d / 100 for d in range(1, 11)]), 5000),
            ("group trials, k = 5", lambda: pool.group_trials(5, 50, 1000, rng), 1000)):
        start = time.perf_counter()
        work()
        seconds = time.perf_counter() - start
        print(f"  {label:<32} {count / seconds:9,.0f} trials/s (50 topics)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--measures", default="AP@1000,P@10")
    parser.add_argument("--no-trials", action="store_true", help="skip the trial rates")
    args = parser.parse_args()
    measures = [m for m in args.measures.split(",") if m]
    print(f"pyvinecopulib {library_version()}; reading TREC-8 (not timed)")
    names, matrices = trec8_scores(Path(args.data), measures)
    ok = True
    for measure, scores in matrices.items():
        ok &= bench_measure(measure, names, scores, args.workers) < TARGET_SECONDS
        if not args.no_trials:
            bench_trials(measure, names, scores)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
