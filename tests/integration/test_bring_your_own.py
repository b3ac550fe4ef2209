"""Bring your own scores and judgments, and the claims across collections, end to end.

One run over four collections: the demo (runs), the demo's own per-topic scores as
irmeta writes them and as trec_eval -q prints them (scores only: the experiments that
read rankings are skipped), and 30 TREC-8 runs with a derived judgment set (half of each
topic's judged documents, drawn with a fixed seed).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_workflow import _copy_workflow, _ok, _snakemake

from irmeta.artefacts.claims import filled_claims
from irmeta.support.formats import markdown_escape

IRMETA = Path(sys.executable).parent / "irmeta"
MEASURES = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100"]
ALPHAS = ["0", "0.5", "1"]
SMALL = {
    "measures": MEASURES,
    "alphas": [0, 0.5, 1],
    "experiments": {
        "comparisons": [{"measure": "P_rareness@100", "baseline": "P@100"},
                        {"measure": "AP_rareness@100", "baseline": "AP@100"}],
        "discriminative_power": {"permutations": 200},
        "stability": {"trials": 200},
        "system_subsampling": {"trials": 20, "largest": 8},
        "swap": {"trials": 100},
        "asl": {"enabled": False},
        "judgment_agreement": {"pool_depths": [10], "judgment_fractions": [0.5], "trials": 1},
    },
}
SCORE_TABLES = ("kendall_tau", "discriminative_power", "stability", "swap_sensitivity")


def _yaml(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _irmeta(*args: str) -> None:
    proc = subprocess.run([str(IRMETA), *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def half_of_the_judgments(qrels: Path, out: Path, seed: int = 7) -> Path:
    """Half of each topic's judged documents (rounded up), drawn with a fixed seed."""
    frame = pd.read_csv(qrels, sep=r"\s+", header=None, names=["qid", "iter", "docid", "grade"], dtype=str)
    draw = np.random.default_rng(seed).permutation(len(frame))  # a random order of all judgments
    position = pd.Series(draw).groupby(frame["qid"].to_numpy()).rank(method="first")
    size = frame.groupby("qid")["qid"].transform("size").to_numpy()
    keep = frame[position.to_numpy() <= (size + 1) // 2]
    keep.to_csv(out, sep=" ", header=False, index=False)
    return out


@pytest.fixture(scope="module")
def byo(tmp_path_factory, shared_data) -> Path:
    work = _copy_workflow(tmp_path_factory.mktemp("byo"))
    data = work / "data"
    demo = data / "demo"
    _irmeta("simulate", "--out", str(demo), "--seed", "42", "--runs", "24", "--topics", "25", "--depth", "100")
    score = ["score", "--qrels", str(demo / "qrels.txt"), "--runs", str(demo / "runs"), "--per-topic", "--depth", "100"]
    score += [arg for m in MEASURES for arg in ("--measure", m)] + [arg for a in ALPHAS for arg in ("--alpha", a)]
    _irmeta(*score, "--output", str(data / "demo_scores.tsv"))
    _irmeta(*score, "--format", "trec_eval", "--output", str(data / "demo_trec_eval.txt"))
    trec8 = Path(shared_data) / "trec8_adhoc"
    runs = sorted((trec8 / "runs").iterdir())[::4][:30]
    half = half_of_the_judgments(trec8 / "qrels.txt", data / "trec8_half.txt")
    assessors = data / "assessors"  # a folder: one set per file, and their majority
    assessors.mkdir()
    for seed in (1, 2, 3):
        half_of_the_judgments(trec8 / "qrels.txt", assessors / f"a{seed}.txt", seed=seed)
    judgment_sets = {"half": str(half), "half_filled": {"path": str(half), "unjudged": "reference"},
                     "assessors": {"path": str(assessors), "fuse": ["majority"]}}
    collections = work / "config" / "collections"
    _yaml(collections / "demo_scores.yaml", {"name": "demo_scores", "label": "Demo scores",
                                             "scores": {"path": str(data / "demo_scores.tsv")}})
    _yaml(collections / "demo_trec_eval.yaml", {"name": "demo_trec_eval", "label": "Demo trec_eval",
                                                "scores": {"path": str(data / "demo_trec_eval.txt")}})
    _yaml(collections / "trec8_half.yaml", {"name": "trec8_half", "label": "TREC-8 (30 runs)",
                                            "qrels": str(trec8 / "qrels.txt"), "runs": [str(r) for r in runs],
                                            "depth": 1000, "alternative_qrels": judgment_sets})
    _yaml(work / "config" / "byo.yaml",
          dict(SMALL, collections=["demo", "demo_scores", "demo_trec_eval", "trec8_half"],
               data_root=str(shared_data)))
    proc = _ok(_snakemake(work, "--cores", "2", "--configfile", "config/byo.yaml", timeout=600))
    (work / "screen.txt").write_text(proc.stdout + proc.stderr)
    return work


def _table(work: Path, collection: str, name: str) -> pd.DataFrame:
    return pd.read_csv(work / "results" / collection / "tables" / f"{name}.csv", dtype={"alpha": str})


def test_scores_only_gives_the_tables_of_the_runs_they_came_from(byo):
    for name in SCORE_TABLES:
        ran, given = _table(byo, "demo", name), _table(byo, "demo_scores", name)
        pd.testing.assert_frame_equal(ran, given, check_exact=False, rtol=1e-12, obj=name)


def test_trec_eval_output_enters_the_same_experiments(byo):
    for name in SCORE_TABLES:
        ran, given = _table(byo, "demo", name), _table(byo, "demo_trec_eval", name)
        assert len(ran) == len(given) and list(ran.columns) == list(given.columns), name
    tau = _table(byo, "demo_trec_eval", "kendall_tau")
    # Four decimals change few means: the rankings barely move.
    assert (tau.loc[tau["alpha"] == "0", "tau"] > 0.95).all()


def test_experiments_that_need_rankings_are_skipped_and_said_so(byo):
    tables = byo / "results" / "demo_scores" / "tables"
    variance = ("anova", "topic_set_size", "minimum_detectable_difference")  # from scores, so here too
    properties = ("collection_properties",)  # its row: what a collection without rankings can say
    assert sorted(p.stem for p in tables.glob("*.csv")) == sorted(SCORE_TABLES + variance + properties)
    assert not (byo / "results" / "demo_scores" / "judged.npz").exists()
    listing = (byo / "results" / "demo_scores" / "experiments.md").read_text()
    for experiment in ("rarity_listing", "system_subsampling", "synthetic_rare_common"):
        assert f"| {markdown_escape(experiment)} | skipped | scores only: " in listing
        assert f"collection demo_scores: skipping {experiment}" in (byo / "screen.txt").read_text()
    assert f"| {markdown_escape('kendall_tau')} | ran |" in listing
    assert "skipped" not in (byo / "results" / "demo" / "experiments.md").read_text()
    # The paper's tables are over the collections with runs.
    table1 = pd.read_csv(byo / "results" / "paper" / "table1.csv")
    assert "Demo scores" not in " ".join(map(str, table1.columns)) + " ".join(map(str, table1.iloc[:, 0]))


def test_judgment_sets_are_compared(byo):
    agreement = _table(byo, "trec8_half", "judgment_agreement")
    # the given set beside the generated ones (shallower pools, sampled judgments, assessors with errors)
    assert set(agreement["judgments"]) == {"half", "half_filled", "a1", "a2", "a3", "assessors_majority",
                                           "pool_depth_10", "fraction_0.5_trial_0",
                                           *(f"error_{q}_trial_0" for q in (0.1, 0.2, 0.3))}
    assert set(agreement["reference"]) == {"qrels"}
    agreement = agreement[agreement["judgments"] == "half"]
    assert set(agreement["measure"]) == set(MEASURES)
    assert (agreement["runs"] == 30).all() and (agreement["topics"] == 50).all()
    assert agreement["kendall_tau"].between(0.5, 0.999).all()  # half the judgments: close, not equal
    assert (agreement["swapped_significant"] <= agreement["significant_reference"]).all()
    for ext in ("png", "pdf"):
        assert (byo / "results" / "trec8_half" / "figures" / f"judgment_agreement.{ext}").stat().st_size > 1000
    # Under the official qrels, the scores are those of the collection itself.
    official = pd.read_parquet(byo / "results" / "trec8_half" / "scores.parquet")
    half = pd.read_parquet(byo / "results" / "trec8_half" / "judgments" / "half" / "scores.parquet")
    assert len(official) == len(half) and not np.allclose(official["value"], half["value"])


def test_holes_filled_from_the_reference_score_as_the_reference_and_keep_their_own_labels(byo):
    # half the qrels, the other half taken from the qrels: the qrels themselves, bit for bit
    official = pd.read_parquet(byo / "results" / "trec8_half" / "scores.parquet")
    filled = pd.read_parquet(byo / "results" / "trec8_half" / "judgments" / "half_filled" / "scores.parquet")
    pd.testing.assert_frame_equal(official, filled, check_exact=True)
    agreement = _table(byo, "trec8_half", "judgment_agreement")
    assert (agreement.loc[agreement["judgments"] == "half_filled", "kendall_tau"] == 1).all()
    # label agreement is on the set's own labels, not on the grades copied into its holes
    labels = pd.read_csv(byo / "results" / "trec8_half" / "tables" / "label_agreement.csv", dtype={"topic": str})
    overall = labels[labels["topic"] == "all"].set_index("judgments")
    assert overall.loc["half_filled", "shared"] == overall.loc["half", "shared"]
    assert overall.loc["half", "only_reference"] > 0 and overall.loc["half_filled", "only_reference"] > 0
    assessors = pd.read_csv(byo / "results" / "trec8_half" / "tables" / "assessor_agreement.csv")
    pairs = assessors[assessors["judgments_b"].notna()] if "judgments_b" in assessors else assessors
    assert {("a1", "a2"), ("a1", "a3"), ("a2", "a3")} <= set(zip(pairs["judgments_a"], pairs["judgments_b"]))


def test_the_claims_table_puts_every_collection_side_by_side(byo):
    claims = (byo / "results" / "claims.md").read_text()
    for label in ("Demo", "Demo scores", "Demo trec_eval", "TREC-8 (30 runs)"):
        assert markdown_escape(label) in claims
    tidy = pd.read_csv(byo / "results" / "claims.csv")
    assert {"rank_agreement", "discriminative_power", "stability"} <= set(tidy["claim"])
    # other judgments: each named set and each generated assessor error rate of a collection
    # with rankings; a set equal to the qrels (half_filled) ranks every measure as they do
    judged = filled_claims(tidy)
    judged = judged[judged["claim"] == "other_judgments"]
    # a collection of scores only lists the error rates as not filled, with why
    unfilled = tidy[(tidy["claim"] == "other_judgments") & (tidy["collection"] == "Demo scores")]
    assert len(unfilled) and unfilled["note"].str.contains("no judgment_agreement table").all()
    trec8 = judged[judged["collection"] == "TREC-8 (30 runs)"]
    assert {"half", "half_filled", "error_0.1", "error_0.3"} <= set(trec8["protocol"])
    assert set(judged["collection"]) == {"Demo", "TREC-8 (30 runs)"}
    same = trec8[trec8["protocol"] == "half_filled"]
    assert len(same) == 2 and (same["measure_value"] == 1).all() and (same["baseline_value"] == 1).all()
    assert same["holds"].all()
    for ext in ("png", "pdf"):
        assert (byo / "results" / f"claims.{ext}").stat().st_size > 1000
    screen = (byo / "screen.txt").read_text()
    assert "results/claims.md" in screen and "skipped system_subsampling: scores only" in screen


def test_a_measure_from_a_scores_file_beside_runs(tmp_path, shared_data):
    """A measure irmeta does not compute (config's imported_measures) comes from a scores
    file beside the runs; here AP@100's own scores under another name, so it must agree
    with AP@100 exactly."""
    work = _copy_workflow(tmp_path / "beside")
    trec8 = Path(shared_data) / "trec8_adhoc"
    runs = sorted((trec8 / "runs").iterdir())[::10][:12]
    tsv = work / "data" / "ap.tsv"
    tsv.parent.mkdir(parents=True)
    _irmeta("score", "--qrels", str(trec8 / "qrels.txt"), "--runs", *map(str, runs), "--measure", "AP@100",
            "--per-topic", "--output", str(tsv))
    tsv.write_text(tsv.read_text().replace("\tAP@100\t", "\tMyAP\t"))
    _yaml(work / "config" / "collections" / "t8.yaml", {
        "name": "t8", "qrels": str(trec8 / "qrels.txt"), "runs": [str(r) for r in runs], "depth": 1000,
        "scores": {"path": str(tsv)}})
    _yaml(work / "config" / "beside.yaml", {
        "collections": ["t8"], "imported_measures": {"MyAP": "higher"}, "measures": ["P@100", "AP@100", "MyAP"],
        "experiments": {"comparisons": [{"measure": "MyAP", "baseline": "AP@100"}],
                        "discriminative_power": {"permutations": 100}, "swap": {"measures": []}}})
    targets = [f"results/t8/tables/{t}.csv" for t in ("kendall_tau", "discriminative_power")]
    _ok(_snakemake(work, *targets, "--cores", "2", "--configfile", "config/beside.yaml", timeout=300))
    tau = _table(work, "t8", "kendall_tau")
    assert tau[["measure", "baseline"]].values.tolist() == [["MyAP", "AP@100"]]
    assert (tau["tau"] == 1.0).all() and (tau["tau_ap"] == 1.0).all()
    dp = _table(work, "t8", "discriminative_power").set_index(["method", "level", "measure"])["significant_pairs"]
    assert (dp.xs("MyAP", level="measure") == dp.xs("AP@100", level="measure")).all()
    scores = pd.read_parquet(work / "results" / "t8" / "scores.parquet")
    assert set(scores["measure"]) == {"P@100", "AP@100", "MyAP"}


def test_a_bad_scores_file_is_one_line_naming_its_line(tmp_path, shared_data):
    work = _copy_workflow(tmp_path / "bad")
    bad = work / "data" / "bad.tsv"
    bad.parent.mkdir(parents=True)
    bad.write_text("run\tmeasure\tqid\tvalue\nr1\tP@100\t1\t0.5\nr1\tP@100\t2\n")
    _yaml(work / "config" / "collections" / "bad.yaml", {"name": "bad", "scores": {"path": str(bad)}})
    proc = _snakemake(work, "results/bad/scores.npz", "--cores", "1", "--config", "collections=[bad]",
                      f"data_root={shared_data}")
    assert proc.returncode != 0
    screen = proc.stdout + proc.stderr
    assert f"irmeta: error: {bad}:3: 3 fields, expected 4" in screen, screen[-3000:]
    assert not (work / "results" / "bad" / "scores.npz").exists()
