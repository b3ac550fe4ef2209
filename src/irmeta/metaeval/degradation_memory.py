"""What the degraded reproductions (:mod:`.reproducibility_degradation`) hold and how many
processes they are worth, known from the stored campaign's sizes alone: the workflow asks
before the job starts (its threads), the job again once it holds the runs' scores.

Light on purpose: Snakemake's own process imports it to size the job.
"""

from __future__ import annotations

from pathlib import Path

# Documents of runs degraded, judged and compared at once: the document-order measures'
# padded arrays peak near 100 bytes a document (0.4 GB here).
CHUNK_DOCUMENTS = 4_000_000
# Below this many documents copied in all (copies x the rankings' documents: about a minute
# of one core's work, measured at 10^8), a second process is not worth a core held: a job
# asking for two cores waits until no other job runs.
PARALLEL_DOCUMENTS = 100_000_000
INTERPRETER_MB = 150


def copy_memory_mb(postings: int, chunk_documents: int, scores: int) -> float:
    """What making one copy holds at its peak beyond what it shares with this process, in
    MB: its judged postings (8 bytes each, rank and qrels row) one and a half times while
    joined, and scoring's per-posting values (4 more); one chunk's padded document-order
    arrays (about 100 bytes a document, measured at 10^7); ``scores`` per-topic scores
    (blocks x runs x topics, 8 bytes each) three times over while scored and compared."""
    return (16 * postings + 100 * chunk_documents + 24 * scores) / 2**20


def planned_processes(*, documents: int, copies: int, postings: int, scores: int, chunk_documents: int,
                      memory_mb: float | None, processes: int) -> int:
    """The processes a degradation job makes its copies in, from sizes alone: one when the
    copies are small work (fewer than :data:`PARALLEL_DOCUMENTS` documents copied in all),
    else as many of ``processes`` as ``memory_mb`` holds, a copy each
    (:func:`copy_memory_mb`) beside the job's own runs' scores (about one copy more)."""
    from irmeta.support.memory import within_memory

    if documents * copies < PARALLEL_DOCUMENTS:
        return 1
    each = copy_memory_mb(postings, min(documents, chunk_documents), scores)
    return within_memory(memory_mb, processes, each, held_mb=each + INTERPRETER_MB)


def degradation_copies(degradations: dict) -> int:
    """How many copies a degradation setting makes (kinds x levels x trials; level 0 once)."""
    levels = [float(level) for level in degradations["levels"]]
    degraded = sum(1 for level in levels if level != 0)
    return len(degradations["kinds"]) * degraded * int(degradations["trials"]) + (len(levels) > degraded)


def stored_degradation_processes(*, judged: str | Path, ranked: str | Path, degradations: dict, blocks: int,
                                 memory_mb: float | None, processes: int) -> int:
    """:func:`planned_processes` for a collection's stored campaign (``judged.npz``, and
    ``ranked.npz`` for the rankings the copies degrade); ``blocks``: the score blocks per
    run and topic (measures x alphas at most)."""
    from irmeta.campaign.ranked_store import ranked_size
    from irmeta.campaign.store import stored_postings

    documents, runs, topics = ranked_size(ranked)
    return planned_processes(documents=documents, copies=degradation_copies(degradations),
                             postings=stored_postings(judged), scores=blocks * runs * topics,
                             chunk_documents=CHUNK_DOCUMENTS, memory_mb=memory_mb, processes=processes)
