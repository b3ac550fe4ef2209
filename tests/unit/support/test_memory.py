"""Parallelism fitted to a job's memory: tasks that fit beside what the process holds."""

from __future__ import annotations

import pytest

from irmeta.campaign.ingest_parts import reading_plan
from irmeta.support.memory import resident_mb, within_memory


def test_as_many_tasks_as_fit_beside_what_the_process_holds():
    here = resident_mb()
    assert here > 10  # Linux's /proc: a Python process with numpy holds tens of MB
    assert within_memory(None, 2, 1000) == 2
    assert within_memory(here + 250, 2, 100) == 2
    assert within_memory(here + 150, 2, 100) == 1
    assert within_memory(here + 10_000, 2, 100) == 2  # never more than wanted
    assert within_memory(0, 2, 100) == 1  # one at least


@pytest.mark.parametrize("size_mb, budget_mb, want", [(1, 4096, 2), (60, 3000, 1), (150, 100_000, 2)])
def test_run_files_read_at_once_follow_the_largest_file(tmp_path, size_mb, budget_mb, want):
    """Half of what the budget leaves beside the job's fixed part goes to the files in
    flight (20 times their gzipped size); a file that alone would not fit is read in
    blocks of lines, and the others as many at a time as fit."""
    big = tmp_path / "run.gz"
    with open(big, "wb") as f:  # a sparse file: its size is what counts
        f.truncate(size_mb * 2**20)
    small = tmp_path / "small.gz"
    small.write_bytes(b"x")
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"1 0 d 1\n")
    assert reading_plan([small, big], qrels, budget_mb=budget_mb, fixed_mb=400, threads=2).threads == want


def test_a_shard_of_few_large_files_reads_one_at_a_time_so_two_shards_share_the_cores(tmp_path):
    """What the workflow's ingest_threads reads: the qrels held, the largest file in
    flight, the memory budget (an MS MARCO-sized leaderboard: 246 MB of qrels, 76 MB
    gzipped runs read in blocks of lines, one at a time, at the default 3 GB)."""
    from irmeta.support.memory import qrels_held_mb, run_file_in_flight_mb

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.gz"
    for path, mb in ((qrels, 246), (run, 76)):
        with open(path, "wb") as f:
            f.truncate(mb * 2**20)
    assert round(qrels_held_mb(qrels)) == 4 * 246 + 150 and round(run_file_in_flight_mb(run)) == 20 * 76
    plan = reading_plan([run], qrels, budget_mb=3072, fixed_mb=qrels_held_mb(qrels), threads=2)
    assert plan.in_pieces(run) and plan.threads == 1
    whole = reading_plan([run], qrels, budget_mb=5000, fixed_mb=qrels_held_mb(qrels), threads=2)
    assert not whole.in_pieces(run) and whole.threads == 1
    assert within_memory(2800, 2, 220, held_mb=350) == 2  # 10^9 lines in 1,000 runs: files of 11 MB
