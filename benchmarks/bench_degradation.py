"""Benchmark: issue 28's degraded reproductions on TREC-8 (rule
tabulate_reproducibility_degradation's library call): every one of the 129 runs, cut at
depth 100, reproduced by copies of itself at 5 levels x 3 kinds x ``--trials`` trials,
P@100 and AP@100; prints the wall time. Target (issue 28): at most 60 s on 2 cores with
10 trials.

    python benchmarks/bench_degradation.py [--data ../shared/data] [--trials 10]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 60.0


def main() -> int:
    from irmeta.metaeval.reproducibility_table import OrderSettings
    from irmeta.pipeline.reproducibility import tabulate_degradation

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--trials", type=int, default=10)
    args = parser.parse_args()
    trec8 = Path(args.data) / "trec8_adhoc"
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        start = time.perf_counter()
        tabulate_degradation(
            qrels=trec8 / "qrels.txt", runs=trec8 / "runs", measures=["P@100", "AP@100"], alphas=[],
            rarity_depth=None, measure_options=None, baselines=[], order=OrderSettings(100, 0.95, 100),
            degradations={"kinds": ["swap", "replace", "noise"], "levels": [0, 0.05, 0.1, 0.2, 0.4],
                          "trials": args.trials, "depth": 100},
            seed=20230402, threshold=1, reading={"depth": None, "duplicates": "error", "run_name": "file"},
            table_out=out / "d.csv", trust_out=out / "t.csv", figure_stem=out / "d")
        wall = time.perf_counter() - start
    print(f"degraded reproductions, TREC-8 (129 runs, depth 100, 5 levels x 3 kinds x {args.trials} trials): "
          f"{wall:.1f} s wall (target < {TARGET_SECONDS:.0f} s at 10 trials)")
    return 0 if wall < TARGET_SECONDS * args.trials / 10 else 1


if __name__ == "__main__":
    sys.exit(main())
