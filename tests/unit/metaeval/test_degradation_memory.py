"""How many processes the degraded reproductions are worth, known from sizes alone: one
for a small campaign (a job asking for every core waits until no other job runs), as many
as the job's memory holds for a large one, and the stored campaign's sizes read right."""

from __future__ import annotations

import pytest

from irmeta.metaeval.degradation_memory import (
    CHUNK_DOCUMENTS,
    PARALLEL_DOCUMENTS,
    copy_memory_mb,
    degradation_copies,
    planned_processes,
    stored_degradation_processes,
)
from irmeta.pipeline.steps import ingest_collection
from irmeta.simulate import simulate_campaign

SETTING = {"kinds": ["swap", "replace", "noise"], "levels": [0, 0.1, 0.4], "trials": 2}


def test_copies_count_level_zero_once():
    assert degradation_copies(SETTING) == 3 * 2 * 2 + 1
    assert degradation_copies(dict(SETTING, levels=[0.2])) == 3 * 1 * 2
    assert degradation_copies(dict(SETTING, levels=[0.0], kinds=["swap"])) == 1


def _planned(documents: int, postings: int, memory_mb: float | None, processes: int = 2) -> int:
    return planned_processes(documents=documents, copies=13, postings=postings, scores=20 * 10**6,
                             chunk_documents=CHUNK_DOCUMENTS, memory_mb=memory_mb, processes=processes)


def test_small_work_is_one_process_whatever_the_memory():
    documents = -(-PARALLEL_DOCUMENTS // 13)  # the fewest whose 13 copies reach it
    assert _planned(documents - 1, 1_000, memory_mb=None) == 1
    assert _planned(documents, 1_000, memory_mb=None) == 2


def test_large_work_takes_the_processes_its_memory_holds():
    postings = 10**7
    each = copy_memory_mb(postings, CHUNK_DOCUMENTS, 20 * 10**6)
    held = each + 150
    assert _planned(10**8, postings, memory_mb=held + 2 * each) == 2
    assert _planned(10**8, postings, memory_mb=held + 2 * each - 1) == 1
    assert _planned(10**8, postings, memory_mb=held + 3 * each, processes=4) == 3
    # a billion lines, 10^8 judged postings, a cluster slot: one process
    assert _planned(10**9, 10**8, memory_mb=4096) == 1


@pytest.mark.parametrize("trials", [1, 10**6])
def test_the_stored_campaign_is_sized_from_its_files(tmp_path, trials):
    made = simulate_campaign(tmp_path / "c", n_runs=4, n_topics=3, depth=10, pool_size=30, seed=2)
    judged, ranked = tmp_path / "judged.npz", tmp_path / "ranked.npz"
    ingest_collection(qrels=made["qrels"], runs=tmp_path / "c" / "runs", out=judged, ranked_depth=10,
                      ranked_out=ranked, threshold=1)
    setting = dict(SETTING, trials=trials)
    # 4 x 3 x 10 documents: 10^6 trials copy 7.2 10^8 documents, worth two processes
    # unless the memory holds only one
    expected = 1 if trials == 1 else 2
    assert stored_degradation_processes(judged=judged, ranked=ranked, degradations=setting, blocks=4,
                                        memory_mb=None, processes=2) == expected
    assert stored_degradation_processes(judged=judged, ranked=ranked, degradations=setting, blocks=4,
                                        memory_mb=100, processes=2) == 1
