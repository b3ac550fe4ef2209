"""Benchmark: what a small campaign pays for starting its jobs (issue 30, item 2).

Three parts, each can be left out:

* ``scripts``: each workflow script's start, measured as a job pays it: a fresh
  interpreter runs Snakemake's script preamble and the script's own top-level imports;
  its CPU seconds and the heavy modules (pandas, scipy.stats, matplotlib...) they load.
* ``workflow``: the TREC-8 paper config (``make reproduce`` with ``collections=[trec8]``)
  in a fresh copy of the workflow; each job records its start (CPU before its work:
  interpreter, preamble, imports) and its work (CPU and wall of the script's ``main``)
  through ``$IRMETA_JOB_TIMES`` (irmeta.pipeline.scripts.record_job_times); Snakemake's
  benchmark files give each job's wall time. Printed per rule and summed over the run,
  with the run's wall and CPU time (Snakemake and every job). Target: 25 s wall on 2 cores.
* ``cli``: ``irmeta score`` and ``irmeta compare`` on 5 TREC-8 runs: wall (best of
  ``--repeat``), CPU, and the CPU of the imports the command made (its modules, from
  ``-X importtime``, imported again in a fresh interpreter). Target: 1.5 s wall each.

CPU times are what load on a shared machine leaves nearly intact; wall times hold only
on an otherwise idle machine. The run's results stay in ``--work`` (compare two with
benchmarks/results_diff.py).

    python benchmarks/bench_startup.py [--data ../shared/data] [--cores 2] [--repeat 3]
                                       [--work /tmp/irmeta-bench-startup] [--skip scripts]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from child_process import run_timed
from workflow_runs import copy_workflow

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "workflow" / "scripts"
BIN = Path(sys.executable).parent
WORKFLOW_TARGET = 25.0
CLI_TARGET = 1.5
HEAVY = ("pandas", "pyarrow", "scipy", "scipy.stats", "statsmodels", "matplotlib", "matplotlib.pyplot")
# What Snakemake's preamble imports before a script's first line (snakemake.script's
# PythonScript.generate_preamble): the pickled job object needs snakemake.script.
PREAMBLE = ("import pickle\nfrom snakemake.logging import logger\n"
            "from snakemake.iocontainers import Snakemake\nimport snakemake.script\n")
TREC8_RUNS = ("CL99SD", "CL99SDopt1", "CL99XT", "CL99XTopt", "AntHoc1")


def top_level_imports(script: Path) -> str:
    """The import statements at the top level of ``script`` (what it runs before ``main``)."""
    source = script.read_text()
    nodes = [n for n in ast.parse(source).body if isinstance(n, ast.Import | ast.ImportFrom)]
    return "\n".join(ast.get_source_segment(source, n) or "" for n in nodes)


def import_cost(code: str, repeat: int) -> tuple[float, list[str]]:
    """(CPU seconds, heavy modules loaded) of a fresh interpreter running ``code``: the
    least CPU of ``repeat`` runs, the interpreter's own start included."""
    probe = (f"{code}\nimport json, sys, time\n"
             f"print(json.dumps([time.process_time(), [m for m in {HEAVY!r} if m in sys.modules]]))")
    best, heavy = float("inf"), []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        cpu, heavy = json.loads(done.stdout.splitlines()[-1])
        best = min(best, cpu)
    return best, heavy


def scripts_part(repeat: int) -> None:
    """Each workflow script's start: preamble + its imports, in CPU seconds."""
    bare, _ = import_cost("", repeat)
    preamble, _ = import_cost(PREAMBLE, repeat)
    print(f"== workflow scripts' start (CPU s, least of {repeat}): interpreter {bare:.2f}, "
          f"+ Snakemake's preamble {preamble:.2f}")
    rows = []
    for script in sorted(SCRIPTS.glob("*.py")):
        cpu, heavy = import_cost(PREAMBLE + top_level_imports(script), repeat)
        rows.append((cpu, script.stem, heavy))
    for cpu, name, heavy in sorted(rows, reverse=True):
        print(f"  {name:40s} {cpu:5.2f}  {' '.join(heavy) or '-'}")
    print(f"  mean start of a script: {sum(r[0] for r in rows) / len(rows):.2f} s CPU")


def job_rows(results: Path, times: Path) -> list[dict]:
    """One row per job: rule, job, Snakemake's wall seconds, and the job's start and work
    CPU and work wall (NaN for a job that recorded none: not a workflow script)."""
    rows = []
    for tsv in sorted((results / "benchmarks").rglob("*.tsv")):
        header, values = tsv.read_text().splitlines()[:2]
        wall = float(dict(zip(header.split("\t"), values.split("\t")))["s"])
        rows.append({"rule": tsv.parent.name, "job": tsv.stem, "wall": wall})
    recorded, by_rule = {}, {}
    for path in times.glob("*.json"):
        entry = json.loads(path.read_text())
        recorded[(entry["rule"], entry["job"])] = entry
        by_rule.setdefault(entry["rule"], []).append(entry)
    nan = float("nan")
    for row in rows:
        # a rule without wildcards names its benchmark file itself ("claims", "paper")
        only = by_rule.get(row["rule"], [])
        entry = recorded.get((row["rule"], row["job"]), only[0] if len(only) == 1 else {})
        row.update(start_cpu=entry.get("start_cpu", nan), work_cpu=entry.get("work_cpu", nan),
                   work_wall=entry.get("work_wall", nan), in_process=False,
                   began=entry.get("began") or nan, ended=entry.get("ended") or nan,
                   loaded=entry.get("loaded", []))
    # jobs run in the workflow's process (localrules' run:) keep no benchmark file
    benchmarked = {row["rule"] for row in rows}
    for (rule, job), entry in sorted(recorded.items()):
        if rule not in benchmarked:
            rows.append({"rule": rule + " (in process)", "job": job, "wall": entry["work_wall"],
                         "start_cpu": 0.0, "work_cpu": entry["work_cpu"], "work_wall": entry["work_wall"],
                         "in_process": True, "began": entry.get("began") or nan, "ended": entry.get("ended") or nan,
                         "loaded": []})
    return rows


def print_rules(rows: list[dict]) -> None:
    """Per rule: jobs, start CPU, work CPU, work wall, job wall, the heavy modules its
    jobs had loaded by their end; then the sums."""
    by_rule: dict[str, list[dict]] = {}
    for row in rows:
        by_rule.setdefault(row["rule"], []).append(row)
    keys = ("start_cpu", "work_cpu", "work_wall", "wall")
    print(f"  {'rule':36s} {'jobs':>4s} {'start CPU':>9s} {'work CPU':>9s} {'work wall':>9s} {'job wall':>9s}"
          "  loaded by its end")
    summed = []
    for rule, jobs in by_rule.items():
        sums = [sum(j[k] for j in jobs) for k in keys]
        loaded = sorted({m for j in jobs for m in j.get("loaded", [])})
        summed.append((sums[3], rule, len(jobs), sums, loaded))
    for _, rule, count, sums, loaded in sorted(summed, reverse=True):  # by job wall: a job that records none has it
        print(f"  {rule:36s} {count:4d} " + " ".join(f"{s:9.2f}" for s in sums) + "  " + (" ".join(loaded) or "-"))
    totals = [sum(r[k] for r in rows if r[k] == r[k]) for k in keys]
    print(f"  {'sum over the run':36s} {len(rows):4d} " + " ".join(f"{s:9.2f}" for s in totals))
    print(f"  start is {totals[0] / max(totals[0] + totals[1], 1e-9):.0%} of the jobs' CPU")


def print_timeline(rows: list[dict], started: float, wall: float, cores: int) -> None:
    """Each job's span from the run's start (its process's start to its end), by start,
    and the core-seconds no script job held: Snakemake's start before the first job, the
    gaps between jobs, and the tail after the last (in-process jobs are marked, holding no core)."""
    timed = sorted((r for r in rows if r["began"] == r["began"]), key=lambda r: r["began"])
    if not timed:
        return
    print("  timeline (s from the run's start: job began - ended; * in the workflow's process)")
    for r in timed:
        mark = "*" if r["in_process"] else " "
        print(f"   {r['began'] - started:6.1f} - {r['ended'] - started:6.1f} {mark} {r['rule'].split(' ')[0]}")
    held = sum(r["ended"] - r["began"] for r in timed if not r["in_process"])
    first, last = min(r["began"] for r in timed) - started, max(r["ended"] for r in timed) - started
    print(f"  first job at {first:.1f} s, last done at {last:.1f} s; script jobs held {held:.1f} of "
          f"{cores * wall:.1f} core-seconds ({cores * wall - held:.1f} idle or Snakemake's)")


def workflow_part(data: Path, cores: int, work: Path) -> bool:
    """The TREC-8 paper config, timed; True when it meets the target."""
    if work.exists():
        shutil.rmtree(work)
    copy_workflow(work)
    times = work / "job_times"
    env = {**os.environ, "IRMETA_JOB_TIMES": str(times)}
    command = [str(BIN / "snakemake"), "--cores", str(cores), "--directory", str(work),
               "--configfile", str(work / "config" / "paper.yaml"),
               "--config", "collections=[trec8]", f"data_root={data.resolve()}"]
    start, started = time.perf_counter(), time.time()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the workflow failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    # CPU of Snakemake and every job: the children's rusage once the run has been waited for
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = job_rows(work / "results", times)
    print(f"== TREC-8 paper config: {wall:.1f} s wall on {cores} cores (target <= {WORKFLOW_TARGET:.0f} s, "
          f"idle machine), {usage.ru_utime + usage.ru_stime:.1f} s CPU (Snakemake and its jobs), "
          f"{len(rows)} jobs; results in {work / 'results'}")
    print_rules(rows)
    scripts = sum(r["start_cpu"] + r["work_cpu"] for r in rows
                  if not r["in_process"] and r["work_cpu"] == r["work_cpu"])  # NaN: recorded none
    in_process = sum(r["work_cpu"] for r in rows if r["in_process"])
    print(f"  Snakemake's own process: {usage.ru_utime + usage.ru_stime - scripts:.1f} s CPU (parsing, DAG, "
          f"scheduling, imports), of which jobs run in it {in_process:.1f} s; script jobs {scripts:.1f} s")
    print_timeline(rows, started, wall, cores)
    return wall <= WORKFLOW_TARGET


def command_imports_cpu(command: list[str]) -> float:
    """CPU seconds a fresh interpreter takes to import the modules ``command`` (a Python
    entry point) imported, in the order it imported them (``-X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True, text=True, check=True)
    modules = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            name = line.split("|")[-1]
            if name.strip() and not name[1:].startswith(" "):  # top-level entries only
                modules.append(name.strip())
    cpu, _ = import_cost(f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)", 1)
    return cpu


def cli_part(data: Path, repeat: int) -> bool:
    """``irmeta score`` and ``irmeta compare`` on 5 TREC-8 runs; True when both meet the target."""
    trec8 = data / "trec8_adhoc"
    runs = [str(trec8 / "runs" / f"{name}.gz") for name in TREC8_RUNS]
    entry = str(BIN / "irmeta")
    ok = True
    print(f"== irmeta on {len(runs)} TREC-8 runs (wall: best of {repeat}; target <= {CLI_TARGET} s idle)")
    for sub in ("score", "compare"):
        command = [entry, sub, "--qrels", str(trec8 / "qrels.txt"), "--runs", *runs]
        timed = [run_timed(command) for _ in range(max(1, repeat))]
        wall, cpu = min(t[0] for t in timed), min(t[1] for t in timed)
        imports = command_imports_cpu(command)
        print(f"  irmeta {sub:8s} {wall:5.2f} s wall, {cpu:5.2f} s CPU, of which imports {imports:.2f} s CPU, "
              f"peak {max(t[2] for t in timed):.0f} MB")
        ok &= wall <= CLI_TARGET
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "irmeta-bench-startup"),
                        help="where the workflow runs (replaced; its results are kept)")
    parser.add_argument("--skip", action="append", default=[], choices=["scripts", "workflow", "cli"])
    args = parser.parse_args()
    data = Path(args.data)
    ok = True
    if "scripts" not in args.skip:
        scripts_part(args.repeat)
    if "workflow" not in args.skip:
        ok &= workflow_part(data, args.cores, Path(args.work))
    if "cli" not in args.skip:
        ok &= cli_part(data, args.repeat)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
