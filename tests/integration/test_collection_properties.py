"""The collection-properties rules through Snakemake, kept fast: the demo campaign's
results/collection_properties.csv (simulate, ingest, describe, gather) and its scores with
the geometric averaging beside the others, and a plan with three collections that draws
claims_vs_properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_workflow import _copy_workflow, _ok, _snakemake

from irmeta.campaign.properties import PROPERTY_COLUMNS

pytestmark = pytest.mark.integration


def test_demo_properties_table(tmp_path, shared_data):
    workdir = _copy_workflow(tmp_path / "work")
    _ok(_snakemake(workdir, "--cores", "2", "results/collection_properties.csv", "results/demo/scores.parquet",
                   "--config", f"data_root={shared_data}", "averaging=[all,returned,geometric]", timeout=240))
    scores = pd.read_parquet(workdir / "results" / "demo" / "scores.parquet")
    assert set(scores["averaging"].dropna()) == {"all_topics", "returned_topics", "geometric_all_topics"}
    ap = scores[scores["measure"] == "AP@100"]
    per_topic = ap[ap["averaging"].isna()].pivot(index="run", columns="qid", values="value")
    geometric = ap[ap["averaging"] == "geometric_all_topics"].set_index("run")["value"].astype(float)
    want = np.exp(np.log(np.maximum(per_topic.to_numpy(float), 1e-5)).mean(axis=1))
    np.testing.assert_allclose(geometric.reindex(per_topic.index).to_numpy(), want, rtol=1e-12)
    table = pd.read_csv(workdir / "results" / "collection_properties.csv")
    assert list(table.columns) == list(PROPERTY_COLUMNS)
    assert len(table) == 1
    row = table.iloc[0]
    # the simulation's own pools: each run's top quarter of 100, wholly judged (with the relevant and a few more)
    assert row["runs"] == 24 and row["topics"] == 25 and row["pool_depth"] == 25
    assert row["runs_judged_to_pool_depth"] == 1 and row["judged_depth_min"] >= 25
    assert row["groups"] >= 1  # the simulated campaign's run_groups.tsv
    assert 0 <= row["unique_run_relevant_share"] <= row["unique_group_relevant_share"] <= 1
    assert 0 <= row["mean_rarity"] < 1
    assert (workdir / "results" / "demo" / "tables" / "collection_properties.csv").is_file()


def test_three_collections_plan_the_figure(tmp_path, shared_data):
    workdir = _copy_workflow(tmp_path / "work")
    proc = _ok(_snakemake(workdir, "-n", "--config", f"data_root={shared_data}",
                          "collections=[demo,trec8,clef_tar2017]"))
    out = proc.stdout + proc.stderr
    for rule, count in (("describe_collection", 3), ("tabulate_collection_properties", 1),
                        ("plot_claims_vs_properties", 1)):
        assert any(line.split() == [rule, str(count)] for line in out.splitlines()), out
    two = _ok(_snakemake(workdir, "-n", "--config", f"data_root={shared_data}", "collections=[demo,trec8]"))
    assert "plot_claims_vs_properties" not in two.stdout + two.stderr
