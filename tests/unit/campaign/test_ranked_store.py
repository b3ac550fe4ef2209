"""The rankings ingestion keeps for the degraded reproductions (ranked.npz): the cells the
runs read again make, the same bytes whatever the shards, and the same degradation
tables as the run files give."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from irmeta.campaign.degrade_cells import RankedCells, load_ranked, ranked_cells
from irmeta.campaign.ranked_store import ranked_settings
from irmeta.campaign.rankings import scored_rankings_of
from irmeta.campaign.runs import read_runs
from irmeta.metaeval.reproducibility_table import OrderSettings
from irmeta.pipeline.reproducibility import tabulate_degradation
from irmeta.pipeline.steps import ingest_collection, ingest_shard, merge_ingested
from irmeta.simulate import simulate_campaign

OPTIONS = {"depth": 20, "duplicates": "first", "threshold": 1}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path]:
    """A simulated campaign (ties, an omitted topic, a short run) and a run with a topic
    the qrels lack and a document twice for a topic."""
    where = tmp_path_factory.mktemp("ranked")
    made = simulate_campaign(where / "c", n_runs=6, n_topics=5, depth=30, pool_size=90, seed=5)
    runs = where / "c" / "runs"
    first = made["qrels"].read_text().split()[0]
    lines = [f"999 Q0 X{i} {i} {10 - i} tag\n" for i in range(3)]
    lines += [f"{first} Q0 {d} {i} {5 - i} tag\n" for i, d in enumerate(["A", "B", "A", "C"])]
    (runs / "aa-extra.gz").write_bytes(gzip.compress("".join(lines).encode()))
    return made["qrels"], runs


def _sharded(tmp_path: Path, qrels: Path, runs: Path, shards: int, ranked_depth: int, **options) -> Path:
    parts = []
    for shard in range(shards):
        part = tmp_path / f"parts{shards}" / f"{shard}.npz"
        ingest_shard(qrels=qrels, runs=runs, out=part, shard=shard, shards=shards, ranked_depth=ranked_depth, **options)
        parts.append(part)
    out = tmp_path / f"ranked{shards}.npz"
    merge_ingested(qrels=qrels, parts=parts, out=tmp_path / f"judged{shards}.npz", ranked_depth=ranked_depth,
                   ranked_out=out, **options)
    return out


def _scores(cells: RankedCells) -> dict[tuple[str, str], list[float]]:
    return {(cells.runs[cells.cell_run[c]], cells.topics[cells.cell_topic[c]]):
            cells.score[cells.start[c]:cells.start[c + 1]].tolist() for c in range(cells.n_cells)}


def _same_cells(kept: RankedCells, read: RankedCells) -> None:
    """The same rankings, scores and pools (topics may be laid out in another order)."""
    assert kept.runs == read.runs
    assert kept.rankings() == read.rankings()
    assert _scores(kept) == _scores(read)
    pools = {t: kept.docids[kept.pool_start[i]:kept.pool_start[i + 1]].tolist() for i, t in enumerate(kept.topics)}
    assert pools == {t: read.docids[read.pool_start[i]:read.pool_start[i + 1]].tolist()
                     for i, t in enumerate(read.topics)}
    assert [kept.topics[t] for t in kept.cell_topic] == [read.topics[t] for t in read.cell_topic]


@pytest.mark.parametrize("shards", [2, 3, 7, 9])  # 7 files: one a shard, then empty shards
def test_kept_rankings_are_the_runs_read_again_whatever_the_shards(tmp_path, campaign, shards):
    qrels, runs = campaign
    one = tmp_path / "ranked1.npz"
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "judged1.npz", ranked_depth=12, ranked_out=one,
                      **OPTIONS)
    assert _sharded(tmp_path, qrels, runs, shards, 12, **OPTIONS).read_bytes() == one.read_bytes()
    # the judged postings are those of an ingestion that keeps no rankings
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "plain.npz", **OPTIONS)
    assert (tmp_path / f"judged{shards}.npz").read_bytes() == (tmp_path / "plain.npz").read_bytes()
    kept = load_ranked(one)
    _same_cells(kept, ranked_cells(scored_rankings_of(read_runs(runs, depth=12, duplicates="first"))))
    assert "999" in kept.topics and kept.runs[0] == "aa-extra"
    assert ranked_settings(one) == {"depth": 12, "duplicates": "first", "run_name": "file",
                                    "score_precision": "double"}


def test_the_runs_depth_cuts_the_rankings_when_shallower(tmp_path, campaign):
    qrels, runs = campaign
    out = tmp_path / "ranked.npz"
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "judged.npz", ranked_depth=100, ranked_out=out,
                      **OPTIONS)
    assert ranked_settings(out)["depth"] == 20
    assert int(np.diff(load_ranked(out).start).max()) == 20


def test_topics_ordered_otherwise_in_a_shard_are_put_in_the_campaigns_order(tmp_path):
    """One shard's topics are all numbers (ordered as numbers), the campaign's are not
    (ordered as bytes): the merge puts each run's cells in the campaign's order."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("9 0 d1 1\n10 0 d2 1\nx 0 d3 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a").write_text("9 Q0 d1 1 3 a\n9 Q0 d4 2 2 a\n10 Q0 d2 1 3 a\n10 Q0 d1 2 1 a\n")
    (runs / "b").write_text("x Q0 d3 1 2 b\n10 Q0 d5 1 2 b\n10 Q0 d2 2 2 b\n")
    one = tmp_path / "one.npz"
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "j.npz", ranked_depth=5, ranked_out=one)
    assert _sharded(tmp_path, qrels, runs, 2, 5).read_bytes() == one.read_bytes()
    kept = load_ranked(one)
    assert kept.topics == ["10", "9", "x"]
    assert [(kept.runs[r], kept.topics[t]) for r, t in zip(kept.cell_run, kept.cell_topic)] == [
        ("a", "10"), ("a", "9"), ("b", "10"), ("b", "x")]
    _same_cells(kept, ranked_cells(scored_rankings_of(read_runs(runs, depth=5))))


def test_a_part_without_rankings_is_refused(tmp_path, campaign):
    """Its settings say so (no rankings' depth): refused as any part read otherwise."""
    qrels, runs = campaign
    parts = [tmp_path / "0.npz", tmp_path / "1.npz"]
    for shard, part in enumerate(parts):
        ingest_shard(qrels=qrels, runs=runs, out=part, shard=shard, shards=2, **OPTIONS)
    with pytest.raises(ValueError, match="this part was ingested with other settings"):
        merge_ingested(qrels=qrels, parts=parts, out=tmp_path / "j.npz", ranked_depth=12,
                       ranked_out=tmp_path / "r.npz", **OPTIONS)
    assert not (tmp_path / "r.npz").exists()


def _degradation(tmp_path: Path, qrels: Path, *, depth: int = 12, **source) -> tuple[bytes, bytes]:
    out = tmp_path / ("ranked" if "ranked" in source else "runs")
    out.mkdir(exist_ok=True)
    tabulate_degradation(
        qrels=qrels, measures=["P@10", "AP@10", "P_rareness@10"], alphas=[0.5], rarity_depth=None,
        measure_options=None, baselines=[], order=OrderSettings(10, 0.9, 10),
        degradations={"kinds": ["swap", "replace", "noise"], "levels": [0, 0.2, 0.6], "trials": 2, "depth": depth},
        seed=3, threshold=1, reading={"depth": 20, "duplicates": "first", "run_name": "file"},
        table_out=out / "d.csv", trust_out=out / "t.csv", figure_stem=out / "f", **source)
    return (out / "d.csv").read_bytes(), (out / "t.csv").read_bytes()


@pytest.mark.slow
def test_the_degradation_tables_from_kept_rankings_are_those_of_the_runs(tmp_path, campaign):
    qrels, runs = campaign
    ranked = tmp_path / "ranked.npz"
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "judged.npz", ranked_depth=12, ranked_out=ranked,
                      **OPTIONS)
    assert _degradation(tmp_path, tmp_path / "judged.npz", ranked=ranked) == \
        _degradation(tmp_path, tmp_path / "judged.npz", runs=runs)
    with pytest.raises(ValueError, match="the rankings were kept with"):  # kept at 12, asked at 8
        _degradation(tmp_path, tmp_path / "judged.npz", depth=8, ranked=ranked)


def _stored_meta(path: Path) -> dict:
    import json

    with np.load(path) as stored:
        return json.loads(stored["meta"].tobytes())


@pytest.mark.parametrize(("texts", "precision", "kind"), [
    ({"a": ["3.25", "3.25", "1.5"], "b": ["12.3456", "0.0001", "-2"]}, "double", "decimal"),
    ({"a": ["3.25", "1.5", "0.75"], "b": ["0.3333333333333333", "0.25", "0.125"]}, "double", "float64"),
    ({"a": ["3.25", "1.5", "0.75"], "b": ["0.3333333333333333", "0.25", "0.125"]}, "float32", "float32"),
])
def test_scores_are_stored_exactly_in_the_narrowest_coding_whatever_the_shards(tmp_path, texts, precision, kind):
    """One run's scores have 2 decimals and the other's 4 (coded at 4 together), or have
    no decimal code (stored as float64, or as float32 when read as float32)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, scores in texts.items():
        (runs / name).write_text("".join(f"{t} Q0 d{i} {i} {s} {name}\n"
                                         for t in (1, 2) for i, s in enumerate(scores, start=1)))
    one = tmp_path / "one.npz"
    options = {"score_precision": precision}
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "j.npz", ranked_depth=5, ranked_out=one, **options)
    assert _stored_meta(one)["score"]["kind"] == kind
    assert _sharded(tmp_path, qrels, runs, 2, 5, **options).read_bytes() == one.read_bytes()
    for lazy in (False, True):
        kept = load_ranked(one, lazy=lazy)
        kept = kept.runs_slice(0, len(kept.runs)) if lazy else kept
        _same_cells(kept, ranked_cells(scored_rankings_of(read_runs(runs, depth=5, score_precision=precision))))


def test_rankings_stored_by_an_earlier_irmeta_are_refused_with_what_to_do(tmp_path, campaign):
    qrels, runs = campaign
    out = tmp_path / "ranked.npz"
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "judged.npz", ranked_depth=12, ranked_out=out,
                      **OPTIONS)
    with np.load(out) as stored:
        members = {name: stored[name] for name in stored.files}
    meta = _stored_meta(out)
    del meta["format"]
    import json

    members["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    from irmeta.support.atomic import atomic_save_npz

    atomic_save_npz(tmp_path / "old.npz", members)  # with a checksum: the format is what is refused
    with pytest.raises(ValueError, match=r"earlier irmeta \(format 1.*ingest the collection again"):
        load_ranked(tmp_path / "old.npz")
    np.savez(tmp_path / "older.npz", **members)  # as irmeta wrote it before the checksum
    with pytest.raises(ValueError, match=r"older.npz was stored by an earlier irmeta.*: delete it and run again"):
        load_ranked(tmp_path / "older.npz")


def test_a_range_of_runs_decoded_from_disk_is_that_range_of_the_whole(tmp_path, campaign):
    qrels, runs = campaign
    out = tmp_path / "ranked.npz"
    ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "judged.npz", ranked_depth=12, ranked_out=out,
                      **OPTIONS)
    whole, lazy = load_ranked(out), load_ranked(out, lazy=True)
    for lo in range(len(whole.runs)):
        for hi in range(lo + 1, len(whole.runs) + 1):
            a, b = whole.runs_slice(lo, hi), lazy.runs_slice(lo, hi)
            assert np.array_equal(a.doc, b.doc) and a.score.tobytes() == b.score.tobytes()
            assert np.array_equal(a.start, b.start)
    middle = int(whole.start[-1]) // 2 + 1  # a slice beginning inside a cell
    assert lazy.score[middle:middle + 7].tobytes() == whole.score[middle:middle + 7].tobytes()
    assert np.array_equal(lazy.doc[middle:middle + 7], whole.doc[middle:middle + 7])
