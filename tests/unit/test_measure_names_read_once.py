"""One reading of a name (issue 42): a measure name is read once, where it enters (the API's
``measures``, the command line's ``--measure``), and every layer beneath passes the
:class:`~irmeta.measures.names.Measure` on. Each test counts the calls of the grammar on
text (``names._parse_text``) and asks for one per name typed."""

from __future__ import annotations

import io
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout

import pytest

import irmeta
import irmeta.measures.names as names
from irmeta.cli import main

TYPED = ["map", "P_10", "ndcg_cut_10"]
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d5": 1}, "q2": {"d1": 1, "d4": 2}, "q3": {"d2": 1}}
RUNS = {"bm25": {"q1": {"d1": 1.2, "d2": 0.8, "d3": 0.5}, "q2": {"d4": 1.0, "d1": 0.3}, "q3": {"d2": 0.1}},
        "dense": {"q1": {"d3": 0.9, "d1": 0.7}, "q2": {"d2": 0.4}, "q3": {"d1": 0.5, "d2": 0.2}},
        "sparse": {"q1": {"d5": 0.9}, "q2": {"d1": 0.4, "d4": 0.3}, "q3": {"d2": 0.7}}}


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The texts the grammar reads, in order, while the test runs."""
    seen: list[str] = []
    grammar = names._parse_text

    def counted(text, defaults):
        seen.append(text)
        return grammar(text, defaults)

    monkeypatch.setattr(names, "_parse_text", counted)
    return seen


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_evaluate_reads_each_name_once(reads):
    table = irmeta.evaluate(QRELS, RUNS, measures=TYPED)
    assert Counter(reads) == Counter(TYPED)
    assert list(dict.fromkeys(table["measure"])) == ["AP", "P@10", "nDCG@10"]  # the names written: canonical


def test_evaluate_reads_once_with_options_and_alphas(reads):
    typed = ["P_rareness@2", "nDCG@3", "Q@3"]
    table = irmeta.evaluate(QRELS, RUNS, measures=typed, gains={1: 1, 2: 3}, beta=0.5, alphas=[0, 0.5])
    assert Counter(reads) == Counter(typed)
    assert "nDCG(gains={1:1,2:3})@3" not in set(table["measure"])  # rows keep the name as given
    assert {"P_rareness(alpha=0.5)@2", "nDCG@3", "Q@3"} <= set(table["measure"])


def test_a_measure_given_read_is_not_read_again(reads):
    given = [names.parse_measure(name) for name in TYPED]
    reads.clear()
    irmeta.evaluate(QRELS, RUNS, measures=given)
    assert reads == []


def test_compare_reads_each_name_once(reads):
    irmeta.compare(QRELS, RUNS, measures=TYPED, test="paired_t")
    assert Counter(reads) == Counter(TYPED)


@pytest.fixture
def campaign(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, judged in QRELS.items() for d, g in judged.items()))
    runs = []
    for name, run in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {rank} {score} {name}\n" for q, docs in run.items()
                                for rank, (d, score) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)))
        runs.append(str(path))
    return str(qrels), runs


@pytest.mark.parametrize("fmt", ["irmeta", "trec_eval"])
def test_cli_score_reads_each_name_once(campaign, reads, fmt):
    qrels, runs = campaign
    flags = [x for name in TYPED for x in ("-m", name)]
    out = _cli("score", "--qrels", qrels, "--runs", *runs, *flags, "--per-topic", "--format", fmt)
    assert Counter(reads) == Counter(TYPED)
    assert ("ndcg_cut_10" if fmt == "trec_eval" else "nDCG@10") in out


def test_cli_compare_reads_each_name_once(campaign, reads):
    qrels, runs = campaign
    flags = [x for name in TYPED for x in ("-m", name)]
    out = _cli("compare", "--qrels", qrels, "--runs", *runs, *flags, "--format", "markdown")
    assert Counter(reads) == Counter(TYPED)
    assert "map is AP" in out  # the report names them as typed



# Where text becomes a Measure: the entries (the API's and CLI's arguments, a config, a
# job's params, a plugin's registration, files and tables read back, the listing's
# examples). A module beneath (the families, scoring, the experiments) takes Measure
# objects; reading a name in a new module is a decision, made by adding it here.
ENTRIES = {
    "api.py", "cli_args.py", "error_rates.py", "settings.py",  # what a user passes
    "pipeline/config_checks.py", "pipeline/error_rate_config.py", "pipeline/steps.py",
    "pipeline/reusability.py", "pipeline/reproducibility.py",  # a config, a job's params
    "metaeval/synthetic_rare_common.py",  # its experiment's setting, as its job gets it
    "measures/names.py",  # the grammar
    "measures/plugins.py",  # a plugin's name, where it registers
    "measures/catalogue.py",  # the listing's examples, as typed
    "measures/typed.py", "measures/averaging.py", "measures/score_files/bounds.py",
    "measures/score_files/grid.py", "measures/score_files/mean_rows.py", "measures/score_files/pieces.py",
    "metaeval/score_matrices.py", "metaeval/kendall_tau.py",  # files and tables read back
    "artefacts/labels.py", "artefacts/claims_error_rates.py",  # tables read back for the paper's artefacts
}
# Library functions a Python caller may also give a name (as_measure: a Measure passes unread).
LIBRARY = {"measures/ranges.py", "measures/rareness.py", "metaeval/reusability.py",
           "metaeval/system_subsampling.py", "metaeval/simulation/margins.py", "pipeline/experiment_settings.py"}


def _callers(*functions: str) -> set[str]:
    import ast
    from pathlib import Path

    root = Path(irmeta.__file__).parent
    found = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                                               ) in functions:
                found.add(path.relative_to(root).as_posix())
    return found


def test_names_are_read_only_where_they_enter():
    assert _callers("parse_measure", "_parse_text") - ENTRIES == set()
    assert _callers("as_measure") - ENTRIES - LIBRARY == set()
    assert "measures/graded.py" not in _callers("parse_measure", "_parse_text", "as_measure")
