"""irmeta.measures.plugins: a measure of one's own, registered in one call, scored and
named like the shipped ones; per-list prototypes give what a vectorised measure gives."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import numpy as np
import pytest

import irmeta
from campaigns import write
from irmeta.cli import main
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.plugins import load_measure_plugins, register_measure
from irmeta.measures.registry import MEASURES


@pytest.fixture
def registry():
    """Measures a test registers are gone after it."""
    before = set(MEASURES)
    yield
    for name in set(MEASURES) - before:
        del MEASURES[name]


def list_ap(grades, n_relevant):
    """AP of one ranked list, written the slow way (grade >= 1 is relevant)."""
    hits, total = 0, 0.0
    for rank, grade in enumerate(grades, start=1):
        if grade >= 1:
            hits += 1
            total += hits / rank
    return total / n_relevant if n_relevant else 0.0


def test_a_per_list_prototype_gives_the_vectorised_value(registry, trec8_matrix):
    register_measure("ListAP", list_ap, per_list=True)
    m = trec8_matrix.subset(range(5))
    got = evaluate(m, ["ListAP@100", "AP@100", "ListAP"])
    assert np.allclose(got[Measure("ListAP", 100)], got[Measure("AP", 100)], rtol=0, atol=1e-12)
    assert got[Measure("ListAP")].shape == (5, 50)
    assert parse_measure("ListAP@100").definition.description.startswith("AP of one ranked list")


def test_a_vectorised_measure_with_an_option_and_a_direction(registry, trec8_matrix):
    def relevant_found(matrix, cutoff, *, weight=1.0):
        """Relevant documents in the top k, times a weight."""
        return weight * matrix.cell_counts(matrix.hits.top(cutoff)).astype(np.float64)

    register_measure("Found", relevant_found, higher_is_better=False)
    m = trec8_matrix.subset(range(3))
    assert str(parse_measure("Found(weight=1)@10")) == "Found@10"  # the default is left out
    got = evaluate(m, ["Found@10", "Found(weight=2)@10", "P@10"])
    assert np.array_equal(got[Measure("Found", 10)], 10 * got[Measure("P", 10)])
    assert np.array_equal(got[parse_measure("Found(weight=2)@10")], 2 * got[Measure("Found", 10)])
    assert parse_measure("Found@10").higher_is_better is False


@pytest.mark.parametrize("name,function,kwargs,fault", [
    ("3rd", list_ap, {}, "letters, digits"),
    ("AP", list_ap, {}, "AP is one irmeta ships: a plugin cannot register or replace it"),
    ("One", lambda grades: 0.0, {"per_list": True}, r"takes \(grades, n_relevant, \*\*options\)"),
    ("Opt", lambda grades, n, scale: 0.0, {"per_list": True}, "every option needs a default"),
])
def test_bad_registrations_are_refused(registry, name, function, kwargs, fault):
    with pytest.raises(ValueError, match=fault):
        register_measure(name, function, **kwargs)


def test_plugins_load_from_files_and_modules(registry, tmp_path):
    write(tmp_path / "mine.py", "from irmeta import register_measure\n\n"
                                "def first(grades, n_relevant):\n    return float(len(grades) and grades[0] > 0)\n\n"
                                "register_measure('FirstHit', first, per_list=True)\n")
    load_measure_plugins(["mine.py"], base=tmp_path)
    load_measure_plugins(["mine.py"], base=tmp_path)  # a second time changes nothing
    assert "FirstHit" in MEASURES
    with pytest.raises(FileNotFoundError, match="measure_plugins: nope.py: no such file"):
        load_measure_plugins(["nope.py"], base=tmp_path)
    with pytest.raises(ValueError, match="measure_plugins: cannot import no_such_module"):
        load_measure_plugins(["no_such_module"], base=tmp_path)


def test_the_command_line_and_the_api_take_plugins(registry, tmp_path):
    plugin = write(tmp_path / "mine.py", "import irmeta\n\ndef first(grades, n_relevant, *, bonus=0.0):\n"
                                         "    return float(len(grades) and grades[0] > 0) + bonus\n\n"
                                         "irmeta.register_measure('FirstHit', first, per_list=True)\n")
    qrels = write(tmp_path / "q", "1 0 a 1\n2 0 b 1\n")
    run = write(tmp_path / "r", "1 Q0 a 1 2 r\n2 Q0 c 1 2 r\n2 Q0 b 2 1 r\n")
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["score", "--qrels", str(qrels), "--runs", str(run), "--plugin", str(plugin),
                     "--measure", "FirstHit@5", "--measure", "FirstHit(bonus=1)@5", "--per-topic"])
    assert code == 0
    rows = [line.split("\t") for line in out.getvalue().splitlines()[1:]]
    assert [(m, q, float(v)) for _, m, q, v in rows] == [
        ("FirstHit@5", "1", 1.0), ("FirstHit@5", "2", 0.0), ("FirstHit@5", "all", 0.5),
        ("FirstHit(bonus=1)@5", "1", 2.0), ("FirstHit(bonus=1)@5", "2", 1.0), ("FirstHit(bonus=1)@5", "all", 1.5)]
    table = irmeta.evaluate(qrels, [run], ["FirstHit@5"], per_topic=False)
    assert table["value"].tolist() == [0.5]


def test_an_imported_measure_is_named_and_directed_but_never_computed(registry, tmp_path, trec8_matrix):
    import pandas as pd

    from irmeta.measures.averaging import score_arrays
    from irmeta.measures.score_files import scores_from_table

    definition = irmeta.register_imported_measure("Rating", higher_is_better=False, description="a judge's rating")
    assert definition.imported and MEASURES["Rating"].description == "a judge's rating"
    assert parse_measure("Rating@10") == Measure("Rating", 10) and parse_measure("Rating").higher_is_better is False
    fault = "measure Rating@10 has no implementation in irmeta: its scores come from a scores file"
    with pytest.raises(ValueError, match=fault):
        score_arrays(trec8_matrix.subset(range(2)), ["P@10", "Rating@10"])
    with pytest.raises(ValueError, match=fault):  # refused before the (missing) runs are read
        irmeta.score(write(tmp_path / "q", "1 0 a 1\n"), [tmp_path / "no such run"], ["P@10", "Rating@10"])
    # from a scores file, its direction reaches the experiments, and no 0 fills a hole
    table = pd.DataFrame({"run": ["a", "a", "b", "b"], "measure": "Rating@10", "qid": ["1", "2", "1", "2"],
                          "value": [1.0, 2.0, 3.0, 4.0]})
    (matrix,) = irmeta.score_matrices(table)
    assert matrix.higher_is_better is False and matrix.values.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert scores_from_table(table, ["Rating@10"], []).means["all_topics"].tolist() == [[1.5, 3.5]]
    with pytest.raises(ValueError, match="lower is better for Rating@10"):
        scores_from_table(table.iloc[1:], ["Rating@10"], [], missing="zero")
    with pytest.raises(ValueError, match="Rating is already registered"):
        irmeta.register_imported_measure("Rating")
    assert irmeta.register_imported_measure("Rating", replace=True).higher_is_better is True
    with pytest.raises(ValueError, match="letters, digits"):
        irmeta.register_imported_measure("my score")
