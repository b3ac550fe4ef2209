"""config/campaigns.yaml (``make campaigns``): it passes the schema and irmeta's own checks,
names the three public campaigns and the graded and rank-biased comparisons, and every
collection it names loads from the shared data with its runs."""

from __future__ import annotations

import yaml

from campaigns import REPO
from irmeta.measures.names import parse_measure
from irmeta.pipeline.collection_config import load_collection
from irmeta.pipeline.config_checks import check_config, validate_config
from irmeta.pipeline.experiment_settings import properties_rarity_depth


def test_campaigns_config(shared_data):
    raw = yaml.safe_load((REPO / "config" / "campaigns.yaml").read_text())
    config = check_config(validate_config(raw, "campaigns.yaml"), "campaigns.yaml")
    assert config["collections"] == ["trec8", "clef_tar2017", "dl2020_passage"]
    assert config["averaging"] == ["all", "returned", "geometric"]
    names = {str(parse_measure(m)) for m in config["measures"]}
    assert {"nDCG@10", "nDCG_rareness@10", "RBP", "RBP_rareness", "P@100", "AP_rareness_norm@100"} <= names
    compared = {(c["measure"], c["baseline"]) for c in config["experiments"]["comparisons"]}
    assert {("nDCG_rareness@10", "nDCG@10"), ("RBP_rareness", "RBP")} <= compared
    assert properties_rarity_depth(config["measures"], config["rarity_depth"]) == 100
    for name in config["collections"]:
        collection = load_collection(name, shared_data, REPO / "config" / "collections", base_dir=REPO)
        assert collection.qrels.is_file() and collection.run_files(), name
    passage = load_collection("dl2020_passage", shared_data, REPO / "config" / "collections", base_dir=REPO)
    assert (passage.threshold, passage.depth, passage.pool_depth) == (1, 1000, 10)
    assert len(passage.run_files()) == 59
