"""A collection's pool depth is checked against the data (issue 40, item 6): how deep each
run's ranking is wholly judged is measured, reported in the collection's properties, and a
stated or defaulted pool depth most runs contradict stops the properties and reusability
jobs with one line naming the collection file. TREC-8 (pooled to 100) and DL 2020 passage
(pooled to 10) keep working; DL 2020 passage without its key, at the old default 100, is
refused."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from campaigns import REPO
from irmeta.campaign.judge import judge_runs
from irmeta.campaign.pools import JUDGED_REACH, judged_depth, judged_depths
from irmeta.campaign.properties import PROPERTY_COLUMNS
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.store import save_matrix
from irmeta.pipeline.collection_config import load_collection
from irmeta.pipeline.properties import describe_collection, gather_properties
from irmeta.simulate import simulate_campaign, simulated_pool_depth

PASSAGE_YAML = "config/collections/dl2020_passage.yaml"


@pytest.fixture(scope="module")
def passage(shared_data, tmp_path_factory) -> Path:
    """DL 2020 passage's 59 runs read to depth 100, stored as the pipeline stores them."""
    data = shared_data / "dl2020_passage"
    matrix, _ = judge_runs(sorted((data / "runs").iterdir()), read_qrels(data / "qrels.txt"), depth=100, threads=1)
    path = tmp_path_factory.mktemp("passage") / "judged.npz"
    save_matrix(matrix, path)
    return path


@pytest.mark.slow
def test_how_deep_each_run_is_judged_on_the_real_collections(trec8_matrix, passage):
    from irmeta.campaign.store import load_matrix

    depths = judged_depths(trec8_matrix)
    # against the merged judged postings: the leading ranks with a qrels entry
    judged = trec8_matrix.judged
    lead = np.bincount(judged.cell[judged.rank == judged.position + 1], minlength=judged.n_cells)
    assert np.array_equal(depths.reshape(-1), lead)
    trec8 = judged_depth(trec8_matrix, 100)
    assert np.array_equal(judged_depths(trec8_matrix, 200), np.minimum(depths, 200)) and JUDGED_REACH == 2
    assert not trec8.contradicted and trec8.runs == 129 and int(trec8.judged_to_pool.sum()) == 80
    assert trec8.median == 101
    matrix = load_matrix(passage)
    ten, twenty, hundred = (judged_depth(matrix, d) for d in (10, 20, 100))
    assert not ten.contradicted and int(ten.judged_to_pool.sum()) == 53 and ten.runs == 59 and ten.median == 17
    assert twenty.contradicted and int(twenty.judged_to_pool.sum()) == 13
    assert hundred.contradicted and int(hundred.judged_to_pool.sum()) == 0


def test_the_collection_files_say_where_their_pool_depth_comes_from(shared_data, tmp_path):
    def load(name):
        return load_collection(name, shared_data, REPO / "config" / "collections", base_dir=REPO)

    assert (load("trec8").pool_depth, load("trec8").pool_depth_origin) == (100, "stated")
    assert (load("dl2020_passage").pool_depth, load("dl2020_passage").pool_depth_origin) == (10, "stated")
    assert (load("demo").pool_depth, load("demo").pool_depth_origin) == (25, "simulated")  # depth 100: its top 25
    assert (load("clef_tar2017").pool_depth, load("clef_tar2017").pool_depth_origin) == (100, "default")
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\nsimulate: {seed: 1, depth: 40}\npool_depth: 5\n")
    assert (load(mine).pool_depth, load(mine).pool_depth_origin) == (5, "stated")
    mine.write_text("name: mine\nsimulate: {seed: 1, depth: 40}\n")
    assert (load(mine).pool_depth, load(mine).pool_depth_origin) == (10, "simulated")


def test_the_properties_report_the_judged_depth_beside_the_stated_one(passage, tmp_path):
    row = describe_collection(out=tmp_path / "row.csv", collection="DLT20-passage", pool_depth=10, rarity_depth=100,
                              judged=passage, source=PASSAGE_YAML)
    assert row["pool_depth"] == 10 and row["judged_depth_median"] == 17 and row["judged_depth_min"] == 0
    assert row["runs_judged_to_pool_depth"] == pytest.approx(53 / 59)
    table = gather_properties([tmp_path / "row.csv"], tmp_path / "all.csv")
    assert list(table.columns) == list(PROPERTY_COLUMNS)
    back = pd.read_csv(tmp_path / "all.csv")
    assert back.loc[0, "pool_depth"] == 10 and back.loc[0, "judged_depth_median"] == 17


@pytest.mark.parametrize("pool_depth,origin,fault", [
    (100, "default", "key 'pool_depth': not given, and its default, 100, is contradicted by the runs: only 0 of "
                     "the 59 runs are wholly judged to depth 100 on most of their topics (the median run is wholly "
                     "judged to depth 17)"),
    (20, "stated", "key 'pool_depth': 20 is contradicted by the runs: only 13 of the 59 runs are wholly judged "
                   "to depth 20"),
])
def test_a_pool_depth_most_runs_contradict_is_refused_naming_the_file(passage, tmp_path, pool_depth, origin, fault):
    """The issue's case: DL 2020 passage, pooled to 10, written without pool_depth."""
    with pytest.raises(ValueError, match=rf"^{re.escape(PASSAGE_YAML)}: {re.escape(fault)}.*; state the depth the "
                                         rf"campaign's pools were built to$") as caught:
        describe_collection(out=tmp_path / "row.csv", collection="DLT20-passage", pool_depth=pool_depth,
                            rarity_depth=100, judged=passage, pool_depth_origin=origin, source=PASSAGE_YAML)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "row.csv").exists()


def test_reusability_refuses_pools_the_runs_were_never_built_from(tmp_path):
    """Before any scoring: a simulated campaign pools each run's top quarter (10 of 40);
    stated 30, most runs are not judged that deep."""
    from irmeta.campaign.judge import judge_runs as judge
    from irmeta.pipeline.reusability import assess_reusability

    made = simulate_campaign(tmp_path / "campaign", seed=5, n_runs=6, n_topics=4, depth=40, gzip_runs=False)
    matrix, _ = judge(made["runs"], read_qrels(made["qrels"]), depth=40, threads=1)
    save_matrix(matrix, tmp_path / "judged.npz")
    assert not judged_depth(matrix, simulated_pool_depth(40)).contradicted
    with pytest.raises(ValueError, match=r"^sim\.yaml: key 'pool_depth': 30 is contradicted by the runs: only \d of "
                                         r"the 6 runs are wholly judged to depth 30"):
        assess_reusability(judged=tmp_path / "judged.npz", scores=tmp_path / "absent.npz", run_groups=None,
                           table_out=tmp_path / "t.csv", summary_out=tmp_path / "s.csv", figure_stem=tmp_path / "f",
                           measures=["P@10"], alphas=[0], rarity_depth=None, pool_depth=30, source="sim.yaml",
                           pool_depth_origin="stated")
    assert not (tmp_path / "t.csv").exists()
