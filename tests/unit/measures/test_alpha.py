"""irmeta.measures.alpha: the one reader and labeller of alpha, for inputs and for the
cells of tables read back from CSV or Parquet."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irmeta.measures.alpha import PER_TOPIC_ALPHA, alpha_cell, alpha_label, alpha_sort_key, alpha_value, parse_alpha


@pytest.mark.parametrize("cell,text", [
    (None, ""), (float("nan"), ""), (pd.NA, ""), ("", ""), (" nan ", ""),
    (0, "0"), (0.0, "0"), ("0.0", "0"), (1.0, "1"), ("1", "1"), (0.25, "0.25"), ("0.250", "0.25"),
    (np.float64(0.75), "0.75"), ("1/R", "1/R"), ("1/N_R", "1/R"), (" 1 / R ", "1/R"),
])
def test_cells_read_back_to_one_text(cell, text):
    assert alpha_cell(cell) == text
    assert alpha_cell(text) == text  # canonical text is a fixed point


def test_cells_agree_with_the_labels_of_inputs():
    for a in (0, 0.1, 0.25, 1 / 3, 0.5, 1, 2.5, PER_TOPIC_ALPHA):
        assert alpha_cell(alpha_label(a)) == alpha_label(a)
        assert alpha_cell(str(parse_alpha(a))) == alpha_label(a)  # a float written by pandas


def test_values_and_order():
    assert alpha_value("0.5") == 0.5 and alpha_value("") is None and alpha_value("1/R") is None
    cells = ["1/R", "1", "", "0.25", "0", float("nan"), "0.5"]
    # NaN cells sort as "no alpha", never between numbers
    assert [alpha_cell(c) for c in sorted(cells, key=alpha_sort_key)] == ["", "", "0", "0.25", "0.5", "1", "1/R"]


def test_text_that_is_no_alpha_is_kept_for_the_caller():
    assert alpha_cell("abc") == "abc" and alpha_value("abc") is None
