"""irmeta.artefacts.labels: measures are named as users type them in every figure and
table, in the paper's notation only where one of the paper's own is reproduced."""

from __future__ import annotations

from pathlib import Path

import pytest

from irmeta.artefacts.figures.collection import _measure_handles, _tau_legend
from irmeta.artefacts.figures.style import legend_label
from irmeta.artefacts.labels import measure_label

SRC = Path(__file__).resolve().parents[3] / "src" / "irmeta"


@pytest.mark.parametrize(("measure", "typed", "paper"), [
    ("P_rareness@100", "P_rareness@100", "P@100_rareness"),
    ("AP_rareness_norm@100", "AP_rareness_norm@100", "AP'_rareness"),
    ("AP@100", "AP@100", "AP"),
    ("nDCG@10", "nDCG@10", "nDCG@10"),
])
def test_typed_by_default_the_paper_s_notation_by_name(measure, typed, paper):
    assert measure_label(measure) == typed == legend_label(measure)
    assert measure_label(measure, "paper") == paper
    with pytest.raises(ValueError, match="notation must be 'typed' or 'paper', not 'latex'"):
        measure_label(measure, "latex")


def test_figure_legends_name_measures_as_typed_and_figure2_as_the_paper():
    typed = [h.get_label() for h in _tau_legend(["P_rareness@100", "P_rareness_norm@100"], [], False)]
    assert typed[:2] == ["P_rareness@100 vs P@100", "P_rareness_norm@100 vs P@100"]
    paper = [h.get_label() for h in _tau_legend(["P_rareness@100", "P_rareness_norm@100"], [], False, "paper")]
    assert paper[:2] == ["P@100_rareness vs P@100", "P'@100_rareness ([0,1], eq. 4) vs P@100"]


def test_discriminative_power_and_stability_legends_are_typed():
    import pandas as pd

    frame = pd.DataFrame({"measure": ["P@100", "AP_rareness@100"], "alpha": ["", "1"]})
    assert [h.get_label() for h in _measure_handles(frame)] == ["AP_rareness@100", "P@100 (baseline)"]


def test_the_paper_s_notation_is_printed_only_by_the_paper_s_own_tables():
    """Every call of paper_label outside irmeta.artefacts.paper (and labels itself) would
    print the paper's notation where users read their own names; Figure 2 names the
    measures as the tables of every collection do (issue 43: P_rareness@100, not
    P@100_rareness)."""
    callers = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                     if "paper_label(" in p.read_text(encoding="utf-8")
                     and p.parent.name != "paper" and p.name != "labels.py")
    assert callers == []
    paper_figure = (SRC / "pipeline" / "summary_steps.py").read_text(encoding="utf-8")
    assert 'out / "figure2")' in paper_figure and 'notation="paper"' not in paper_figure


@pytest.mark.slow
def test_figure2_and_a_collection_s_figure_differ_only_by_the_notation(tmp_path):
    """The same Kendall tau table, drawn with the typed names and as the paper's Figure 2:
    both drawn (opened, not blank), and different images (the legends differ)."""
    from test_figures import kendall_table

    from figure_checks import assert_drawn
    from irmeta.artefacts.figures.collection import plot_kendall_tau

    typed = plot_kendall_tau({"A": kendall_table()}, tmp_path / "typed")[0]
    paper = plot_kendall_tau({"A": kendall_table()}, tmp_path / "paper", notation="paper")[0]
    assert_drawn(typed)
    assert_drawn(paper)
    assert typed.read_bytes() != paper.read_bytes()
