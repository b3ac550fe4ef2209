"""Shallower pools and sampled judgments (irmeta.metaeval.judgment_reduction): the keep
masks against brute force from the run files and plain counting, the agreement rows
against a qrels file written with exactly the generated set's judgments and every run
judged again from scratch, and the summary table against hand-made rows.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from campaigns import write_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.pools import pooled_judgments
from irmeta.campaign.qrels import read_qrels
from irmeta.measures.averaging import score_arrays
from irmeta.metaeval import judgment_reduction as jr
from irmeta.metaeval.generated_set_names import GeneratedSet, check_set_names, generated_set_names, parse_set_name
from irmeta.metaeval.judgment_agreement import agreement_columns, judgment_agreement_table
from irmeta.metaeval.judgment_reduction import (
    JUDGMENT_REDUCTION_COLUMNS,
    fraction_mask,
    gathered_agreement,
    generated_agreement_rows,
    judgment_mask,
    judgment_reduction_table,
    pool_depth_mask,
    trial_means,
)

SEED = 20230402 + jr.SEED_OFFSET
MEASURES = ["P@5", "AP", "P_rareness@5", "AP_rareness_norm@10"]
ALPHAS = [0, 0.5, 1]


def random_campaign(root, seed: int, *, n_runs: int = 6, n_topics: int = 4, pool: int = 40,
                    blind_topic: bool = False):
    """Runs (name -> qid -> ranked docids) and qrels (qid -> doc -> grade 0-2) drawn at
    random, written as TREC files; the campaign read from them, with the lists as dicts.
    ``blind_topic``: one more topic, 199, whose judged documents every run ranks below an
    unjudged one (a pool of depth 1 judges none of them)."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"run{s}": {} for s in range(n_runs)}
    for t in range(n_topics):
        qid = str(100 + t)
        docs = [f"q{qid}d{j:03d}" for j in range(pool)]
        judged = rng.choice(pool, size=int(rng.integers(pool // 3, pool)), replace=False)
        qrels[qid] = {docs[j]: int(g) for j, g in zip(judged, rng.choice(3, size=len(judged), p=[0.6, 0.25, 0.15]))}
        for s in range(n_runs):
            length = int(rng.integers(1, 20))
            runs[f"run{s}"][qid] = [docs[j] for j in rng.choice(pool, size=length, replace=False)]
    if blind_topic:
        qrels["199"] = {"q199a": 1, "q199b": 0, "q199c": 2}
        for s in range(n_runs):
            runs[f"run{s}"]["199"] = [f"q199x{s}", *rng.permutation(["q199a", "q199b", "q199c"]).tolist()]
    r, q = write_campaign(root, runs, qrels)
    return relevance_matrix(r, q), runs, qrels


def qrels_rows(matrix) -> pd.DataFrame:
    """The matrix's qrels rows: topic id, docid, grade, relevant."""
    return pd.DataFrame({"qid": np.asarray(matrix.topics)[matrix.qrels_topic], "docid": matrix.docids.to_pylist(),
                         "grade": matrix.qrels_grade, "relevant": matrix.qrels_grade >= matrix.threshold})


# ------------------------------------------------------------------ names

def test_set_names_as_the_issue_writes_them():
    names = generated_set_names([10, 20], [0.1, 0.25, 1], 2)
    assert names == ["pool_depth_10", "pool_depth_20", "fraction_0.1_trial_0", "fraction_0.1_trial_1",
                     "fraction_0.25_trial_0", "fraction_0.25_trial_1", "fraction_1_trial_0", "fraction_1_trial_1"]
    assert parse_set_name("pool_depth_10") == GeneratedSet("pool_depth", 10)
    assert parse_set_name("fraction_0.1_trial_3") == GeneratedSet("fraction", 0.1, 3)
    assert all(parse_set_name(n).name == n for n in names)
    for bad in ("pool_depth_0", "fraction_0.10_trial_0", "fraction_1.5_trial_0", "fraction_0_trial_1", "half"):
        with pytest.raises(ValueError, match="names no generated judgment set|pool depth"):
            parse_set_name(bad)


@pytest.mark.parametrize(("depths", "fractions", "trials", "message"), [
    ([0], [0.1], 1, "pool_depths"), ([10, 10], [0.1], 1, "10 listed twice"), ([10], [0], 1, "judgment_fractions"),
    ([10], [1.2], 1, "judgment_fractions"), ([10], [0.1, 0.1], 2, "listed twice"), ([10], [0.1], 0, "trials"),
])
def test_bad_settings_are_refused(depths, fractions, trials, message):
    with pytest.raises(ValueError, match=message):
        generated_set_names(depths, fractions, trials)


def test_an_alternative_set_may_not_take_a_generated_name():
    check_set_names(["half", "depth10"], ["pool_depth_10"])
    with pytest.raises(ValueError, match="'pool_depth_10' is the name of a generated judgment set"):
        check_set_names(["half", "pool_depth_10"], ["pool_depth_10"])


def test_the_seed_is_the_experiments_plus_six():
    from irmeta.pipeline.experiment_settings import experiment_seed

    assert jr.SEED_OFFSET == 6
    assert experiment_seed({"experiments": {"seed": 11}}, "judgment_reduction") == 17


# ------------------------------------------------------------------ masks

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 3, 10])
def test_pool_depth_keeps_what_some_run_ranks_that_high(tmp_path, seed, depth):
    matrix, runs, _ = random_campaign(tmp_path, seed)
    pooled = {(qid, doc) for lists in runs.values() for qid, docs in lists.items() for doc in docs[:depth]}
    rows = qrels_rows(matrix)
    expected = np.array([(q, d) in pooled for q, d in zip(rows["qid"], rows["docid"])])
    np.testing.assert_array_equal(pool_depth_mask(matrix, depth), expected)
    np.testing.assert_array_equal(judgment_mask(matrix, f"pool_depth_{depth}", 0), expected)
    np.testing.assert_array_equal(pooled_judgments(matrix, depth), expected)  # the campaign's own pools agree


def test_pool_depth_on_trec8_from_the_run_rows(trec8_matrix, trec8_runs):
    """Depth 10 and 50 on TREC-8: the judged (topic, document) pairs some run has in its
    top d, counted on the runs as read (trec_eval order), not on the postings."""
    rows = qrels_rows(trec8_matrix)
    judged_key = rows["qid"] + " " + rows["docid"]
    topics = np.asarray(trec8_runs.topics)
    docids = np.asarray(trec8_runs.docids.to_pylist(), dtype=object)
    for depth in (10, 50):
        top = trec8_runs.rank <= depth
        pooled = set(topics[trec8_runs.qid[top]] + " " + docids[trec8_runs.docid[top]])
        expected = judged_key.isin(pooled).to_numpy()
        got = pool_depth_mask(trec8_matrix, depth)
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(pooled_judgments(trec8_matrix, depth), expected)
        assert 0 < got.sum() < len(got)


def brute_counts(rows: pd.DataFrame, keep: np.ndarray, fraction: float):
    """Per (topic, relevant): rows, kept, and what should be kept: ceil(f n) in exact arithmetic."""
    frame = rows.assign(keep=keep).groupby(["qid", "relevant"])["keep"].agg(["size", "sum"])
    exact = Fraction(str(fraction))
    frame["expected"] = [math.ceil(n * exact) for n in frame["size"]]
    return frame


@pytest.mark.parametrize("seed", range(4))
def test_fractions_keep_the_rounded_up_share_of_each_stratum(tmp_path, seed):
    matrix, _, _ = random_campaign(tmp_path, seed, n_topics=5)
    rows = qrels_rows(matrix)
    previous = np.zeros(len(rows), dtype=bool)
    for fraction in (0.1, 0.2, 0.3, 0.5, 1.0):
        keep = fraction_mask(matrix, fraction, 3, SEED)
        counts = brute_counts(rows, keep, fraction)
        assert (counts["sum"] == counts["expected"]).all(), counts
        relevant = counts.xs(True, level="relevant")
        assert (relevant["sum"] >= 1).all()  # every topic with a relevant document keeps one
        assert not (previous & ~keep).any()  # nested within a trial
        previous = keep
    assert previous.all()  # fraction 1: everything


def test_fraction_counts_on_trec8_round_up_exactly(trec8_matrix):
    rows = qrels_rows(trec8_matrix)
    for fraction in (0.1, 0.3):
        keep = fraction_mask(trec8_matrix, fraction, 0, SEED)
        counts = brute_counts(rows, keep, fraction)
        assert (counts["sum"] == counts["expected"]).all()
    # 0.55 x 100 is 55.00000000000001 in floats: a stratum of 100 rows keeps 55, not 56.
    assert math.ceil(0.55 * 100) == 56 and jr._kept_counts(np.array([100, 7, 0, 1]), 0.55).tolist() == [55, 4, 0, 1]
    assert jr._kept_counts(np.array([10, 3, 25]), 0.28).tolist() == [3, 1, 7]  # 0.28 x 25 = 7.000000000000001


def test_same_seed_same_masks_and_trials_differ(tmp_path):
    matrix, _, _ = random_campaign(tmp_path, 0)
    a = judgment_mask(matrix, "fraction_0.3_trial_2", SEED)
    np.testing.assert_array_equal(a, judgment_mask(matrix, "fraction_0.3_trial_2", SEED))
    assert not np.array_equal(a, judgment_mask(matrix, "fraction_0.3_trial_3", SEED))
    assert not np.array_equal(a, judgment_mask(matrix, "fraction_0.3_trial_2", SEED + 1))
    # The draw is the trial's stream, whatever else was drawn before it in the process.
    np.random.default_rng(0).random(10)
    np.testing.assert_array_equal(a, fraction_mask(matrix, 0.3, 2, SEED))


# ------------------------------------------------------------- agreement rows

def rejudged_scores(tmp_path, runs_dir_root, matrix, keep: np.ndarray, **options):
    """Scores from a qrels file holding exactly the kept judgments, the runs judged anew."""
    rows = qrels_rows(matrix)[keep]
    path = tmp_path / "reduced_qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(rows["qid"], rows["docid"], rows["grade"])))
    from irmeta.campaign.runs import read_runs

    fresh = relevance_matrix(read_runs(runs_dir_root / "runs"), read_qrels(path))
    return score_arrays(fresh, MEASURES, averaging=("all",), **options)


@pytest.mark.parametrize("name", ["pool_depth_1", "fraction_0.3_trial_1"])
def test_rows_equal_a_qrels_file_judged_from_scratch(tmp_path, name):
    """pool_depth_1 on this campaign leaves a topic without a judgment: it leaves the
    comparison, as trec_eval drops a topic absent from the qrels."""
    matrix, _, _ = random_campaign(tmp_path, 7, n_runs=8, n_topics=6, blind_topic=True)
    options = {"alphas": ALPHAS, "rarity_depth": 10}
    reference = score_arrays(matrix, MEASURES, averaging=("all", "returned"), **options)
    keep = judgment_mask(matrix, name, SEED)
    got = generated_agreement_rows(matrix, reference, [name], measures=MEASURES, seed=SEED, options=options)
    fresh = rejudged_scores(tmp_path, tmp_path, matrix, keep, **options)
    expected = judgment_agreement_table(reference, {name: fresh}, reference_name="qrels")
    pd.testing.assert_frame_equal(got, expected)
    assert list(got.columns) == agreement_columns()
    if name == "pool_depth_1":
        assert (got["topics_excluded"] == 1).all() and "199" not in fresh.topics


@pytest.mark.slow
def test_trec8_rows_equal_a_qrels_file_judged_from_scratch(tmp_path, trec8_matrix, trec8_runs):
    measures = ["P@100", "AP@100", "P_rareness@100", "AP_rareness_norm@100"]
    options = {"alphas": [0, 1]}
    reference = score_arrays(trec8_matrix, measures, **options)
    name = "fraction_0.2_trial_5"
    keep = judgment_mask(trec8_matrix, name, SEED)
    got = generated_agreement_rows(trec8_matrix, reference, [name], measures=measures, seed=SEED, options=options)
    rows = qrels_rows(trec8_matrix)[keep]
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(rows["qid"], rows["docid"], rows["grade"])))
    fresh = score_arrays(relevance_matrix(trec8_runs, read_qrels(path), depth=1000), measures, averaging=("all",),
                         **options)
    pd.testing.assert_frame_equal(got, judgment_agreement_table(reference, {name: fresh}, reference_name="qrels"))
    assert (got["kendall_tau"] < 1).all() and (got["topics_excluded"] == 0).all()


def test_the_shard_split_changes_no_row(tmp_path):
    matrix, _, _ = random_campaign(tmp_path, 3)
    options = {"alphas": ALPHAS}
    reference = score_arrays(matrix, MEASURES, **options)
    names = generated_set_names([2, 5], [0.2, 0.5], 3)

    def rows(chosen):
        return generated_agreement_rows(matrix, reference, chosen, measures=MEASURES, seed=SEED, options=options)

    whole = rows(names)
    split = gathered_agreement(rows([]), [rows(names[:3]), rows(names[3:5]), rows(names[5:])])
    pd.testing.assert_frame_equal(whole, split)
    backwards = pd.concat([rows([n]) for n in reversed(names)], ignore_index=True)
    ordered = backwards.set_index("judgments").loc[names].reset_index()[agreement_columns()]
    pd.testing.assert_frame_equal(whole, ordered)


# ------------------------------------------------------------------ summary

def agreement_rows(sets: dict[str, list[float]]) -> pd.DataFrame:
    """Hand-made agreement rows: two blocks (AP, P_rareness at alpha 1) per set, taus given."""
    rows = []
    for name, taus in sets.items():
        for (measure, alpha), tau in zip([("AP@10", ""), ("P_rareness@10", "1")], taus):
            rows.append({"reference": "qrels", "judgments": name, "measure": measure, "alpha": alpha,
                         "averaging": "all_topics", "level": 0.05, "runs": 5, "topics": 4, "topics_excluded": 0,
                         "pairs": 10, "kendall_tau": tau, "tau_ap": tau - 0.1, "significant_reference": 4,
                         "significant_alternative": 3, "swapped_significant": int(10 * (1 - tau)),
                         "reversed_significant": 0, "swapped_share": int(10 * (1 - tau)) / 4})
    return pd.DataFrame(rows, columns=agreement_columns())


def test_reduction_table_summarises_each_kind_and_value():
    names = generated_set_names([10], [0.1, 0.5], 3)
    taus = {"half": [0.5, 0.5], "pool_depth_10": [0.9, 0.8], "fraction_0.1_trial_0": [0.6, 0.7],
            "fraction_0.1_trial_1": [0.8, 0.5], "fraction_0.1_trial_2": [0.7, 0.6],
            "fraction_0.5_trial_0": [1.0, 0.9], "fraction_0.5_trial_1": [0.9, 0.9], "fraction_0.5_trial_2": [0.8, 1.0]}
    table = judgment_reduction_table(agreement_rows(taus), names)
    assert list(table.columns) == list(JUDGMENT_REDUCTION_COLUMNS)
    assert list(zip(table["kind"], table["value"], table["measure"])) == [
        ("pool_depth", 10, "AP@10"), ("pool_depth", 10, "P_rareness@10"), ("fraction", 0.1, "AP@10"),
        ("fraction", 0.1, "P_rareness@10"), ("fraction", 0.5, "AP@10"), ("fraction", 0.5, "P_rareness@10")]
    assert list(table["sets"]) == [1, 1, 3, 3, 3, 3]
    for block in range(2):
        for value, sets in ((0.1, ["fraction_0.1_trial_0", "fraction_0.1_trial_1", "fraction_0.1_trial_2"]),
                            (0.5, ["fraction_0.5_trial_0", "fraction_0.5_trial_1", "fraction_0.5_trial_2"])):
            row = table[(table["value"] == value)].iloc[block]
            t = np.array([taus[s][block] for s in sets])
            assert row["kendall_tau"] == pytest.approx(t.mean(), abs=1e-15)
            assert row["kendall_tau_min"] == t.min() and row["tau_ap"] == pytest.approx((t - 0.1).mean(), abs=1e-15)
            assert row["swapped_significant"] == pytest.approx(np.mean([int(10 * (1 - x)) for x in t]))
    depth = table[table["kind"] == "pool_depth"]
    assert list(depth["kendall_tau"]) == [0.9, 0.8] and list(depth["kendall_tau_min"]) == [0.9, 0.8]
    # The alternative set "half" is in no summary; the figure's rows average the trials.
    means = trial_means(agreement_rows(taus), names)
    assert list(dict.fromkeys(means["judgments"])) == ["half", "pool_depth_10", "fraction_0.1", "fraction_0.5"]
    assert means.loc[means["judgments"] == "fraction_0.1", "kendall_tau"].tolist() == pytest.approx([0.7, 0.6])
    assert judgment_reduction_table(agreement_rows({"half": [1, 1]}), names).empty


def test_reduction_figure_draws_both_kinds_and_nothing(tmp_path):
    from irmeta.artefacts.figures.judgment_reduction import plot_judgment_reduction

    names = generated_set_names([10, 20], [0.1, 0.5], 2)
    taus = {n: [0.8 + 0.01 * i, 0.7 + 0.01 * i] for i, n in enumerate(names)}
    table = judgment_reduction_table(agreement_rows(taus), names)
    paths = plot_judgment_reduction(table, tmp_path / "r.png", tmp_path / "r.pdf", title="test")
    assert [p.stat().st_size > 1000 for p in paths] == [True, True]
    empty = plot_judgment_reduction(table.iloc[:0], tmp_path / "e.png", tmp_path / "e.pdf")
    assert all(p.is_file() for p in empty)
    with pytest.raises(ValueError, match="<stem>.png"):
        plot_judgment_reduction(table, tmp_path / "r.png", tmp_path / "other.pdf")
