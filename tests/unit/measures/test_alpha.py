"""irmeta.measures.alpha: the one reader and labeller of alpha, for inputs and for the
cells of tables read back from CSV or Parquet."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irmeta.measures.alpha import (
    ALPHA_LIMIT,
    PER_TOPIC_ALPHA,
    alpha_cell,
    alpha_label,
    alpha_sort_key,
    alpha_value,
    parse_alpha,
)


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


# --------------------------------------------------------- alphas too large to score


def test_an_alpha_past_the_limit_is_refused_in_one_line():
    assert parse_alpha("1e100") == 1e100 == ALPHA_LIMIT
    for bad in (1e300, "1e101", np.float64(1e200)):
        with pytest.raises(ValueError, match=r"is above 1e\+100, the largest irmeta takes") as caught:
            parse_alpha(bad)
        assert "\n" not in str(caught.value)


def test_api_and_config_refuse_a_huge_alpha_alike(tmp_path):
    import irmeta
    from irmeta.pipeline.config_checks import check_alphas
    from irmeta.pipeline.config_schema import ConfigError

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 1\n")
    run.write_text("1 Q0 a 1 2 r\n")
    with pytest.raises(ValueError, match=r"alpha 1e\+300 is above 1e\+100"):
        irmeta.score(qrels, [run], ["P_rareness@10"], alphas=[1e300])
    with pytest.raises(ValueError, match=r"alpha 1e\+300 is above 1e\+100"):
        irmeta.compare(qrels, [run], ["P_rareness@10"], alphas=[0, 1e300])
    with pytest.raises(ConfigError, match=r"c\.yaml: key 'alphas': alpha 1e\+300 is above 1e\+100"):
        check_alphas([0, 1e300], ["P_rareness@10"], "c.yaml")


def test_the_largest_alpha_leaves_every_comparison_finite(shared_data):
    import irmeta

    runs = shared_data / "trec8_adhoc" / "runs"
    table = irmeta.compare(shared_data / "trec8_adhoc" / "qrels.txt", [runs / "INQ601.gz", runs / "ok8alx.gz"],
                           ["P_rareness@10", "AP_rareness@100"], alphas=[ALPHA_LIMIT])
    numbers = table.select_dtypes("number")
    assert len(table) == 4 and np.isfinite(numbers.to_numpy(dtype=float)).all()
    assert (table["p_value"] < 1).all()
