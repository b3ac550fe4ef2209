"""A collection of subtopic qrels (``qrels_format: subtopics``, the TREC Web track's
diversity task): read by the schema, ingested in one job or in shards to the same bytes
with each qrels row's subtopics, scored with the diversity measures as the API scores
them; and what does not go with it refused before any job, on one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import irmeta
from campaigns import diversity_campaign
from irmeta.campaign.store import load_matrix
from irmeta.pipeline.collection_config import available_collections, load_collection
from irmeta.pipeline.config_checks import load_config
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.steps import ingest_collection, ingest_shard, merge_ingested, score_collection
from irmeta.pipeline.stored_scores import load_scores

MEASURES = ["alpha_nDCG@10", "ERR_IA@20", "NRBP", "AP_IA", "P@10", "AP"]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path, list[Path]]:
    root = tmp_path_factory.mktemp("web")
    qrels, runs = diversity_campaign(root / "data", 11, n_topics=12, n_runs=5, depth=30)
    return root, qrels, runs


def _collection(root: Path, **given) -> Path:
    data = {"name": "web", "qrels": "{data_root}/qrels.subtopics.txt", "runs": "{data_root}/runs",
            "qrels_format": "subtopics", **given}
    path = root / "collections" / "web.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_the_schema_takes_subtopics_and_ingestion_reads_them(campaign):
    root, _, _ = campaign
    collection = load_collection(_collection(root), root / "data")
    assert collection.qrels_format == "subtopics"
    assert collection.ingest_options()["qrels_format"] == "subtopics"
    plain = load_collection(_collection(root, qrels_format="plain"), root / "data")
    assert "qrels_format" not in plain.ingest_options()


def test_ingested_in_one_job_or_in_shards_alike_and_scored_as_the_api(campaign, tmp_path):
    _, qrels, runs = campaign
    one = tmp_path / "judged.npz"
    ingest_collection(qrels=qrels, runs=runs, out=one, qrels_format="subtopics")
    parts = [tmp_path / f"part{i}.npz" for i in range(2)]
    for i, part in enumerate(parts):
        ingest_shard(qrels=qrels, runs=runs, out=part, shard=i, shards=2, qrels_format="subtopics")
    merged = tmp_path / "merged.npz"
    merge_ingested(qrels=qrels, parts=parts, out=merged, qrels_format="subtopics")
    assert one.read_bytes() == merged.read_bytes()
    assert load_matrix(one).subtopics is not None
    score_collection(matrix=one, out=tmp_path / "scores.parquet", arrays_out=tmp_path / "scores.npz",
                     measures=MEASURES, averaging=("all",), alphas=(0.0,))
    stored = load_scores(tmp_path / "scores.npz")
    api = irmeta.score(qrels, runs, MEASURES, qrels_format="subtopics").scores
    assert stored.measures == api.measures and stored.runs == api.runs
    assert np.array_equal(stored.per_topic, api.per_topic)


def _config(root: Path, **experiments) -> dict:
    config = load_config(Path(irmeta.__file__).parents[2] / "config" / "config.yaml")
    config = dict(config, collections=["web"], data_root=str(root / "data"), measures=MEASURES)
    config["experiments"] = dict(config["experiments"], **experiments)
    return config


def test_what_does_not_go_with_subtopic_qrels_is_refused(campaign):
    root, _, _ = campaign
    _collection(root)
    found, _ = available_collections(_config(root), root / "collections")
    assert found["web"].qrels_format == "subtopics"
    cases = [({"qrels_format": "plain"}, {}, "key 'qrels_format': the diversity measures (alpha_nDCG@10, "
                                             "ERR_IA@20, NRBP, AP_IA) need subtopic qrels"),
             ({"alternative_qrels": {"other": "{data_root}/qrels.subtopics.txt"}}, {},
              "key 'alternative_qrels': judgment sets are compared")]
    for given, experiments, message in cases:
        _collection(root, **given)
        with pytest.raises(ConfigError) as caught:
            available_collections(_config(root, **experiments), root / "collections")
        assert message in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
