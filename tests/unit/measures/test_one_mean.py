"""One definition of a run's mean (issue 18): run_means, the same bits from runs, from
irmeta's TSV, from trec_eval output and from tables; a file's mean rows checked, never
used (docs/PROTOCOL.md, Numerical care)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from campaigns import write
from irmeta.cli import scores_trec_eval, scores_tsv
from irmeta.measures.averaging import (
    Scores,
    counted_means,
    evaluate,
    exact_mean,
    mean_grid,
    run_means,
    score_arrays,
)
from irmeta.measures.names import parse_measure
from irmeta.measures.rareness import rarity_for
from irmeta.measures.score_files import read_score_file, read_score_rows, scores_from_table
from irmeta.metaeval import kendall_tau
from irmeta.pipeline.steps import imported_scores

ALPHAS = [0.0, 0.25, 0.5, 0.75, 1.0]
COUNTED = ["P@10", "P@100", "P_rareness@10", "P_rareness@100", "P_rareness_norm@10", "P_rareness_norm@100"]


def bits(x: np.ndarray) -> list[int]:
    return np.asarray(x, np.float64).view(np.int64).tolist()


# ------------------------------------------------------------------ the grid on TREC-8


@pytest.mark.parametrize("name", COUNTED)
@pytest.mark.parametrize("mode", ["all", "returned"])
def test_snapped_means_are_the_integer_totals_bit_for_bit_on_trec8(trec8_matrix, name, mode):
    m = parse_measure(name)
    found = rarity_for(trec8_matrix, m.cutoff, None, None) if m.uses_alpha else None
    values = evaluate(trec8_matrix, [m], alphas=ALPHAS, rarity_counts=found)[m]
    blocks = values if m.uses_alpha else values[None]
    counted = counted_means(trec8_matrix, m, mode, alphas=ALPHAS, rarity_counts=found).reshape(len(blocks), -1)
    mask = None if mode == "all" else trec8_matrix.returned
    plain_differs = 0
    for i, block in enumerate(blocks):
        grid = mean_grid(m, ALPHAS[i] if m.uses_alpha else None, trec8_matrix.n_runs)
        assert grid is not None
        assert bits(run_means(block, mask, grid=grid)) == bits(counted[i])
        plain_differs += int((exact_mean(block, mask) != counted[i]).sum())
    assert plain_differs > 0  # the sorted sums alone miss these bits: the snap is what gives them


def test_the_runs_path_takes_its_means_from_the_one_definition(trec8_matrix):
    scores = score_arrays(trec8_matrix, ["P@10", "P_rareness@10", "AP@100"], alphas=[0, 0.5, "1/R"])
    for i, (measure, alpha) in enumerate(zip(scores.measures, scores.alphas)):
        for mode, name in (("all", "all_topics"), ("returned", "returned_topics")):
            mask = None if mode == "all" else trec8_matrix.returned
            got = scores.means[name][i]
            assert bits(got) == bits(run_means(scores.per_topic[i], mask,
                                               grid=mean_grid(measure, alpha, trec8_matrix.n_runs)))
            if measure == "AP@100" or alpha == "1/R":  # no grid: the sorted sum, as before
                assert bits(got) == bits(exact_mean(scores.per_topic[i], mask))


def test_the_issues_tie_at_0692_is_a_tie_whatever_the_path(trec8_matrix, tmp_path):
    """CL99XT and CL99XTopt hold 346 relevant documents in their top 10 over the 50
    topics: P@10 = 0.692 for both. Sorted sums of their per-topic quotients give
    0.6919999999999998 and 0.6920000000000001; the one mean ties them, from runs and
    from the TSV and trec_eval files of the same scores."""
    at = [list(trec8_matrix.runs).index(r) for r in ("CL99XT", "CL99XTopt")]
    p10 = evaluate(trec8_matrix, ["P@10"])[parse_measure("P@10")][at]
    assert exact_mean(p10).tolist() == [0.6919999999999998, 0.6920000000000001]
    assert run_means(p10, grid=mean_grid("P@10")).tolist() == [0.692, 0.692]
    small = Scores(runs=["CL99XT", "CL99XTopt"], topics=list(trec8_matrix.topics), measures=["P@10"],
                   alphas=[None], per_topic=p10[None], means={"all_topics": exact_mean(p10)[None]})
    for text in (scores_tsv(small, per_topic=True, digits=None), scores_trec_eval(small, per_topic=True)):
        path = tmp_path / "p10"
        path.write_bytes(text)
        got = scores_from_table(read_score_rows(path), ["P@10"], [], source=str(path))
        assert got.means["all_topics"][0].tolist() == [0.692, 0.692]


# ------------------------------------------------------------------ the grid by hand


def test_the_grid_comes_from_the_name_alpha_and_s():
    assert mean_grid("P@10") is not None and mean_grid("P@10").q == 10
    assert mean_grid("P_rareness@10", 0.25, 8).q == 10 * 8 * 4
    assert mean_grid("P_rareness(alpha=0.5)@10", 0.25, 8).q == 10 * 8 * 2  # the name's alpha wins
    assert mean_grid("P_rareness_norm@100", 0.75, 8).q == 100 * 7 * 4
    assert mean_grid("P_rareness@10", 1, 8).q == 10 * 8
    for name, alpha, s in (("P", None, None), ("AP@10", None, 8), ("P_rareness@10", "1/R", 8),
                           ("P_rareness@10", 0.1, 8), ("P_rareness@10", 0.5, None), ("P_rareness_norm@10", 0.5, 1)):
        assert mean_grid(name, alpha, s) is None, name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10), min_size=1, max_size=60), st.randoms(use_true_random=False))
def test_p_at_k_means_are_the_quotient_of_integers_in_any_order(hits, rnd):
    values = np.array(hits, np.float64) / 10
    order = list(range(len(hits)))
    rnd.shuffle(order)
    want = sum(hits) / (10 * len(hits))  # one correctly rounded division
    assert bits(run_means(values[None], grid=mean_grid("P@10"))) == bits([want])
    assert bits(run_means(values[order][None], grid=mean_grid("P@10"))) == bits([want])


def test_scores_off_the_grid_keep_the_sorted_sum():
    rng = np.random.default_rng(3)
    hits = rng.integers(0, 16, (40, 50))
    assert (run_means(hits / 15, grid=mean_grid("P@15")) == hits.sum(axis=1) / 750).all()
    # trec_eval's 4 decimals of P@15 are not c/15: the mean snaps only where the rounded
    # values' exact mean lies on the grid (their rounding errors cancel), else stays the sum
    rounded = np.round(hits / 15, 4)
    snapped, plain = run_means(rounded, grid=mean_grid("P@15")), exact_mean(rounded)
    on_grid = (np.rint(rounded * 10_000).astype(np.int64).sum(axis=1) * 15) % 10_000 == 0
    assert (snapped[~on_grid] == plain[~on_grid]).all() and (~on_grid).sum() > 30
    assert np.abs(snapped - plain).max() <= 1e-15
    # P_rareness counted over 7 runs, read as if over 8: the grid of S = 8 holds the exact
    # mean only where the integer total is a multiple of 7; elsewhere the sum stays
    s_d = rng.integers(1, 8, (40, 50))
    values = (1.5 * 7 * hits - 0.5 * s_d) / (15 * 7)
    exact = (1.5 * 7 * hits - 0.5 * s_d).sum(axis=1) / (15 * 7 * 50)
    assert (run_means(values, grid=mean_grid("P_rareness@15", 0.5, 7)) == exact).all()
    wrong = run_means(values, grid=mean_grid("P_rareness@15", 0.5, 8))
    multiple = (2 * (1.5 * 7 * hits - 0.5 * s_d).sum(axis=1)).astype(np.int64) % 7 == 0
    assert (wrong[multiple] == exact[multiple]).all() and (~multiple).sum() > 20
    assert (wrong[~multiple] == exact_mean(values)[~multiple]).all()
    assert (exact_mean(values) != exact).any()


# ------------------------------------------------------------------ mean rows checked


def test_a_mean_row_that_contradicts_the_per_topic_rows_names_its_line(tmp_path):
    tsv = write(tmp_path / "s.tsv", "run\tmeasure\tqid\tvalue\na\tP@10\t1\t0.5\na\tP@10\t2\t0.2\na\tP@10\tall\t0.35\n"
                "b\tP@10\t1\t0.1\nb\tP@10\t2\t0.2\nb\tP@10\tall\t0.17\n")
    with pytest.raises(ValueError, match=re.escape(f"{tsv}:7: the mean of P@10 for run b is 0.17, but its "
                                                   "per-topic scores give 0.15 over the 2 topics")):
        scores_from_table(read_score_rows(tsv), ["P@10"], [])
    fixed = write(tmp_path / "fixed.tsv", tsv.read_text().replace("0.17\n", "0.15000000000000002\n"))
    got = scores_from_table(read_score_rows(fixed), ["P@10"], [])
    assert got.means["all_topics"][0].tolist() == [0.35, 0.15]  # the file's sorted sum agrees, and is not used


def test_trec_eval_means_agree_to_their_four_decimals_with_or_without_c(tmp_path):
    def block(run, lines, mean):
        return "".join(f"P_10\t{q}\t{v}\n" for q, v in lines) + f"runid\tall\t{run}\nP_10\tall\t{mean}\n"

    # without -c: x returned topic 1 only, its mean over it; with -c (y): over both topics
    text = block("x", [("1", "0.3000")], "0.3000") + block("y", [("1", "0.1000"), ("2", "0.6000")], "0.3500")
    path = write(tmp_path / "ok.trec_eval", text + block("z", [("1", "0.7000"), ("2", "0.3000")], "0.5000"))
    got = scores_from_table(read_score_rows(path), ["P@10"], [], missing="zero")
    assert got.means["all_topics"][0].tolist() == [0.15, 0.35, 0.5]
    assert got.means["returned_topics"][0].tolist() == [0.3, 0.35, 0.5]
    bad = write(tmp_path / "bad.trec_eval", text.replace("0.3500", "0.3502"))
    with pytest.raises(ValueError, match=re.escape(f"{bad}:7: the mean of P@10 for run y is 0.3502")):
        scores_from_table(read_score_rows(bad), ["P@10"], [], missing="zero")


def test_tables_in_memory_keep_their_averaging_and_refuse_contradictions(tmp_path):
    qrels = {"1": {"a": 1, "b": 1}, "2": {"c": 1}, "3": {"d": 1, "e": 0}}
    runs = {"r": {"1": {"a": 2.0, "x": 1.0}, "2": {"c": 1.0}}, "s": {"1": {"b": 1.0}, "3": {"e": 2.0, "d": 1.0}},
            "t": {"1": {"y": 1.0}, "2": {"c": 1.0}, "3": {"d": 1.0}}}
    measures, pairs = ["P@2", "P_rareness@2", "AP"], [("P_rareness@2", "P@2"), ("AP", "P@2")]
    for average in ("all", "returned"):
        scores = irmeta.score(qrels, runs, measures, alphas=[0, 1], average=average).scores
        table = irmeta.evaluate(qrels, runs, measures, alphas=[0, 1], average=average)
        want = kendall_tau.kendall_tau_table(_as_all(scores), [{"measure": m, "baseline": b} for m, b in pairs])
        assert irmeta.kendall_tau_table(table, pairs).to_csv() == want.to_csv()
    table.loc[table.index[-1], "value"] += 0.01  # AP's mean of run t
    with pytest.raises(ValueError, match=re.escape(f"the scores table, row {len(table) - 1}: the mean of AP for "
                                                   "run t is")):
        irmeta.kendall_tau_table(table, pairs)


def _as_all(scores):
    """Scores with their one averaging under the name kendall_tau reads."""
    return Scores(runs=scores.runs, topics=scores.topics, measures=scores.measures, alphas=scores.alphas,
                  per_topic=scores.per_topic, means={"all_topics": next(iter(scores.means.values()))})


# ------------------------------------------------------------------ the round trip, generated


@st.composite
def campaigns(draw):
    """A few topics and runs: each run returns a ranked subset of each topic's pool (or
    nothing), the qrels grade some of the pool."""
    n_topics, n_runs = draw(st.integers(1, 5)), draw(st.integers(2, 6))
    pool = [f"d{i}" for i in range(8)]
    qrels = {str(q): {d: draw(st.integers(0, 2)) for d in draw(st.lists(st.sampled_from(pool), min_size=1,
                                                                           max_size=8, unique=True))}
             for q in range(1, n_topics + 1)}
    runs = {}
    for r in range(n_runs):
        lists = {q: draw(st.lists(st.sampled_from(pool), max_size=8, unique=True)) for q in qrels}
        lists["1"] = lists["1"] or [pool[r % 8]]  # every run returns something
        runs[f"run{r}"] = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in lists.items()
                           if docs}
    return qrels, runs


MEASURES = ["P@2", "P@5", "P_rareness@2", "P_rareness_norm@5", "AP", "nDCG@5"]
PAIRS = [("P_rareness@2", "P@2"), ("P_rareness_norm@5", "P@5"), ("AP", "P@5"), ("nDCG@5", "AP")]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(campaigns(), st.sampled_from([[0, 0.5, 1], [0.25, 0.75, "1/R"]]))
def test_the_tsv_round_trip_gives_the_runs_tables_byte_for_byte(tmp_path, campaign, alphas):
    qrels, runs = campaign
    scores = irmeta.score(qrels, runs, MEASURES, alphas=alphas).scores
    path = tmp_path / "scores.tsv"
    path.write_bytes(scores_tsv(scores, per_topic=True, digits=None))
    read = scores_from_table(read_score_rows(path), MEASURES, alphas, source=str(path))
    assert bits(read.means["all_topics"]) == bits(scores.means["all_topics"])
    named = [{"measure": m, "baseline": b} for m, b in PAIRS]
    want = kendall_tau.kendall_tau_table(scores, named).to_csv()
    assert kendall_tau.kendall_tau_table(read, named).to_csv() == want  # the pipeline's path
    assert irmeta.kendall_tau_table(read_score_file(path), PAIRS).to_csv() == want  # the API's
    assert irmeta.kendall_tau_table(irmeta.evaluate(qrels, runs, MEASURES, alphas=alphas), PAIRS).to_csv() == want


# ------------------------------------------------------------------ a file beside runs (issue 18, 13.)


def test_a_scores_file_beside_runs_with_a_measure_irmeta_computes_is_refused(tmp_path):
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    runs = {"r": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}, "s": {"1": {"b": 1.0}, "2": {"c": 1.0}}}
    scores = irmeta.score(qrels, runs, ["AP@100", "nDCG@10"]).scores
    path = tmp_path / "scores.tsv"
    path.write_bytes(scores_tsv(scores, per_topic=True, digits=None))
    with pytest.raises(ValueError, match=re.escape(f"{path} holds AP@100, which irmeta computes from the runs: "
                                                   "drop those rows or give the scores without runs")):
        imported_scores(path, ["nDCG@10"], [], ["all"], {}, within=scores, computed=["AP@100"])
    got = imported_scores(path, ["nDCG@10"], [], ["all"], {}, within=scores, computed=["P@10"])
    assert bits(got.means["all_topics"][0]) == bits(scores.means["all_topics"][1])
    frame = pd.read_csv(path, sep="\t", dtype=str)
    only = write(tmp_path / "only.tsv", frame[frame.measure == "nDCG@10"].to_csv(sep="\t", index=False))
    assert imported_scores(only, ["nDCG@10"], [], ["all"], {}, within=scores, computed=["AP@100"]).measures == [
        "nDCG@10"]
