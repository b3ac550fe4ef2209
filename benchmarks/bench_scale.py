"""Benchmark: simulated campaigns at scale through the default battery, end to end.

For each size RUNSxTOPICSxDEPTH (default: 1000x1000x100 and 100x250x1000; issue 30's
are 1000x1000x1000 and 150x7000x1000, 10^9 lines each) and a smaller one (a quarter of
the cells, or ``--growth-from``), ``irmeta simulate`` writes the gzipped campaign,
streaming (a block of topics at a time, never the whole campaign in memory), then
Snakemake runs every experiment of the default config on it (a collection YAML in a
temporary copy of the workflow), ingestion in ``--ingest-shards`` jobs. Prints:

- the simulation's wall and CPU time and peak memory; the workflow's wall time;
- each job's wall and CPU time (user + sys: what a shared machine does not inflate)
  and peak memory, from Snakemake's benchmark files, and the same per rule;
- the stored campaign's disk: judged.npz beside the gzipped runs, the ratio (issue 30:
  at most a third) and where its bytes go, array by array; and ranked.npz, the rankings
  the degraded reproductions read, when they are on;
- growth from the smaller size: for each rule, how its CPU time grew against the lines,
  the judged postings and the runs squared, and which it follows.

- ingestion apart: ``memory_budget`` and ``ingest_shards``, its wall time (the first
  ingest job's start to the last one's end) and CPU time, and each ingest job's true
  peak, its own high-water mark as the job recorded it (``peak memory ... MB``, through
  ``IRMETA_JOB_TIMES``), never Snakemake's 30-second samples (a job that recorded none
  is named so and fails the benchmark).

Targets: 1000x1000x100 under 20 minutes with no job above 4 GB; 500x500x100 under 4
minutes, no job above 2 GB; 1000x1000x1000 under 60 minutes, no job above 4 GB;
ingestion of 1000x100x1000 in one job at most 1.5 GB, and of 1000x1000x1000 in one job
or in 8 no job above 4 GB (issue 44, at the default memory budget).
``--only-ingest`` stops after judged.npz (disk and ingestion figures only); ``--battery
paper`` runs ``config/paper.yaml``'s experiments instead of every one (issue 30: 30
minutes at 1000x1000x1000). With ``--keep DIR`` a campaign simulated there before is used
again (its simulation figures are kept beside it); the workflow always starts from the
gzipped runs.

``--ingest-shards 1,8`` runs each size once per shard count (the campaign simulated once).

    python benchmarks/bench_scale.py [--sizes 1000x1000x100,100x250x1000] [--cores 2]
                                     [--ingest-shards 2[,8]] [--memory-budget MB]
                                     [--growth-from SIZE | --no-growth]
                                     [--only-ingest] [--battery all|paper] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workflow_runs import JOB_TIMES, copy_workflow, run_workflow, statistics_jobs

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {(1000, 1000, 100): (20 * 60, 4096), (500, 500, 100): (4 * 60, 2048), (1000, 1000, 1000): (60 * 60, 4096)}
PAPER_TARGETS = {(1000, 1000, 1000): (30 * 60, 4096)}  # issue 30: the paper's battery in 30 minutes
STATISTICS_JOBS = ("test_run_pairs", "gather_pairwise_tests", "tabulate_discriminative_power", "plot_p_value_curves",
                   "tabulate_kendall_tau", "tabulate_variance")
DISK_TARGET = 1 / 3  # judged.npz at most a third of the gzipped runs (issue 30)
INGEST_RULES = ("ingest_shard", "ingest_collection")
# issue 44: ingestion's largest job at the default memory budget, by size and shard count (None: any)
INGEST_TARGETS = {((1000, 100, 1000), 1): 1536, ((1000, 1000, 1000), None): 4096}


def parse_size(text: str) -> tuple[int, int, int]:
    runs, topics, depth = (int(x) for x in text.lower().split("x"))
    return runs, topics, depth


def smaller(size: tuple[int, int, int]) -> tuple[int, int, int]:
    """A quarter of the cells: half the runs and half the topics."""
    runs, topics, depth = size
    return max(2, runs // 2), max(2, topics // 2), depth


def simulate(size: tuple[int, int, int], campaign: Path, cores: int) -> dict:
    """``irmeta simulate`` in a child process: wall and CPU seconds, peak MB."""
    runs, topics, depth = size
    irmeta = Path(sys.executable).parent / "irmeta"
    command = [str(irmeta), "simulate", "--out", str(campaign), "--runs", str(runs), "--topics", str(topics),
               "--depth", str(depth), "--pool-size", str(max(400, 2 * depth)), "--threads", str(cores)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise SystemExit(f"{' '.join(command)} failed with status {status}")
    return {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024}


def stored_bytes(judged: Path) -> dict[str, int]:
    """Bytes of each array of judged.npz (uncompressed: the array's data and header)."""
    import zipfile

    with zipfile.ZipFile(judged) as z:
        return {info.filename.removesuffix(".npy"): info.file_size for info in z.infolist()}


def postings(judged: Path) -> int:
    from irmeta.campaign.store import stored_postings

    return stored_postings(judged)


def simulated_once(size: tuple[int, int, int], campaign: Path, cores: int) -> dict:
    """:func:`simulate`, or the campaign a kept folder already holds (its figures were
    recorded beside it when it was made)."""
    record = campaign / "simulated.json"
    if record.is_file():
        return json.loads(record.read_text())
    if campaign.exists():
        shutil.rmtree(campaign)
    figures = simulate(size, campaign, cores)
    record.write_text(json.dumps(figures))
    return figures


def run_size(size: tuple[int, int, int], work: Path, cores: int, shards: int, only_ingest: bool,
             battery: str = "all", settings: tuple[str, ...] = (), memory_budget: int | None = None) -> dict:
    """One size through the battery; ``settings``: config files read after the battery's;
    ``memory_budget``: the ingestion's (None: the config's default)."""
    runs, topics, depth = size
    name = f"scale{runs}x{topics}x{depth}"
    campaign = work / name / "campaign"
    simulated = simulated_once(size, campaign, cores)
    flow = work / name / f"workflow-{battery}"
    shutil.rmtree(flow, ignore_errors=True)  # every run from the gzipped runs, ingestion included
    copy_workflow(flow)
    (flow / "config" / "collections" / f"{name}.yaml").write_text(
        f"name: {name}\nlabel: {name}\ndescription: simulated, {runs} runs x {topics} topics x depth {depth}\n"
        f"qrels: {campaign / 'qrels.txt'}\nruns: {campaign / 'runs'}\ndepth: {depth}\n")
    targets = (f"results/{name}/judged.npz",) if only_ingest else ("all",)
    configs = ("--configfile", *(["config/paper.yaml"] if battery == "paper" else []), *settings)
    configs = configs if len(configs) > 1 else ()
    budget = [] if memory_budget is None else [f"memory_budget={memory_budget}"]
    wall, jobs = run_workflow(flow, cores, *configs, "--config", f"collections=[{name}]", f"ingest_shards={shards}",
                              *budget, targets=targets)
    judged = flow / "results" / name / "judged.npz"
    ranked = flow / "results" / name / "ranked.npz"
    gz = sum(p.stat().st_size for p in (campaign / "runs").iterdir())
    return {"size": size, "battery": battery, "settings": list(settings), "only_ingest": only_ingest,
            "lines": runs * topics * depth, "shards": shards, "ingestion": ingestion_jobs(flow, jobs),
            "memory_budget": memory_budget if memory_budget is not None else default_memory_budget(),
            "simulated": simulated, "wall": wall, "jobs": jobs,
            "gz_bytes": gz, "stored": stored_bytes(judged), "postings": postings(judged),
            "ranked_bytes": ranked.stat().st_size if ranked.exists() else None}


def default_memory_budget() -> int:
    from irmeta.pipeline.config_schema import load_schema

    return int(load_schema("config.schema.yaml")["properties"]["memory_budget"]["default"])


def ingestion_jobs(flow: Path, jobs) -> list[dict]:
    """Each ingest job (shards, then the merge or the one job): its wall and CPU seconds
    (Snakemake's benchmark file), its start and end and its own peak as it recorded
    them (``IRMETA_JOB_TIMES``; None when it recorded none)."""
    recorded = {}
    for path in (flow / JOB_TIMES).glob("*.json"):
        entry = json.loads(path.read_text())
        if entry["rule"] in INGEST_RULES:
            recorded[f"{entry['rule']}/{entry['job']}"] = entry
    out = []
    for row in jobs.itertuples():
        rule = row.job.split("/")[0]
        if rule not in INGEST_RULES:
            continue
        entry = recorded.get(row.job)
        out.append({"job": row.job, "seconds": row.seconds, "cpu_seconds": row.cpu_seconds,
                    "peak_mb": None if entry is None else max(entry["peak_mb"], entry.get("forked_peak_mb", 0.0)),
                    "began": None if entry is None else entry.get("began"),
                    "ended": None if entry is None else entry.get("ended")})
    return sorted(out, key=lambda j: (j["job"].startswith("ingest_collection"), j["job"]))


def ingestion_report(result: dict) -> bool:
    """Ingestion apart: its settings, wall and CPU, and each job's true peak (issue 44)."""
    jobs = result["ingestion"]
    if not jobs:
        return True
    times = [(j["began"], j["ended"]) for j in jobs if j["began"] is not None and j["ended"] is not None]
    wall = max(e for _, e in times) - min(b for b, _ in times) if len(times) == len(jobs) else float("nan")
    peaks = [j["peak_mb"] for j in jobs]
    recorded = all(p is not None for p in peaks)
    largest = max((p for p in peaks if p is not None), default=float("nan"))
    target = INGEST_TARGETS.get((result["size"], result["shards"])) or INGEST_TARGETS.get((result["size"], None))
    default = result["memory_budget"] == default_memory_budget()
    ok = recorded and (target is None or not default or largest <= target)
    verdict = f" (target at most {target} MB: {'met' if ok else 'missed'})" if target and default else ""
    print(f"ingestion: memory_budget {result['memory_budget']} MB, ingest_shards {result['shards']}: {len(jobs)} "
          f"job(s), {wall:.0f} s wall (first start to last end), {sum(j['cpu_seconds'] for j in jobs):.0f} s CPU, "
          f"largest true peak {largest:.0f} MB{verdict}")
    for j in jobs:
        peak = f"{j['peak_mb']:.0f} MB" if j["peak_mb"] is not None else "NOT RECORDED (no IRMETA_JOB_TIMES entry)"
        print(f"  {j['job']:<44} {j['seconds']:8.1f} s wall {j['cpu_seconds']:8.1f} s CPU  true peak {peak}")
    return ok


def by_rule(jobs):
    """Per rule: jobs, wall and CPU seconds summed, the largest peak memory."""
    rules = jobs.assign(rule=jobs["job"].str.split("/").str[0])
    return rules.groupby("rule").agg(jobs=("job", "size"), seconds=("seconds", "sum"),
                                     cpu_seconds=("cpu_seconds", "sum"), max_rss_mb=("max_rss_mb", "max")
                                     ).sort_values("cpu_seconds", ascending=False)


def report(result: dict, cores: int) -> bool:
    runs, topics, depth = result["size"]
    jobs = result["jobs"]
    peak = jobs["max_rss_mb"].max()
    target = (PAPER_TARGETS if result["battery"] == "paper" else TARGETS).get(result["size"])
    verdict = ""
    ok = True
    if target:
        ok = result["wall"] < target[0] and peak < target[1]
        verdict = f" (target < {target[0] / 60:.0f} min, no job above {target[1] / 1024:.0f} GB: " \
                  f"{'met' if ok else 'missed'})"
    sim = result["simulated"]
    print(f"\n{runs} runs x {topics} topics x depth {depth} ({result['lines'] / 1e6:.0f} M lines, "
          f"{'only ingestion' if result.get('only_ingest') else result['battery'] + ' battery'}): simulated in "
          f"{sim['wall']:.0f} s wall, {sim['cpu']:.0f} s CPU, peak {sim['peak_mb']:.0f} MB; {len(jobs)} jobs in "
          f"{result['wall']:.0f} s wall on {cores} cores, {jobs['seconds'].sum():.0f} s of job time "
          f"({jobs['cpu_seconds'].sum():.0f} s CPU), largest job {peak:.0f} MB{verdict}")
    if result.get("settings"):
        print("config files read after the battery's: " + ", ".join(result["settings"]))
    ok &= ingestion_report(result)
    print(jobs.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print("per rule:")
    print(by_rule(jobs).to_string(float_format=lambda v: f"{v:.1f}"))
    mine = statistics_jobs(jobs, STATISTICS_JOBS)
    if len(mine):  # issue 21: these within 5 minutes at 500 x 500, no job above 2 GB
        print(f"issue 21's statistics ({', '.join(STATISTICS_JOBS)}): {len(mine)} jobs, "
              f"{mine['seconds'].sum():.0f} s of job time ({mine['seconds'].sum() / cores:.0f} s on {cores} cores), "
              f"largest {mine['max_rss_mb'].max():.0f} MB")
    return disk(result) and ok


def disk(result: dict) -> bool:
    """judged.npz against the gzipped runs, and where its bytes go."""
    stored, gz = result["stored"], result["gz_bytes"]
    total = sum(stored.values())
    ratio = total / gz
    ok = ratio <= DISK_TARGET
    print(f"disk: judged.npz {total / 1e6:.1f} MB for {gz / 1e6:.1f} MB of gzipped runs: {ratio:.3f} of them "
          f"(target at most {DISK_TARGET:.3f}: {'met' if ok else 'missed'}); {result['postings'] / 1e6:.2f} M judged "
          f"postings for {result['lines'] / 1e6:.0f} M lines ({total / result['lines']:.2f} bytes a line, "
          f"{gz / result['lines']:.2f} gzipped)")
    for array, size in sorted(stored.items(), key=lambda item: -item[1]):
        if size >= total / 1000:
            print(f"  {array:<16} {size / 1e6:10.1f} MB  {size / total:6.1%}")
    if result.get("ranked_bytes"):  # kept only while the degraded reproductions are on
        ranked = result["ranked_bytes"]
        print(f"ranked.npz (every ranking to the degradations' depth): {ranked / 1e6:.1f} MB, {ranked / gz:.3f} of "
              f"the gzipped runs; with judged.npz {(ranked + total) / gz:.3f}")
    return ok


def growth(small: dict, large: dict) -> None:
    """Each rule's CPU time against what it could grow with: lines, judged postings, runs squared."""
    drivers = {"lines": large["lines"] / small["lines"], "postings": large["postings"] / small["postings"],
               "runs^2": (large["size"][0] / small["size"][0]) ** 2}
    cells = drivers["lines"]
    wall = large["wall"] / small["wall"]
    job_time = large["jobs"]["cpu_seconds"].sum() / small["jobs"]["cpu_seconds"].sum()
    memory = large["jobs"]["max_rss_mb"].max() / small["jobs"]["max_rss_mb"].max()
    sizes = [("x".join(map(str, r["size"]))) for r in (small, large)]
    print(f"\ngrowth from {sizes[0]} to {sizes[1]}: lines x{cells:.2f}, postings x{drivers['postings']:.2f}, "
          f"runs squared x{drivers['runs^2']:.2f}; wall x{wall:.2f}, job CPU time x{job_time:.2f}, largest job's "
          f"memory x{memory:.2f} (exponents {math.log(job_time) / math.log(cells):.2f} and "
          f"{math.log(memory) / math.log(cells):.2f} in the lines)")
    before, after = by_rule(small["jobs"]), by_rule(large["jobs"])
    print(f"{'rule':<36} {'CPU s':>8} {'CPU s':>8} {'x':>7} {'memory x':>9}  follows (closest growth)")
    for rule in after.index:
        if rule not in before.index or before.loc[rule, "cpu_seconds"] <= 0:
            continue
        ratio = after.loc[rule, "cpu_seconds"] / before.loc[rule, "cpu_seconds"]
        mem = after.loc[rule, "max_rss_mb"] / before.loc[rule, "max_rss_mb"]
        print(f"{rule:<36} {before.loc[rule, 'cpu_seconds']:8.1f} {after.loc[rule, 'cpu_seconds']:8.1f} "
              f"{ratio:7.2f} {mem:9.2f}  {follows(ratio, drivers)}")


def follows(ratio: float, drivers: dict[str, float]) -> str:
    """What a rule's CPU growth ``ratio`` follows: the drivers that grew (lines, postings,
    runs squared) whose growth is closest on a log scale; "fixed" when it grew by less than
    a sixth of the largest driver's log (the drivers that did not grow between the two
    sizes named with it, since they cannot be told apart from a fixed cost); in between,
    "partly", with the exponent in the largest driver."""
    if ratio <= 0:
        return "?"
    grown = {name: v for name, v in drivers.items() if v > 0 and abs(math.log(v)) > 0.1}
    unchanged = [name for name in drivers if name not in grown]
    fixed = "fixed (start-up" + "".join(f", {name}" for name in unchanged) + (": unchanged here)" if unchanged else ")")
    if not grown:
        return fixed
    largest = max(grown, key=lambda name: math.log(grown[name]))
    exponent = math.log(ratio) / math.log(grown[largest])
    if exponent < 1 / 6:
        return fixed
    distance = {name: abs(math.log(ratio) - math.log(v)) for name, v in grown.items()}
    best = min(distance.values())
    if exponent < 5 / 6 and best >= math.log(1.5):
        return f"partly {largest} (exponent {exponent:.2f})"
    return " = ".join(name for name, d in distance.items() if d <= best + 0.05)  # drivers that grew alike tie


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000x1000x100,100x250x1000")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--ingest-shards", help="ingest_shards of the workflow (default: --cores); several, "
                                                "comma-separated, run each size once per count")
    parser.add_argument("--memory-budget", type=int, help="memory_budget (MB) of the ingestion (default: the "
                                                          "config's)")
    parser.add_argument("--growth-from", help="the size growth is measured from (default: a quarter of the cells)")
    parser.add_argument("--no-growth", action="store_true", help="skip the smaller size of each")
    parser.add_argument("--only-ingest", action="store_true", help="stop after judged.npz (disk, ingestion)")
    parser.add_argument("--keep", help="work in this folder and keep it (default: a temporary one); a campaign "
                                       "simulated there before is used again")
    parser.add_argument("--battery", choices=("all", "paper"), default="all",
                        help="every experiment of config/config.yaml, or config/paper.yaml's experiments")
    parser.add_argument("--configfile", action="append", default=[], metavar="YAML",
                        help="a config file read after the battery's (named with the figures), e.g. one that "
                             "turns an experiment off")
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    shard_counts = [int(n) for n in args.ingest_shards.split(",")] if args.ingest_shards else [args.cores]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="irmeta-scale-"))
    settings = tuple(str(Path(c).resolve()) for c in args.configfile)
    all_ok = True
    try:
        for size in sizes:
            for shards in shard_counts:
                base = parse_size(args.growth_from) if args.growth_from else smaller(size)
                small = None if args.no_growth else run_size(base, work, args.cores, shards, args.only_ingest,
                                                             args.battery, settings, args.memory_budget)
                if small:
                    all_ok &= report(small, args.cores)
                large = run_size(size, work, args.cores, shards, args.only_ingest, args.battery, settings,
                                 args.memory_budget)
                all_ok &= report(large, args.cores)
                if small:
                    growth(small, large)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
