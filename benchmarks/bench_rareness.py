"""Benchmark: rarity and every rareness measure on TREC-8, after ingestion.

Target (issue 3): rarity plus P@100, AP@100, P/AP_rareness and their [0, 1] forms at
5 alphas, for all 129 runs and 50 topics, in under 2 s and under 1 GB extra memory.
The clock starts with the ingested runs and qrels in memory (as the scoring rule has
them after reading runs.parquet) and includes joining them into the relevance matrix.

    python benchmarks/bench_rareness.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import evaluate

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"]
ALPHAS = [0, 0.25, 0.5, 0.75, 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = Path(args.data) / "trec8_adhoc"
    runs = read_runs(data / "runs", depth=1000)
    qrels = read_qrels(data / "qrels.txt")

    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        matrix = relevance_matrix(runs, qrels, depth=100)
        scores = evaluate(matrix, MEASURES, alphas=ALPHAS)
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    matrix = relevance_matrix(runs, qrels, depth=100)
    scores = evaluate(matrix, MEASURES, alphas=ALPHAS)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    cells = sum(v.size for v in scores.values())
    best = min(times)
    print(f"rareness measures on TREC-8: {len(matrix.runs)} runs x {len(matrix.topics)} topics, "
          f"{len(MEASURES)} measures, {len(ALPHAS)} alphas ({cells:,} per-topic scores)")
    print(f"  {best:.3f} s (best of {args.repeat}; target < 2 s), extra memory peak {peak:.0f} MB (target < 1024 MB)")
    return 0 if best < 2 and peak < 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
