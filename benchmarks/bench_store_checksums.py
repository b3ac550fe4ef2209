"""Benchmark: what the stores' checksums cost (issue 40, item 3), on the TREC-8 paper config.

Every ``.npz`` store the pipeline writes ends with a CRC-32 of its bytes, which each job
reading it verifies once (one pass over the file) before reading anything, and which its
writer computes as the bytes go out (one more CRC pass). This runs the TREC-8 paper config
end to end (config/paper.yaml, ``collections=[trec8]``) in a temporary copy of the
workflow, or takes a finished run's folder (``--workdir``), then times the verification
of every store it holds (best of 3, the file in the page cache as the jobs find it) and
counts the jobs that read each (Snakemake's ``--detailed-summary``: a job per log file;
and the workflow's own reads, :data:`WORKFLOW_READS`).
The check's cost is the verifications of every reading job plus one pass at each store's
writing, against the run's wall time. Target: at most 5% (issue 40).

    python benchmarks/bench_store_checksums.py [--data ../shared/data] [--cores 2] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from workflow_runs import copy_workflow, run_workflow

from irmeta.support import checksum

ROOT = Path(__file__).resolve().parents[1]
TARGET_SHARE = 0.05


def verify_seconds(path: Path, repeats: int = 3) -> float:
    """The best time of :func:`checksum.verify_store` on ``path``, verified afresh each time."""
    best = float("inf")
    for _ in range(repeats):
        checksum._VERIFIED.clear()
        start = time.perf_counter()
        checksum.verify_store(path)
        best = min(best, time.perf_counter() - start)
    return best


def readers(work: Path, config: list[str]) -> dict[str, set[str]]:
    """Each input file's reading jobs (their log files), from Snakemake's detailed summary."""
    snakemake = Path(sys.executable).parent / "snakemake"
    done = subprocess.run([str(snakemake), "--directory", str(work), *config, "--detailed-summary"], cwd=work,
                          capture_output=True, text=True, check=True)
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    header = rows[0]
    log, inputs = header.index("log-file(s)"), header.index("input-file(s)")
    found: dict[str, set[str]] = {}
    for row in rows[1:]:
        if len(row) != len(header):
            continue
        for name in row[inputs].split(","):
            if name.endswith(".npz"):
                found.setdefault(name.strip(), set()).add(row[log])
    return found


# Read by the workflow's own process as well: the degradations' threads are sized from
# them (workflow/rules/common.smk, degradation_threads), once a run.
WORKFLOW_READS = ("judged.npz", "ranked.npz")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workdir", default=None, help="a finished run of the TREC-8 paper config to measure "
                                                         "(its wall time with --wall)")
    parser.add_argument("--wall", type=float, default=None, help="that run's wall time, seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.workdir) if args.workdir else copy_workflow(Path(tmp))
        config = ["--configfile", str(work / "config" / "paper.yaml"), "--config",
                  f"data_root={Path(args.data).resolve()}", "collections=[trec8]"]
        wall = args.wall
        if not args.workdir:
            wall, _ = run_workflow(work, args.cores, *config)
        jobs = readers(work, config)
        rows = []
        for path in sorted((work / "results").rglob("*.npz")):
            name = str(path.relative_to(work))
            seconds = verify_seconds(path)
            size = path.stat().st_size
            reads = len(jobs.get(name, ())) + (path.name in WORKFLOW_READS and (path.parent / "ranked.npz").exists())
            rows.append({"store": name, "MB": size / 2**20, "verify_ms": 1000 * seconds,
                         "GB_per_s": size / 2**30 / seconds, "reads": reads,
                         # each read's pass, and the writer's as the bytes went out
                         "total_ms": 1000 * seconds * (reads + 1)})
    table = pd.DataFrame(rows)
    total = table["total_ms"].sum() / 1000
    print(f"store checksums on the TREC-8 paper config: {len(table)} stores, {table['MB'].sum():.1f} MB, "
          f"{int(table['reads'].sum())} reads (jobs, and the workflow's own process)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    if wall:
        share = total / wall
        print(f"the check costs {total:.3f} s (one core), {100 * share:.2f}% of the run's {wall:.1f} s wall "
              f"(target <= {100 * TARGET_SHARE:.0f}%)")
        return 0 if share <= TARGET_SHARE else 1
    print(f"the check costs {total:.3f} s (one core; give --wall to compare it with the run's wall time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
