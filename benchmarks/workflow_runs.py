"""What the end-to-end benchmarks share: the workflow run in a fresh copy of the
repository's Snakefile, workflow/, config/ and profiles/, timed, with each job's time and
peak memory read from Snakemake's benchmark files."""

from __future__ import annotations

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


def job_table(work: Path) -> pd.DataFrame:
    """One row per job that wrote a benchmark file: job, seconds, max_rss_mb; slowest first."""
    rows = []
    for tsv in sorted((work / "results" / "benchmarks").rglob("*.tsv")):
        bench = pd.read_csv(tsv, sep="\t")
        rows.append({"job": f"{tsv.parent.name}/{tsv.stem}", "seconds": float(bench["s"].iloc[0]),
                     "max_rss_mb": float(bench["max_rss"].iloc[0]) if "max_rss" in bench else float("nan")})
    return pd.DataFrame(rows, columns=["job", "seconds", "max_rss_mb"]).sort_values(
        "seconds", ascending=False, ignore_index=True)


def run_workflow(work: Path, cores: int, *args: str) -> tuple[float, pd.DataFrame]:
    """``snakemake all`` in ``work`` (a :func:`copy_workflow`) with ``args``: the wall
    time and :func:`job_table`."""
    snakemake = Path(sys.executable).parent / "snakemake"
    start = time.perf_counter()
    subprocess.run([str(snakemake), "--cores", str(cores), "--quiet", "all", "--directory", str(work), *args],
                   check=True, cwd=work)
    return time.perf_counter() - start, job_table(work)


def statistics_jobs(jobs: pd.DataFrame, rules: tuple[str, ...]) -> pd.DataFrame:
    """The rows of ``jobs`` whose rule is one of ``rules``."""
    return jobs[jobs["job"].str.split("/").str[0].isin(rules)]
