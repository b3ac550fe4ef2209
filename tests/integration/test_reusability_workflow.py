"""Rule assess_reusability end to end on the demo campaign, leaving out single runs
(experiments.reusability.unit: run) under the joined rule only."""

from __future__ import annotations

import pandas as pd
import yaml
from test_workflow import _copy_workflow, _ok, _snakemake

from irmeta.metaeval.reusability_tables import COLUMNS, SUMMARY_COLUMNS


def test_leave_one_run_out_on_the_demo(tmp_path, shared_data):
    workdir = _copy_workflow(tmp_path)
    overrides = workdir / "reusability.yaml"
    overrides.write_text(yaml.safe_dump({"experiments": {"reusability": {"unit": "run", "rules": ["joined"]}}}))
    _ok(_snakemake(workdir, "--cores", "2", "--configfile", str(overrides), "--config", f"data_root={shared_data}",
                   "--", "results/demo/tables/reusability_summary.csv"))
    tables = workdir / "results" / "demo" / "tables"
    table = pd.read_csv(tables / "reusability.csv", dtype={"alpha": str})
    assert list(table.columns) == COLUMNS
    assert (table["unit"] == table["run"]).all()
    assert set(table["rarity"]) == {"none", "joined"}
    n_runs = table["run"].nunique()
    assert n_runs == 24 and len(table) == n_runs * (2 + 4 * 5)  # P@100, AP@100 and four rareness at five alphas
    scores = pd.read_parquet(workdir / "results" / "demo" / "scores.parquet")
    full = scores[(scores["qid"] == "all") & (scores["averaging"] == "all_topics") & (scores["measure"] == "P@100")]
    ours = table[table["measure"] == "P@100"].set_index("run")["score_full"]
    assert (full.set_index("run")["value"].reindex(ours.index) == ours).all()  # the pipeline's own scores
    summary = pd.read_csv(tables / "reusability_summary.csv", dtype={"alpha": str})
    assert list(summary.columns) == SUMMARY_COLUMNS and len(summary) == 2 + 4 * 5
    figures = workdir / "results" / "demo" / "figures"
    assert (figures / "reusability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (figures / "reusability.pdf").read_bytes()[:5] == b"%PDF-"
