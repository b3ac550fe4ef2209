"""Benchmark: ``irmeta score`` on TREC-8 as a trec_eval user runs it.

All 129 gzipped runs, P@100 and AP@100 (means over every qrels topic), as one command;
prints its wall time and peak memory (the child's maximum resident set size), best of
``--repeat``. Targets: no slower than 7.6 s and under 150 MB (for reference, on this
kind of machine: trec_eval 14 s for the 129 files at 12 MB, ir_measures 25.5 s, ranx
67 s).

    python benchmarks/bench_score.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from child_process import run_once

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS, TARGET_MB = 7.6, 150


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    trec8 = Path(args.data) / "trec8_adhoc"
    command = [str(Path(sys.executable).parent / "irmeta"), "score", "--qrels", str(trec8 / "qrels.txt"),
               "--runs", str(trec8 / "runs"), "--measure", "P@100", "--measure", "AP@100"]
    times = [run_once(command) for _ in range(max(1, args.repeat))]
    wall = min(t for t, _ in times)
    peak = max(m for _, m in times)
    print(f"irmeta score, TREC-8 (129 runs, P@100 and AP@100): {wall:.2f} s wall (best of {len(times)}), "
          f"peak {peak:.0f} MB (targets < {TARGET_SECONDS} s, < {TARGET_MB} MB)")
    return 0 if wall < TARGET_SECONDS and peak < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
