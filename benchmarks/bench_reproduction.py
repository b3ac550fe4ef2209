"""Benchmark: the whole TREC-8 reproduction through Snakemake, end to end.

From the 129 gzipped runs to the paper's tables and figures with the paper's config
(config/paper.yaml, TREC-8 only): ingestion, scoring at 5 alphas, every experiment at
the paper's settings (1000 trials each, both fuzziness modes, three discriminative-power
methods, 1000 permutations), figures and tables. Target: under 20 s wall on 2 cores
(55 s before the campaign was stored as postings), under 2 GB peak memory per job.

Runs in a temporary copy of the workflow; prints the wall time, and each job's time
and peak memory from Snakemake's benchmark files.

    python benchmarks/bench_reproduction.py [--data ../shared/data] [--cores 2]
                                            [--configfile config/paper.yaml]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--collection", default="trec8")
    parser.add_argument("--configfile", default="config/paper.yaml", help="relative to the repository")
    args = parser.parse_args()
    snakemake = Path(sys.executable).parent / "snakemake"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copy2(ROOT / "Snakefile", work / "Snakefile")
        for folder in ("workflow", "config", "profiles"):
            shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
        start = time.perf_counter()
        subprocess.run([str(snakemake), "--cores", str(args.cores), "--quiet", "all", "--directory", str(work),
                        "--configfile", str(work / args.configfile),
                        "--config", f"data_root={Path(args.data).resolve()}", f"collections=[{args.collection}]"],
                       check=True, cwd=work)
        wall = time.perf_counter() - start
        rows = []
        for tsv in sorted((work / "results" / "benchmarks").rglob("*.tsv")):
            bench = pd.read_csv(tsv, sep="\t")
            rows.append({"job": f"{tsv.parent.name}/{tsv.stem}", "seconds": float(bench["s"].iloc[0]),
                         "max_rss_mb": float(bench["max_rss"].iloc[0]) if "max_rss" in bench else float("nan")})
    jobs = pd.DataFrame(rows).sort_values("seconds", ascending=False)
    print(f"{args.collection} reproduction end to end: {wall:.1f} s wall on {args.cores} cores, "
          f"{args.configfile} (target < {TARGET_SECONDS} s)")
    print(f"  {len(jobs)} jobs, {jobs['seconds'].sum():.1f} s of job time; "
          f"peak memory of a job {jobs['max_rss_mb'].max():.0f} MB (target < 2048 MB)")
    print(jobs.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    return 0 if wall < TARGET_SECONDS and jobs["max_rss_mb"].max() < 2048 else 1


if __name__ == "__main__":
    sys.exit(main())
