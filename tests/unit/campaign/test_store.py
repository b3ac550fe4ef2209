"""judged.npz: the compact format gives back every array exactly, and still reads format 1."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from irmeta.campaign import store
from irmeta.campaign.postings import Postings, RelevanceMatrix, offsets_from_counts
from irmeta.campaign.store import load_matrix, matrix_settings, narrowest, save_matrix, stored_postings
from irmeta.support.atomic import atomic_save_npz


def _assert_same(a: RelevanceMatrix, b: RelevanceMatrix) -> None:
    assert a.runs == b.runs and a.topics == b.topics and a.threshold == b.threshold
    assert a.run_depth == b.run_depth and a.ignored_topics == b.ignored_topics
    for name in ("length", "qrels_topic", "qrels_grade"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    for side in ("hits", "misses"):
        x, y = getattr(a, side), getattr(b, side)
        for field in ("start", "rank", "judgment"):
            u, v = getattr(x, field), getattr(y, field)
            assert u.dtype == v.dtype and np.array_equal(u, v), (side, field)
    assert a.docids.equals(b.docids)


def _matrix(n_runs: int, n_topics: int, cells: dict[int, list[tuple[int, int]]], qrels_topic: list[int],
            grades: list[int]) -> RelevanceMatrix:
    """Postings from {cell: [(rank, qrels row), ...]}; hits where the row's grade >= 1."""
    grade = np.asarray(grades, dtype=np.int64)

    def side(relevant: bool) -> Postings:
        counts = np.zeros(n_runs * n_topics, dtype=np.int64)
        rank, judgment = [], []
        for cell in range(n_runs * n_topics):
            for r, row in cells.get(cell, []):
                if (grade[row] >= 1) == relevant:
                    counts[cell] += 1
                    rank.append(r)
                    judgment.append(row)
        return Postings(offsets_from_counts(counts), np.asarray(rank, np.int32), np.asarray(judgment, np.int32))

    hits, misses = side(True), side(False)
    docids = pa.array([f"d{i}" for i in range(len(grade))], pa.large_string())
    length = np.array([[max([r for r, _ in cells.get(s * n_topics + q, [])], default=0)
                        for q in range(n_topics)] for s in range(n_runs)], dtype=np.int32)
    return RelevanceMatrix(runs=[f"r{s}" for s in range(n_runs)], topics=[str(q) for q in range(n_topics)],
                           length=length, hits=hits, misses_loader=lambda: misses, threshold=1,
                           qrels_topic=np.asarray(qrels_topic, np.int64), qrels_grade=grade, docids=docids,
                           run_depth=None)


@pytest.mark.slow
@pytest.mark.parametrize("block", [1 << 20, 1000, 1])
def test_trec8_round_trip_exact_and_smaller(trec8_matrix, tmp_path, monkeypatch, block):
    # blocks of 1,000 postings, and of one cell each (a cell larger than the block alone)
    path = tmp_path / "judged.npz"
    save_matrix(trec8_matrix, tmp_path / "whole.npz", {"depth": 1000})
    monkeypatch.setattr(store, "BLOCK_POSTINGS", block)
    save_matrix(trec8_matrix, path, {"depth": 1000})
    assert path.read_bytes() == (tmp_path / "whole.npz").read_bytes()
    loaded = load_matrix(path)
    _assert_same(trec8_matrix, loaded)
    assert stored_postings(path) == len(trec8_matrix.hits) + len(trec8_matrix.misses)
    assert matrix_settings(path)["format"] == 2
    # 8 bytes a posting at their width in memory; here 3 and a little
    assert path.stat().st_size < 3.7 * stored_postings(path)


def test_qrels_out_of_topic_order_wide_steps_and_negative_grades(tmp_path, monkeypatch):
    # rows of topic 1 before those of topic 0, steps of 255 (a byte), 256 and 70,000
    # ranks (stored apart), a negative grade, an empty cell and an empty run
    qrels_topic = [1, 0, 1, 0, 1]
    grades = [1, -2, 0, 3, 2]
    cells = {0: [(1, 1), (5, 3)], 1: [(2, 0), (3, 2), (70_003, 4)], 2: [(3, 1), (258, 3)], 3: [(9, 4), (265, 2)]}
    m = _matrix(3, 2, cells, qrels_topic, grades)
    path = tmp_path / "judged.npz"
    save_matrix(m, path)
    _assert_same(m, load_matrix(path))
    monkeypatch.setattr(store, "BLOCK_POSTINGS", 2)
    _assert_same(m, load_matrix(path))


def test_sums_of_steps_past_int32_decode_exactly(tmp_path):
    # 40,000 cells of 60 postings at ranks up to 60,000: the running sum of the steps
    # passes 2^31, each rank must still come out exact
    n_runs, n_topics, per = 400, 100, 60
    rng = np.random.default_rng(1)
    rank = np.sort(rng.choice(np.arange(1, 60_001), size=(n_runs * n_topics, per), replace=True), axis=1)
    rank = rank + np.arange(per)  # strictly ascending
    assert rank.sum(dtype=np.int64) > 2**31
    counts = np.full(n_runs * n_topics, per, dtype=np.int64)
    row_of_topic = np.arange(n_topics, dtype=np.int32)  # one qrels row per topic
    judgment = np.repeat(np.tile(row_of_topic, n_runs), per)
    hits = Postings(offsets_from_counts(counts), rank.reshape(-1).astype(np.int32), judgment)
    empty = Postings(np.zeros(n_runs * n_topics + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32))
    m = RelevanceMatrix(runs=[str(i) for i in range(n_runs)], topics=[str(i) for i in range(n_topics)],
                        length=np.full((n_runs, n_topics), 60_060, np.int32), hits=hits, misses_loader=lambda: empty,
                        threshold=1, qrels_topic=np.arange(n_topics, dtype=np.int64),
                        qrels_grade=np.ones(n_topics, np.int64),
                        docids=pa.array([str(i) for i in range(n_topics)], pa.large_string()))
    path = tmp_path / "judged.npz"
    save_matrix(m, path)
    _assert_same(m, load_matrix(path))


def test_a_posting_judged_by_another_topics_row_is_refused(tmp_path):
    m = _matrix(1, 2, {0: [(1, 1)]}, [0, 1], [1, 1])  # cell 0 is topic 0, row 1 is topic 1's
    with pytest.raises(ValueError, match="another topic"):
        save_matrix(m, tmp_path / "judged.npz")
    assert not (tmp_path / "judged.npz").exists()


def test_format_1_still_loads(tmp_path):
    m = _matrix(2, 2, {0: [(1, 0), (2, 1)], 3: [(4, 2)]}, [0, 0, 1], [1, 0, 2])
    docid = m.docids.cast(pa.large_binary())
    offsets = np.frombuffer(docid.buffers()[1], dtype=np.int64)[:len(docid) + 1]
    meta = {"runs": m.runs, "topics": m.topics, "threshold": 1, "run_depth": None, "ignored_topics": {},
            "settings": {}}
    path = tmp_path / "judged.npz"
    atomic_save_npz(path, {
        "length": m.length, "hits_start": m.hits.start, "hits_rank": m.hits.rank, "hits_judgment": m.hits.judgment,
        "misses_start": m.misses.start, "misses_rank": m.misses.rank, "misses_judgment": m.misses.judgment,
        "qrels_topic": m.qrels_topic, "qrels_grade": m.qrels_grade, "docid_offsets": offsets,
        "docid_bytes": np.frombuffer(docid.buffers()[2], dtype=np.uint8),
        "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)})
    _assert_same(m, load_matrix(path))
    assert stored_postings(path) == 3


@pytest.mark.parametrize(("values", "dtype"), [([0, 255], np.uint8), ([-1, 127], np.int8), ([0, 256], np.uint16),
                                               ([-129, 0], np.int16), ([0, 2**31], np.uint32),
                                               ([-1, 2**31 - 1], np.int32), ([-1, 2**31], np.int64), ([], np.uint8)])
def test_narrowest_type_holds_every_value(values, dtype):
    out = narrowest(np.asarray(values, dtype=np.int64))
    assert out.dtype == dtype and out.tolist() == values


def test_members_are_dated_1980_so_the_same_arrays_give_the_same_bytes(tmp_path):
    import zipfile

    m = _matrix(1, 1, {0: [(1, 0)]}, [0], [1])
    save_matrix(m, tmp_path / "judged.npz")
    with zipfile.ZipFile(tmp_path / "judged.npz") as z:
        assert {info.date_time for info in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert {info.compress_type for info in z.infolist()} == {zipfile.ZIP_STORED}


@pytest.mark.slow
@pytest.mark.parametrize("block", [1 << 20, 997])
def test_loading_to_a_depth_keeps_the_postings_ranked_that_deep_and_every_score(trec8_matrix, tmp_path,
                                                                                monkeypatch, block):
    from irmeta.measures.averaging import score_arrays

    path = tmp_path / "judged.npz"
    save_matrix(trec8_matrix, path, {"depth": 1000})
    monkeypatch.setattr(store, "BLOCK_POSTINGS", block)
    loaded = load_matrix(path, depth=100)
    cut = trec8_matrix.top(100)
    _assert_same(cut, loaded)
    assert int(loaded.misses.rank.max()) == 100 and len(loaded.misses) < len(trec8_matrix.misses) / 3
    assert np.array_equal(loaded.length, trec8_matrix.length)  # a run still returned what it returned
    measures = ["P@100", "AP@100", "AP_rareness@100", "bpref@100", "nDCG@20"]
    whole = score_arrays(trec8_matrix, measures, averaging=("all",), alphas=[0, 1])
    shallow = score_arrays(loaded, measures, averaging=("all",), alphas=[0, 1])
    assert np.array_equal(whole.per_topic, shallow.per_topic)
    # a measure of the whole run reads beyond: it does change (so the cut is no no-op)
    assert not np.array_equal(score_arrays(trec8_matrix, ["AP"], averaging=("all",)).per_topic,
                              score_arrays(loaded, ["AP"], averaging=("all",)).per_topic)


def test_depth_needed_covers_the_measures_and_the_deepest_pool():
    from irmeta.metaeval.judgment_reduction import depth_needed

    assert depth_needed(["pool_depth_10", "fraction_0.1_trial_0"], ["P@100", "AP@50"]) == 100
    assert depth_needed(["pool_depth_200", "error_0.1_trial_1"], ["P@100"]) == 200
    assert depth_needed(["pool_depth_10"], ["P@10"], rarity_depth=1000) == 1000
    assert depth_needed(["pool_depth_10"], ["AP", "P@10"]) is None
