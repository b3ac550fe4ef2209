"""Ingestion in shards (config's ingest_shards): the run files split into contiguous
slices, each judged into a part, the parts merged into judged.npz, which must be the
bytes one job reading every file writes, whatever the number of shards."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.store import load_matrix
from irmeta.pipeline.steps import ingest_collection, ingest_shard, merge_ingested
from irmeta.simulate import simulate_campaign


def _sharded(tmp_path: Path, qrels: Path, runs: Path, shards: int, **options) -> Path:
    parts = []
    for shard in range(shards):
        part = tmp_path / f"parts{shards}" / f"{shard}.npz"
        ingest_shard(qrels=qrels, runs=runs, out=part, shard=shard, shards=shards, **options)
        parts.append(part)
    out = tmp_path / f"judged{shards}.npz"
    merge_ingested(qrels=qrels, parts=parts, out=out, **options)
    return out


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path]:
    """A simulated campaign (ties, an omitted topic, a short run) with two runs added by
    hand: one with a topic the qrels lack and one with a document twice for a topic."""
    where = tmp_path_factory.mktemp("campaign")
    made = simulate_campaign(where / "c", n_runs=7, n_topics=6, depth=30, pool_size=120, seed=3)
    runs = where / "c" / "runs"
    extra = "".join(f"999 Q0 X{i} {i} {10 - i} tag\n" for i in range(3))
    first_topic = made["qrels"].read_text().split()[0]
    docs = [line.split()[2] for line in made["qrels"].read_text().splitlines() if line.split()[0] == first_topic]
    twice = "".join(f"{first_topic} Q0 {doc} {i} {5 - i} tag\n" for i, doc in enumerate([docs[0], docs[1], docs[0]]))
    (runs / "aa-extra.gz").write_bytes(gzip.compress((extra + twice).encode()))
    (runs / "zz-twice.gz").write_bytes(gzip.compress(twice.encode()))
    return made["qrels"], runs


@pytest.mark.parametrize("shards", [2, 3, 9, 12])  # 9 and 9 + 3 files: one file a shard, then empty shards
def test_sharded_ingestion_writes_the_bytes_of_one_job(tmp_path, campaign, shards):
    qrels, runs = campaign
    options = {"depth": 20, "duplicates": "first", "threshold": 1}
    one = tmp_path / "judged1.npz"
    summary = ingest_collection(qrels=qrels, runs=runs, out=one, **options)
    # the campaign exercises what the merge must carry over: ignored topics, dropped duplicates
    assert summary["run_topics_not_in_qrels"] == ["999"]
    assert summary["dropped_duplicates"] == {"aa-extra": 1, "zz-twice": 1}
    sharded = _sharded(tmp_path, qrels, runs, shards, **options)
    assert sharded.read_bytes() == one.read_bytes()
    matrix = load_matrix(sharded)
    assert matrix.n_runs == 9 and len(matrix.hits) > 0 and len(matrix.misses) > 0


def test_sharded_ingestion_at_single_precision_is_the_one_job_at_single_precision(tmp_path, campaign):
    qrels, runs = campaign
    options = {"depth": 20, "duplicates": "first", "threshold": 1, "score_precision": "float32"}
    one = tmp_path / "judged1.npz"
    ingest_collection(qrels=qrels, runs=runs, out=one, **options)
    assert _sharded(tmp_path, qrels, runs, 3, **options).read_bytes() == one.read_bytes()
    doubles = tmp_path / "double.npz"
    ingest_collection(qrels=qrels, runs=runs, out=doubles, **dict(options, score_precision="double"))
    assert doubles.read_bytes() != one.read_bytes()  # the setting is recorded, so the stores differ
    with pytest.raises(ValueError, match="other settings"):  # parts read at other precisions do not mix
        ingest_shard(qrels=qrels, runs=runs, out=tmp_path / "p0.npz", shard=0, shards=2, **options)
        ingest_shard(qrels=qrels, runs=runs, out=tmp_path / "p1.npz", shard=1, shards=2,
                     **dict(options, score_precision="double"))
        merge_ingested(qrels=qrels, parts=[tmp_path / "p0.npz", tmp_path / "p1.npz"], out=tmp_path / "mixed.npz",
                       **options)


def test_each_shard_reads_a_contiguous_slice_of_the_files(tmp_path, campaign):
    qrels, runs = campaign
    names = [name.removesuffix(".gz") for name in sorted(p.name for p in runs.iterdir())]  # file order
    counts = [ingest_shard(qrels=qrels, runs=runs, out=tmp_path / f"{k}.npz", shard=k, shards=4, duplicates="first")
              for k in range(4)]
    assert counts == [2, 2, 2, 3]
    read = []
    for k in range(4):
        with np.load(tmp_path / f"{k}.npz") as part:
            read += json.loads(part["meta"].tobytes())["runs"]
    assert read == names


def test_a_part_read_with_other_settings_is_refused_on_one_line(tmp_path, campaign):
    qrels, runs = campaign
    a, b = tmp_path / "0.npz", tmp_path / "1.npz"
    ingest_shard(qrels=qrels, runs=runs, out=a, shard=0, shards=2, duplicates="first", depth=20)
    ingest_shard(qrels=qrels, runs=runs, out=b, shard=1, shards=2, duplicates="first", depth=10)
    with pytest.raises(ValueError) as exc:
        merge_ingested(qrels=qrels, parts=[a, b], out=tmp_path / "judged.npz", duplicates="first", depth=20)
    assert str(exc.value).startswith(f"{b}: this part was ingested with other settings or qrels")
    assert "\n" not in str(exc.value)
    assert not (tmp_path / "judged.npz").exists()


def test_a_run_name_two_shards_share_is_refused_as_in_one_job(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("a", "b"):  # two files, one tag: one run name with run_name "tag"
        (runs / name).write_text("1 Q0 d1 1 2 same\n1 Q0 d2 2 1 same\n")
    with pytest.raises(TrecFormatError) as one:
        ingest_collection(qrels=qrels, runs=runs, out=tmp_path / "one.npz", run_name="tag")
    with pytest.raises(TrecFormatError) as sharded:
        _sharded(tmp_path, qrels, runs, 2, run_name="tag")
    assert str(sharded.value) == str(one.value)
    assert "run name 'same' is also the name of" in str(one.value)


@pytest.mark.parametrize("value, said", [(0, "0 is less than the minimum of 1"), (1.5, "1.5 is not of type 'integer'"),
                                         (1001, "1001 is greater than the maximum of 1000")])
def test_ingest_shards_out_of_range_is_refused_naming_the_key(tmp_path, value, said):
    from irmeta.pipeline.config_checks import load_config
    from irmeta.pipeline.config_schema import ConfigError

    path = tmp_path / "config.yaml"
    path.write_text(f"ingest_shards: {value}\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == f"{path}: key 'ingest_shards': {said}"


def test_ingest_shards_defaults_to_one_job():
    from irmeta.pipeline.config_checks import validate_config

    assert validate_config({})["ingest_shards"] == 1
