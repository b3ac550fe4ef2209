"""The ASL paper's figures (irmeta.artefacts.figures.asl): deterministic PNG and PDF."""

from __future__ import annotations

import pytest

from campaigns import asl_campaign
from irmeta.artefacts.figures.asl import plot_asl_difference_histogram, plot_asl_histogram
from irmeta.measures.asl import atomized_search_lengths


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    return asl_campaign(tmp_path_factory.mktemp("asl"))


@pytest.mark.slow
def test_plots_are_deterministic(tmp_path, matrix):
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    per_doc = atomized_search_lengths(matrix, unretrieved="depth").values
    outputs = []
    for run in ("one", "two"):
        a = plot_asl_histogram(per_doc, tmp_path / run / "hist", bins=4)
        b = plot_asl_difference_histogram(per_doc[0], per_doc[1], tmp_path / run / "diff", labels=("A", "B"))
        outputs.append([p.read_bytes() for p in a + b])
        assert [p.name for p in a + b] == ["hist.png", "hist.pdf", "diff.png", "diff.pdf"]
    assert outputs[0] == outputs[1]
    png, pdf = outputs[0][0], outputs[0][1]
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and pdf.startswith(b"%PDF")
    assert b"CreationDate" not in pdf
    assert plt.get_fignums() == open_before  # no pyplot figure was opened
