"""Benchmark: ingest all 129 TREC-8 ad hoc runs (6.3 M lines, gzip) and the qrels.

Target (issue 2): under 15 s wall and under 2 GB peak memory on a 2-core machine.
Each measurement runs in a fresh process so the peak RSS is the ingestion's own.

    python benchmarks/bench_ingest.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, tempfile, time
from pathlib import Path

data = Path(sys.argv[1])
t0 = time.perf_counter()
qrels = read_qrels(data / "trec8_adhoc" / "qrels.txt")
runs = read_runs(data / "trec8_adhoc" / "runs", depth=1000)
t1 = time.perf_counter()
with tempfile.TemporaryDirectory() as tmp:
    write_runs(runs, Path(tmp) / "runs.parquet")
    write_qrels(qrels, Path(tmp) / "qrels.parquet")
t2 = time.perf_counter()
print(json.dumps({"read_s": t1 - t0, "write_s": t2 - t1, "rows": len(runs), "runs": runs.n_runs,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = []
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, args.data], check=True, capture_output=True, text=True)
        results.append(json.loads(out.stdout))
    best = min(results, key=lambda r: r["read_s"] + r["write_s"])
    total = best["read_s"] + best["write_s"]
    peak = max(r["peak_mb"] for r in results)
    print(f"ingest TREC-8: {best['runs']} runs, {best['rows']:,} rows")
    print(f"  read+order+cut {best['read_s']:.2f} s, parquet write {best['write_s']:.2f} s, "
          f"total {total:.2f} s (best of {args.repeat}; target < 15 s)")
    print(f"  peak memory {peak:.0f} MB (target < 2048 MB)")
    return 0 if total < 15 and peak < 2048 else 1


if __name__ == "__main__":
    sys.exit(main())
