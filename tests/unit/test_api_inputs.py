"""Every input of the Python API means what docs/python.md says or is refused with one line
naming it (issue 18): evaluate's and score's keywords and values, DataFrame and dict
inputs, runs that share no topic with the qrels, and the meta-evaluation functions'
parameters, with the config schema's ranges. Property tests: valid settings give the
numbers ``irmeta score`` gives; any other value raises ValueError or TypeError, one line."""

from __future__ import annotations

import io
import math
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import irmeta
from campaigns import write
from irmeta import api
from irmeta.campaign.errors import TrecFormatError, TrecFormatWarning
from irmeta.campaign.in_memory import to_qrels
from irmeta.cli import main
from irmeta.measures.plugins import register_measure
from irmeta.measures.registry import MEASURES

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 2, "d": 1, "e": 0}, "3": {"f": 1}}
RUNS = {"x": {"1": {"a": 0.9, "c": 0.8, "b": 0.1}, "2": {"e": 0.7, "a": 0.5}},
        "y": {"1": {"b": 0.9, "a": 0.3}, "2": {"d": 0.6, "a": 0.6, "e": 0.2}, "3": {"f": 0.4}}}
READERS = ["P@2", "nDCG@2", "Q@2", "ASL", "P_rareness@2"]  # one reader of every shipped option


def refused(call, *words: str, kinds=(ValueError, TypeError)) -> str:
    """Run ``call``; it must raise one of ``kinds`` with a one-line message holding ``words``."""
    with pytest.raises(kinds) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and message.strip() == message and message, message
    for word in words:
        assert word in message, (word, message)
    return message


# ---------------------------------------------------------- names and values


@pytest.mark.parametrize("name, close", [("treshold", "threshold"), ("dept", "depth"), ("alpha", "alphas"),
                                         ("averaging", "average"), ("rarity_dept", "rarity_depth"), ("gain", "gains"),
                                         ("per_topics", "per_topic"), ("duplicate", "duplicates")])
def test_an_unknown_keyword_is_named_with_the_closest_one(name, close):
    message = refused(lambda: irmeta.evaluate(QRELS, RUNS, ["P@2"], **{name: 1}), kinds=TypeError)
    assert message == f"evaluate() got an unknown setting {name!r} (did you mean {close!r}?)"
    refused(lambda: api.score(QRELS, RUNS, ["P@2"], **{name: 1}), f"score() got an unknown setting {name!r}",
            kinds=TypeError)


@pytest.mark.parametrize("settings_, words", [
    ({"duplicates": "bogus"}, ["duplicates", "'error', 'first'"]),
    ({"run_name": "bogus"}, ["run_name", "'file', 'tag'"]),
    ({"depth": 0}, ["depth", "between 1 and"]),
    ({"depth": True}, ["depth", "bool"]),
    ({"depth": "3"}, ["depth", "str"]),
    ({"depth": 2.0}, ["depth", "float"]),
    ({"threshold": "1"}, ["threshold", "str"]),
    ({"threshold": -1}, ["threshold", "between 0"]),
    ({"threshold": 2**63}, ["threshold", "between 0 and 9223372036854775807"]),
    ({"average": "bogus"}, ["average", "'all', 'returned'"]),
    ({"alphas": []}, ["alphas is empty"]),
    ({"alphas": 0.5}, ["alphas must be a list"]),
    ({"alphas": [0.5, "0.50"]}, ["alphas: alpha 0.5 is given twice"]),
    ({"alphas": ["x"]}, ["alphas: alpha 'x'"]),
    ({"rarity_depth": 0}, ["rarity_depth", "between 1"]),
    ({"per_topic": "no"}, ["per_topic must be True or False"]),
    ({"measures": [None]}, ["measures[0] must be a measure name"]),
    ({"measures": "P@10"}, ["measures must be a list", "['P@10']"]),
    ({"measures": []}, ["measures is empty"]),
    ({"measures": ["Q@2"], "beta": "x"}, ["beta must be a number"]),
    ({"measures": ["Q@2"], "beta": -1}, ["beta must be a finite number >= 0"]),
    ({"measures": ["nDCG@2"], "gains": {"a": 1}}, ["gains: grade 'a' is not an integer"]),
    ({"measures": ["ASL"], "asl_unretrieved": "x"}, ["asl_unretrieved must be one of"]),
    ({"measures": ["P@2"], "gains": {1: 2}}, ["gains is read by none of the measures asked for (P@2)", "nDCG"]),
    ({"measures": ["P@2"], "beta": 0.5}, ["beta is read by none", "Q"]),
])
def test_an_invalid_value_is_refused_with_its_name(settings_, words):
    settings_ = dict(settings_)
    measures = settings_.pop("measures", ["P_rareness@2"])
    refused(lambda: irmeta.evaluate(QRELS, RUNS, measures, **settings_), *words)


def test_an_option_at_its_default_is_harmless_for_measures_that_do_not_read_it():
    # irmeta score passes --beta and --asl-unretrieved whatever the measures
    plain = irmeta.evaluate(QRELS, RUNS, ["P@2"])
    given = irmeta.evaluate(QRELS, RUNS, ["P@2"], beta=1.0, asl_unretrieved="paper", gains=None)
    pd.testing.assert_frame_equal(plain, given, check_exact=True)
    moved = irmeta.evaluate(QRELS, RUNS, ["Q@2"], beta=0.0)
    assert not moved["value"].equals(irmeta.evaluate(QRELS, RUNS, ["Q@2"])["value"])


def test_a_plugin_measures_options_are_known_while_it_is_asked_for():
    def constant(matrix, cutoff, level=2.0):
        return np.full((matrix.n_runs, matrix.n_topics), float(level))

    register_measure("InputsProbe", constant)
    try:
        table = irmeta.evaluate(QRELS, RUNS, ["InputsProbe@2"], level=0.5, per_topic=False)
        assert table["value"].tolist() == [0.5, 0.5]
        refused(lambda: irmeta.evaluate(QRELS, RUNS, ["InputsProbe@2"], levle=0.5), "'levle'",
                "did you mean 'level'?", kinds=TypeError)
        refused(lambda: irmeta.evaluate(QRELS, RUNS, ["P@2"], level=0.5), "level is read by none", "InputsProbe")
    finally:
        MEASURES.pop("InputsProbe")


# ------------------------------------------------------------ objects given


@pytest.mark.parametrize("qrels, words", [
    ({"1": {}}, ["qrels: no judgments"]),
    ({}, ["qrels: no judgments"]),
    (pd.DataFrame({"qid": [], "docid": [], "grade": []}), ["qrels: no judgments"]),
    (pd.DataFrame({"qid": ["1"], "query_id": ["1"], "docid": ["a"], "grade": [1]}),
     ["qrels: columns 'qid' and 'query_id' name the same thing"]),
    (pd.DataFrame([["1", "a", 1, 1]], columns=["qid", "docid", "grade", "grade"]), ["column 'grade' appears twice"]),
    (pd.DataFrame({"qid": ["1"], "docid": ["a"], "grade": [1], "relevance": [1]}), ["'grade' and 'relevance'"]),
    ({"1": {"a": 10**30}}, ["qrels:1: relevance", "out of the int64 range"]),
    ([("1", "a", 1), ("1", "b", 2**63)], ["qrels:2: relevance 9223372036854775808 is out of the int64 range"]),
    ([("1", "a", 1), ("all", "b", 1)], ["qrels:2: topic id 'all' is reserved"]),
])
def test_bad_qrels_objects_are_refused(qrels, words):
    refused(lambda: irmeta.evaluate(qrels, RUNS, ["P@2"]), *words, kinds=TrecFormatError)


def test_grades_are_read_exactly_within_int64():
    big = 2**62 + 1  # a float would round it
    assert to_qrels({"1": {"a": big, "b": -2**63}}).grade.tolist() == [big, -2**63]


@pytest.mark.parametrize("runs, words", [
    ({}, ["runs: no runs were given (an empty dict)"]),
    ([], ["runs: no runs were given (an empty list)"]),
    (pd.DataFrame({"run": [], "qid": [], "docid": [], "score": []}), ["runs: no runs were given"]),
    (pd.DataFrame([["r", "1", "a", 1.0, "s"]], columns=["run", "qid", "docid", "score", "run"]),
     ["column 'run' appears twice"]),
    ({"r": pd.DataFrame({"qid": ["1"], "q_id": ["1"], "docid": ["a"], "score": [1.0]})},
     ["runs['r']: columns 'qid' and 'q_id' name the same thing"]),
    ({"r": {"1": {"a": 10**400}}}, ["runs['r']:1: score", "overflows a double"]),
])
def test_bad_run_objects_are_refused(runs, words):
    refused(lambda: irmeta.evaluate(QRELS, runs, ["P@2"]), *words, kinds=TrecFormatError)


def test_runs_named_by_a_mapping_of_paths(shared_data, tmp_path):
    """{"INQ601": "runs/INQ601.gz", ...} (issue 29): each key names its file's run, as the
    file's name does under run_name="file"; the numbers are the files' own."""
    trec8 = shared_data / "trec8_adhoc"
    files = [trec8 / "runs" / "INQ601.gz", trec8 / "runs" / "INQ602.gz"]
    as_files = irmeta.evaluate(trec8 / "qrels.txt", files, ["P@10", "AP"])
    named = irmeta.evaluate(trec8 / "qrels.txt", {"first": str(files[0]), "second": files[1]}, ["P@10", "AP"])
    assert named.run.tolist() == as_files.run.map({"INQ601": "first", "INQ602": "second"}).tolist()
    assert named.drop(columns="run").equals(as_files.drop(columns="run"))
    # a mapping may mix files and runs in memory; the key names each
    mixed = irmeta.evaluate(QRELS, {"x": RUNS["x"], "y": write_run(RUNS["y"], tmp_path / "y.run")}, ["P@2"])
    assert mixed.equals(irmeta.evaluate(QRELS, RUNS, ["P@2"]))


def write_run(run: dict, path) -> str:
    """A run in memory as a TREC run file at ``path`` (its tag 'tagged')."""
    lines = [f"{q} Q0 {d} 0 {score} tagged" for q, docs in run.items() for d, score in docs.items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_mapping_under_run_name_tag_names_runs_by_their_tags(shared_data, tmp_path):
    """run_name="tag" names a run by its tag, as --run-name tag does: the key must be it."""
    path = shared_data / "trec8_adhoc" / "runs" / "INQ601.gz"
    table = irmeta.evaluate(shared_data / "trec8_adhoc" / "qrels.txt", {"INQ601": path}, ["P@10"], run_name="tag")
    assert set(table.run) == {"INQ601"}
    refused(lambda: irmeta.evaluate(QRELS, {"y": write_run(RUNS["y"], tmp_path / "y.run")}, ["P@2"], run_name="tag"),
            "the run's tag is 'tagged', not 'y', its name in runs (run_name='tag' names runs by their tag)",
            kinds=TrecFormatError)


@pytest.mark.parametrize("value, words", [
    ("/nonexistent/run.gz", ["runs['r']: /nonexistent/run.gz: no such file or directory"]),
    ("DIRECTORY", ["runs['r']: ", "holds 129 run files; a name takes one file"]),
    (5, ["runs['r']: cannot read int: give a path (str or pathlib.Path), a DataFrame"]),
])
def test_a_named_path_is_one_run_file(shared_data, value, words):
    value = str(shared_data / "trec8_adhoc" / "runs") if value == "DIRECTORY" else value
    refused(lambda: irmeta.evaluate(QRELS, {"r": value}, ["P@2"]), *words, kinds=TrecFormatError)


def test_a_run_sharing_no_topic_is_warned_about_and_none_sharing_one_is_refused():
    runs = dict(RUNS, z={"9": {"a": 1.0}})
    with pytest.warns(TrecFormatWarning, match=r"runs\['z'\]: run z shares no topic with the qrels \(its topics: 9\)"):
        table = irmeta.evaluate(QRELS, runs, ["P@2"], per_topic=False)
    assert table.set_index("run")["value"]["z"] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # runs that share topics: no warning
        pd.testing.assert_frame_equal(table[table.run != "z"].reset_index(drop=True),
                                      irmeta.evaluate(QRELS, RUNS, ["P@2"], per_topic=False))
    refused(lambda: irmeta.evaluate(QRELS, {"z": {"9": {"a": 1.0}}, "w": {"8": {"a": 1.0}}}, ["P@2"]),
            "none of the 2 run(s) shares a topic with the qrels (qrels: topics 1 2 3)", kinds=ValueError)


# ------------------------------------------- property: valid settings, CLI numbers


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    qrels = write(root / "qrels.txt", "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    paths = []
    for name, run in RUNS.items():
        lines = [f"{q} Q0 {d} 0 {s} tag_{name}\n" for q, docs in run.items() for d, s in docs.items()]
        paths.append(write(root / f"{name}.run", "".join(lines)))
    return qrels, paths


def cli(qrels, paths, measures, s: dict) -> tuple[int, str, str]:
    argv = ["score", "--qrels", str(qrels), "--runs", *map(str, paths), "--per-topic"]
    argv += [x for m in measures for x in ("--measure", m)]
    for name in ("depth", "threshold", "average", "rarity_depth", "duplicates", "run_name", "beta", "asl_unretrieved"):
        if name in s and s[name] is not None:
            argv += [f"--{name.replace('_', '-')}", str(s[name])]
    argv += [x for a in s.get("alphas", []) for x in ("--alpha", str(a))]
    if s.get("gains"):
        argv += ["--gains", ",".join(f"{g}:{v}" for g, v in s["gains"].items())]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


_valid = st.fixed_dictionaries({}, optional={
    "depth": st.one_of(st.none(), st.integers(1, 4)), "threshold": st.integers(0, 3),
    "average": st.sampled_from(["all", "returned"]), "rarity_depth": st.one_of(st.none(), st.integers(1, 4)),
    "alphas": st.lists(st.sampled_from([0, 0.5, 1, 2, "1/R"]), min_size=1, max_size=3, unique=True),
    "duplicates": st.sampled_from(["error", "first"]), "run_name": st.sampled_from(["file", "tag"]),
    "beta": st.sampled_from([1.0, 0.5, 0.0]), "asl_unretrieved": st.sampled_from(["paper", "plus_one", "depth"]),
    "gains": st.sampled_from([{1: 1.0}, {1: 2.0, 2: 3.0}])})


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(measures=st.lists(st.sampled_from(["P@2", "AP", "nDCG@3", "Q@3", "ASL", "P_rareness@2", "RR", "Recall@2"]),
                         min_size=1, max_size=4, unique=True), s=_valid)
def test_valid_settings_give_the_numbers_of_irmeta_score(files, measures, s):
    qrels, paths = files
    code, out, err = cli(qrels, paths, measures, s)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrecFormatWarning)
            table = irmeta.evaluate(qrels, paths, measures, **s)
    except ValueError as exc:  # an option no measure asked for reads, a rarity depth too shallow
        assert code == 2 and err.strip().endswith(str(exc)), (err, exc)
        event("refused by both")
        return
    assert code == 0, err
    event("scored by both")
    want = pd.read_csv(io.StringIO(out), sep="\t", dtype={"qid": str, "run": str, "value": np.float64})
    pd.testing.assert_frame_equal(table, want, check_exact=True)


_anything = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.integers(), st.floats(),
                      st.text(max_size=6), st.sampled_from(["all", "first", "tag", "paper", "1/R", "P@2"]),
                      st.lists(st.one_of(st.integers(-2, 3), st.floats(), st.text(max_size=3)), max_size=3),
                      st.dictionaries(st.one_of(st.integers(-2, 3), st.text(max_size=2)),
                                      st.one_of(st.floats(), st.integers(-2, 3), st.text(max_size=2)), max_size=2))
_NAMES = ["depth", "threshold", "average", "alphas", "rarity_depth", "duplicates", "run_name", "per_topic",
          "gains", "beta", "asl_unretrieved", "measures", "qrels_format"]
# every option a shipped family declares (RBP's p, the rareness families' rarity, ...): a
# random name may hit one, and its message names it like the others
_NAMES += sorted({o for d in MEASURES.values() for o in d.options} - set(_NAMES))


@settings(max_examples=300, deadline=None)
@given(name=st.one_of(st.sampled_from(_NAMES), st.text(min_size=1, max_size=5)), value=_anything)
def test_any_value_is_used_or_refused_with_one_line_naming_it(name, value):
    kwargs = {"measures": READERS, name: value}
    try:
        table = irmeta.evaluate(QRELS, RUNS, **kwargs)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert message and "\n" not in message
        assert (name.rstrip("s") if name in _NAMES else repr(name)) in message, (name, message)
        return
    assert list(table.columns) == ["run", "measure", "qid", "value"] and len(table)


# ----------------------------------------------------- the meta-evaluation


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(3)
    runs, topics = [f"r{i}" for i in range(5)], [str(t) for t in range(8)]
    rows = [{"run": r, "measure": m, "qid": t, "value": float(v)}
            for m in ("P@10", "AP@10", "P_rareness(alpha=0.5)@10")
            for r, values in zip(runs, rng.random((5, 8))) for t, v in zip(topics, values)]
    return pd.DataFrame(rows)


_META = [
    (api.discriminative_power_table, {"levels": [1.5]}, "levels[0] must be a finite number in (0, 1)"),
    (api.discriminative_power_table, {"levels": [0]}, "levels[0]"),
    (api.discriminative_power_table, {"levels": []}, "levels is empty"),
    (api.discriminative_power_table, {"levels": 0.05}, "levels must be a list"),
    (api.discriminative_power_table, {"permutations": 0}, "permutations must be an integer >= 1"),
    (api.discriminative_power_table, {"methods": []}, "methods is empty"),
    (api.discriminative_power_table, {"methods": ["bogus"]}, "methods[0]: unknown test 'bogus'"),
    (api.discriminative_power_table, {"seed": -1}, "seed must be an integer >= 0"),
    (api.discriminative_power_table, {"seed": 1.5}, "seed must be an integer"),
    (api.discriminative_power_table, {"null": [1, 2]}, "null must be"),
    (api.discriminative_power_table, {"measures": ["Q@3"]}, "no per-topic scores of Q@3"),
    (api.discriminative_power_table, {"measures": ["P@10", "Q@3"]}, "no per-topic scores of Q@3"),
    (api.discriminative_power_table, {"measures": "P@10"}, "measures must be a list"),
    (api.permutation_null, {"trials": 0}, "trials must be an integer >= 1"),
    (api.permutation_null, {"trials": range(-2, 3)}, "trials must be a non-empty range of trial numbers >= 0"),
    (api.permutation_null, {"trials": 2.5}, "trials must be an integer"),
    (api.stability_table, {"trials": 0}, "trials must be an integer >= 1"),
    (api.stability_table, {"trials": range(3)}, "trials must be an integer >= 1"),
    (api.stability_table, {"topics_per_trial": 0}, "topics_per_trial must be an integer >= 1"),
    (api.stability_table, {"topics_per_trial": 9}, "topics_per_trial must be in [1, 8]"),
    (api.stability_trials, {"fuzziness": [{"mode": "absolute", "value": -0.1}]}, "fuzziness[0]['value']"),
    (api.stability_trials, {"fuzziness": [{"mode": "bogus", "value": 0.1}]}, "fuzziness[0]['mode']"),
    (api.stability_trials, {"fuzziness": [{"mode": "absolute"}]}, "fuzziness[0] must be"),
    (api.stability_trials, {"fuzziness": []}, "fuzziness is empty"),
    (api.swap_sensitivity_table, {"confidence": 1.5}, "confidence must be a finite number in (0, 1)"),
    (api.swap_sensitivity_table, {"confidence": 0}, "confidence"),
    (api.swap_sensitivity_table, {"bin_width": 0}, "bin_width must be a finite number >= 1e-06"),
    (api.swap_sensitivity_table, {"bin_width": 1e-300}, "bin_width"),
    (api.swap_sensitivity_table, {"sampling": "bogus"}, "sampling must be one of 'bootstrap', 'disjoint'"),
    (api.swap_sensitivity_table, {"topic_set_size": 0}, "topic_set_size must be an integer >= 1"),
    (api.swap_trials, {"trials": -3}, "trials must be an integer >= 1"),
    (api.swap_trials, {"alphas": [0.3], "measures": ["P_rareness@10"]},
     "the scores table has no per-topic scores of P_rareness@10 at alpha 0.3"),
    (api.swap_trials, {"alphas": [-1]}, "alphas: alpha -1"),
    (api.matrices_of, {"measures": [None]}, "measures[0] must be a measure name"),
]


@pytest.mark.parametrize("function, kwargs, words", _META, ids=[f"{f.__name__}-{list(k)[0]}" for f, k, _ in _META])
def test_a_meta_evaluation_parameter_out_of_range_is_refused(table, function, kwargs, words):
    kwargs = dict(kwargs)
    kwargs.setdefault("measures", ["P@10"])
    if function is not api.matrices_of:
        kwargs.setdefault("trials" if function is not api.discriminative_power_table else "permutations", 5)
    refused(lambda: function(table, **kwargs), words)


@pytest.mark.parametrize("comparisons, words", [
    ([("Q@10", "P@10")], "comparisons[0]: the scores have no per-topic scores of the measure Q@10"),
    ([("AP@10", "nDCG@10")], "the baseline nDCG@10"),
    ([], "comparisons is empty"),
    ([("AP@10",)], "comparisons[0] must be a (measure, baseline) pair"),
    ([{"measure": "AP@10", "baseline": "P@10", "alpha": 1}], "comparisons[0] must be"),
    ([("P_rareness(alpha=0.5)@10", "P@10")], "without its alpha"),
    ([("AP@10", "P_rareness@10")], "a baseline is one ranking"),
    ("AP@10", "comparisons must be a list"),
])
def test_kendall_tau_refuses_what_it_cannot_compare(table, comparisons, words):
    refused(lambda: irmeta.kendall_tau_table(table, comparisons), words)


@pytest.mark.parametrize("bad", [None, 42, {"P@10": [1, 2]}])
def test_a_table_that_is_no_score_table_is_refused(bad):
    for function in (api.discriminative_power_table, api.stability_table, api.swap_sensitivity_table):
        refused(lambda f=function: f(bad, ["P@10"]), "table must be a score table", kinds=TypeError)
    refused(lambda: irmeta.kendall_tau_table(bad, [("AP@10", "P@10")]), "table must be a score table")


_meta_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.floats(), st.text(max_size=4),
                         st.lists(st.one_of(st.floats(), st.integers(-1, 2), st.text(max_size=3)), max_size=2),
                         st.lists(st.fixed_dictionaries({"mode": st.sampled_from(["absolute", "relative", "x"]),
                                                         "value": st.floats()}), max_size=2))
_META_NAMES = {api.discriminative_power_table: ["levels", "permutations", "methods", "seed", "randomised_p"],
               api.stability_table: ["trials", "topics_per_trial", "fuzziness", "seed"],
               api.swap_sensitivity_table: ["trials", "sampling", "topic_set_size", "bin_width", "confidence", "seed",
                                            "alphas"]}


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_meta_evaluation_parameter_is_used_or_refused_in_one_line(table, data):
    function = data.draw(st.sampled_from(sorted(_META_NAMES, key=lambda f: f.__name__)))
    name = data.draw(st.sampled_from(_META_NAMES[function]))
    value = data.draw(_meta_values)
    small = {"permutations": 5} if function is api.discriminative_power_table else {"trials": 5}
    try:
        out = function(table, ["P@10", "AP@10"], **dict(small, **{name: value}))
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert message and "\n" not in message and (name.rstrip("s") in message or name == "randomised_p"), message
        return
    assert len(out) and not (isinstance(value, float) and math.isnan(value))
