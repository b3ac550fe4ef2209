"""Benchmark: simulated campaigns at scale through the default battery, end to end.

For each size RUNSxTOPICSxDEPTH (default: 1000x1000x100 and 100x250x1000, the issue's
targets) and a smaller one of the same shape (a quarter of the cells, to show the
growth), ``irmeta simulate`` writes the campaign, then Snakemake runs every experiment
of the default config on it (a collection YAML in a temporary copy of the workflow).
Prints the simulation and wall times, each job's time and peak memory from
Snakemake's benchmark files, and how time and the largest job's memory grew with the
cells. Targets: 1000x1000x100 under 20 minutes with no job above 4 GB; 500x500x100
under 4 minutes, no job above 2 GB.

    python benchmarks/bench_scale.py [--sizes 1000x1000x100,100x250x1000] [--cores 2]
                                     [--no-growth] [--keep DIR]
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workflow_runs import copy_workflow, run_workflow, statistics_jobs

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {(1000, 1000, 100): (20 * 60, 4096), (500, 500, 100): (4 * 60, 2048)}
STATISTICS_JOBS = ("test_run_pairs", "gather_pairwise_tests", "tabulate_discriminative_power", "plot_p_value_curves",
                   "tabulate_kendall_tau", "tabulate_variance")


def parse_size(text: str) -> tuple[int, int, int]:
    runs, topics, depth = (int(x) for x in text.lower().split("x"))
    return runs, topics, depth


def smaller(size: tuple[int, int, int]) -> tuple[int, int, int]:
    """A quarter of the cells: half the runs and half the topics."""
    runs, topics, depth = size
    return max(2, runs // 2), max(2, topics // 2), depth


def run_size(size: tuple[int, int, int], work: Path, cores: int) -> dict:
    runs, topics, depth = size
    name = f"scale{runs}x{topics}x{depth}"
    campaign = work / name / "campaign"
    irmeta = Path(sys.executable).parent / "irmeta"
    start = time.perf_counter()
    subprocess.run([str(irmeta), "simulate", "--out", str(campaign), "--runs", str(runs), "--topics", str(topics),
                    "--depth", str(depth), "--pool-size", str(max(400, 2 * depth)), "--threads", str(cores)],
                   check=True, stderr=subprocess.DEVNULL)
    simulated = time.perf_counter() - start
    flow = copy_workflow(work / name / "workflow")
    (flow / "config" / "collections" / f"{name}.yaml").write_text(
        f"name: {name}\nlabel: {name}\ndescription: simulated, {runs} runs x {topics} topics x depth {depth}\n"
        f"qrels: {campaign / 'qrels.txt'}\nruns: {campaign / 'runs'}\ndepth: {depth}\n")
    wall, jobs = run_workflow(flow, cores, "--config", f"collections=[{name}]")
    return {"size": size, "lines": runs * topics * depth, "simulated": simulated, "wall": wall, "jobs": jobs}


def report(result: dict, cores: int) -> bool:
    runs, topics, depth = result["size"]
    jobs = result["jobs"]
    peak = jobs["max_rss_mb"].max()
    target = TARGETS.get(result["size"])
    verdict = ""
    ok = True
    if target:
        ok = result["wall"] < target[0] and peak < target[1]
        verdict = f" (target < {target[0] / 60:.0f} min, no job above {target[1] / 1024:.0f} GB: " \
                  f"{'met' if ok else 'missed'})"
    print(f"\n{runs} runs x {topics} topics x depth {depth} ({result['lines'] / 1e6:.0f} M lines): simulated in "
          f"{result['simulated']:.0f} s; every experiment in {result['wall']:.0f} s wall on {cores} cores, "
          f"{len(jobs)} jobs, {jobs['seconds'].sum():.0f} s of job time, largest job {peak:.0f} MB{verdict}")
    print(jobs.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    mine = statistics_jobs(jobs, STATISTICS_JOBS)
    if len(mine):  # issue 21: these within 5 minutes at 500 x 500, no job above 2 GB
        print(f"issue 21's statistics ({', '.join(STATISTICS_JOBS)}): {len(mine)} jobs, "
              f"{mine['seconds'].sum():.0f} s of job time ({mine['seconds'].sum() / cores:.0f} s on {cores} cores), "
              f"largest {mine['max_rss_mb'].max():.0f} MB")
    return ok


def growth(small: dict, large: dict) -> None:
    cells = large["lines"] / small["lines"]
    wall = large["wall"] / small["wall"]
    job_time = large["jobs"]["seconds"].sum() / small["jobs"]["seconds"].sum()
    memory = large["jobs"]["max_rss_mb"].max() / small["jobs"]["max_rss_mb"].max()
    sizes = [("x".join(map(str, r["size"]))) for r in (small, large)]
    print(f"\ngrowth from {sizes[0]} to {sizes[1]}: cells x{cells:.2f}, "
          f"wall x{wall:.2f}, job time x{job_time:.2f}, largest job's memory x{memory:.2f} "
          f"(exponents {math.log(job_time) / math.log(cells):.2f} and {math.log(memory) / math.log(cells):.2f} "
          f"in the cells)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000x1000x100,100x250x1000")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--no-growth", action="store_true", help="skip the smaller size of each")
    parser.add_argument("--keep", help="work in this folder and keep it (default: a temporary one)")
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="irmeta-scale-"))
    all_ok = True
    try:
        for size in sizes:
            small = None if args.no_growth else run_size(smaller(size), work, args.cores)
            if small:
                all_ok &= report(small, args.cores)
            large = run_size(size, work, args.cores)
            all_ok &= report(large, args.cores)
            if small:
                growth(small, large)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
