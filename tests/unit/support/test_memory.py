"""Parallelism fitted to a job's memory: tasks that fit beside what the process holds."""

from __future__ import annotations

import pytest

from irmeta.pipeline.steps import reading_threads
from irmeta.support.memory import resident_mb, within_memory


def test_as_many_tasks_as_fit_beside_what_the_process_holds():
    here = resident_mb()
    assert here > 10  # Linux's /proc: a Python process with numpy holds tens of MB
    assert within_memory(None, 2, 1000) == 2
    assert within_memory(here + 250, 2, 100) == 2
    assert within_memory(here + 150, 2, 100) == 1
    assert within_memory(here + 10_000, 2, 100) == 2  # never more than wanted
    assert within_memory(0, 2, 100) == 1  # one at least


@pytest.mark.parametrize("size_mb, memory_mb, want", [(1, 4096, 2), (150, 4096, 1), (150, None, 2)])
def test_run_files_read_at_once_follow_the_largest_file(tmp_path, size_mb, memory_mb, want):
    big = tmp_path / "run.gz"
    with open(big, "wb") as f:  # a sparse file: its size is what counts
        f.truncate(size_mb * 2**20)
    small = tmp_path / "small.gz"
    small.write_bytes(b"x")
    assert reading_threads([small, big], 2, memory_mb) == want
