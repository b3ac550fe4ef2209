"""A table's columns have one home: the constant of the module that builds it, which the
experiment manifest names (``Output.columns``) and the documentation's table reference is
written from. Here the builders on a small campaign, under the settings that add an
optional column and without them; tests/integration/test_workflow.py checks every table
the demo pipeline writes, and tests/unit/pipeline/test_manifest.py that every table
declares its columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from campaigns import ranked_matrix
from irmeta.campaign.rarity import rarity_listing
from irmeta.metaeval.asl_analysis import asl_analysis
from irmeta.metaeval.synthetic_rare_common import synthetic_rare_common_table
from irmeta.metaeval.system_subsampling import subsampling_shard, subsampling_table
from irmeta.pipeline.experiments import rarity_listing_table
from irmeta.pipeline.manifest import Columns, Output, output


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    """Six runs of 4-9 documents on two topics of 12 (grades 0-2)."""
    rng = np.random.default_rng(3)
    qrels = {qid: {f"{qid}d{j}": int(rng.integers(0, 3)) for j in range(12)} for qid in ("401", "402")}
    runs = {f"run{s}": {qid: [f"{qid}d{j}" for j in rng.choice(12, size=int(rng.integers(4, 10)), replace=False)]
                        for qid in qrels} for s in range(6)}
    return ranked_matrix(tmp_path_factory.mktemp("columns"), qrels, runs)


def _has_declared_columns(name: str, table: pd.DataFrame) -> None:
    assert list(table.columns) == output("tables", name).declared_columns().written(table.columns), name


@pytest.mark.parametrize("rarity_depth", [None, 12])
def test_subsampling_and_synthetic_tables_with_and_without_rarity_depth(matrix, rarity_depth):
    shard = subsampling_shard(matrix, ["P_rareness@10"], sizes=[2, 4], trials=range(3), seed=1,
                              rarity_depth=rarity_depth)
    table = subsampling_table([shard])
    _has_declared_columns("system_subsampling", table)
    assert ("rarity_depth" in table.columns) == (rarity_depth is not None)

    topic = max(matrix.topics, key=lambda t: matrix.n_relevant[matrix.topics.index(t)])
    settings = {"measure": "P_rareness@10", "alphas": [0, 1], "max_relevant": 2,
                "rare_systems": ["protocol", "paper_script"]}
    synthetic = synthetic_rare_common_table(matrix, topic, settings, rarity_depth)
    _has_declared_columns("synthetic_rare_common", synthetic)
    assert ("rarity_depth" in synthetic.columns) == (rarity_depth is not None)


def test_the_rarity_listing_keeps_the_declared_order_whatever_order_the_functions_are_named(matrix):
    """Table 4's columns in LISTING_COLUMNS order: the log pair before the inverse pair,
    even when a measure names rarity=inverse first."""
    named_inverse_first = rarity_listing(matrix, [5], ["linear", "inverse", "log"])
    named_log_first = rarity_listing(matrix, [5], ["linear", "log", "inverse"])
    pd.testing.assert_frame_equal(named_inverse_first, named_log_first)
    for listing in (named_inverse_first, rarity_listing(matrix, [5], ["linear"]),
                    rarity_listing(matrix, [5], ["linear", "inverse"])):
        _has_declared_columns("rarity_listing", rarity_listing_table(listing, []))
    assert list(named_log_first.columns[-4:]) == ["rarity_log", "rarity_prime_log", "rarity_inverse",
                                                  "rarity_prime_inverse"]


def test_the_asl_tables_have_their_declared_columns(matrix):
    out = asl_analysis(matrix, unretrieved="plus_one")
    _has_declared_columns("asl_reordering", out["reordering"])
    _has_declared_columns("asl_rrie", out["rrie"])


def test_written_columns_leave_out_only_the_optional_ones_absent():
    declared = Columns(("a", "b", "c", "d"), {"b": "when b", "d": "when d"})
    assert declared.written([]) == ["a", "c"]
    assert declared.written(["d", "a"]) == ["a", "c", "d"]
    with pytest.raises(ValueError, match="the manifest's 'x' declares no columns"):
        Output("x", None).declared_columns()
