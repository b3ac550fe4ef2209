"""Benchmark: ``irmeta repro`` on TREC-8 as an author who has just reproduced a paper runs it.

Two run pairs (CL99SD reproduced by CL99SDopt1 as the baseline, CL99XT by CL99XTopt as
the advanced run), five measures (AP, P@10, nDCG@10, P_rareness@100 at its five alphas,
ASL), KTU and RBO over the full 1,000 documents; prints the wall time and peak memory,
best of ``--repeat``. Target (issue 28): under 2 s.

    python benchmarks/bench_repro.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from child_process import run_once

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 2.0
MEASURES = ("AP", "P@10", "nDCG@10", "P_rareness@100", "ASL")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    trec8 = Path(args.data) / "trec8_adhoc"
    runs = trec8 / "runs"
    command = [str(Path(sys.executable).parent / "irmeta"), "repro", "--qrels", str(trec8 / "qrels.txt"),
               "--original-baseline", str(runs / "CL99SD.gz"), "--original-advanced", str(runs / "CL99XT.gz"),
               "--reproduced-baseline", str(runs / "CL99SDopt1.gz"),
               "--reproduced-advanced", str(runs / "CL99XTopt.gz"), "--format", "tsv"]
    for measure in MEASURES:
        command += ["--measure", measure]
    times = [run_once(command) for _ in range(max(1, args.repeat))]
    wall = min(t for t, _ in times)
    peak = max(m for _, m in times)
    print(f"irmeta repro, TREC-8 (2 run pairs, {len(MEASURES)} measures): {wall:.2f} s wall (best of {len(times)}), "
          f"peak {peak:.0f} MB (target < {TARGET_SECONDS} s)")
    return 0 if wall < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
