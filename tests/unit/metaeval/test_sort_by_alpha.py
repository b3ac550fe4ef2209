"""sort_by_alpha orders a table as pandas' stable sort on the alpha cells' order and the
other columns does (missing values last), row for row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeta.measures.alpha import alpha_sort_key
from irmeta.metaeval.score_matrices import sort_by_alpha

ALPHAS = st.sampled_from([None, "", "0", "0.5", "1", "1/R", "2", "0.25"])
MEASURES = st.sampled_from(["P@10", "AP", "nDCG@10", None])
NUMBERS = st.one_of(st.none(), st.sampled_from([0.0, -0.0, 1.5, -3.0, 2.0]), st.integers(-3, 3).map(float))


def _by_pandas(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    keyed = frame.assign(_alpha=[sorted({alpha_sort_key(c) for c in frame["alpha"]}).index(alpha_sort_key(c))
                                 for c in frame["alpha"]])
    by = ["_alpha" if b == "alpha" else b for b in by]
    return keyed.sort_values(by, kind="stable").drop(columns="_alpha").reset_index(drop=True)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(ALPHAS, MEASURES, NUMBERS), min_size=1, max_size=30),
       st.sampled_from([["measure", "alpha"], ["alpha"], ["alpha", "value"], ["value", "measure", "alpha"]]))
def test_the_order_of_pandas_stable_sort(rows, by):
    frame = pd.DataFrame(rows, columns=["alpha", "measure", "value"])
    frame["row"] = np.arange(len(frame))  # which row went where
    pd.testing.assert_frame_equal(sort_by_alpha(frame, by), _by_pandas(frame, by))


def test_an_empty_table_is_returned_as_it_is():
    frame = pd.DataFrame({"alpha": [], "measure": []})
    assert sort_by_alpha(frame, ["measure", "alpha"]) is frame
