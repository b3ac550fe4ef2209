"""What the end-to-end benchmarks share: the workflow run in a fresh copy of the
repository's Snakefile, workflow/, config/ and profiles/, timed, with each job's time and
peak memory read from Snakemake's benchmark files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def copy_workflow(work: Path) -> Path:
    """The workflow's files in ``work`` (created); returns it."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "Snakefile", work / "Snakefile")
    for folder in ("workflow", "config", "profiles"):
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"),
                        dirs_exist_ok=True)
    return work


JOB_TIMES = "job_times"  # where each job records its own times and peak (IRMETA_JOB_TIMES)


def job_table(work: Path) -> pd.DataFrame:
    """One row per job that wrote a benchmark file: job, seconds (wall), cpu_seconds
    (user + sys, what a shared machine does not inflate), max_rss_mb; slowest first.
    max_rss_mb is the job's own high-water mark (the kernel's, which the job records
    under ``IRMETA_JOB_TIMES``), or the largest of its forked processes' when larger;
    Snakemake's benchmark samples every 30 s after the first 30 and misses short peaks
    (a 10^9-line ingest shard's 4.4 GB at its end read 2.4 GB), so it is the fallback."""
    recorded, by_rule = {}, {}
    for path in (work / JOB_TIMES).glob("*.json"):
        entry = json.loads(path.read_text())
        recorded[(entry["rule"], entry["job"])] = entry
        by_rule.setdefault(entry["rule"], []).append(entry)
    rows = []
    for tsv in sorted((work / "results" / "benchmarks").rglob("*.tsv")):
        bench = pd.read_csv(tsv, sep="\t")
        rule = tsv.parent.name
        only = by_rule.get(rule, [])  # a rule without wildcards names its benchmark file itself
        entry = recorded.get((rule, tsv.stem), only[0] if len(only) == 1 else {})
        peak = max(entry.get("peak_mb", 0.0), entry.get("forked_peak_mb", 0.0)) or _first(bench, "max_rss")
        rows.append({"job": f"{rule}/{tsv.stem}", "seconds": _first(bench, "s"),
                     "cpu_seconds": _first(bench, "cpu_time"), "max_rss_mb": peak})
    return pd.DataFrame(rows, columns=["job", "seconds", "cpu_seconds", "max_rss_mb"]).sort_values(
        "seconds", ascending=False, ignore_index=True)


def _first(bench: pd.DataFrame, column: str) -> float:
    return float(bench[column].iloc[0]) if column in bench else float("nan")


def run_workflow(work: Path, cores: int, *args: str,
                 targets: tuple[str, ...] = ("all",)) -> tuple[float, pd.DataFrame]:
    """``snakemake all`` (or ``targets``) in ``work`` (a :func:`copy_workflow`) with
    ``args``: the wall time and :func:`job_table`."""
    snakemake = Path(sys.executable).parent / "snakemake"
    start = time.perf_counter()
    # targets first: --quiet takes the words after it as what to keep quiet about
    shutil.rmtree(work / JOB_TIMES, ignore_errors=True)  # a kept folder's earlier run
    env = {**os.environ, "IRMETA_JOB_TIMES": str(work / JOB_TIMES)}
    subprocess.run([str(snakemake), *targets, "--cores", str(cores), "--quiet", "--directory", str(work), *args],
                   check=True, cwd=work, env=env)
    return time.perf_counter() - start, job_table(work)


def statistics_jobs(jobs: pd.DataFrame, rules: tuple[str, ...]) -> pd.DataFrame:
    """The rows of ``jobs`` whose rule is one of ``rules``."""
    return jobs[jobs["job"].str.split("/").str[0].isin(rules)]
