"""A collection of judgment-group qrels (``qrels_format: qrels_jg``, trec_eval's ``-R
qrels_jg``): read by the schema, ingested in one job or in shards to the same bytes with
each topic's groups, the stored campaign scoring the *_avgjg measures as the API scores the
files; and what does not go with it refused before any job, on one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import irmeta
from irmeta.campaign.store import load_matrix
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure
from irmeta.pipeline.collection_config import available_collections, load_collection
from irmeta.pipeline.config_checks import load_config
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.steps import ingest_collection, ingest_shard, merge_ingested

MEASURES = ["P_avgjg@2", "AP_avgjg", "Rprec_mult_avgjg(multiple=0.5)", "AP_avgjg(judged_only=true)"]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path, list[Path]]:
    """Topic 1 judged by two groups that disagree (d1 in b's pool unjudged), topic 2 by one;
    three runs, so two shards hold different runs."""
    root = tmp_path_factory.mktemp("jg")
    data = root / "data"
    (data / "runs").mkdir(parents=True)
    qrels = data / "qrels.jg.txt"
    qrels.write_text("1 a d1 1\n1 a d2 0\n1 b d2 1\n1 b d3 1\n1 b d1 -1\n2 a d1 1\n2 a d4 2\n")
    runs = []
    for name, lines in {"r1": "1 Q0 d1 1 3 r1\n1 Q0 d2 2 2 r1\n1 Q0 d9 3 1 r1\n2 Q0 d1 1 1 r1\n",
                        "r2": "1 Q0 d3 1 3 r2\n1 Q0 d1 2 2 r2\n2 Q0 d4 1 2 r2\n2 Q0 d5 2 1 r2\n",
                        "r3": "1 Q0 d9 1 3 r3\n1 Q0 d2 2 2 r3\n2 Q0 d1 1 1 r3\n"}.items():
        runs.append(data / "runs" / name)
        runs[-1].write_text(lines)
    return root, qrels, runs


def _collection(root: Path, **given) -> Path:
    data = {"name": "jg", "qrels": "{data_root}/qrels.jg.txt", "runs": "{data_root}/runs", "qrels_format": "qrels_jg",
            **given}
    path = root / "collections" / "jg.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_ingested_in_one_job_or_in_shards_alike_and_scored_as_the_api(campaign, tmp_path):
    root, qrels, runs = campaign
    collection = load_collection(_collection(root), root / "data")
    options = collection.ingest_options()
    assert options["qrels_format"] == "qrels_jg"
    plain = load_collection(_collection(root, qrels_format="plain"), root / "data")
    assert "qrels_format" not in plain.ingest_options()
    one = tmp_path / "judged.npz"
    ingest_collection(qrels=qrels, runs=runs, out=one, **options)
    parts = [tmp_path / f"part{i}.npz" for i in range(2)]
    for i, part in enumerate(parts):
        ingest_shard(qrels=qrels, runs=runs, out=part, shard=i, shards=2, **options)
    merged = tmp_path / "merged.npz"
    merge_ingested(qrels=qrels, parts=parts, out=merged, **options)
    assert one.read_bytes() == merged.read_bytes()
    stored = load_matrix(one)
    assert stored.judgment_groups is not None and stored.judgment_groups.n_groups.tolist() == [2, 1]
    direct = irmeta.score(qrels, runs, MEASURES, qrels_format="qrels_jg").scores.per_topic
    got = evaluate(stored, MEASURES)
    np.testing.assert_array_equal(np.stack([got[parse_measure(n)] for n in MEASURES]), direct)
    with pytest.raises(ValueError, match="hold judgment groups"):
        evaluate(stored, ["AP"])


def _config(root: Path, measures: list[str]) -> dict:
    config = load_config(Path(irmeta.__file__).parents[2] / "config" / "config.yaml")
    return dict(config, collections=["jg"], data_root=str(root / "data"), measures=measures)


@pytest.mark.parametrize("given,measures,message", [
    ({}, MEASURES + ["P@10"], "key 'qrels_format': the collection's qrels hold judgment groups (qrels_jg), which "
                              "only P_avgjg, AP_avgjg, Rprec_mult_avgjg read, not P@10"),
    ({"qrels_format": "plain"}, ["AP_avgjg", "P@10"], "key 'qrels_format': AP_avgjg average over judgment groups, "
                                                      "and the collection's qrels are ordinary"),
    ({"alternative_qrels": {"other": "{data_root}/qrels.jg.txt"}}, MEASURES,
     "key 'alternative_qrels': judgment sets are compared"),
])
def test_what_does_not_go_with_judgment_groups_is_refused(campaign, given, measures, message):
    root, _, _ = campaign
    _collection(root)
    found, _ = available_collections(_config(root, MEASURES), root / "collections")
    assert found["jg"].qrels_format == "qrels_jg"
    _collection(root, **given)
    with pytest.raises(ConfigError) as caught:
        available_collections(_config(root, measures), root / "collections")
    assert message in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
