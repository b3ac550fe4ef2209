"""Benchmark: the seeds' other measures for all TREC-8 runs, after ingestion.

Target (issue 6): RR, nDCG@k, DCG (both conventions), Q, O, P-measure, P+-measure, ASL
and ASL@g1-n for all 129 runs and 50 topics at depth 1000 in under 3 s.

    python benchmarks/bench_measures.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import evaluate

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["RR", "nDCG@10", "nDCG@1000", "DCG@1000", "nDCG_jk@1000", "DCG_jk@1000", "Q@1000", "O@1000",
            "Pmeasure@1000", "Pplus@1000", "ASL", "ASL_g1@1", "ASL_g1@10"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = Path(args.data) / "trec8_adhoc"
    runs = read_runs(data / "runs", depth=1000)
    qrels = read_qrels(data / "qrels.txt")
    matrix = relevance_matrix(runs, qrels, depth=1000)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        evaluate(matrix, MEASURES)
        times.append(time.perf_counter() - start)
    best = min(times)
    print(f"seeds' measures on TREC-8: {len(MEASURES)} measures x {len(matrix.runs)} runs x "
          f"{len(matrix.topics)} topics, depth 1000")
    print(f"  {best:.2f} s (best of {args.repeat}; target < 3 s)")
    return 0 if best < 3 else 1


if __name__ == "__main__":
    sys.exit(main())
