"""Tests for irmeta.simulate: determinism, TREC file format, rarity structure."""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from irmeta.simulate import MARKER, simulate_campaign


def _all_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _read_run(path: Path) -> list[list[str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="ascii") as fh:
        return [line.split() for line in fh]


def _read_qrels(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text(encoding="ascii").splitlines()]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return simulate_campaign(tmp_path_factory.mktemp("campaign"), seed=42)


@pytest.fixture(scope="module")
def parsed(campaign: dict) -> dict:
    """qrels as {(qid, docid): grade}; runs as {name: {qid: [docid, ...]}}."""
    qrels = {(q, d): int(g) for q, _, d, g in _read_qrels(campaign["qrels"])}
    runs: dict[str, dict[str, list[str]]] = {}
    for path in campaign["runs"]:
        per_topic: dict[str, list[str]] = defaultdict(list)
        for fields in _read_run(path):
            per_topic[fields[0]].append(fields[2])
        runs[path.name.removesuffix(".gz")] = dict(per_topic)
    return {"qrels": qrels, "runs": runs}


@pytest.fixture(scope="module")
def n_retrieving(parsed: dict) -> Counter:
    """(qid, docid) -> number of runs retrieving it."""
    return Counter(
        (q, d) for run in parsed["runs"].values() for q, docs in run.items() for d in set(docs)
    )


def test_same_seed_byte_identical(tmp_path: Path) -> None:
    a = simulate_campaign(tmp_path / "a", seed=7, n_runs=8, n_topics=6)
    b = simulate_campaign(tmp_path / "b", seed=7, n_runs=8, n_topics=6)
    files_a, files_b = _all_files(tmp_path / "a"), _all_files(tmp_path / "b")
    assert files_a.keys() == files_b.keys()
    assert len(files_a) == 8 + 3  # runs, qrels, run groups and the marker listing them
    assert set(json.loads(files_a[MARKER])["files"]) == set(files_a) - {MARKER}
    for name in files_a:
        assert files_a[name] == files_b[name], name
    assert a["run_groups"] == b["run_groups"]
    assert a["seed"] == b["seed"] == 7


@pytest.mark.parametrize("gzip_runs", [True, False])
def test_streaming_a_block_of_topics_at_a_time_writes_the_same_bytes(tmp_path: Path, monkeypatch, gzip_runs) -> None:
    """Blocks of one or two topics (as a 10^9-line campaign is written) against the whole
    campaign in one block, and each gzipped run against its text gzipped whole."""
    import irmeta.simulate

    whole = simulate_campaign(tmp_path / "whole", seed=5, n_runs=7, n_topics=9, depth=20, pool_size=60,
                              gzip_runs=gzip_runs)
    monkeypatch.setattr(irmeta.simulate, "_BLOCK_CELLS", 7 * 20 + 1)
    simulate_campaign(tmp_path / "blocks", seed=5, n_runs=7, n_topics=9, depth=20, pool_size=60, threads=3,
                      gzip_runs=gzip_runs)
    assert _all_files(tmp_path / "blocks") == _all_files(tmp_path / "whole")
    if gzip_runs:
        for path in whole["runs"]:
            assert path.read_bytes() == gzip.compress(gzip.decompress(path.read_bytes()), compresslevel=1, mtime=0)


def test_default_campaign_deterministic(tmp_path: Path, campaign: dict) -> None:
    simulate_campaign(tmp_path / "again", seed=42)
    assert _all_files(tmp_path / "again") == _all_files(campaign["qrels"].parent)


def test_different_seed_differs(tmp_path: Path) -> None:
    simulate_campaign(tmp_path / "a", seed=1, n_runs=8, n_topics=6)
    simulate_campaign(tmp_path / "b", seed=2, n_runs=8, n_topics=6)
    a, b = _all_files(tmp_path / "a"), _all_files(tmp_path / "b")
    assert a["qrels.txt"] != b["qrels.txt"]
    common = a.keys() & b.keys()
    assert any(a[k] != b[k] for k in common if k.startswith("runs"))


def test_return_value_and_layout(campaign: dict) -> None:
    out = campaign["qrels"].parent
    assert campaign["qrels"] == out / "qrels.txt"
    assert campaign["seed"] == 42
    assert len(campaign["runs"]) == 24
    assert all(p.exists() and p.parent == out / "runs" and p.suffix == ".gz" for p in campaign["runs"])
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(p.name for p in campaign["runs"])
    names = [p.name.removesuffix(".gz") for p in campaign["runs"]]
    assert names == list(campaign["run_groups"])
    assert len(set(names)) == len(names)
    # Several multi-run groups plus singleton innovative groups.
    sizes = Counter(campaign["run_groups"].values())
    assert sum(size >= 2 for size in sizes.values()) >= 2
    assert set(campaign["innovative"]) <= set(names)
    assert 2 <= len(campaign["innovative"]) <= 3
    lines = (out / "run_groups.tsv").read_text().splitlines()
    assert lines[0] == "run\tgroup"
    assert dict(line.split("\t") for line in lines[1:]) == campaign["run_groups"]


def test_run_format(campaign: dict) -> None:
    saw_tie = saw_short = saw_missing_topic = False
    n_topics = len({q for q, *_ in _read_qrels(campaign["qrels"])})
    for path in campaign["runs"]:
        name = path.name.removesuffix(".gz")
        with path.open("rb") as fh:
            assert fh.read(2) == b"\x1f\x8b"  # really gzip
        by_topic: dict[str, list[tuple[int, float, str]]] = defaultdict(list)
        for fields in _read_run(path):
            assert len(fields) == 6
            qid, q0, docid, rank, score, tag = fields
            assert q0 == "Q0" and tag == name
            assert qid.isdigit() and docid.startswith(f"DOC-{int(qid):04d}-")
            assert len(score.split(".")[1]) == 6
            by_topic[qid].append((int(rank), float(score), docid))
        saw_missing_topic |= len(by_topic) < n_topics
        for rows in by_topic.values():
            ranks = [r for r, _, _ in rows]
            scores = [s for _, s, _ in rows]
            docids = [d for _, _, d in rows]
            assert ranks == list(range(1, len(rows) + 1))
            assert all(a >= b for a, b in zip(scores, scores[1:]))
            assert len(set(docids)) == len(docids)
            assert 1 <= len(rows) <= 100
            saw_tie |= any(a == b for a, b in zip(scores, scores[1:]))
            saw_short |= len(rows) < 100
    assert saw_tie and saw_short and saw_missing_topic


def test_qrels_format(campaign: dict) -> None:
    rows = _read_qrels(campaign["qrels"])
    assert all(len(r) == 4 and r[1] == "0" and r[3] in {"0", "1", "2"} for r in rows)
    keys = [(int(q), d) for q, _, d, _ in rows]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
    qids = {q for q, *_ in rows}
    assert qids == {str(q) for q in range(101, 126)}
    grades = Counter(g for *_, g in rows)
    assert grades["0"] > grades["1"] + grades["2"] and grades["1"] and grades["2"]
    rel_per_topic = Counter(q for q, _, _, g in rows if g != "0")
    assert min(rel_per_topic.values()) <= 3
    assert max(rel_per_topic.values()) >= 20


def test_relevant_doc_retrieved_by_no_run(parsed: dict, n_retrieving: Counter) -> None:
    relevant = [k for k, g in parsed["qrels"].items() if g > 0]
    assert any(n_retrieving[k] == 0 for k in relevant)


def test_relevant_doc_retrieved_by_exactly_one_run(parsed: dict, n_retrieving: Counter) -> None:
    relevant = [k for k, g in parsed["qrels"].items() if g > 0]
    assert any(n_retrieving[k] == 1 for k in relevant)


def test_innovative_runs_find_rare_relevant_docs(
    campaign: dict, parsed: dict, n_retrieving: Counter
) -> None:
    for name in campaign["innovative"]:
        retrieved = {(q, d) for q, docs in parsed["runs"][name].items() for d in docs}
        rare = [k for k in retrieved if parsed["qrels"].get(k, 0) > 0 and n_retrieving[k] <= 2]
        assert rare, name  # itself plus at most one other run


def test_group_variants_overlap_more_than_other_runs(campaign: dict, parsed: dict) -> None:
    def docs(name: str) -> set[tuple[str, str]]:
        return {(q, d) for q, ds in parsed["runs"][name].items() for d in ds}

    def jaccard(a: str, b: str) -> float:
        x, y = docs(a), docs(b)
        return len(x & y) / len(x | y)

    groups = campaign["run_groups"]
    names = list(groups)
    same = [jaccard(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if groups[a] == groups[b]]
    diff = [jaccard(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if groups[a] != groups[b]]
    assert sum(same) / len(same) > sum(diff) / len(diff) + 0.15


def test_plain_text_runs_and_minimum_sizes(tmp_path: Path) -> None:
    res = simulate_campaign(tmp_path, seed=3, n_runs=2, n_topics=1, depth=1, pool_size=5, gzip_runs=False)
    assert [p.suffix for p in res["runs"]] == [".txt", ".txt"]
    for path in res["runs"]:
        for fields in _read_run(path):
            assert len(fields) == 6 and fields[3] == "1"
    assert _read_qrels(res["qrels"])


def test_stale_run_files_removed(tmp_path: Path) -> None:
    simulate_campaign(tmp_path, seed=5, n_runs=10, n_topics=3)
    res = simulate_campaign(tmp_path, seed=5, n_runs=4, n_topics=3)
    assert sorted((tmp_path / "runs").iterdir()) == sorted(res["runs"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_runs": 1}, "n_runs"),
        ({"n_runs": 0}, "n_runs"),
        ({"n_topics": 0}, "n_topics"),
        ({"depth": 0}, "depth"),
        ({"pool_size": 0}, "pool_size"),
        ({"pool_size": 50, "depth": 100}, r"^pool_size 50 cannot fill depth 100: .*\(pool_size >= depth\)$"),
        ({"seed": -1}, "seed"),
    ],
)
def test_argument_validation(tmp_path: Path, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        simulate_campaign(tmp_path, **kwargs)
    assert not (tmp_path / "qrels.txt").exists()


def test_non_integer_argument_rejected(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="n_topics"):
        simulate_campaign(tmp_path, n_topics=2.5)  # type: ignore[arg-type]
