"""Bring your own judgments (irmeta.metaeval.judgment_agreement) on TREC-8 ad hoc: 20 runs,
depth 100, scored under the official qrels and under judgment sets derived from them here:

- ``half`` (``tenth``): a 50% (10%) sample of each topic's judged documents (fixed
  seed), the rest unjudged;
- ``agreed``: a document stays relevant only if at least 2 of the 20 runs retrieve it in
  their top 100 (the uniquely found relevant documents become non-relevant);
- ``40_topics``: the official judgments of the first 40 topics only;

and, to exercise the counting of swaps (rare between real judgment sets at 20 runs), the
official scores with the runs' rows shuffled (``shuffled``) and negated (``negated``: every
ranking reversed, ties kept).

Expected values: identities (a set against itself), brute force over pairs in plain loops
(the two-way ANOVA Tukey HSD written out, q_crit from scipy), and the discriminative-power
module's Tukey HSD counts.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irmeta.api import score
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import Scores
from irmeta.metaeval.discriminative_power import discriminative_power_table
from irmeta.metaeval.judgment_agreement import agreement_columns, judgment_agreement_table
from irmeta.metaeval.score_matrices import ScoreMatrix, score_matrices
from irmeta.metaeval.stats import tau_a, tau_ap_a, tau_ap_b

MEASURES = ["P@100", "AP@100", "P_rareness@100"]
ALPHAS = [0, 1]
DEPTH = 100
LEVEL = 0.05
SEED = 20230402


@pytest.fixture(scope="module")
def campaign(shared_data):
    """20 of the 129 runs (every sixth by name) and the official qrels as a DataFrame."""
    folder = shared_data / "trec8_adhoc"
    paths = sorted((folder / "runs").glob("*.gz"))[::6][:20]
    qrels = pd.read_csv(folder / "qrels.txt", sep=r"\s+", header=None, dtype={0: str, 2: str},
                        names=["query_id", "iteration", "doc_id", "relevance"])
    return paths, qrels


def sampled(qrels: pd.DataFrame, share: float) -> pd.DataFrame:
    """A ``share`` of each topic's judged documents (at least one kept per topic)."""
    rng = np.random.default_rng(SEED)
    keys = pd.Series(rng.random(len(qrels)), index=qrels.index)
    ranks = keys.groupby(qrels["query_id"]).rank(method="first")
    sizes = qrels.groupby("query_id")["doc_id"].transform("size")
    return qrels[ranks <= np.maximum(1, (sizes * share).astype(int))]


def agreed_relevant(qrels: pd.DataFrame, paths) -> pd.DataFrame:
    """Relevant only if at least 2 runs retrieve the document in their top DEPTH."""
    runs = read_runs(paths, depth=DEPTH)
    retrieved = pd.DataFrame({"run": runs.run, "query_id": np.asarray(runs.topics)[runs.qid],
                              "doc_id": np.asarray(runs.docids.to_pylist())[runs.docid]})
    finders = retrieved.groupby(["query_id", "doc_id"])["run"].nunique()
    agreed = qrels.set_index(["query_id", "doc_id"]).index.map(finders.to_dict()).fillna(0).to_numpy() >= 2
    return qrels.assign(relevance=np.where(agreed, qrels["relevance"], 0))


def first_topics(qrels: pd.DataFrame, n: int) -> pd.DataFrame:
    kept = list(dict.fromkeys(qrels["query_id"]))[:n]
    return qrels[qrels["query_id"].isin(kept)]


@pytest.fixture(scope="module")
def judgment_sets(campaign) -> dict[str, Scores]:
    paths, qrels = campaign
    sets = {"official": qrels, "half": sampled(qrels, 0.5), "tenth": sampled(qrels, 0.1),
            "agreed": agreed_relevant(qrels, paths), "40_topics": first_topics(qrels, 40)}
    scored = {name: score(q, paths, MEASURES, depth=DEPTH, alphas=ALPHAS).scores for name, q in sets.items()}
    official = scored["official"]
    order = np.random.default_rng(SEED).permutation(len(official.runs))
    scored["shuffled"] = rows_moved(official, order)
    scored["negated"] = dataclasses.replace(official, per_topic=-official.per_topic,
                                            means={k: -v for k, v in official.means.items()})
    return scored


def rows_moved(scores: Scores, order: np.ndarray) -> Scores:
    """Run i scored as run ``order[i]``: a stand-in for judgments that disagree."""
    return dataclasses.replace(scores, per_topic=scores.per_topic[:, order],
                               means={k: v[:, order] for k, v in scores.means.items()})


@pytest.fixture(scope="module")
def table(judgment_sets) -> pd.DataFrame:
    return judgment_agreement_table(judgment_sets["official"], judgment_sets, level=LEVEL)


def rows_of(table: pd.DataFrame, judgments: str) -> pd.DataFrame:
    return table[table["judgments"] == judgments].reset_index(drop=True)


@pytest.mark.slow
def test_layout(table, judgment_sets):
    assert list(table.columns) == agreement_columns()
    assert list(table["judgments"].drop_duplicates()) == list(judgment_sets)  # the mapping's order
    for _, rows in table.groupby("judgments", sort=False):
        assert list(zip(rows["measure"], rows["alpha"])) == [
            ("AP@100", ""), ("P@100", ""), ("P_rareness@100", "0"), ("P_rareness@100", "1")]
    assert (table["reference"] == "official").all() and (table["runs"] == 20).all()
    assert (table["pairs"] == 190).all() and (table["level"] == LEVEL).all()


def test_the_reference_against_itself_agrees_fully(table):
    me = rows_of(table, "official")
    assert (me["kendall_tau"] == 1.0).all() and (me["tau_ap"] == 1.0).all()
    assert (me["swapped_significant"] == 0).all() and (me["reversed_significant"] == 0).all()
    assert (me["significant_reference"] == me["significant_alternative"]).all()
    assert (me["significant_reference"] > 0).all()
    assert (me["topics"] == 50).all() and (me["topics_excluded"] == 0).all()
    assert (me["top1_same"] == True).all()  # noqa: E712 (numpy bools)
    assert (me["top5_overlap"] == 1.0).all() and (me["top10_overlap"] == 1.0).all()
    assert (me["largest_rank_change"] == 0).all() and (me["largest_rank_change_run"] == "").all()


def test_the_top_columns_are_those_of_the_oriented_means(table, judgment_sets):
    from irmeta.metaeval.top_ranks import TOP_COLUMNS, top_agreement

    official = judgment_sets["official"]
    for name in ("half", "negated", "shuffled"):
        theirs = judgment_sets[name]
        for row in rows_of(table, name).itertuples(index=False):
            i = official.block(row.measure, row.alpha or None)
            expected = top_agreement(official.means["all_topics"][i], theirs.means["all_topics"][i], official.runs)
            assert {c: getattr(row, c) for c in TOP_COLUMNS} == expected
    negated = rows_of(table, "negated")
    assert (negated["largest_rank_change"] > 0).all() and not negated["top1_same"].any()


def test_half_the_judgments_rank_the_runs_differently_but_alike(table):
    half = rows_of(table, "half")
    assert (half["kendall_tau"] < 1).all() and (half["tau_ap"] < 1).all()
    # Half the pool still ranks TREC-8 runs much alike (Voorhees 2000: tau around 0.9)
    assert (half["kendall_tau"] > 0.6).all() and (half["tau_ap"] > 0.4).all()
    assert (half["swapped_share"] <= 0.2).all()
    assert (half["reversed_significant"] <= half["swapped_significant"]).all()


def test_alpha_zero_is_precision(table):
    """P_rareness at alpha 0 is P@k to the last bit, so every column agrees."""
    numbers = ["kendall_tau", "tau_ap", "significant_reference", "significant_alternative", "swapped_significant",
               "reversed_significant"]
    p = table[table["measure"] == "P@100"][numbers].reset_index(drop=True)
    rare = table[(table["measure"] == "P_rareness@100") & (table["alpha"] == "0")][numbers].reset_index(drop=True)
    pd.testing.assert_frame_equal(p, rare)


def test_a_set_lacking_topics_is_compared_on_the_shared_ones(table):
    """The official judgments of 40 topics against all 50: on the 40 shared topics the
    scores are the same, so the rankings are (both sides' means recomputed alike)."""
    rows = rows_of(table, "40_topics")
    assert (rows["topics"] == 40).all() and (rows["topics_excluded"] == 10).all()
    assert (rows["kendall_tau"] == 1).all() and (rows["tau_ap"] == 1).all()
    assert (rows["swapped_significant"] == 0).all()
    assert (rows["significant_reference"] == rows["significant_alternative"]).all()


def test_negated_scores_reverse_every_significant_pair(table):
    rows = rows_of(table, "negated")
    assert (rows["kendall_tau"] == -1).all()
    assert (rows["swapped_significant"] == rows["significant_reference"]).all()
    assert (rows["reversed_significant"] == rows["significant_reference"]).all()
    assert (rows["significant_alternative"] == rows["significant_reference"]).all()
    assert (rows["swapped_share"] == 1).all()


def brute_force_significant(values: np.ndarray) -> set[tuple[int, int]]:
    """Two-way ANOVA Tukey HSD written out: pairs (a, b), a < b, with q > q_crit."""
    n_runs, n_topics = values.shape
    run_mean = [math.fsum(values[a]) / n_topics for a in range(n_runs)]
    topic_mean = [math.fsum(values[:, t]) / n_runs for t in range(n_topics)]
    grand = math.fsum(values.ravel()) / values.size
    sse = math.fsum((values[a, t] - run_mean[a] - topic_mean[t] + grand) ** 2
                    for a in range(n_runs) for t in range(n_topics))
    df = (n_runs - 1) * (n_topics - 1)
    q_crit = stats.studentized_range.ppf(1 - LEVEL, n_runs, df)
    return {(a, b) for a, b in itertools.combinations(range(n_runs), 2)
            if abs(run_mean[a] - run_mean[b]) / math.sqrt(sse / df / n_topics) > q_crit}


def shared(scores: Scores, topics: list[str], block: int, recompute: bool) -> tuple[np.ndarray, list[float]]:
    """One block's (runs, topics) matrix on ``topics`` and the runs' means: the pipeline's,
    or with ``recompute`` (the two sets' topics differ) their correctly rounded means."""
    values = scores.per_topic[block][:, [scores.topics.index(t) for t in topics]]
    if not recompute:
        return values, list(scores.means["all_topics"][block])
    return values, [math.fsum(row) / len(topics) for row in values]


@pytest.mark.slow
@pytest.mark.parametrize("judgments", ["half", "tenth", "agreed", "40_topics", "shuffled"])
def test_swaps_equal_a_brute_force_count_over_pairs(table, judgment_sets, judgments):
    reference, alternative = judgment_sets["official"], judgment_sets[judgments]
    topics = [t for t in reference.topics if t in alternative.topics]
    recompute = set(topics) != set(alternative.topics) or len(topics) != len(reference.topics)
    rows = rows_of(table, judgments)
    for block, (measure, alpha) in enumerate(zip(reference.measures, reference.alphas)):
        ref_values, ref_means = shared(reference, topics, block, recompute)
        alt_values, alt_means = shared(alternative, topics, alternative.block(measure, alpha), recompute)
        ref_significant = brute_force_significant(ref_values)
        alt_significant = brute_force_significant(alt_values)
        swapped = reversed_ = 0
        for a, b in ref_significant:
            opposite = (ref_means[a] - ref_means[b]) * (alt_means[a] - alt_means[b]) < 0
            swapped += opposite
            reversed_ += opposite and (a, b) in alt_significant
        row = rows[(rows["measure"] == measure) & (rows["alpha"] == (alpha or ""))].iloc[0]
        got = (row["significant_reference"], row["significant_alternative"], row["swapped_significant"],
               row["reversed_significant"])
        assert got == (len(ref_significant), len(alt_significant), swapped, reversed_), (measure, alpha)


def test_significant_pairs_are_the_discriminative_power_counts(table, judgment_sets):
    reference = judgment_sets["official"]
    dp = discriminative_power_table(score_matrices(reference), methods=["tukey_hsd"], levels=[LEVEL])
    full = rows_of(table, "half").merge(dp, on=["measure", "alpha"])
    assert len(full) == 4 and (full["significant_reference"] == full["significant_pairs"]).all()
    # On 40 topics: the reference's matrices cut to them, the alternative's as scored
    forty = judgment_sets["40_topics"]
    columns = [reference.topics.index(t) for t in forty.topics]
    cut = [ScoreMatrix(m.measure, m.alpha, m.runs, forty.topics, m.values[:, columns])
           for m in score_matrices(reference)]
    counts = {
        side: discriminative_power_table(matrices, methods=["tukey_hsd"], levels=[LEVEL])
        for side, matrices in (("significant_reference", cut), ("significant_alternative", score_matrices(forty)))
    }
    rows = rows_of(table, "40_topics")
    for side, dp in counts.items():
        assert list(rows[side]) == list(dp["significant_pairs"]), side


def test_a_lower_is_better_measure_is_turned_best_first(judgment_sets):
    """P@100 relabelled as a lower-is-better measure (ASL) with its scores negated ranks the
    runs exactly as P@100 does: every column but the name agrees."""

    def as_negated_asl(scores: Scores) -> Scores:
        i = scores.block("P@100")
        return dataclasses.replace(scores, measures=["ASL@100"], alphas=[None], per_topic=-scores.per_topic[i:i + 1],
                                   means={k: -v[i:i + 1] for k, v in scores.means.items()})

    def p_only(scores: Scores) -> Scores:
        i = scores.block("P@100")
        return dataclasses.replace(scores, measures=["P@100"], alphas=[None], per_topic=scores.per_topic[i:i + 1],
                                   means={k: v[i:i + 1] for k, v in scores.means.items()})

    reference, half = judgment_sets["official"], judgment_sets["half"]
    negated = judgment_agreement_table(as_negated_asl(reference), {"half": as_negated_asl(half)})
    plain = judgment_agreement_table(p_only(reference), {"half": p_only(half)})
    pd.testing.assert_frame_equal(negated.drop(columns="measure"), plain.drop(columns="measure"))


def test_mismatches_are_refused(judgment_sets):
    reference, forty = judgment_sets["official"], judgment_sets["40_topics"]
    fewer_runs = dataclasses.replace(forty, runs=forty.runs[:-1], per_topic=forty.per_topic[:, :-1],
                                     means={k: v[:, :-1] for k, v in forty.means.items()})
    with pytest.raises(ValueError, match="other runs"):
        judgment_agreement_table(reference, {"x": fewer_runs})
    returned = {"returned_topics": reference.means["all_topics"]}
    with pytest.raises(ValueError, match="'all_topics' only"):
        judgment_agreement_table(dataclasses.replace(reference, means=returned),
                                 {"x": dataclasses.replace(forty, means=returned)}, averaging="returned_topics")
    no_ap = dataclasses.replace(forty, measures=["P@100"], alphas=[None], per_topic=forty.per_topic[:1],
                                means={k: v[:1] for k, v in forty.means.items()})
    with pytest.raises(ValueError, match="no scores of AP@100"):
        judgment_agreement_table(reference, {"x": no_ap})


def test_the_numbers_on_trec8(table):
    """Not an assertion on values: the numbers, for the record (pytest -s)."""
    print(table.drop(columns=["reference", "averaging", "level", "runs", "pairs"]).to_string())


def test_ties_add_the_a_and_b_variants_with_the_qrels_as_reference(judgment_sets, table):
    # issue 42: a judgment set's coarse grades tie runs; ties names ircor's variants, each
    # a column after today's, which do not change
    chosen = {k: judgment_sets[k] for k in ("official", "half", "tenth")}
    tied = judgment_agreement_table(judgment_sets["official"], chosen, level=LEVEL, ties=["b", "a"])
    assert list(tied.columns) == agreement_columns(["a", "b"]) == [*agreement_columns(), "tau_a", "tau_ap_a",
                                                                   "tau_ap_b"]
    today = table[table["judgments"].isin(list(chosen))].reset_index(drop=True)
    pd.testing.assert_frame_equal(tied[agreement_columns()], today)
    official = judgment_sets["official"]
    for row in tied.itertuples():
        block = official.block(row.measure, row.alpha or None)
        x = official.means["all_topics"][block]
        y = chosen[row.judgments].means["all_topics"][chosen[row.judgments].block(row.measure, row.alpha or None)]
        assert row.tau_ap_b == tau_ap_b(x, y)
        if len(np.unique(x)) == len(x):
            assert (row.tau_a, row.tau_ap_a) == (tau_a(x, y), tau_ap_a(x, y))
        else:
            assert np.isnan(row.tau_a) and np.isnan(row.tau_ap_a)
    assert tied[tied["judgments"] == "official"]["tau_ap_b"].eq(1.0).all()
    assert tied["tau_a"].notna().any() and tied["tau_a"].isna().any()  # AP@100 untied, P@100 tied
    with pytest.raises(ValueError, match=r"ties must be some of a, b \(each once\), not \['w'\]"):
        judgment_agreement_table(official, chosen, ties=["w"])
