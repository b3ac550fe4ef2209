"""The Snakemake workflow end to end, in a temporary copy (Snakefile, workflow/, config/).

Runs the snakemake next to this interpreter, so the workflow's scripts import the
irmeta installed in the same environment.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from campaigns import REPO
from docs_pages import page_block
from irmeta.campaign.store import load_matrix, matrix_settings
from irmeta.pipeline.manifest import EXPERIMENTS
from irmeta.support.formats import markdown_escape
from session_workflows import SNAKEMAKE, copy_workflow, ok, snakemake

pytestmark = pytest.mark.integration

ROOT = REPO
OUTPUTS = ("judged.npz", "scores.parquet", "scores.npz", "rarity.parquet")
_copy_workflow, _snakemake, _ok = copy_workflow, snakemake, ok


@pytest.fixture(scope="module")
def demo(demo_workflow) -> Path:
    """The session's run of the demo (tests/conftest.py), read by every test that needs it."""
    return demo_workflow


# docs: install.md: make run ARGS="--config collections=[trec8] data_root=/path/to/data"
@pytest.fixture(scope="module")
def trec8(tmp_path_factory, shared_data) -> Path:
    workdir = _copy_workflow(tmp_path_factory.mktemp("trec8"))
    _ok(_snakemake(workdir, "--cores", "2", "--config", f"data_root={shared_data}", "collections=[trec8]",
                   timeout=300))
    return workdir


def test_snakemake_is_next_to_the_interpreter():
    assert SNAKEMAKE.is_file(), f"no snakemake at {SNAKEMAKE}"


def test_lint_is_clean(tmp_path):
    proc = _ok(_snakemake(_copy_workflow(tmp_path), "--lint"))
    assert "Lints for" not in proc.stdout + proc.stderr


def test_dry_run_all_collections_with_relative_data_root(tmp_path, shared_data):
    """A relative data_root is taken from the working directory; every shipped collection plans."""
    workdir = _copy_workflow(tmp_path / "work")
    relative = os.path.relpath(shared_data, workdir)
    proc = _ok(_snakemake(workdir, "-n", "--config", f"data_root={relative}",
                          "collections=[demo,trec8,clef_tar2017]"))
    out = proc.stdout + proc.stderr
    for rule, count in (("simulate_campaign", 1), ("ingest_collection", 3), ("score_runs", 3)):
        assert any(line.split() == [rule, str(count)] for line in out.splitlines()), out
    assert not (workdir / "results").exists()


def test_demo_outputs(demo):
    for name in OUTPUTS:
        assert (demo / "results" / "demo" / name).is_file()
    campaign = demo / "results" / "demo" / "campaign"
    assert (campaign / "qrels.txt").is_file() and (campaign / "run_groups.tsv").is_file()
    assert len(list((campaign / "runs").glob("*.gz"))) == 24
    for rule in ("simulate_campaign", "ingest_collection", "score_runs", "list_rarity"):
        assert (demo / "results" / "logs" / rule / "demo.log").stat().st_size > 0

    judged = load_matrix(demo / "results" / "demo" / "judged.npz")
    assert judged.n_runs == 24 and judged.n_topics == 25
    assert judged.length.max() <= 100

    scores = pd.read_parquet(demo / "results" / "demo" / "scores.parquet")
    classic = scores[scores["measure"].isin(["P@100", "AP@100"])]
    assert classic["alpha"].isna().all()
    assert set(scores["averaging"].dropna()) == {"all_topics", "returned_topics"}
    assert classic["value"].between(0, 1).all()
    per_topic = classic[classic["averaging"].isna()]
    assert len(per_topic) == 24 * 25 * 2
    means = classic[classic["averaging"] == "all_topics"]
    assert len(means) == 24 * 2 and means["value"].gt(0).all()
    # Rareness measures: every alpha of the grid; alpha 0 gives back the classic measure.
    rare = scores[scores["measure"] == "P_rareness@100"]
    assert set(rare["alpha"]) == {"0", "0.25", "0.5", "0.75", "1"}
    at_zero = rare[rare["alpha"] == "0"].set_index(["run", "qid", "averaging"])["value"]
    p100 = scores[scores["measure"] == "P@100"].set_index(["run", "qid", "averaging"])["value"]
    assert (at_zero.sort_index() == p100.sort_index()).all()
    assert scores[scores["measure"].str.endswith("_norm@100")]["value"].between(0, 1).all()

    rarity = pd.read_parquet(demo / "results" / "demo" / "rarity.parquet")
    assert list(rarity.columns) == ["qid", "docid", "grade", "depth", "n_retrieving", "rarity", "rarity_prime"]
    assert set(rarity["depth"]) == {100}  # the demo's runs are 100 deep: one depth
    assert (rarity["rarity"] == 1 - rarity["n_retrieving"] / 24).all()


def test_small_degradations_do_not_hold_every_core(demo):
    """The demo's degraded reproductions are seconds of work: the job reserves one thread
    (a job asking for every core waits until no other job runs) and makes its copies in
    one process."""
    log = (demo / "results" / "logs" / "tabulate_reproducibility_degradation" / "demo.log").read_text()
    assert re.search(r"degradations: \d+ copies in 1 process\(es\)", log), log


def test_demo_rerun_has_nothing_to_do(demo):
    proc = _ok(_snakemake(demo, "-n"))
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_trec8_scores_match_trec_eval(trec8, shared_data):
    results = trec8 / "results" / "trec8"
    for name in OUTPUTS:
        assert (results / name).is_file()
    judged = load_matrix(results / "judged.npz")
    assert judged.n_runs == 129 and judged.n_topics == 50
    assert judged.length.max() == 1000
    settings = matrix_settings(results / "judged.npz")["settings"]
    assert settings["depth"] == 1000 and settings["duplicates"] == "error"

    # Rarity listed at the scoring cutoff and at the full depth (the paper's Table 4).
    rarity = pd.read_parquet(results / "rarity.parquet")
    assert set(rarity["depth"]) == {100, 1000}
    doc = rarity[(rarity["qid"] == "431") & (rarity["docid"] == "FBIS3-38782")].set_index("depth")
    assert round(doc.loc[1000, "rarity"], 2) == 0.81 and doc.loc[100, "rarity"] > 0.99

    scores = pd.read_parquet(results / "scores.parquet")
    p100 = scores[(scores["measure"] == "P@100") & (scores["averaging"] == "all_topics")].set_index("run")["value"]
    official = pd.read_csv(shared_data / "trec8_adhoc" / "official_summary.csv").set_index("run")["P_100"]
    assert sorted(p100.index) == sorted(official.index)
    # uwmt8a0 (heavy score ties): NIST's 1999 summary says 0.1972, but trec_eval on the
    # public run file gives 0.1982 (official_per_topic.tsv agrees); every other run matches.
    per_topic = pd.read_csv(shared_data / "trec8_adhoc" / "official_per_topic.tsv", sep="\t", dtype={"topic": str})
    trec_eval = per_topic[per_topic["topic"] != "all"].groupby("run")["P_100"].mean()
    expected = official.copy()
    expected["uwmt8a0"] = trec_eval["uwmt8a0"]
    diff = (p100.round(4) - expected.loc[p100.index]).abs()
    assert diff.max() < 1e-9, diff[diff >= 1e-9]


def test_bad_collection_key_fails_at_parse_time(tmp_path, shared_data):
    workdir = _copy_workflow(tmp_path)
    collection = workdir / "config" / "collections" / "trec8.yaml"
    collection.write_text(collection.read_text() + "depht: 100\n")
    proc = _snakemake(workdir, "--cores", "2", "--config", f"data_root={shared_data}", "collections=[trec8]")
    assert proc.returncode != 0
    message = next((line for line in proc.stderr.splitlines() if "depht" in line), "")
    assert "'depht'" in message and "trec8.yaml" in message, proc.stderr
    assert not (workdir / "results").exists()


def test_an_unreachable_delta_fails_at_parse_time(tmp_path):
    """A delta no margin of a simulated measure can reach (at or beyond its range's width)
    stops the dry run with one line naming the key, before any job."""
    workdir = _copy_workflow(tmp_path)
    path = workdir / "bad_delta.yaml"
    path.write_text(yaml.safe_dump({"experiments": {"test_error_rates": {"deltas": [0.05, 1.0]}}}))
    proc = _snakemake(workdir, "-n", "--configfile", str(path))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    said = [line for line in out.splitlines() if "experiments.test_error_rates.deltas.1" in line]
    assert len(said) == 1 and "delta 1 is out of reach of every margin of AP@100" in said[0], out
    assert "Traceback" not in out and not (workdir / "results").exists()


# ----------------------------------------------------------------- experiments

EXPERIMENT_TABLES = ("kendall_tau", "discriminative_power", "stability", "system_subsampling",
                     "synthetic_rare_common", "rarity_listing", "swap_sensitivity")


def test_demo_experiment_tables(demo):
    tables = demo / "results" / "demo" / "tables"
    for name in EXPERIMENT_TABLES:
        assert (tables / f"{name}.csv").is_file(), name
    tau = pd.read_csv(tables / "kendall_tau.csv", dtype={"alpha": str})
    assert set(tau["measure"]) == {"P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"}
    assert (tau.loc[tau["alpha"] == "0", ["tau", "tau_ap"]] == 1.0).all().all()
    assert tau["tau"].between(-1, 1).all()

    dp = pd.read_csv(tables / "discriminative_power.csv", dtype={"alpha": str})
    paired = [t + c for t in ("paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap")
              for c in ("", "+holm", "+bh")]
    assert list(dict.fromkeys(dp["method"])) == ["paper_pairwise", "tukey_hsd", "randomised_tukey_hsd", *paired]
    assert (dp["total_pairs"] == 24 * 23 // 2).all()
    assert (dp["significant_pairs"] <= dp["total_pairs"]).all()
    # A stricter level never finds more pairs.
    wide = dp.fillna({"alpha": ""}).pivot_table(index=["measure", "alpha", "method"], columns="level",
                                                values="significant_pairs")
    assert len(wide) == 22 * 18 and (wide[0.01] <= wide[0.05]).all()
    # The paired tests' counts are those of the pairs in pairwise_tests.parquet.
    tests = pd.read_parquet(tables / "pairwise_tests.parquet")
    assert list(tests.columns) == ["measure", "alpha", "run_a", "run_b", "method", "mean_difference", "statistic",
                                   "p_value", "p_adjusted_holm", "p_adjusted_bh", "p_adjusted_bonferroni",
                                   "effect_size_dz", "effect_size_e", "ci_low", "ci_high"]
    assert len(tests) == 22 * 5 * 276 and (tests["run_a"] < tests["run_b"]).all()
    holm = tests[(tests["measure"] == "AP@100") & (tests["method"] == "paired_t")]
    row = dp[(dp["measure"] == "AP@100") & (dp["method"] == "paired_t+holm") & (dp["level"] == 0.05)]
    assert row["significant_pairs"].item() == (holm["p_adjusted_holm"] < 0.05).sum()

    stab = pd.read_csv(tables / "stability.csv", dtype={"alpha": str})
    assert set(stab["fuzziness_mode"]) == {"absolute", "relative"}
    assert (stab["topics_per_trial"] == round(25 / 2)).all() and (stab["trials"] == 1000).all()
    assert stab["stability"].between(0, 1).all()

    sub = pd.read_csv(tables / "system_subsampling.csv")
    assert sorted(set(sub["n_systems"])) == [2, 4, 8, 16]
    assert (sub["trials"] == 1000).all()

    swap = pd.read_csv(tables / "swap_sensitivity.csv", dtype={"alpha": str})
    assert set(swap["measure"]) == {"P@100", "AP@100", "P_rareness@100", "AP_rareness@100"}
    assert swap["sensitivity"].between(0, 1).all() and (swap["comparisons"] == 276 * 1000).all()

    syn = pd.read_csv(tables / "synthetic_rare_common.csv", dtype={"topic": str})
    at_zero = syn[syn["alpha"] == 0].pivot_table(index=["rare_systems", "n_relevant"], columns="system",
                                                 values="rank")
    assert (at_zero["S_rare"] == at_zero["S_common"]).all()  # alpha = 0 cannot tell them apart


def test_every_demo_table_has_the_columns_its_manifest_entry_declares(demo):
    """The demo turns every experiment on: each table of the manifest is written with the
    columns of the constant its entry names (``Output.columns``, what the documentation's
    table reference lists), in order, less the optional ones its settings leave out."""
    tables = demo / "results" / "demo" / "tables"
    for table in (t for entry in EXPERIMENTS for t in entry.tables):
        with open(tables / f"{table.name}.csv", newline="") as f:
            header = next(csv.reader(f))
        assert header == table.declared_columns().written(header), table.name


def test_same_seed_same_bytes_other_seed_changes_only_randomised(demo, tmp_path, shared_data):
    again = _copy_workflow(tmp_path / "again")
    _ok(_snakemake(again, "--cores", "2", "--config", f"data_root={shared_data}"))
    for name in EXPERIMENT_TABLES:
        first = (demo / "results" / "demo" / "tables" / f"{name}.csv").read_bytes()
        assert first == (again / "results" / "demo" / "tables" / f"{name}.csv").read_bytes(), name

    other = _copy_workflow(tmp_path / "other")
    config = other / "config" / "config.yaml"
    settings = yaml.safe_load(config.read_text())  # a second experiments key is refused (issue 40)
    settings["experiments"]["seed"] = 7
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    _ok(_snakemake(other, "--cores", "2", "--config", f"data_root={shared_data}"))
    mine, theirs = demo / "results" / "demo" / "tables", other / "results" / "demo" / "tables"
    for name in ("synthetic_rare_common", "rarity_listing"):
        assert (mine / f"{name}.csv").read_bytes() == (theirs / f"{name}.csv").read_bytes(), name
    tau_a, tau_b = (pd.read_csv(tables / "kendall_tau.csv", dtype={"alpha": str}) for tables in (mine, theirs))
    interval = ["tau_ci_low", "tau_ci_high"]  # only tau's bootstrap interval draws
    assert tau_a.drop(columns=interval).equals(tau_b.drop(columns=interval))
    assert not tau_a[interval].equals(tau_b[interval])
    for name in ("stability", "system_subsampling", "swap_sensitivity"):
        assert (mine / f"{name}.csv").read_bytes() != (theirs / f"{name}.csv").read_bytes(), name
    dp_a = pd.read_csv(mine / "discriminative_power.csv", dtype={"alpha": str})
    dp_b = pd.read_csv(theirs / "discriminative_power.csv", dtype={"alpha": str})
    drawn = dp_a["method"].str.match(r"randomised_tukey_hsd|randomisation|paired_bootstrap")
    assert dp_a[~drawn].equals(dp_b[~drawn]) and not dp_a[drawn].equals(dp_b[drawn])
    first = (demo / "results" / "demo" / "tables" / "pairwise_tests.parquet").read_bytes()
    assert first == (again / "results" / "demo" / "tables" / "pairwise_tests.parquet").read_bytes()


def test_trec8_experiments_follow_the_protocol(trec8):
    tables = trec8 / "results" / "trec8" / "tables"
    dp = pd.read_csv(tables / "discriminative_power.csv", dtype={"alpha": str})
    p100 = dp[(dp["measure"] == "P@100") & (dp["method"] == "paper_pairwise")].set_index("level")
    # docs/PROTOCOL.md, Numerical care: one TREC-8 pair sits 1e-6 from the 95% critical value, so the
    # unpaired per-pair test finds 3665 pairs here (the paper printed 3666).
    assert p100.loc[0.05, "significant_pairs"] == 3665
    assert (dp["total_pairs"] == 8256).all()

    sub = pd.read_csv(tables / "system_subsampling.csv")
    assert sorted(set(sub["n_systems"])) == [2, 4, 8, 16, 32, 64]
    listing = pd.read_csv(tables / "rarity_listing.csv", dtype={"qid": str})
    assert set(listing["qid"]) == {"431"} and set(listing["depth"]) == {100, 1000}



def test_figures_and_paper_tables(demo):
    figures = demo / "results" / "demo" / "figures"
    for name in ("kendall_tau", "synthetic_rare_common", "discriminative_power", "stability",
                 "system_subsampling", "rarity_distribution", "p_value_curves"):
        assert (figures / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert (figures / f"{name}.pdf").read_bytes()[:5] == b"%PDF-", name
    paper = demo / "results" / "paper"
    for name in ("table1", "table1_tukey_hsd", "table1_randomised_tukey_hsd", "table2", "table2_relative", "table3"):
        for ext in ("csv", "md", "tex"):
            assert (paper / f"{name}.{ext}").stat().st_size > 0, f"{name}.{ext}"
    table1 = pd.read_csv(paper / "table1.csv")
    assert {"Demo 95%", "Demo 99%"} <= set(table1.columns)
    report = (paper / "published_vs_reproduced.md").read_text()
    assert "Not run: TREC-5, TREC-8, WT14, DLT20" in report


def test_demo_variance_tables_and_topic_set_size_figure(demo):
    """Issue 21 parts 2 and 3: every configured measure and alpha in anova.csv, a paired_t
    row and an ANOVA row per configured systems count, the minimum detectable difference
    at the demo's 25 topics; listed in experiments.md; the figure drawn."""
    tables = demo / "results" / "demo" / "tables"
    anova = pd.read_csv(tables / "anova.csv", dtype={"alpha": str})
    assert list(anova["source"].unique()) == ["system", "topic", "residual", "total"]
    assert len(anova) == 4 * (2 + 4 * 5)  # P@100, AP@100 and four rareness measures at five alphas
    sizes = pd.read_csv(tables / "topic_set_size.csv", dtype={"alpha": str})
    assert len(sizes) == 22 * 3 * 4 and set(sizes["systems"]) == {2, 10, 50}
    assert (sizes["n_topics"] >= 2).all()
    detectable = pd.read_csv(tables / "minimum_detectable_difference.csv", dtype={"alpha": str})
    assert len(detectable) == 22 and (detectable["n_topics"] == 25).all() and (detectable["min_difference"] > 0).all()
    listing = (demo / "results" / "demo" / "experiments.md").read_text()
    for name in ("anova", "topic_set_size", "minimum_detectable_difference"):
        assert f"| {markdown_escape(name)} | ran |" in listing, name
    figures = demo / "results" / "demo" / "figures"
    assert (figures / "topic_set_size.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (figures / "topic_set_size.pdf").read_bytes()[:5] == b"%PDF-"


def test_trec8_published_vs_reproduced(trec8):
    report = (trec8 / "results" / "paper" / "published_vs_reproduced.md").read_text()
    assert "Collections run: TREC-8." in report
    # Every TREC-8 row of Table 1 carries a reproduced number (the column is filled).
    rows = [line for line in report.splitlines() if line.startswith("| Table 1 |") and "| TREC-8 |" in line]
    assert len(rows) == 12 and all("not run" not in row for row in rows)


# docs: reference/measures.md: make run ARGS="--configfile config/measures.yaml"
def test_the_seeds_measures_in_every_experiment(tmp_path, shared_data):
    """config/measures.yaml: nDCG, RR, Sakai's Q/O/P/P+, ASL (lower is better) and
    trec_eval's recall, Rprec, bpref, set_F and success scored, compared, tested for
    discriminative power, stability and swap sensitivity."""
    workdir = _copy_workflow(tmp_path / "measures")
    _ok(_snakemake(workdir, "--cores", "2", "--configfile", "config/measures.yaml",
                   "--config", f"data_root={shared_data}", timeout=300))
    tables = workdir / "results" / "demo" / "tables"
    scores = pd.read_parquet(workdir / "results" / "demo" / "scores.parquet")
    trec_eval_everyday = {"Recall@100", "Rprec", "Bpref", "SetF", "Success@10"}
    seeds = {"nDCG@10", "RR", "Q@100", "O@100", "Pmeasure@100", "Pplus@100", "ASL", "ASL_g1@10"}
    assert seeds <= set(scores["measure"])
    assert trec_eval_everyday <= set(scores["measure"])
    tau = pd.read_csv(tables / "kendall_tau.csv", dtype={"alpha": str}).set_index("measure")
    # ASL ranks runs lower-is-better: against AP the agreement is positive, not negative.
    assert tau.loc["ASL", "tau"] > 0.5 and tau.loc["Q@100", "tau"] > 0.8
    assert tau.loc["Bpref", "tau"] > 0.5 and tau.loc["Rprec", "tau"] > 0.5
    dp = pd.read_csv(tables / "discriminative_power.csv")
    assert {"ASL", "Pmeasure@100", "RR"} | trec_eval_everyday <= set(dp["measure"])
    stab = pd.read_csv(tables / "stability.csv")
    assert stab.loc[stab["measure"] == "ASL", "stability"].between(0, 1).all()
    assert trec_eval_everyday <= set(stab["measure"])
    swap = pd.read_csv(tables / "swap_sensitivity.csv").set_index("measure")
    assert {"Q@100", "AP@100", "Pmeasure@100", "O@100", "RR", "Bpref"} <= set(swap.index)
    assert swap.loc["ASL", "required_difference"] > 1  # ASL differences are in ranks
    reordering = pd.read_csv(tables / "asl_reordering.csv")
    assert list(reordering["step"]) == ["atomize_P", "harmonic_mean_within_topic", "harmonic_mean_across_topics",
                                        "cumulative"]
    rrie = pd.read_csv(tables / "asl_rrie.csv")
    assert set(rrie["measure"]) == {"MAP", "ASL", "ASL@g1-1", "ASL@g1-10"}
    for figure in ("asl_histogram", "asl_difference"):
        assert (workdir / "results" / "demo" / "figures" / f"{figure}.png").stat().st_size > 1000
    # Sakai's Table 1 layout across collections, most sensitive measure first.
    paper = pd.read_csv(workdir / "results" / "paper" / "swap_sensitivity.csv")
    assert paper["sensitivity"].is_monotonic_decreasing and set(paper["collection"]) == {"Demo"}


def test_the_python_api_gives_the_pipelines_tables(demo, tmp_path):
    """irmeta's meta-evaluation functions on the demo's per-topic scores, with the
    config's settings, write the pipeline's tables byte for byte (the pipeline shards
    and the API does not: neither changes a result)."""
    import irmeta.api as api
    from irmeta.measures.names import measure_label, parse_measure
    from irmeta.pipeline.config_checks import validate_config
    from irmeta.pipeline.stored_scores import write_csv

    config = validate_config(yaml.safe_load((demo / "config" / "config.yaml").read_text()), "config.yaml")
    experiments = config["experiments"]
    scores = pd.read_parquet(demo / "results" / "demo" / "scores.parquet")
    scores = scores.astype({c: object for c in ("run", "qid", "measure", "alpha", "averaging")})
    scores = scores[scores["averaging"].isna() | (scores["averaging"] == "all_topics")]
    table = pd.DataFrame({  # as irmeta.evaluate writes it
        "run": scores["run"], "qid": scores["qid"],
        "measure": [measure_label(m, a or None) for m, a in zip(scores["measure"], scores["alpha"].fillna(""))],
        "value": scores["value"]})
    pairs = [(c["measure"], c["baseline"]) for c in experiments["comparisons"]]
    tested = list(dict.fromkeys(m for pair in pairs for m in pair[::-1]))
    dp, st, swap = experiments["discriminative_power"], experiments["stability"], experiments["swap"]
    swapped = [measure_label(m, a) if parse_measure(m).uses_alpha else m for m in swap["measures"]
               for a in (swap["alphas"] if parse_measure(m).uses_alpha else [None])]
    made = {
        "kendall_tau": api.kendall_tau_table(table, pairs),
        "discriminative_power": api.discriminative_power_table(
            table, tested, methods=dp["methods"], levels=dp["levels"], permutations=dp["permutations"],
            seed=experiments["seed"]),
        "stability": api.stability_table(table, tested, trials=st["trials"], topics_per_trial=st["topics_per_trial"],
                                         fuzziness=st["fuzziness"], seed=experiments["seed"]),
        "swap_sensitivity": api.swap_sensitivity_table(
            table, swapped, trials=swap["trials"], sampling=swap["sampling"], topic_set_size=swap["topic_set_size"],
            bin_width=swap["bin_width"], confidence=swap["confidence"], seed=experiments["seed"]),
    }
    for name, frame in made.items():
        write_csv(frame, tmp_path / f"{name}.csv")
        assert (tmp_path / f"{name}.csv").read_bytes() == (demo / "results" / "demo" / "tables" / f"{name}.csv"
                                                           ).read_bytes(), name


# docs: own-measure.md: my_measures.py
# docs: own-measure.md: make run ARGS="--configfile config/my_measures.yaml"
def test_the_pages_own_measure_runs_through_every_experiment(tmp_path, shared_data):
    """docs/own-measure.md's plugin file and config, through the whole battery."""
    workdir = _copy_workflow(tmp_path / "work")
    (workdir / "my_measures.py").write_text(page_block("own-measure.md", "# my_measures.py"))
    (workdir / "config" / "my_measures.yaml").write_text(page_block("own-measure.md", "# config/my_measures.yaml"))
    _ok(_snakemake(workdir, "--cores", "2", "--configfile", "config/my_measures.yaml",
                   "--config", f"data_root={shared_data}"))
    tables = workdir / "results" / "demo" / "tables"
    scores = pd.read_parquet(workdir / "results" / "demo" / "scores.parquet")
    graded = scores[(scores["measure"] == "GradedRR@100") & (scores["qid"] == "all")]["value"]
    assert len(graded) == 2 * 24 and graded.between(0, 1).all() and graded.nunique() > 5
    tau = pd.read_csv(tables / "kendall_tau.csv").set_index("measure")
    assert tau.loc["GradedRR@100", "baseline"] == "AP@100" and -1 <= tau.loc["GradedRR@100", "tau"] <= 1
    for name in ("discriminative_power", "stability"):
        assert "GradedRR@100" in set(pd.read_csv(tables / f"{name}.csv")["measure"]), name


def test_the_end_of_a_run_speaks_to_people(demo):
    """The run ends with what ran, where its outputs are and the headline numbers; the
    per-job listing (rule, input, reason) stays off the screen."""
    screen = (demo / "screen.txt").read_text()
    assert "input:" not in screen and "reason:" not in screen
    summary = screen[screen.index("irmeta: done, 1 collection: Demo (demo)"):]
    tau = pd.read_csv(demo / "results" / "demo" / "tables" / "kendall_tau.csv", dtype={"alpha": str})
    top = tau[(tau["measure"] == "P_rareness@100") & (tau["alpha"] == "1")].iloc[0]
    assert f"P_rareness@100 (alpha 1) vs P@100: tau {top['tau']:.3f}, tau_AP {top['tau_ap']:.3f} (24 runs)" in summary
    assert "results/demo/tables/*.csv" in summary and "results/paper/" in summary
    assert "significant pairs at 95%: per-pair" in summary and "stability: absolute 0.05:" in summary
