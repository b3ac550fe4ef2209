"""A missing id in a Python object given to the API (issue 40, item 8): a NaN, None or
pandas NA where a topic, document, run, set or family name belongs, or a float id (what a
column of integer ids with one missing value becomes), is refused in one line naming the
object and row, on every surface that takes names in memory, not read as ``nan``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.campaign.errors import TrecFormatError
from irmeta.support.names import first_missing, missing_name

QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
RUN = {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}


@pytest.mark.parametrize("value, said", [(None, "missing (None)"), (math.nan, "missing (NaN)"),
                                         (np.float32("nan"), "missing (NaN)"), (pd.NA, "missing (NA)"),
                                         (pd.NaT, "missing (NaT)"), (401.0, "401.0, a float, not an id")])
def test_what_is_no_name(value, said):
    assert missing_name(value).startswith(said)
    assert first_missing(["1", 2, np.int64(3), value]) == (3, missing_name(value))


@pytest.mark.parametrize("name", ["x", "401", 401, np.int64(7), "nan"])
def test_names(name):
    assert missing_name(name) is None  # a topic may be called "nan" on purpose: it is text


def _frame(qid, docid="a") -> pd.DataFrame:
    return pd.DataFrame({"qid": ["1", qid], "docid": ["b", docid], "relevance": [0, 1]})


@pytest.mark.parametrize("qrels, said", [
    (_frame(np.nan), r"qrels:2: qid is missing \(NaN\)"),
    (_frame("1", None), r"qrels:2: docid is missing \("),  # pandas may hold None as NaN
    (_frame(pd.NA), r"qrels:2: qid is missing \("),
    (pd.DataFrame({"qid": [1.0, np.nan], "docid": ["a", "b"], "relevance": [1, 0]}), "qrels:1: qid is 1.0, a float"),
    ({math.nan: {"a": 1}}, r"qrels:1: qid is missing \(NaN\)"),
    ([("1", "a", 1), (None, "b", 1)], r"qrels:2: qid is missing \(None\)"),
])
def test_a_missing_id_in_the_qrels_is_refused(qrels, said):
    with pytest.raises(TrecFormatError, match=said):
        irmeta.evaluate(qrels, {"r": RUN})


def test_a_missing_id_in_a_run_or_a_runs_name_is_refused():
    frame = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "b", "c"], "score": [2.0, 1.0, 1.0],
                          "run": ["x", np.nan, "x"]})
    with pytest.raises(TrecFormatError, match=r"runs:2: run is missing \(NaN\)"):  # groupby would drop the row
        irmeta.evaluate(QRELS, frame)
    with pytest.raises(TrecFormatError, match=r"runs: a run's name is missing \(NaN\)"):
        irmeta.evaluate(QRELS, {math.nan: RUN, "y": RUN})
    with pytest.raises(TrecFormatError, match=r"runs\['x'\]:2: docid is missing \(NaN\)"):
        irmeta.evaluate(QRELS, {"x": pd.DataFrame({"qid": ["1", "1"], "docid": ["a", np.nan], "score": [2, 1]})})


def test_a_missing_id_in_a_score_table_is_refused():
    table = irmeta.evaluate(QRELS, {"r": RUN, "s": RUN}, ["P@1"])
    for column in ("run", "measure", "qid"):
        bad = table.copy()
        bad.loc[1, column] = np.nan
        with pytest.raises(ValueError, match=rf"the scores table, row 1: {column} is missing \(NaN\)"):
            irmeta.score_matrices(bad)
    with pytest.raises(ValueError, match=r"row 1: qid is missing"):  # the means are read too
        irmeta.kendall_tau_table(table.assign(qid=table["qid"].where(table.index != 1)), [("P@1", "P@1")],
                                 bootstrap_samples=0)


def test_a_missing_set_or_family_name_is_refused():
    runs = {"r": RUN, "s": {"1": {"b": 2.0, "a": 1.0}, "2": {"c": 1.0}}}
    with pytest.raises(ValueError, match=r"judgments: a set's name is missing \(NaN\)"):
        irmeta.agree(QRELS, {math.nan: QRELS}, runs)
    with pytest.raises(ValueError, match=r"families: the family of run s is missing \(None\)"):
        irmeta.agree(QRELS, {"llm": QRELS}, runs, families={"r": "x", "s": None})
