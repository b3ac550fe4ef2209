"""irmeta.evaluate (irmeta.api): the numbers of ``irmeta score``, from files or from Python
objects (DataFrames with ir_measures' or ranx's column names, {qid: {docid: value}} dicts,
ir_measures-like named tuples), through the same trec_eval order and the same checks."""

from __future__ import annotations

import doctest
import io
from collections import namedtuple
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import irmeta
from campaigns import write
from irmeta import api
from irmeta.campaign.errors import TrecFormatError
from irmeta.cli import main
from irmeta.pipeline.manifest import output

MEASURES = ["P@10", "AP@100", "nDCG@20", "Recall@100", "P_rareness@100", "RR"]
RUNS = ["AntHoc1", "CL99SD", "Flab8as", "INQ603", "UT800", "acsys8alo"]
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"])  # ir_measures' shape
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])


@pytest.fixture(scope="module")
def trec8(shared_data):
    """Six TREC-8 runs and the qrels: paths, and the same rows as DataFrames."""
    folder = shared_data / "trec8_adhoc"
    paths = [folder / "runs" / f"{name}.gz" for name in RUNS]
    # scores as text, then Python's float (correctly rounded, as the file readers parse them)
    read = dict(sep=r"\s+", header=None, dtype={0: str, 2: str, 4: str})
    qrels = pd.read_csv(folder / "qrels.txt", names=["query_id", "iteration", "doc_id", "relevance"], **read)
    runs = {name: pd.read_csv(p, names=["query_id", "Q0", "doc_id", "rank", "score", "tag"], **read)
            for name, p in zip(RUNS, paths)}
    runs = {name: run.assign(score=run["score"].map(float)) for name, run in runs.items()}
    return folder / "qrels.txt", paths, qrels, runs


def cli_table(qrels, paths, *flags) -> pd.DataFrame:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["score", "--qrels", str(qrels), "--runs", *map(str, paths), "--per-topic",
                     *[arg for m in MEASURES for arg in ("--measure", m)], *flags])
    assert code == 0
    return pd.read_csv(io.StringIO(out.getvalue()), sep="\t", dtype={"qid": str, "run": str})


@pytest.mark.slow
def test_the_numbers_of_irmeta_score(trec8):
    qrels, paths, _, _ = trec8
    for flags, settings in (((), {}), (("--depth", "100", "--average", "returned", "--threshold", "1"),
                                       {"depth": 100, "average": "returned"})):
        table = irmeta.evaluate(qrels, paths, MEASURES, **settings)
        want = cli_table(qrels, paths, *flags)
        assert list(table.columns) == ["run", "measure", "qid", "value"]
        pd.testing.assert_frame_equal(table.reset_index(drop=True), want, check_exact=True)


@pytest.mark.slow
def test_every_input_form_gives_the_same_table(trec8):
    qrels_path, paths, qrels, runs = trec8
    want = irmeta.evaluate(qrels_path, paths, MEASURES)
    ranx = {name: run.rename(columns={"query_id": "q_id"}) for name, run in runs.items()}
    as_dict = {name: {q: dict(zip(g.doc_id, g.score)) for q, g in run.groupby("query_id")}
               for name, run in runs.items()}
    qrels_dict = {q: dict(zip(g.doc_id, g.relevance)) for q, g in qrels.groupby("query_id")}
    one_frame = pd.concat([run.assign(run=name) for name, run in runs.items()], ignore_index=True)
    forms = {
        "ir_measures DataFrames": (qrels, runs),
        "ranx DataFrames": (qrels.rename(columns={"query_id": "q_id", "relevance": "score"}), ranx),
        "dicts": (qrels_dict, as_dict),
        "one frame with a run column": (qrels, one_frame),
        "named tuples": ([Qrel(*r) for r in qrels[["query_id", "doc_id", "relevance", "iteration"]].itertuples(
            index=False)], {n: [ScoredDoc(*r) for r in run[["query_id", "doc_id", "score"]].itertuples(index=False)]
                            for n, run in runs.items()}),
    }
    for form, (q, r) in forms.items():
        got = irmeta.evaluate(q, r, MEASURES)
        pd.testing.assert_frame_equal(got, want, check_exact=True, obj=form)


@pytest.mark.slow
def test_rows_in_any_order_are_put_in_trec_evals_order(trec8):
    qrels_path, paths, qrels, runs = trec8
    shuffled = {name: run.sample(frac=1.0, random_state=7) for name, run in runs.items()}
    pd.testing.assert_frame_equal(irmeta.evaluate(qrels.sample(frac=1.0, random_state=3), shuffled, MEASURES),
                                  irmeta.evaluate(qrels_path, paths, MEASURES), check_exact=True)


@pytest.mark.parametrize("qrels,runs,fault", [
    ({"1": {"a": 1}}, {"r": {"1": {"a": float("nan")}}}, r"runs\['r'\]:1: score nan is not a finite number"),
    ({"1": {"a": 1}}, {"r": [("1", "a", 2.0), ("1", "b", 1.0), ("1", "a", 0.5)]},
     r"runs\['r'\]:3: document a appears twice for topic 1 \(also on row 1\)"),
    ([("1", "a", 1), ("1", "a", 0)], {"r": {"1": {"a": 1.0}}}, r"qrels:2: topic 1 document a is judged twice"),
    ([("1", "a", 1.5)], {"r": {"1": {"a": 1.0}}}, r"qrels:1: relevance 1.5 is not an integer grade"),
    (pd.DataFrame({"query_id": ["1"], "document": ["a"], "relevance": [1]}), {"r": {"1": {"a": 1.0}}},
     r"qrels: no column docid or doc_id \(columns: query_id, document, relevance\)"),
    ({"1": {"a": 1}}, {"r": [("1", "a b", 1.0)]}, r"runs\['r'\]:1: qid '1' and docid 'a b' must be non-empty text"),
    ({"1": {"a": 1}}, {"r": [("1", "a", "high")]}, r"runs\['r'\]:1: score 'high' is not a number"),
    ({"1": {"a": 1}}, {"r": []}, r"runs\['r'\]: the run is empty"),
    ({"1": {"a": 1}}, 42, r"runs: cannot read int"),
])
def test_bad_objects_are_named_with_their_row(qrels, runs, fault):
    with pytest.raises(TrecFormatError, match=fault):
        irmeta.evaluate(qrels, runs, ["P@1"])


def test_duplicates_first_and_depth_apply_to_objects_too(tmp_path):
    runs = {"r": [("1", "a", 0.2), ("1", "b", 0.9), ("1", "a", 0.5), ("1", "c", 0.1)]}
    table = irmeta.evaluate({"1": {"a": 1, "c": 1}}, runs, ["P@3", "Recall@2"], duplicates="first", per_topic=False)
    # order b (0.9), a (0.5; its 0.2 copy dropped), c: P@3 = 2/3; depth 2 would cut c
    assert table.set_index("measure")["value"].to_dict() == {"P@3": 2 / 3, "Recall@2": 0.5}
    qrels = write(tmp_path / "q", "1 0 a 1\n1 0 c 1\n")
    files = [write(tmp_path / "r", "1 Q0 b 1 0.9 r\n1 Q0 a 2 0.5 r\n1 Q0 c 3 0.1 r\n")]
    assert np.array_equal(irmeta.evaluate(qrels, files, ["P@3"], depth=2, per_topic=False)["value"], [1 / 3])


def test_the_docstring_example_runs():
    failures, tried = doctest.testmod(api, raise_on_error=False)
    assert tried >= 3 and failures == 0


# ------------------------------------------------------------- meta-evaluation


def long_table(per_topic: dict[str, np.ndarray], runs: list[str], topics: list[str]) -> pd.DataFrame:
    rows = [{"run": r, "measure": m, "qid": t, "value": float(v[i, j])}
            for m, v in per_topic.items() for i, r in enumerate(runs) for j, t in enumerate(topics)]
    return pd.DataFrame(rows)


def test_score_matrices_read_the_per_topic_rows():
    rng = np.random.default_rng(0)
    a, b = rng.random((4, 6)), rng.random((4, 6))
    runs, topics = ["r1", "r2", "r3", "r4"], [str(t) for t in range(6)]
    table = long_table({"P@10": a, "P_rareness(alpha=0.5)@10": b}, runs, topics)
    table = pd.concat([table, pd.DataFrame({"run": runs, "measure": "P@10", "qid": "all", "value": 9.0})])
    matrices = irmeta.score_matrices(table.sample(frac=1.0, random_state=1))
    by_key = {(m.measure, m.alpha): m for m in matrices}
    assert set(by_key) == {("P@10", None), ("P_rareness@10", "0.5")}
    m = by_key[("P@10", None)]
    order = [m.runs.index(r) for r in runs], [m.topics.index(t) for t in topics]
    assert np.array_equal(m.values[np.ix_(*order)], a)  # the "all" rows are means, not a topic
    assert [x.measure for x in irmeta.score_matrices(table, ["P_rareness@10"])] == ["P_rareness@10"]


@pytest.mark.parametrize("change,fault", [
    (lambda t: t.drop(columns="qid"), "no column qid"),
    (lambda t: t.iloc[1:], "P@10: no score of run r1 on topic 0"),
    (lambda t: pd.concat([t, t.iloc[:1]]), "the scores table: P@10: run r1 has two scores on topic 0"),
    (lambda t: t.assign(value=np.where(t.index == 4, np.nan, t["value"])),
     "P@10: the score of run r2 on topic 1 is not a number"),
    (lambda t: t.assign(measure="nonsense@3"), "unknown measure 'nonsense@3'"),
])
def test_score_tables_with_holes_are_refused(change, fault):
    table = long_table({"P@10": np.ones((2, 3))}, ["r1", "r2"], ["0", "1", "2"])
    with pytest.raises(ValueError, match=fault):
        irmeta.score_matrices(change(table))


def test_kendall_tau_by_hand():
    # three runs, two topics; the rareness measure reverses the last two runs
    runs, topics = ["a", "b", "c"], ["1", "2"]
    base = np.array([[0.9, 0.7], [0.5, 0.5], [0.3, 0.1]])
    rare = np.array([[0.9, 0.7], [0.2, 0.2], [0.4, 0.2]])
    table = long_table({"P@10": base, "P_rareness(alpha=1)@10": rare}, runs, topics)
    tau = irmeta.kendall_tau_table(table, [("P_rareness@10", "P@10")])
    assert tau[["measure", "alpha"]].values.tolist() == [["P_rareness@10", "1"]]
    assert tau["tau"].iloc[0] == pytest.approx(1 / 3)  # 2 concordant pairs, 1 discordant


def test_score_matrices_fill_missing_topics_with_zero_when_asked():
    # trec_eval -q without -c leaves out the topics a run returned nothing for
    table = long_table({"P@10": np.full((2, 3), 0.5)}, ["r1", "r2"], ["0", "1", "2"]).drop(index=[5])
    with pytest.raises(ValueError, match="P@10: no score of run r2 on topic 2 .*missing='zero'"):
        irmeta.score_matrices(table)
    (m,) = irmeta.score_matrices(table, missing="zero")
    assert m.values.tolist() == [[0.5, 0.5, 0.5], [0.5, 0.5, 0.0]]


def test_score_matrices_keep_the_tables_topic_order_and_canonical_names():
    table = long_table({"P_10": np.arange(6.0).reshape(2, 3) / 10}, ["b", "a"], ["10", "9", "100"])
    (m,) = irmeta.score_matrices(table, ["P@10"])
    assert (m.measure, m.runs, m.topics) == ("P@10", ["b", "a"], ["10", "9", "100"])
    assert m.values.tolist() == [[0, 0.1, 0.2], [0.3, 0.4, 0.5]]


@pytest.mark.slow
def test_experiments_drawn_in_shards_give_the_one_call_tables(trec8):
    """The pipeline's rules draw trials in shards with permutation_null, stability_trials and
    swap_trials, then tabulate; one call draws them all. Same tables, from Scores or a table."""
    qrels, paths, _, _ = trec8
    scored = irmeta.api.score(qrels, paths, ["P@100", "AP@100"], depth=1000)
    table = irmeta.api.scores_frame(scored.scores)
    api = irmeta.api
    measures = ["P@100", "AP@100"]
    for given in (scored.scores, table):
        assert api.kendall_tau_table(given, [("AP@100", "P@100")]).equals(
            api.kendall_tau_table(given, [{"measure": "AP@100", "baseline": "P@100"}]))
        null = pd.concat([api.permutation_null(given, measures, trials=range(0, 30)),
                          api.permutation_null(given, measures, trials=range(30, 60))], ignore_index=True)
        pd.testing.assert_frame_equal(api.discriminative_power_table(given, measures, permutations=60),
                                      api.discriminative_power_table(given, measures, null=null))
        counts = [api.stability_trials(given, measures, trials=range(0, 25)),
                  api.stability_trials(given, measures, trials=range(25, 50))]
        pd.testing.assert_frame_equal(api.stability_table(given, measures, trials=50),
                                      api.stability_table(trials=50, counts=counts))
        swaps = [api.swap_trials(given, measures, trials=range(0, 20)),
                 api.swap_trials(given, measures, trials=range(20, 40))]
        pd.testing.assert_frame_equal(api.swap_sensitivity_table(given, measures, trials=40),
                                      api.swap_sensitivity_table(given, measures, trials=40, counts=swaps))
    # Scores and their table give the same tables.
    pd.testing.assert_frame_equal(api.stability_table(scored.scores, measures, trials=20),
                                  api.stability_table(table, measures, trials=20))


def test_tau_ap_forms_and_randomised_p_are_options():
    """docs/PROTOCOL.md, Rank agreement and Discriminative power: ``tau_ap`` adds the
    symmetric form as a column, ``randomised_p="plus_one"`` gives (count + 1) / (B + 1);
    the defaults give the tables without either."""
    from irmeta.metaeval.stats.correlation import tau_ap_symmetric
    from irmeta.metaeval.stats.tukey_hsd import randomised_tukey_hsd_pvalues

    rng = np.random.default_rng(4)
    runs, topics = [f"r{i}" for i in range(5)], [str(t) for t in range(8)]
    p10, ap = rng.random((5, 8)) / 2, rng.random((5, 8))
    p10[0] += 0.5  # a run above every permutation's largest difference (P@10 stays in [0, 1])
    table = long_table({"P@10": p10, "AP@10": ap}, runs, topics)
    default = irmeta.kendall_tau_table(table, [("AP@10", "P@10")])
    assert "tau_ap_symmetric" not in default.columns
    both = irmeta.kendall_tau_table(table, [("AP@10", "P@10")], tau_ap=["reference", "symmetric"])
    pd.testing.assert_frame_equal(both.drop(columns="tau_ap_symmetric"), default)
    assert both["tau_ap_symmetric"].item() == tau_ap_symmetric(ap.mean(axis=1), p10.mean(axis=1))
    # the columns the manifest declares (irmeta.metaeval.kendall_tau:COLUMNS), in order, either way
    declared = output("tables", "kendall_tau").declared_columns()
    symmetric = irmeta.kendall_tau_table(table, [("AP@10", "P@10")], tau_ap=["symmetric"])
    every = irmeta.kendall_tau_table(table, [("AP@10", "P@10")], tau_ap=["reference", "symmetric"],
                                     ties=["a", "b", "w"])  # the tie-aware variants too
    for tau in (default, both, symmetric, every):
        assert list(tau.columns) == declared.written(tau.columns)
    assert "tau_ap" not in symmetric.columns and len(every.columns) == len(declared.names)

    kw = dict(methods=["randomised_tukey_hsd"], levels=[0.05], permutations=19)
    counted = irmeta.discriminative_power_table(table, ["P@10"], **kw)
    plus = irmeta.discriminative_power_table(table, ["P@10"], randomised_p="plus_one", **kw)
    assert "randomised_p" not in counted.columns and plus["randomised_p"].tolist() == ["plus_one"]
    declared = output("tables", "discriminative_power").declared_columns()
    assert list(counted.columns) == declared.written([]) and list(plus.columns) == list(declared.names)
    null = irmeta.api.permutation_null(table, ["P@10"], trials=19)["max_difference"].to_numpy()
    p = randomised_tukey_hsd_pvalues(p10, null, plus_one=True)
    assert plus["significant_pairs"].item() == int(np.sum(p < 0.05)) == 0  # never below 1/20 = 0.05
    assert counted["significant_pairs"].item() >= 4  # run r0's pairs: p = 0 / 19
    with pytest.raises(ValueError, match="randomised_p must be one of count, plus_one"):
        irmeta.discriminative_power_table(table, ["P@10"], randomised_p="plus-one", **kw)
