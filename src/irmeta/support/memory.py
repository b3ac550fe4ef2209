"""What a process holds in memory, for the steps that fit their parallelism to a job's
memory (a cluster slot) rather than to its cores alone."""

from __future__ import annotations

import os
from pathlib import Path


def resident_mb() -> float:
    """This process's resident memory in MB (Linux's /proc; 0 where there is none)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def within_memory(memory_mb: float | None, wanted: int, each_mb: float) -> int:
    """How many of ``wanted`` parallel tasks of ``each_mb`` each fit in ``memory_mb``
    beside what this process holds (forked processes and threads share it); one at
    least, all when ``memory_mb`` is None."""
    if memory_mb is None or each_mb <= 0:
        return max(1, wanted)
    return max(1, min(wanted, int((memory_mb - resident_mb()) // each_mb)))
