"""Benchmark: every public campaign at once, ``make campaigns`` through Snakemake, end to end.

TREC-8 (129 runs), CLEF TAR 2017 (19 runs) and TREC DL 2020 passage (59 runs) with
config/campaigns.yaml: the paper's measures plus nDCG@10, nDCG_rareness@10, RBP and
RBP_rareness at 5 alphas, three averagings, every experiment at the paper's settings
(1000 trials and permutations), the claims, the collection properties and their figure.
Target: at most 3 minutes wall on 2 cores (issue 20).

Runs in a temporary copy of the workflow; prints the wall time, and the slowest jobs'
time and peak memory from Snakemake's benchmark files. ``--keep DIR`` copies the results
there (the README's claims section is read from them).

    python benchmarks/bench_campaigns.py [--data ../shared/data] [--cores 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from workflow_runs import copy_workflow, run_workflow

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 180


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--configfile", default="config/campaigns.yaml", help="relative to the repository")
    parser.add_argument("--keep", default=None, help="copy the results folder here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_workflow(Path(tmp))
        wall, jobs = run_workflow(work, args.cores, "--configfile", str(work / args.configfile),
                                  "--config", f"data_root={Path(args.data).resolve()}")
        if args.keep:
            shutil.copytree(work / "results", args.keep, dirs_exist_ok=True)
    print(f"make campaigns end to end: {wall:.1f} s wall on {args.cores} cores, {args.configfile} "
          f"(target <= {TARGET_SECONDS} s)")
    print(f"  {len(jobs)} jobs with a benchmark, {jobs['seconds'].sum():.1f} s of job time; "
          f"peak memory of a job {jobs['max_rss_mb'].max():.0f} MB")
    print(jobs.head(15).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    return 0 if wall <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
