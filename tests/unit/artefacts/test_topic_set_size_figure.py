"""irmeta.artefacts.figures.topic_set_size: the topic set size figure from the tables of
irmeta.metaeval.variance, a PNG and a PDF, the same bytes on a rerun; which alpha a line
shows."""

from __future__ import annotations

import pandas as pd
import pytest

from figure_checks import assert_drawn
from irmeta.artefacts.figures.topic_set_size import (
    _one_alpha_per_measure,
    _panels,
    _relative,
    plot_topic_set_size,
    run_spread,
    shown_alpha,
)
from irmeta.metaeval.variance import minimum_detectable_difference_table, topic_set_size_table

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def variances() -> pd.DataFrame:
    rows = [("P@100", None, 0.009), ("AP@100", None, 0.012)]
    rows += [("P_rareness@100", a, 0.01 + 0.002 * i) for i, a in enumerate(["0", "0.5", "1", "1/R"])]
    rows += [("AP_rareness_norm@100", a, 0.004 + 0.001 * i) for i, a in enumerate(["0", "0.5"])]
    return pd.DataFrame(rows, columns=["measure", "alpha", "variance_e"]).assign(n_topics=50)


def anova(v: pd.DataFrame, ms_system: dict[str, float] | None = None) -> pd.DataFrame:
    """The ``system`` rows of anova.csv for ``v``'s measures: MS_system 50 times V_E unless given."""
    ms_system = ms_system or {}
    return pd.DataFrame({"measure": v["measure"], "alpha": v["alpha"], "source": "system",
                         "ms": [ms_system.get(m, 50 * e) for m, e in zip(v["measure"], v["variance_e"])]})


@pytest.fixture(scope="module")
def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    v = variances()
    sizes = topic_set_size_table(v, 0.05, 0.2, [0.02, 0.05, 0.1], [10, 2])
    return sizes, minimum_detectable_difference_table(v, 0.05, 0.2)


@pytest.fixture(scope="module")
def spread() -> pd.DataFrame:
    return anova(variances())


@pytest.mark.slow
def test_writes_png_and_pdf_deterministically(tmp_path, tables, spread):
    first = plot_topic_set_size(*tables, tmp_path / "a" / "topic_set_size", "TREC-8", anova=spread)
    second = plot_topic_set_size(*tables, tmp_path / "b" / "topic_set_size", "TREC-8", anova=spread)
    assert_drawn(first[0])
    assert [p.suffix for p in first] == [".png", ".pdf"]
    assert first[0].read_bytes().startswith(PNG_MAGIC) and first[1].read_bytes().startswith(b"%PDF")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_one_line_per_measure_at_alpha_one_or_the_largest(tables):
    shown = _one_alpha_per_measure(tables[0])
    assert dict(shown.groupby("measure")["_alpha"].first()) == {"P@100": "", "AP@100": "",
                                                                 "P_rareness@100": "1", "AP_rareness_norm@100": "0.5"}
    assert shown_alpha(pd.Series(["1/R"])) == "1/R"


def test_panels_put_the_paired_test_first_then_anova_by_systems(tables):
    assert _panels(tables[0]) == [("paired_t", 2), ("anova", 2), ("anova", 10)]


def test_a_missing_column_is_an_error(tmp_path, tables, spread):
    with pytest.raises(ValueError, match="n_topics"):
        plot_topic_set_size(tables[0].drop(columns="n_topics"), tables[1], tmp_path / "x", anova=spread)
    with pytest.raises(ValueError, match="ms"):
        plot_topic_set_size(*tables, tmp_path / "x", anova=spread.drop(columns="ms"))


def test_a_measure_ten_times_larger_lies_on_the_same_relative_point():
    """Scores scaled by 10 scale V_E and MS_system by 100, the minimum detectable difference
    and the runs' spread by 10: relative to the spread, the two measures coincide."""
    v = pd.DataFrame({"measure": ["P@100", "P_rareness@100"], "alpha": [None, "1"], "variance_e": [0.01, 1.0],
                      "n_topics": 50})
    detectable = minimum_detectable_difference_table(v, 0.05, 0.2)
    spread = run_spread(anova(v, {"P@100": 0.02, "P_rareness@100": 2.0}), detectable)
    assert spread["spread"].tolist() == pytest.approx([(0.02 / 50) ** 0.5, (2.0 / 50) ** 0.5])
    relative = _relative(_one_alpha_per_measure(detectable), spread)["min_difference"].tolist()
    absolute = detectable["min_difference"].tolist()
    assert absolute[1] == pytest.approx(10 * absolute[0], rel=1e-4)
    assert relative[0] == pytest.approx(relative[1], rel=1e-4)
