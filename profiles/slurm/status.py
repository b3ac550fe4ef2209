#!/usr/bin/env python3
"""Snakemake cluster-generic status command for SLURM.

    status.py JOBID      prints one line: success, running or failed

The state comes from `scontrol show job` (slurmctld keeps a finished job for MinJobAge,
300 s by default, far longer than Snakemake's polling interval). A job scontrol no
longer knows is looked up with `sacct` when the cluster keeps accounting; without
accounting it is reported failed. A controller that does not answer (a slurmctld
restart, a timeout) is reported running, so Snakemake asks again on its next poll
instead of failing a job that may well be fine.

Standard library only: runs with any python3, in or out of the project's environment.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

SUCCESS = {"COMPLETED"}
RUNNING = {
    "PENDING",
    "CONFIGURING",
    "RUNNING",
    "COMPLETING",
    "SUSPENDED",
    "STOPPED",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "RESIZING",
    "RESV_DEL_HOLD",
    "SIGNALING",
    "SPECIAL_EXIT",
    "STAGE_OUT",
    "POWER_UP_NODE",
    "UPDATE_DB",
}
FAILED = {
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "OUT_OF_MEMORY",
    "NODE_FAIL",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
    "REVOKED",
    "LAUNCH_FAILED",
}
TIMEOUT = 20  # seconds for one scontrol or sacct call


class Unreachable(Exception):
    """The controller did not answer; the job's state is unknown for now."""


def classify(state: str) -> str:
    """success, running or failed for a SLURM job state ("CANCELLED by 0" -> CANCELLED)."""
    word = state.split()[0].rstrip("+").upper() if state.strip() else ""
    if word in SUCCESS:
        return "success"
    if word in RUNNING:
        return "running"
    if word in FAILED:
        return "failed"
    # A state this script does not know: say running, so Snakemake keeps asking rather
    # than failing a job; the job's own end (any state above) settles it.
    print(f"status.py: unknown SLURM state {state!r}, reported as running", file=sys.stderr)
    return "running"


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise Unreachable(f"{' '.join(cmd)} timed out after {TIMEOUT} s") from exc


def scontrol_state(jobid: str) -> str | None:
    """JobState from scontrol; None when the controller does not know the job (any more)."""
    proc = _run(["scontrol", "show", "job", "--oneliner", jobid])
    if proc.returncode == 0:
        match = re.search(r"\bJobState=(\S+)", proc.stdout)
        if match:
            return match.group(1)
        raise Unreachable(f"no JobState in scontrol output: {proc.stdout.strip()!r}")
    if "invalid job id" in (proc.stderr + proc.stdout).lower():
        return None
    raise Unreachable(f"scontrol failed ({proc.returncode}): {proc.stderr.strip()}")


def sacct_state(jobid: str) -> str | None:
    """State of the allocation from sacct; None when sacct is missing or has no record."""
    if shutil.which("sacct") is None:
        return None
    proc = _run(["sacct", "--jobs", jobid, "--allocations", "--noheader", "--parsable2", "--format", "State"])
    if proc.returncode != 0:
        return None  # no accounting storage configured, or slurmdbd down
    states = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    return states[0] if states else None


def status(jobid: str) -> str:
    jobid = jobid.split(";")[0].strip()  # sbatch --parsable prints "id" or "id;cluster"
    try:
        state = scontrol_state(jobid)
    except Unreachable as exc:
        print(f"status.py: job {jobid}: {exc}; reported as running", file=sys.stderr)
        return "running"
    if state is None:
        state = sacct_state(jobid)
    if state is None:
        print(
            f"status.py: job {jobid} is unknown to scontrol (finished more than MinJobAge ago?) "
            "and to sacct; reported as failed",
            file=sys.stderr,
        )
        return "failed"
    return classify(state)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: status.py JOBID", file=sys.stderr)
        return 2
    print(status(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
