"""irmeta.measures.plugins' guard (issue 18): names a plugin cannot own, and every fault
of a plugin (at import, while scoring, in what it returns, in an option given in a name)
is one line naming the measure and the plugin's file, never a traceback nor a NaN."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import irmeta
from campaigns import write, write_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.cli import main
from irmeta.measures.averaging import evaluate, score_arrays
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.plugins import PluginMeasure, load_measure_plugins, register_measure
from irmeta.measures.registry import MEASURES


@pytest.fixture
def registry():
    """Measures a test registers, or replaces, are as before after it."""
    before = dict(MEASURES)
    yield
    MEASURES.clear()
    MEASURES.update(before)


@pytest.fixture
def campaign(tmp_path):
    """Two runs (r1, r2) on topics 1 and 2: the files, and their relevance matrix."""
    runs, qrels = write_campaign(tmp_path, {"r1": {"1": ["a", "x"], "2": ["b"]}, "r2": {"1": ["x"], "2": ["y", "b"]}},
                                 {"1": {"a": 1, "x": 0}, "2": {"b": 1, "y": 0}})
    return tmp_path, relevance_matrix(runs, qrels)


def first_hit(grades, n_relevant):
    return float(len(grades) > 0 and grades[0] > 0)


# ------------------------------------------------------------------ names


@pytest.mark.parametrize("name,builtin", [
    ("MAP", "AP"), ("map", "AP"), ("R", "Recall"), ("recip_rank", "RR"), ("ndcg", "nDCG"), ("P_", "P"),
    ("P_10", "P@10"), ("map_cut_100", "AP@100"), ("ndcg_cut_10", "nDCG@10"), ("recall_5", "Recall@5"),
    ("success_10", "Success@10"), ("set_P", "SetP"), ("bpref", "Bpref"),
])
def test_a_name_the_grammar_reads_as_a_shipped_family_is_refused(registry, name, builtin):
    with pytest.raises(ValueError, match=f"irmeta reads {name} as its own {builtin} .*choose another name"):
        register_measure(name, first_hit, per_list=True)
    with pytest.raises(ValueError, match="irmeta reads"):
        irmeta.register_imported_measure(name)
    assert name not in MEASURES or not isinstance(MEASURES[name], PluginMeasure)
    assert not isinstance(parse_measure(name).definition, PluginMeasure)  # still the shipped family


@pytest.mark.parametrize("name", ["P", "AP", "nDCG", "RR", "Rprec", "P_rareness"])
def test_a_shipped_family_is_never_replaced(registry, name, campaign):
    shipped = MEASURES[name]
    for replace in (False, True):
        with pytest.raises(ValueError, match=f"measure {name} is one irmeta ships.*replace=True replaces only"):
            register_measure(name, first_hit, per_list=True, replace=replace)
    assert MEASURES[name] is shipped


def test_p_keeps_its_own_scores_and_means(registry, campaign):
    # replace=True of P used to give a plugin's per-topic scores beside the built-in's means
    _, matrix = campaign
    with pytest.raises(ValueError, match="one irmeta ships"):
        register_measure("P", lambda grades, n: 0.5, per_list=True, replace=True)
    scores = score_arrays(matrix, ["P@1"])
    assert scores.per_topic[0].tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert scores.means["all_topics"][0].tolist() == [1.0, 0.0]


def test_replace_replaces_only_a_plugins_own_measure(registry, campaign):
    _, matrix = campaign
    register_measure("Mine", first_hit, per_list=True)
    with pytest.raises(ValueError, match=r"measure Mine is already registered \(by test_plugin_faults.py\); "
                                         r"replace=True replaces it"):
        register_measure("Mine", lambda grades, n: 0.25, per_list=True)
    register_measure("Mine", lambda grades, n: 0.25, per_list=True, replace=True)
    assert evaluate(matrix, ["Mine"])[Measure("Mine")].tolist() == [[0.25, 0.25], [0.25, 0.25]]
    assert MEASURES["Mine"].source == __file__


@pytest.mark.parametrize("function,kwargs,fault", [
    (5, {}, "measure X: register_measure takes the function that computes it, not 5"),
    ("first_hit", {}, r"not a str \('first_hit'\)"),
    (first_hit, {"per_list": True, "higher_is_better": "lower"}, "higher_is_better is True or False, not a str"),
    (first_hit, {"per_list": "yes"}, "per_list is True or False"),
    (first_hit, {"per_list": True, "description": 3}, "description is text, not 3"),
    (lambda grades, n, alpha=0.5: 0.0, {"per_list": True}, "an option cannot be called alpha"),
    (lambda grades, n, cutoff=3: 0.0, {"per_list": True}, "an option cannot be called cutoff"),
    (lambda *, matrix, cutoff: 0.0, {}, r"takes \(matrix, cutoff, \*\*options\)"),
])
def test_what_register_measure_cannot_use_is_one_line(registry, function, kwargs, fault):
    with pytest.raises(ValueError, match=fault) as exc:
        register_measure("X", function, **kwargs)
    assert "\n" not in str(exc.value) and "X" not in MEASURES


# ------------------------------------------------------------------ options in a name


def test_an_option_is_of_its_defaults_kind(registry, campaign):
    _, matrix = campaign
    seen = []

    def mine(grades, n_relevant, *, beta=1.0, n=2, flag=False, mode="lin", pair=(1, 2), words=("a", "b")):
        seen.append((beta, n, flag, mode))
        return 0.0

    register_measure("Mine", mine, per_list=True)
    for name, fault in [("Mine(beta=abc)@10", r"option beta takes a number \(its default is 1.0\), not 'abc'"),
                        ("Mine(n=2.5)@10", r"option n takes a whole number \(its default is 2\), not '2.5'"),
                        ("Mine(flag=yes)", "option flag takes 0 or 1"),
                        ("Mine(pair=3)", r"option pair takes a list of numbers \[x,y,\.\.\.\] \(its default is "
                                         r"\(1, 2\)\), not '3'"),  # numbers in a list: 11pt_avg's levels
                        ("Mine(words=3)", r"option words cannot be set in a name \(its default is a tuple\)")]:
        with pytest.raises(ValueError, match=f"measure '{re.escape(name)}': {fault}"):
            parse_measure(name)
    evaluate(matrix, ["Mine(beta=2,n=3,flag=1,mode=5)@1"])
    assert seen[0] == (2.0, 3, True, "5") and type(seen[0][1]) is int


def test_a_shipped_option_is_checked_the_same_way():
    with pytest.raises(ValueError, match=r"measure 'Q\(beta=abc\)@10': option beta takes a number"):
        parse_measure("Q(beta=abc)@10")


# ------------------------------------------------------------------ scoring

VECTORISED = {
    "raises": ("1 / 0", r"ZeroDivisionError: division by zero"),
    "value_error": ("int('ten')", r"ValueError: invalid literal for int\(\) with base 10: 'ten'$"),
    "list": ("[[0.0, 0.0], [0.0, 0.0]]", r"returned a list where an array of shape \(2, 2\) \(runs, topics\) was"),
    "string": ("'abc'", r"returned a str \('abc'\) where an array of shape \(2, 2\)"),
    "shape": ("np.zeros(3)", r"returned shape \(3,\) where \(2, 2\) \(runs, topics\) was expected"),
    "text_array": ("np.full((2, 2), 'a')", r"returned an array of <U1 where numbers were expected"),
    "nan": ("np.where(np.arange(4).reshape(2, 2) == 2, np.nan, 0.0)", r"returned NaN for run r2 topic 1$"),
    "inf": ("np.full((2, 2), -np.inf)",
            r"returned -inf for run r1 topic 1 \(and 3 other scores that are not finite\)"),
}
PER_LIST = {
    "raises": ("grades[5]", r"IndexError: index 5 is out of bounds .*, on run r1 topic 1"),
    "none": ("None", r"returned None for run r1 topic 1, where a number was expected"),
    "string": ("'0.5'", r"returned a str \('0.5'\) for run r1 topic 1, where a number was expected"),
    "nan": ("float('nan') if n_relevant and len(grades) == 2 and grades[1] > 0 else 0.0",
            r"returned NaN for run r2 topic 2"),
    "exit": ("sys.exit(3)", r"SystemExit: 3, on run r1 topic 1"),
}


def plugin_file(folder: Path, body: str, per_list: bool) -> Path:
    """faulty.py: the measure Faulty, whose function returns ``body`` (on its line 6)."""
    args, flag = ("grades, n_relevant", "True") if per_list else ("matrix, cutoff", "False")
    return write(folder / "faulty.py", f"import sys\nimport numpy as np\nimport irmeta\n\n"
                                       f"def faulty({args}, *, beta=1.0):\n    return {body}\n\n"
                                       f"irmeta.register_measure('Faulty', faulty, per_list={flag})\n")


CASES = [(False, *case) for case in VECTORISED.values()] + [(True, *case) for case in PER_LIST.values()]
IDS = [f"vectorised-{k}" for k in VECTORISED] + [f"per_list-{k}" for k in PER_LIST]


@pytest.mark.parametrize("per_list,body,fault", CASES, ids=IDS)
def test_a_plugins_fault_while_scoring_names_the_measure_and_the_plugin(registry, campaign, per_list, body, fault):
    root, matrix = campaign
    load_measure_plugins([str(plugin_file(root / "plugins", body, per_list))])
    for name in ("Faulty@5", "Faulty(beta=2)"):
        with pytest.raises(ValueError) as exc:
            score_arrays(matrix, [name])
        message = str(exc.value)
        assert message.startswith(f"measure {name} (plugin faulty.py") and "\n" not in message
        assert re.search(fault, message), message
        if "Error:" in fault or "Exit" in fault:  # the line of the plugin it came through
            assert "(plugin faulty.py:6): " in message


@pytest.mark.parametrize("per_list,body,fault", CASES, ids=IDS)
def test_the_command_line_prints_a_plugins_fault_on_one_line(registry, campaign, capsys, per_list, body, fault):
    root, _ = campaign
    plugin = plugin_file(root / "plugins", body, per_list)
    code = main(["score", "--qrels", str(root / "qrels.txt"), "--runs", str(root / "runs"), "--plugin", str(plugin),
                 "--measure", "P@1", "--measure", "Faulty@5"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("irmeta: error: measure Faulty@5 (plugin faulty.py") and re.search(fault, err.strip())


def test_the_api_never_returns_a_plugins_nan(registry, campaign):
    root, _ = campaign
    load_measure_plugins([str(plugin_file(root / "plugins", "np.full((2, 2), np.nan)", False))])
    with pytest.raises(ValueError, match=r"measure Faulty@3 \(plugin faulty.py\): returned NaN for run r1 topic 1"):
        irmeta.evaluate(root / "qrels.txt", root / "runs", ["Faulty@3"])


def test_a_good_plugins_numbers_are_taken_as_floats(registry, campaign):
    _, matrix = campaign
    register_measure("Count", lambda matrix, cutoff: matrix.cell_counts(matrix.hits.top(cutoff)))  # int64
    register_measure("Hit", lambda grades, n_relevant: bool(len(grades)) and grades[0] > 0, per_list=True)
    got = evaluate(matrix, ["Count@2", "Hit"])
    assert got[Measure("Count", 2)].dtype == np.float64 and got[Measure("Count", 2)].tolist() == [[1, 1], [0, 1]]
    assert got[Measure("Hit")].tolist() == [[1.0, 1.0], [0.0, 0.0]]


# ------------------------------------------------------------------ importing


IMPORT_FAULTS = {
    "syntax": ("x = 1\n\ndef f(:\n", r"measure plugin bad.py:3: SyntaxError: "),
    "raises": ("import irmeta\nirmeta.register_measure('Early', lambda g, n: 0.0, per_list=True)\n"
               "raise RuntimeError('no data here')\n", r"measure plugin bad.py:3: RuntimeError: no data here"),
    "exits": ("import sys\nsys.exit('bye')\n", r"measure plugin bad.py:2: SystemExit: bye"),
    "dependency": ("import irmeta\nimport no_such_dependency_xyz\n",
                   r"measure plugin bad.py:2: ModuleNotFoundError: No module named 'no_such_dependency_xyz'"),
    "collision": ("import irmeta\n\nirmeta.register_measure('MAP', lambda g, n: 0.0, per_list=True)\n",
                  r"measure plugin bad.py:3: ValueError: measure name MAP: irmeta reads MAP as its own AP"),
    "not_callable": ("import irmeta\nirmeta.register_measure('X', 5)\n",
                     r"measure plugin bad.py:2: ValueError: measure X: register_measure takes the function"),
}


@pytest.mark.parametrize("source,fault", IMPORT_FAULTS.values(), ids=list(IMPORT_FAULTS))
def test_a_plugin_that_fails_at_import_is_one_line_and_registers_nothing(registry, tmp_path, source, fault):
    write(tmp_path / "bad.py", source)
    before = set(MEASURES)
    for _ in range(2):  # a failed import is retried, not remembered as done
        with pytest.raises(ValueError, match=fault) as exc:
            load_measure_plugins(["bad.py"], base=tmp_path)
        assert "\n" not in str(exc.value) and set(MEASURES) == before


def test_a_module_plugin_names_its_line(registry, tmp_path):
    write(tmp_path / "faultmod_xyz.py", "x = 1\nraise KeyError('k')\n")
    with pytest.raises(ValueError, match=r"measure plugin faultmod_xyz: .*faultmod_xyz.py:2: KeyError: 'k'"):
        load_measure_plugins(["faultmod_xyz"], base=tmp_path)
    assert "faultmod_xyz" not in sys.modules
    # a fault in a module the plugin imports names that module's file and line
    write(tmp_path / "helper_xyz.py", "x = 1\ndef f(:\n")
    write(tmp_path / "uses_helper_xyz.py", "import helper_xyz\n")
    with pytest.raises(ValueError, match=r"measure plugin uses_helper_xyz: .*helper_xyz.py:2: SyntaxError: "):
        load_measure_plugins(["uses_helper_xyz"], base=tmp_path)


@pytest.mark.parametrize("source,fault", IMPORT_FAULTS.values(), ids=list(IMPORT_FAULTS))
def test_the_command_line_prints_an_import_fault_on_one_line(registry, tmp_path, capsys, source, fault):
    plugin = write(tmp_path / "bad.py", source)
    qrels, run = write(tmp_path / "q", "1 0 a 1\n"), write(tmp_path / "r", "1 Q0 a 1 1 r\n")
    code = main(["score", "--qrels", str(qrels), "--runs", str(run), "--plugin", str(plugin)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert re.search(fault.replace("measure plugin bad.py", f"irmeta: error: plugin {re.escape(str(plugin))}"), err)


# ------------------------------------------------------------------ the workflow

_JOB = """
from types import SimpleNamespace
import irmeta
from irmeta.pipeline.scripts import log_to, run_script

def main(smk):
    log_to(smk.log[0])
    irmeta.evaluate("qrels.txt", "runs", {measures!r})

run_script(main, SimpleNamespace(config={{"measure_plugins": ["plugins/faulty.py"]}}, log=["job.log"], output=[]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("body,measures,fault", [
    ("1 / 0", ["P@1", "Faulty@5"], "irmeta: error: measure Faulty@5 (plugin faulty.py:6): "
                                   "ZeroDivisionError: division by zero"),
    ("np.full((2, 2), np.nan)", ["Faulty"], "irmeta: error: measure Faulty (plugin faulty.py): "
                                            "returned NaN for run r1 topic 1"),
    ("0.0\n)", ["Faulty"], "irmeta: error: measure plugin plugins/faulty.py:7: SyntaxError: "),
])
def test_a_job_importing_a_faulty_plugin_says_why_in_one_line(campaign, body, measures, fault):
    root, _ = campaign
    plugin_file(root / "plugins", body, False)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_JOB.format(measures=measures))], cwd=root,
                          capture_output=True, text=True, timeout=120)
    log = (root / "job.log").read_text()
    # a fault at import or while scoring is in the job's log (run_script opens it first)
    said = [line for line in (log + proc.stderr).splitlines() if line.startswith("irmeta: error:")]
    assert proc.returncode == 1 and "Traceback" not in log + proc.stderr
    assert len(said) == 1 and said[0].startswith(fault) and said[0] in log, (log, proc.stderr)


def test_the_command_line_keeps_a_plugins_own_option_default(registry, campaign, capsys):
    # --beta not given: the plugin's beta=2.0 stands, as in irmeta.evaluate
    root, _ = campaign
    plugin = write(root / "bee.py", "import irmeta\n\ndef bee(grades, n_relevant, beta=2.0):\n    return beta\n\n"
                                    "irmeta.register_measure('Bee', bee, per_list=True)\n")
    argv = ["score", "--qrels", str(root / "qrels.txt"), "--runs", str(root / "runs"), "--plugin", str(plugin),
            "--measure", "Bee@10"]
    assert main(argv) == 0
    values = {float(line.split("\t")[3]) for line in capsys.readouterr().out.splitlines()[1:]}
    assert values == {2.0}
    assert main([*argv, "--beta", "3"]) == 0
    assert {float(line.split("\t")[3]) for line in capsys.readouterr().out.splitlines()[1:]} == {3.0}
