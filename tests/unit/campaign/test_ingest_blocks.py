"""Ingestion in bounded memory (config's memory_budget): a job reads, judges and encodes
its runs a block of run files (or of lines of a file) at a time and writes each block to
its part as it is done; judged.npz and ranked.npz are the same bytes whatever the
blocks, the budget and the shards, and a budget that cannot hold the qrels is refused on
one line before any run is read."""

from __future__ import annotations

import gzip
import math
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irmeta.campaign.errors import TrecFormatError, TrecFormatWarning
from irmeta.campaign.ingest_parts import (
    BLOCK_MB_MAX,
    BLOCK_WRITING_FACTOR,
    MIN_READING_MB,
    MemoryBudgetError,
    reading_plan,
)
from irmeta.campaign.ranked_store import TopRows, _global_pools, _pools_at_once, ranked_part
from irmeta.campaign.run_blocks import TopicsNotGrouped, line_blocks, read_run_pieces
from irmeta.campaign.runs import read_run_file
from irmeta.pipeline.steps import ingest_collection, ingest_shard, merge_ingested
from irmeta.simulate import simulate_campaign
from irmeta.support.memory import qrels_held_mb, resident_mb

OPTIONS = {"depth": 20, "duplicates": "first", "threshold": 1}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path]:
    """A simulated campaign (ties, an omitted topic, a short run) with runs added by hand:
    a topic the qrels lack, a document twice for a topic, topics out of irmeta's order,
    blank lines and a run without a final newline."""
    where = tmp_path_factory.mktemp("blocks")
    made = simulate_campaign(where / "c", n_runs=6, n_topics=5, depth=30, pool_size=90, seed=11)
    runs = where / "c" / "runs"
    qrels = made["qrels"].read_text().split("\n")
    topics = sorted({line.split()[0] for line in qrels if line}, key=int)
    docs = [line.split()[2] for line in qrels if line and line.split()[0] == topics[0]]
    lines = [f"999 Q0 X{i} {i} {10 - i} tag\n" for i in range(3)]
    lines += [f"{topics[0]} Q0 {d} {i} {5 - i} tag\n" for i, d in enumerate([docs[0], docs[1], docs[0], "C"])]
    (runs / "aa-extra.gz").write_bytes(gzip.compress("".join(lines).encode()))
    backwards = [f"{t} Q0 {d} {i} {i % 3} tag\n" for t in reversed(topics) for i, d in enumerate(docs[:9])]
    (runs / "zz-backwards").write_text("\n" + "".join(backwards[:10]) + "\n\n" + "".join(backwards[10:]).rstrip("\n"))
    return made["qrels"], runs


def _stores(tmp_path: Path, qrels: Path, runs: Path, name: str, **options) -> tuple[bytes, bytes]:
    judged, ranked = tmp_path / f"{name}.judged.npz", tmp_path / f"{name}.ranked.npz"
    ingest_collection(qrels=qrels, runs=runs, out=judged, ranked_depth=12, ranked_out=ranked, **OPTIONS, **options)
    return judged.read_bytes(), ranked.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {"block_files": 1}, {"block_files": 3}, {"block_lines": 1}, {"block_lines": 7}, {"block_lines": 1000},
    {"block_files": 2, "block_lines": 5}, {"threads": 1, "block_files": 1}, {"memory_budget": 10**6},
    {"memory_budget": "tight"},
], ids=str)
def test_the_stores_are_the_same_bytes_whatever_the_blocks_and_the_budget(tmp_path, campaign, options):
    qrels, runs = campaign
    if options.get("memory_budget") == "tight":  # what this process holds and a little more
        options = {"memory_budget": max(resident_mb(), qrels_held_mb(qrels)) + 70}
    assert _stores(tmp_path, qrels, runs, "blocks", **options) == _stores(tmp_path, qrels, runs, "one")


def test_shards_of_blocks_of_lines_are_the_bytes_of_one_job(tmp_path, campaign):
    qrels, runs = campaign
    one = _stores(tmp_path, qrels, runs, "one")
    parts = [tmp_path / f"{k}.npz" for k in range(3)]
    for k, part in enumerate(parts):
        ingest_shard(qrels=qrels, runs=runs, out=part, shard=k, shards=3, ranked_depth=12, block_files=1,
                     block_lines=2, **OPTIONS)
    merge_ingested(qrels=qrels, parts=parts, out=tmp_path / "j.npz", ranked_depth=12, ranked_out=tmp_path / "r.npz",
                   **OPTIONS)
    assert ((tmp_path / "j.npz").read_bytes(), (tmp_path / "r.npz").read_bytes()) == one


@st.composite
def drawn_campaigns(draw):
    """Run files (gzipped or plain, blank lines, tied scores, a document twice for a
    topic, a topic the qrels lack, topics in any order but each listed in one place) and
    their qrels, as text by file name."""
    topics = [str(t) for t in range(1, draw(st.integers(1, 4)) + 1)]
    docs = [f"D{i}" for i in range(draw(st.integers(1, 6)))]
    judged = [(q, d) for q in topics for d in docs if (q, d) == (topics[0], docs[0]) or draw(st.booleans())]
    qrels = "".join(f"{q} 0 {d} {draw(st.integers(0, 2))}\n" for q, d in judged)
    runs = {}
    for r in range(draw(st.integers(1, 5))):
        listed = draw(st.lists(st.sampled_from([*topics, "99"]), min_size=1, unique=True))
        if topics[0] not in listed:  # a topic the qrels judge: the runs and the qrels share one
            listed.insert(draw(st.integers(0, len(listed))), topics[0])
        lines = []
        for q in listed:
            ranked = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=8))
            lines += [f"{q} Q0 {d} {i} {draw(st.integers(0, 3))} r\n" for i, d in enumerate(ranked)]
            lines += ["\n"] * draw(st.integers(0, 1))
        runs[f"run{r}" + (".gz" if draw(st.booleans()) else "")] = "".join(lines)
    return qrels, runs


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn_campaigns(), st.integers(1, 4), st.one_of(st.none(), st.integers(1, 3)),
       st.one_of(st.none(), st.integers(1, 12)))
def test_stores_are_the_same_bytes_whatever_the_shards_and_blocks_property(made, shards, block_files, block_lines):
    """Drawn campaigns: ``shards`` jobs reading blocks of ``block_files`` run files, each
    file ``block_lines`` lines at a time (down to one file and one line), merged, give
    the bytes of one job at the default budget."""
    qrels_text, runs_text = made
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        qrels, runs = root / "qrels", root / "runs"
        qrels.write_text(qrels_text)
        runs.mkdir()
        for name, text in runs_text.items():
            (runs / name).write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
        options = {**OPTIONS, "depth": 5, "ranked_depth": 3}
        ingest_collection(qrels=qrels, runs=runs, out=root / "one.npz", ranked_out=root / "one.r.npz", **options)
        parts = [root / f"{k}.part.npz" for k in range(shards)]
        for k, part in enumerate(parts):
            ingest_shard(qrels=qrels, runs=runs, out=part, shard=k, shards=shards, block_files=block_files,
                         block_lines=block_lines, **options)
        merge_ingested(qrels=qrels, parts=parts, out=root / "merged.npz", ranked_out=root / "merged.r.npz", **options)
        for one, merged in (("one.npz", "merged.npz"), ("one.r.npz", "merged.r.npz")):
            assert (root / one).read_bytes() == (root / merged).read_bytes()


def _rows(run) -> dict[str, list[tuple[str, float, int]]]:
    """Each topic's rows (document, score, rank) as a read run holds them."""
    topics = run.qid.dictionary.to_pylist()
    docs = run.docid.dictionary.take(run.docid.indices).to_pylist()
    out: dict[str, list] = {}
    for i, t in enumerate(run.qid.indices.to_pylist()):
        out.setdefault(topics[t], []).append((docs[i], float(run.score[i]), int(run.rank[i])))
    return out


@pytest.mark.parametrize("lines", [97, 5_000])
def test_a_run_read_in_blocks_of_lines_is_the_run_read_whole(shared_data, lines):
    """A TREC-8 run (ties broken by docid, scores at single precision), topic for topic."""
    path = sorted((shared_data / "trec8_adhoc" / "runs").iterdir())[3]
    whole = read_run_file(path, "tag", 100, "error", "float32")
    pieces = list(read_run_pieces(path, "tag", 100, "error", "float32", lines=lines))
    read: dict[str, list] = {}
    for piece in pieces:
        assert piece.name == whole.name and not set(_rows(piece)) & set(read)
        read |= _rows(piece)
    assert read == _rows(whole)
    assert len(pieces) > 1


def test_blocks_of_lines_count_blank_lines_and_keep_the_last_unended_one(tmp_path):
    path = tmp_path / "run.gz"
    text = "\ufeffa\n\nb\nc\n\n\nd"
    path.write_bytes(gzip.compress(text[:5].encode()) + gzip.compress(text[5:].encode()))  # two gzip members
    with pytest.warns(TrecFormatWarning, match="byte-order mark"):
        blocks = list(line_blocks(path, 2))
    assert blocks == [(b"a\n\n", 0), (b"b\nc\n", 2), (b"\n\n", 4), (b"d", 6)]
    with pytest.warns(TrecFormatWarning):
        assert [b"".join(b for b, _ in line_blocks(path, n)) for n in (1, 3, 100)] == [text[1:].encode()] * 3


@pytest.mark.parametrize("body, duplicates", [
    ("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 c 1 1 t\n2 Q0 d 2 x t\n", "error"),  # a score that is no number
    ("1 Q0 a 1 3 t\n2 Q0 c 1 1 t\n2 Q0 d 2 1 t\n\n2 Q0 c 3 0 t\n", "error"),  # a document twice
    ("1 Q0 a 1 3 t\n1 Q0 b 2 2\n", "first"),  # a line short of columns
    ("1 Q0 a 1 3 t\n2 Q0 c 1 1e39 t\n", "first"),  # beyond a single-precision float
])
def test_errors_name_the_line_reading_whole_names(tmp_path, body, duplicates):
    path = tmp_path / "run"
    path.write_text(body)
    with pytest.raises(TrecFormatError) as whole:
        read_run_file(path, "file", None, duplicates, "float32")
    for lines in (1, 2, 3):
        with pytest.raises(TrecFormatError) as pieces:
            list(read_run_pieces(path, "file", None, duplicates, "float32", lines=lines))
        assert str(pieces.value) == str(whole.value)


def test_a_file_listing_a_topic_twice_is_read_whole_with_a_warning(tmp_path, campaign):
    qrels, runs = campaign
    apart = tmp_path / "runs"
    apart.mkdir()
    body = (runs / "zz-backwards").read_text().strip().split("\n")
    (apart / "split").write_text("\n".join(body[3:] + body[:3]) + "\n")  # the last topic's first rows moved to the end
    with pytest.raises(TopicsNotGrouped):
        list(read_run_pieces(apart / "split", "file", None, "first", lines=4))
    with pytest.warns(TrecFormatWarning, match=r"split:\d+: topic \d+ again, after other topics: the file is read "
                                                r"whole"):
        blocks = _stores(tmp_path, qrels, apart, "lines", block_lines=4)
    assert blocks == _stores(tmp_path, qrels, apart, "whole")


def test_a_budget_that_cannot_hold_the_qrels_is_refused_on_one_line_before_any_run_is_read(tmp_path, campaign):
    qrels, runs = campaign
    out = tmp_path / "judged.npz"
    with pytest.raises(MemoryBudgetError) as exc:
        ingest_collection(qrels=qrels, runs=runs, out=out, memory_budget=200, **OPTIONS)
    said = str(exc.value)
    assert said.startswith(f"memory_budget 200 MB cannot hold this ingestion: the qrels ({qrels}) and their lookup "
                           f"take about 150 MB") and "\n" not in said
    least = math.ceil(qrels_held_mb(qrels) + MIN_READING_MB)  # 4 x the file + 150 MB, and 64 MB to read
    assert said.endswith(f"raise memory_budget (config, MB) to at least {least}") and least == 215
    assert list(tmp_path.iterdir()) == []  # nothing written, no temporary left


def test_the_plan_follows_the_budget(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"1 0 d 1\n")
    files = []
    for name, mb in (("small.gz", 10), ("large.gz", 60)):  # 200 and 1,200 MB in flight (20 times gzipped)
        with open(tmp_path / name, "wb") as f:
            f.truncate(mb * 2**20)
        files.append(tmp_path / name)
    roomy = reading_plan(files, qrels, budget_mb=3000, fixed_mb=400, threads=2)
    assert (roomy.threads, roomy.piece_mb, roomy.block_mb) == (1, 1300, BLOCK_MB_MAX)  # the large file alone
    assert not roomy.in_pieces(files[1])
    tight = reading_plan(files, qrels, budget_mb=2400, fixed_mb=400, threads=2)
    assert tight.threads == 2 and tight.in_pieces(files[1]) and not tight.in_pieces(files[0])
    assert tight.block_lines == 1000 * 2**20 // 400
    assert "1 of 2 file(s) read 2621440 lines at a time" in tight.describe(files)
    small = reading_plan(files, qrels, budget_mb=1000, fixed_mb=400, threads=2)  # below the cap: the budget's
    assert small.block_mb == 300 / BLOCK_WRITING_FACTOR < BLOCK_MB_MAX and small.in_pieces(files[1])
    with pytest.raises(MemoryBudgetError):
        reading_plan(files, qrels, budget_mb=460, fixed_mb=400, threads=2)


def _random_parts(rng: np.random.Generator, n_parts: int, alphabet: list[str]) -> list:
    """Parts of rankings whose documents share prefixes and hold multi-byte characters,
    their topics numbers in some parts (ordered as numbers) and not in others."""
    parts = []
    for p in range(n_parts):
        topics = ["10", "9", "x"] if p % 2 else ["10", "9"]
        rows = []
        for _ in range(2):
            topic = rng.integers(0, len(topics), 30).astype(np.int32)
            docs = pa.array(["".join(alphabet[i] for i in rng.integers(0, len(alphabet), rng.integers(1, 4)))
                             for _ in topic], pa.large_string())
            rows.append(TopRows(topics, topic, docs, np.arange(len(topic), dtype=np.float64)))
        parts.append(ranked_part([f"r{p}.{r}" for r in range(2)], rows))
    return parts


@pytest.mark.parametrize("alphabet", [["a", "ab", "é", "b", "\x01"], ["a", "b\x00", "\x00"]], ids=["text", "nul"])
def test_pools_merged_one_part_at_a_time_are_those_of_one_sort(alphabet):
    """Byte strings (numpy) order as Arrow's sort does; documents ending in a NUL byte
    (which numpy's byte strings cannot hold) are merged by the sort of every pool."""
    parts = _random_parts(np.random.default_rng(5), 5, alphabet)
    topics = ["10", "9", "x"]
    places, start, pool = _global_pools(parts, topics)
    places_once, start_once, pool_once = _pools_at_once(parts, topics)
    assert pool.to_pylist() == pool_once.to_pylist() and np.array_equal(start, start_once)
    assert all(np.array_equal(places(i), places_once(i)) for i in range(len(parts)))
