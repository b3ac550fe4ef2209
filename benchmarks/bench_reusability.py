"""Benchmark: leave-one-run-out (or -group-out) on a simulated campaign, the library call
the rule ``assess_reusability`` makes.

``irmeta simulate`` writes a RUNSxTOPICSxDEPTH campaign (default 500x500x100, issue 19's
target: at most 120 s, no job above 2 GB), irmeta ingests it (the pipeline's
``judged.npz``), and :func:`irmeta.metaeval.reusability.leave_one_unit_out` scores every
run without the judgments only it pooled (pool depth = the depth), the paper's six
measures at five alphas, both rarity rules. Prints the time of each step and the
process's peak memory (the call runs in a fresh process, so its peak is its own).

    python benchmarks/bench_reusability.py [--size 500x500x100] [--unit run|group] [--campaign DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS, TARGET_MB = 120, 2048
MEASURES = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"]
ALPHAS = [0, 0.25, 0.5, 0.75, 1]

CHILD = """
import resource, sys, time
from irmeta.campaign.run_groups import read_run_groups, run_units
from irmeta.campaign.store import load_matrix
from irmeta.measures.averaging import score_arrays
from irmeta.metaeval.reusability import leave_one_unit_out
judged, groups, unit, depth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
measures, alphas = {measures!r}, {alphas!r}
start = time.perf_counter()
matrix = load_matrix(judged)
full = score_arrays(matrix, measures, averaging=("all",), alphas=alphas)
loaded = time.perf_counter() - start
units = run_units(matrix.runs, read_run_groups(groups), kind=unit)
start = time.perf_counter()
result = leave_one_unit_out(matrix, measures, units, pool_depth=depth, alphas=alphas, full=full)
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{units.n_units}} units ({{unit}}), {{len(result.variants)}} variants: load and full scores {{loaded:.1f}} s, "
      f"leave-one-out {{took:.1f}} s, peak {{peak:.0f}} MB")
print(f"RESULT {{took:.3f}} {{peak:.1f}}")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="500x500x100")
    parser.add_argument("--unit", default="run", choices=["run", "group"])
    parser.add_argument("--campaign", default=None, help="keep (or reuse) the simulated campaign here")
    args = parser.parse_args()
    runs, topics, depth = (int(x) for x in args.size.lower().split("x"))
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        campaign = Path(args.campaign or tmp) / "campaign"
        judged = campaign.parent / "judged.npz"
        if not judged.is_file():
            start = time.perf_counter()
            subprocess.run([str(bin_dir / "irmeta"), "simulate", "--out", str(campaign), "--runs", str(runs),
                            "--topics", str(topics), "--depth", str(depth), "--pool-size", str(max(400, 2 * depth)),
                            "--threads", "2"], check=True, stderr=subprocess.DEVNULL)
            print(f"simulated {args.size} in {time.perf_counter() - start:.1f} s")
            start = time.perf_counter()
            from irmeta.pipeline.steps import ingest_collection

            ingest_collection(qrels=campaign / "qrels.txt", runs=campaign / "runs", out=judged, depth=depth)
            print(f"ingested in {time.perf_counter() - start:.1f} s")
        child = CHILD.format(measures=MEASURES, alphas=ALPHAS)
        out = subprocess.run([sys.executable, "-c", child, str(judged), str(campaign / "run_groups.tsv"), args.unit,
                              str(depth)], check=True, capture_output=True, text=True).stdout
    print(out.splitlines()[0])
    took, peak = (float(x) for x in out.splitlines()[-1].split()[1:])
    ok = took <= TARGET_SECONDS and peak <= TARGET_MB
    print(f"target: <= {TARGET_SECONDS} s and <= {TARGET_MB} MB: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
