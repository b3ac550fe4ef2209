"""A rareness measure scored over one run weighs no rarity (S_d = S = 1: P_rareness@k is
P@k at every alpha): the API and ``irmeta score`` warn, naming each such measure
(issue 40, item 6)."""

from __future__ import annotations

import io
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

import irmeta
from campaigns import write
from irmeta.cli import main
from irmeta.measures.rareness import RarityWarning

QRELS = {"1": {"a": 1, "b": 1, "c": 0}, "2": {"d": 1}}
ONE = {"bm25": {"1": {"a": 3.0, "c": 2.0, "b": 1.0}, "2": {"x": 1.0, "d": 0.5}}}
TWO = ONE | {"dense": {"1": {"b": 2.0, "x": 1.0}, "2": {"d": 1.0}}}
MEASURES = ["P@2", "P_rareness@2", "AP_rareness(rarity=inverse)@3", "RBP_rareness(p=0.5)"]


def caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in seen if issubclass(w.category, RarityWarning)]


def test_the_api_warns_naming_each_rareness_measure_over_one_run():
    table, seen = caught(lambda: irmeta.evaluate(QRELS, ONE, MEASURES, alphas=[0, 1]))
    assert [str(w.message).split(" is scored")[0] for w in seen] == MEASURES[1:]
    assert "(it is P@2 at every alpha)" in str(seen[0].message) and seen[0].filename == __file__
    assert "(it is RBP(p=0.5) at every alpha)" in str(seen[2].message)
    assert "at every alpha" not in str(seen[1].message)  # inverse: R = 1, not 0
    # what it warns of: P_rareness@2 over one run is P@2 at every alpha
    p = table[table["measure"] == "P@2"]["value"].to_numpy()
    for alpha in ("0", "1"):
        assert np.array_equal(table[table["measure"] == f"P_rareness(alpha={alpha})@2"]["value"].to_numpy(), p)
    _, none = caught(lambda: irmeta.score(QRELS, TWO, MEASURES))
    assert none == []
    _, plain = caught(lambda: irmeta.score(QRELS, ONE, ["P@2", "AP"]))
    assert plain == []


def test_the_command_line_warns_and_still_scores(tmp_path):
    qrels = write(tmp_path / "qrels.txt", "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 d 1\n")
    run = write(tmp_path / "bm25", "1 Q0 a 1 3 bm25\n1 Q0 c 2 2 bm25\n1 Q0 b 3 1 bm25\n2 Q0 x 1 1 bm25\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P_rareness@2",
                     "--measure", "P@2"])
    assert code == 0 and "P_rareness(alpha=1)@2" in out.getvalue()
    lines = err.getvalue().splitlines()
    assert lines == ["irmeta: warning: P_rareness@2 is scored over one run: rarity counts the runs that find each "
                     "document, and a lone run finds all of its own (S_d = S = 1), so P_rareness@2 weighs no rarity "
                     "(it is P@2 at every alpha); score it with the campaign's other runs"]


def test_the_zero_to_one_forms_still_refuse_one_run():
    with pytest.raises(ValueError, match=r"R'\(d\) needs at least two runs"):
        caught(lambda: irmeta.evaluate(QRELS, ONE, ["P_rareness_norm@2"]))
