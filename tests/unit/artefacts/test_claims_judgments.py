"""The claims table's other_judgments rows (issue 27, item 7): a rareness measure's tau
under each judgment set beside its baseline's, from judgment_agreement.csv as the pipeline
writes it; generated assessors as the mean over their trials, pools and samples left out."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_claims import COMPARISONS, synthetic_tables

from campaigns import write_campaign
from irmeta.artefacts.claims import claims_caption, claims_table, claims_wide, write_claims
from irmeta.artefacts.claims_judgments import JUDGMENTS_TOLERANCE, claim_set
from irmeta.artefacts.claims_unfilled import unfilled_claims
from irmeta.artefacts.figures.claims import plot_claims
from irmeta.campaign.judge import relevance_matrix
from irmeta.measures.averaging import score_arrays
from irmeta.metaeval.judgment_agreement import JUDGMENT_AGREEMENT_COLUMNS
from irmeta.metaeval.judgment_reduction import generated_agreement_rows
from irmeta.pipeline.stored_scores import read_table

# tau per set of each measure at alpha 1 (the largest) and of its baseline: under llm P's
# rareness measure is 0.011 below its baseline (fails), AP's 0.009 below (holds).
TAUS = {
    ("llm", "P@100"): 0.95, ("llm", "P_rareness@100"): 0.939,
    ("llm", "AP@100"): 0.95, ("llm", "AP_rareness@100"): 0.941,
    # trials of error 0.1: P's mean 0.85 against 0.8 (holds); AP's mean 0.7 against 0.75 (fails)
    ("error_0.1_trial_0", "P@100"): 0.7, ("error_0.1_trial_0", "P_rareness@100"): 0.8,
    ("error_0.1_trial_1", "P@100"): 0.9, ("error_0.1_trial_1", "P_rareness@100"): 0.9,
    ("error_0.1_trial_0", "AP@100"): 0.8, ("error_0.1_trial_0", "AP_rareness@100"): 0.6,
    ("error_0.1_trial_1", "AP@100"): 0.7, ("error_0.1_trial_1", "AP_rareness@100"): 0.8,
    # pools and samples: never claims rows
    ("pool_depth_10", "P@100"): 0.5, ("pool_depth_10", "P_rareness@100"): 0.1,
    ("fraction_0.5_trial_0", "P@100"): 0.5, ("fraction_0.5_trial_0", "P_rareness@100"): 0.1,
}


def agreement_table(tmp_path, taus=TAUS, averagings=("all_topics",), name="judgment_agreement") -> pd.DataFrame:
    """judgment_agreement.csv's layout with the given taus (other alphas off by 0.2), read back as the pipeline does."""
    rows = []
    for (judgments, measure), tau in taus.items():
        alphas = [""] if "rareness" not in measure else ["0", "0.5", "1", "1/R"]
        for alpha in alphas:
            for averaging in averagings:
                value = tau if alpha in ("", "1") and averaging == "all_topics" else tau - 0.2
                rows.append({c: 0 for c in JUDGMENT_AGREEMENT_COLUMNS} | {
                    "reference": "qrels", "judgments": judgments, "measure": measure, "alpha": alpha,
                    "averaging": averaging, "level": 0.05, "kendall_tau": value, "largest_rank_change_run": "r1"})
    path = tmp_path / f"{name}.csv"
    pd.DataFrame(rows, columns=list(JUDGMENT_AGREEMENT_COLUMNS)).to_csv(path, index=False, lineterminator="\n")
    return read_table(path, "judgment_agreement")


def judged_rows(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["claim"] == "other_judgments"]


def test_named_sets_and_error_rates_beside_their_baselines(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["judgment_agreement"] = agreement_table(tmp_path, averagings=("all_topics", "returned"))
    table = claims_table({"One": one}, COMPARISONS)
    rows = judged_rows(table)
    assert list(dict.fromkeys(rows["protocol"])) == ["llm", "error_0.1"]
    assert set(rows["alpha"]) == {"1"} and len(rows) == 4
    for row in rows.itertuples():
        sets = [s for s in ("llm", "error_0.1_trial_0", "error_0.1_trial_1") if claim_set(s) == row.protocol]
        ours = np.mean([TAUS[(s, row.measure)] for s in sets])
        theirs = np.mean([TAUS[(s, row.baseline)] for s in sets])
        assert row.measure_value == pytest.approx(ours, abs=1e-15)
        assert row.baseline_value == pytest.approx(theirs, abs=1e-15)
        assert row.value == pytest.approx(ours - theirs, abs=1e-15)
        assert row.threshold == -JUDGMENTS_TOLERANCE
        assert bool(row.holds) == (ours - theirs >= -JUDGMENTS_TOLERANCE)
    held = {(r.protocol, r.measure): bool(r.holds) for r in rows.itertuples()}
    assert held == {("llm", "P_rareness@100"): False, ("llm", "AP_rareness@100"): True,
                    ("error_0.1", "P_rareness@100"): True, ("error_0.1", "AP_rareness@100"): False}


def test_pools_and_samples_make_no_claim():
    assert claim_set("pool_depth_10") is None and claim_set("fraction_0.5_trial_3") is None
    assert claim_set("error_0.25_trial_7") == "error_0.25"
    assert claim_set("llm") == "llm" and claim_set("error_x") == "error_x"


@pytest.mark.slow
def test_wide_caption_figure_and_files(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["judgment_agreement"] = agreement_table(tmp_path)
    two = synthetic_tables(tmp_path, "two")  # no judgment sets: no rows
    table = claims_table({"One": one, "Two": two}, COMPARISONS)
    assert set(judged_rows(table)["collection"]) == {"One"}
    wide = claims_wide(table, ["One", "Two"])
    wide_rows = wide[wide["claim"] == "other_judgments"]
    assert len(wide_rows) == 4 and (wide_rows["Two"] == "").all()
    assert set(wide_rows["holds if"]) == {f"tau under the set at most {JUDGMENTS_TOLERANCE:g} below the baseline's"}
    assert "Other judgments" in claims_caption(table)
    paths = write_claims(table, tmp_path / "claims")
    assert "other_judgments,llm,P_rareness@100,P@100,1,One," in paths[0].read_text()
    assert all(p.stat().st_size > 0 for p in plot_claims(table, tmp_path / "claims.png"))


def test_an_undefined_tau_holds_nothing(tmp_path):
    taus = dict(TAUS)
    taus[("error_0.1_trial_1", "P@100")] = float("nan")  # every run tied in one trial
    one = synthetic_tables(tmp_path, "one")
    one["judgment_agreement"] = agreement_table(tmp_path, taus)
    rows = judged_rows(claims_table({"One": one}, COMPARISONS))
    undefined = rows[(rows["protocol"] == "error_0.1") & (rows["baseline"] == "P@100")]
    assert len(undefined) == 1 and undefined["holds"].isna().all() and math.isnan(undefined["value"].iloc[0])
    assert rows[rows["protocol"] == "llm"]["holds"].notna().all()


def test_repeated_rows_and_a_missing_column_are_refused(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    frame = agreement_table(tmp_path)
    one["judgment_agreement"] = pd.concat([frame, frame.assign(level=0.01)], ignore_index=True)
    with pytest.raises(ValueError, match="set 'llm' has 2 rows of P_rareness@100 at alpha 1"):
        claims_table({"One": one}, COMPARISONS)
    one["judgment_agreement"] = frame.drop(columns="kendall_tau")
    with pytest.raises(ValueError, match="the judgment_agreement table has no column kendall_tau"):
        claims_table({"One": one}, COMPARISONS)


def test_trials_of_a_rate_must_match_between_measure_and_baseline(tmp_path):
    taus = {k: v for k, v in TAUS.items() if k != ("error_0.1_trial_1", "P@100")}
    one = synthetic_tables(tmp_path, "one")
    one["judgment_agreement"] = agreement_table(tmp_path, taus)
    rows = judged_rows(claims_table({"One": one}, COMPARISONS))
    assert set(zip(rows["protocol"], rows["baseline"])) == {("llm", "P@100"), ("llm", "AP@100"),
                                                             ("error_0.1", "AP@100")}


def test_unfilled_lists_error_rates_not_other_collections_named_sets(tmp_path):
    one = synthetic_tables(tmp_path, "one")
    one["judgment_agreement"] = agreement_table(tmp_path)
    two = synthetic_tables(tmp_path, "two")
    tables = {"One": one, "Two": two}
    table = claims_table(tables, COMPARISONS)
    unfilled = unfilled_claims(table, tables, COMPARISONS)
    ours = unfilled[unfilled["claim"] == "other_judgments"]
    assert set(zip(ours["protocol"], ours["collection"])) == {("error_0.1", "Two")}
    assert len(ours) == 2 and ours["note"].str.contains("Two has no judgment_agreement table").all()


def test_the_pipeline_rows_of_generated_sets(tmp_path):
    """Through the library as the pipeline runs it: the claims' taus are the means of the
    table's own rows over each rate's trials, and a pool or a sample adds nothing."""
    rng = np.random.default_rng(7)
    qrels, runs = {}, {f"run{s}": {} for s in range(8)}
    for t in range(6):
        docs = [f"t{t}d{j}" for j in range(40)]
        qrels[str(t)] = {d: int(rng.choice(3, p=[0.6, 0.25, 0.15])) for d in docs[:30]}
        for run in runs.values():
            run[str(t)] = [docs[j] for j in rng.choice(40, size=int(rng.integers(5, 30)), replace=False)]
    matrix = relevance_matrix(*write_campaign(tmp_path / "campaign", runs, qrels))
    measures = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100"]
    reference = score_arrays(matrix, measures, averaging=("all",), alphas=[0, 1])
    names = ["pool_depth_5", "fraction_0.5_trial_0", *[f"error_{q}_trial_{t}" for q in (0.1, 0.3) for t in range(3)]]
    rows = generated_agreement_rows(matrix, reference, names, measures=measures, seed=11,
                                    options={"alphas": [0, 1]})
    path = tmp_path / "judgment_agreement.csv"
    rows.to_csv(path, index=False, lineterminator="\n")
    one = synthetic_tables(tmp_path, "one")
    one["judgment_agreement"] = read_table(path)
    claims = judged_rows(claims_table({"One": one}, COMPARISONS))
    assert list(dict.fromkeys(claims["protocol"])) == ["error_0.1", "error_0.3"]
    for row in claims.itertuples():
        trials = rows[rows["judgments"].str.startswith(row.protocol + "_trial_")]
        ours = trials[(trials["measure"] == row.measure) & (trials["alpha"].astype(str) == "1")]["kendall_tau"]
        theirs = trials[trials["measure"] == row.baseline]["kendall_tau"]
        assert len(ours) == len(theirs) == 3
        assert row.measure_value == pytest.approx(ours.mean(), abs=1e-12)
        assert row.baseline_value == pytest.approx(theirs.mean(), abs=1e-12)
