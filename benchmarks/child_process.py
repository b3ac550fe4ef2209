"""What the command-line benchmarks share: a command timed in a child process, with the
child's own peak memory (not the benchmark's)."""

from __future__ import annotations

import os
import subprocess
import time


def run_once(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak MB) of one run of ``command`` in a child process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {status}")
    return wall, usage.ru_maxrss / 1024  # Linux reports KB


def run_timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak MB) of one run of ``command`` in a child process.

    CPU is the child's user + system time (its own and its waited-for children's, as
    getrusage reports them to wait4): on a shared machine the cost figure that load does
    not inflate, printed beside the wall time a user waits."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
