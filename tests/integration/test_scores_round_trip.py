"""Issue 18, one definition of a run's mean, through the Snakemake pipeline: 8 TREC-8
runs and their own `irmeta score --per-topic` TSV give the same means and Kendall tau
table byte for byte.

CL99XT and CL99XTopt tie at P@10 = 0.692 (346 relevant documents in their top 10 over
the 50 topics); sorted sums of their per-topic quotients broke the tie, so the
scores-only collection ranked them apart (Kendall tau 0.9286 at alpha 1 instead of the
runs' 0.9820). The generated round trips are in tests/unit/measures/test_one_mean.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_bring_your_own import _irmeta, _yaml
from test_workflow import _copy_workflow, _ok, _snakemake

RUNS = ["CL99XT", "CL99XTopt", "Sab8A3", "isa50t", "fub99tf", "UT800", "CL99SDopt2", "plt8ah2"]
MEASURES = ["P@10", "P_rareness@10", "AP@100"]
ALPHAS = ["0", "0.5", "1"]
TABLES = ("kendall_tau",)  # the table means decide; the others read per-topic scores


@pytest.fixture(scope="module")
def trip(tmp_path_factory, shared_data) -> Path:
    work = _copy_workflow(tmp_path_factory.mktemp("trip"))
    trec8 = Path(shared_data) / "trec8_adhoc"
    runs = [str(trec8 / "runs" / f"{r}.gz") for r in RUNS]
    tsv = work / "data" / "eight.tsv"
    tsv.parent.mkdir(parents=True)
    _irmeta("score", "--qrels", str(trec8 / "qrels.txt"), "--runs", *runs, "--per-topic", "--output", str(tsv),
            *[arg for m in MEASURES for arg in ("--measure", m)], *[arg for a in ALPHAS for arg in ("--alpha", a)])
    collections = work / "config" / "collections"
    _yaml(collections / "eight.yaml", {"name": "eight", "qrels": str(trec8 / "qrels.txt"), "runs": runs,
                                       "depth": 1000})
    _yaml(collections / "eight_scores.yaml", {"name": "eight_scores", "scores": {"path": str(tsv)}})
    _yaml(work / "config" / "trip.yaml", {
        "collections": ["eight", "eight_scores"], "measures": MEASURES, "alphas": [0, 0.5, 1],
        "data_root": str(shared_data),
        "experiments": {"comparisons": [{"measure": "P_rareness@10", "baseline": "P@10"},
                                        {"measure": "AP@100", "baseline": "P@10"}], "swap": {"measures": []}}})
    targets = [f"results/{c}/{t}" for c in ("eight", "eight_scores")
               for t in ["scores.npz"] + [f"tables/{name}.csv" for name in TABLES]]
    _ok(_snakemake(work, *targets, "--cores", "2", "--configfile", "config/trip.yaml", timeout=300))
    return work


def test_the_runs_and_their_tsv_give_the_same_tables_byte_for_byte(trip):
    for name in TABLES:
        ran = (trip / "results" / "eight" / "tables" / f"{name}.csv").read_bytes()
        assert (trip / "results" / "eight_scores" / "tables" / f"{name}.csv").read_bytes() == ran, name
    tau = pd.read_csv(trip / "results" / "eight" / "tables" / "kendall_tau.csv", dtype={"alpha": str})
    at_one = tau[(tau["measure"] == "P_rareness@10") & (tau["alpha"] == "1")]["tau"].item()
    assert at_one == pytest.approx(0.9820, abs=1e-4)  # the tie kept: 0.9286 when it breaks


def test_the_tie_is_a_tie_in_both_scores(trip):
    for collection in ("eight", "eight_scores"):
        with np.load(trip / "results" / collection / "scores.npz") as stored:
            p10 = stored["mean_all_topics"][0]
        assert p10[:2].tolist() == [0.692, 0.692], collection


def test_a_scores_file_beside_runs_may_not_hold_a_measure_irmeta_computes(trip):
    """Issue 18, 13.: the file's AP@100 would be silently ignored for irmeta's own."""
    tsv = trip / "data" / "eight.tsv"
    both = trip / "data" / "both.tsv"
    frame = pd.read_csv(tsv, sep="\t", dtype=str)
    mine = frame[frame["measure"] == "AP@100"].assign(measure="MyAP")
    pd.concat([frame[frame["measure"] == "AP@100"], mine]).to_csv(both, sep="\t", index=False)
    eight = yaml.safe_load((trip / "config" / "collections" / "eight.yaml").read_text())
    _yaml(trip / "config" / "collections" / "beside.yaml", dict(eight, name="beside", scores={"path": str(both)}))
    _yaml(trip / "config" / "beside.yaml", {
        "collections": ["beside"], "imported_measures": {"MyAP": "higher"}, "measures": ["AP@100", "MyAP"],
        "experiments": {"comparisons": [{"measure": "MyAP", "baseline": "AP@100"}], "swap": {"measures": []}}})
    proc = _snakemake(trip, "results/beside/scores.npz", "--cores", "1", "--configfile", "config/beside.yaml")
    assert proc.returncode != 0
    screen = proc.stdout + proc.stderr
    assert (f"{both} holds AP@100, which irmeta computes from the runs: drop those rows or give the scores "
            "without runs") in screen, screen[-3000:]
    assert not (trip / "results" / "beside" / "scores.npz").exists()
