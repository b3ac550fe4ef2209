"""Benchmark: issue 28's degraded reproductions on TREC-8 (rule
tabulate_reproducibility_degradation's library call): every one of the 129 runs, cut at
depth 100, reproduced by copies of itself at 5 levels x 3 kinds x ``--trials`` trials,
P@100 and AP@100, in ``--processes`` processes (the rule's threads); prints the CPU time
(this process and its children, user + sys: the measure on a shared machine), the wall
time and the peak memory (resident, the largest process). Target (issue 28): at most 60 s
on 2 cores with 10 trials. ``--out`` keeps the tables (to compare two versions byte for byte).

    python benchmarks/bench_degradation.py [--data ../shared/data] [--trials 10] [--processes 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 60.0


def cpu_seconds() -> float:
    """User + sys CPU time of this process and of its waited-for children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def peak_mib() -> float:
    """The largest resident set of this process or a child, in MiB (Linux: ru_maxrss in KiB)."""
    return max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024


def main() -> int:
    from irmeta.metaeval.reproducibility_table import OrderSettings
    from irmeta.pipeline.reproducibility import tabulate_degradation

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", default=None, help="folder to keep the tables and figure in")
    args = parser.parse_args()
    trec8 = Path(args.data) / "trec8_adhoc"
    with tempfile.TemporaryDirectory() as folder:
        out = Path(args.out or folder)
        out.mkdir(parents=True, exist_ok=True)
        cpu, start = cpu_seconds(), time.perf_counter()
        tabulate_degradation(
            qrels=trec8 / "qrels.txt", runs=trec8 / "runs", measures=["P@100", "AP@100"], alphas=[],
            rarity_depth=None, measure_options=None, baselines=[], order=OrderSettings(100, 0.95, 100),
            degradations={"kinds": ["swap", "replace", "noise"], "levels": [0, 0.05, 0.1, 0.2, 0.4],
                          "trials": args.trials, "depth": 100},
            seed=20230402, threshold=1, reading={"depth": None, "duplicates": "error", "run_name": "file"},
            table_out=out / "reproducibility_degradation.csv", trust_out=out / "reproducibility_trust.csv",
            figure_stem=out / "reproducibility_degradation", processes=args.processes)
        wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    print(f"degraded reproductions, TREC-8 (129 runs, depth 100, 5 levels x 3 kinds x {args.trials} trials, "
          f"{args.processes} processes): {cpu:.1f} s CPU, {wall:.1f} s wall, peak {peak_mib():.0f} MiB "
          f"(target < {TARGET_SECONDS:.0f} s on 2 cores at 10 trials)")
    return 0 if wall < TARGET_SECONDS * args.trials / 10 else 1


if __name__ == "__main__":
    sys.exit(main())
