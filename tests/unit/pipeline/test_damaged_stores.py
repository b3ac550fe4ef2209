"""Every store the pipeline writes and reads back (judged.npz, ranked.npz, scores.npz, an
ingestion shard's part, a stability shard) carries a checksum of its bytes: a copy cut
short, or with bits flipped anywhere, is refused by each of its readers on one line
naming the file and what to delete, never read as data nor failing with a traceback
(issue 40, item 3)."""

from __future__ import annotations

import itertools
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irmeta.campaign.degrade_cells import load_ranked
from irmeta.campaign.ingest_parts import ranked_parts
from irmeta.campaign.ranked_store import ranked_settings, ranked_size
from irmeta.campaign.store import load_matrix, matrix_settings, stored_postings
from irmeta.metaeval.stability import StabilityCounts
from irmeta.pipeline.reproducibility import ingested_qrels
from irmeta.pipeline.steps import ingest_shard, merge_ingested, score_collection
from irmeta.pipeline.stored_scores import load_scores
from irmeta.simulate import simulate_campaign
from irmeta.support import checksum
from irmeta.support.checksum import DamagedStoreError, verify_store

OPTIONS = {"depth": 20, "duplicates": "first", "threshold": 1}


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, Path]:
    """One of each store, from a small simulated campaign read in two shards."""
    where = tmp_path_factory.mktemp("stores")
    made = simulate_campaign(where / "c", n_runs=5, n_topics=4, depth=25, pool_size=60, seed=3)
    parts = [where / f"part{i}.npz" for i in range(2)]
    for i, part in enumerate(parts):
        ingest_shard(qrels=made["qrels"], runs=made["runs"], out=part, shard=i, shards=2, ranked_depth=10, **OPTIONS)
    merge_ingested(qrels=made["qrels"], parts=parts, out=where / "judged.npz", ranked_depth=10,
                   ranked_out=where / "ranked.npz", **OPTIONS)
    score_collection(matrix=where / "judged.npz", out=where / "scores.parquet", arrays_out=where / "scores.npz",
                     measures=["P@10", "AP@10"], alphas=[0.0, 1.0])
    counts = np.arange(6, dtype=np.int32).reshape(2, 3)
    StabilityCounts([("P@10", "", "absolute", 0.05), ("AP@10", "", "absolute", 0.05)], counts, counts + 1,
                    counts + 2, 2).save(where / "stability.npz")
    return {"judged": where / "judged.npz", "ranked": where / "ranked.npz", "scores": where / "scores.npz",
            "part": parts[0], "stability": where / "stability.npz", "qrels": made["qrels"], "other_part": parts[1]}


def _readers(stores: dict[str, Path]) -> dict[str, list]:
    """Each store's readers, as the pipeline's jobs call them."""
    def merged(part: Path) -> None:
        merge_ingested(qrels=stores["qrels"], parts=[part, stores["other_part"]], out=part.parent / "merged.npz",
                       ranked_depth=10, ranked_out=part.parent / "merged_ranked.npz", **OPTIONS)

    return {
        "judged": [load_matrix, lambda p: load_matrix(p, depth=5).misses, matrix_settings, stored_postings,
                   ingested_qrels],
        "ranked": [load_ranked, lambda p: load_ranked(p, lazy=True), ranked_settings, ranked_size],
        "scores": [load_scores, lambda p: load_scores(p, measures=["P@10"])],
        "part": [merged, lambda p: [part.array("pool") for part in ranked_parts([p])]],
        "stability": [StabilityCounts.load],
    }


STORES = ("judged", "ranked", "scores", "part", "stability")
_copies = itertools.count()


def _refused_by_every_reader(stores: dict[str, Path], name: str, data: bytes) -> None:
    path = stores[name].parent / f"damaged{next(_copies)}_{stores[name].name}"  # a new file: never one verified
    path.write_bytes(data)
    for read in _readers(stores)[name]:
        with pytest.raises(DamagedStoreError) as refused:
            read(path)
        message = str(refused.value)
        assert "\n" not in message and message.startswith(f"{path} ") and message.endswith(
            ": delete it and run again"), message
    assert not (path.parent / "merged.npz").exists()  # refused before anything is written


@pytest.mark.parametrize("name", STORES)
def test_every_store_is_read_by_every_reader_when_whole(stores, name):
    for read in _readers(stores)[name]:
        read(stores[name])
    (stores[name].parent / "merged.npz").unlink(missing_ok=True)
    (stores[name].parent / "merged_ranked.npz").unlink(missing_ok=True)


@pytest.mark.parametrize("name", STORES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.floats(0, 1, exclude_max=True))
def test_a_store_cut_short_is_refused_on_one_line(stores, name, cut):
    data = stores[name].read_bytes()
    _refused_by_every_reader(stores, name, data[:int(cut * len(data))])


@pytest.mark.parametrize("name", STORES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=3,
                      unique_by=lambda f: f[0]))
def test_a_store_with_bits_flipped_is_refused_on_one_line(stores, name, flips):
    data = bytearray(stores[name].read_bytes())
    at = sorted({int(where * len(data)) for where, _ in flips})
    for position, (_, bit) in zip(at, flips):
        data[position] ^= 1 << bit
    _refused_by_every_reader(stores, name, bytes(data))


@pytest.mark.parametrize("name", STORES)
def test_flips_at_the_edges_and_zeroed_bytes_are_refused(stores, name):
    # the first byte, a zip header's date (no reader looks at it), the checksum's own
    # digits and tag, and a run of zeroed bytes in the middle (what went unnoticed)
    data = stores[name].read_bytes()
    size = len(data)
    for position in (0, 10, size - 1, size - checksum.DIGITS - 1, size - checksum.TRAILER):
        flipped = bytearray(data)
        flipped[position] ^= 0x01
        _refused_by_every_reader(stores, name, bytes(flipped))
    zeroed = bytearray(data)
    zeroed[size // 2:size // 2 + min(1000, size // 4)] = bytes(min(1000, size // 4))
    assert zeroed != data
    _refused_by_every_reader(stores, name, bytes(zeroed))


def test_a_store_without_a_checksum_is_refused_as_an_earlier_irmeta_s(stores, tmp_path):
    with np.load(stores["scores"]) as stored:
        np.savez(tmp_path / "scores.npz", **{name: stored[name] for name in stored.files})
    with pytest.raises(DamagedStoreError, match=r"scores.npz was stored by an earlier irmeta, without a checksum "
                                                r"of its content: delete it and run again$"):
        load_scores(tmp_path / "scores.npz")


def test_the_checksum_is_the_zip_comment_and_np_load_still_reads_the_store(stores):
    with zipfile.ZipFile(stores["judged"]) as archive:
        comment = archive.comment
        assert archive.testzip() is None  # every member's own CRC-32 holds too
    assert comment.startswith(checksum.TAG) and len(comment) == checksum.TRAILER
    data = stores["judged"].read_bytes()
    import zlib

    assert int(comment[len(checksum.TAG):], 16) == zlib.crc32(data[:-checksum.DIGITS])
    with np.load(stores["judged"]) as stored:
        assert "meta" in stored.files


def test_a_store_is_verified_once_per_file_however_many_times_it_is_read(stores, monkeypatch):
    passes = []
    real = checksum._crc32
    monkeypatch.setattr(checksum, "_VERIFIED", set())
    monkeypatch.setattr(checksum, "_crc32", lambda *args: passes.append(args[1]) or real(*args))
    matrix = load_matrix(stores["judged"])
    assert len(matrix.misses) and matrix_settings(stores["judged"]) and stored_postings(stores["judged"])
    assert passes == [stores["judged"].stat().st_size - checksum.DIGITS]  # one pass over the bytes


def test_a_fifo_or_a_folder_is_not_read_as_a_store(tmp_path):
    import os

    os.mkfifo(tmp_path / "fifo.npz")
    with pytest.raises(DamagedStoreError, match="is not a regular file"):
        verify_store(tmp_path / "fifo.npz")
    (tmp_path / "dir.npz").mkdir()
    with pytest.raises(IsADirectoryError):
        verify_store(tmp_path / "dir.npz")
