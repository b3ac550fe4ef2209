"""The judgment-set figures: each PNG exists, has a plausible size and is not blank; the
sets a per-set figure shows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from irmeta.artefacts.figures.judgment_sets import (
    plot_family_ranks,
    plot_kappa_tau,
    plot_label_confusion,
    shown_sets,
)


def _check_png(path, *, min_px=(300, 250), max_px=(6000, 6000)) -> None:
    with Image.open(path) as image:
        width, height = image.size
        pixels = np.asarray(image.convert("L"), dtype=np.float64)
    assert min_px[0] <= width <= max_px[0] and min_px[1] <= height <= max_px[1], (width, height)
    inked = np.mean(pixels < 200)  # share of pixels that are not (near) white
    assert 0.01 < inked < 0.9, inked
    assert path.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


def test_shown_sets_keep_first_trials_and_alternatives():
    names = ["llm", "pool_depth_10", "fraction_0.1_trial_0", "fraction_0.1_trial_1", "error_0.2_trial_0",
             "error_0.2_trial_3"]
    assert shown_sets(names) == ["llm", "pool_depth_10", "fraction_0.1_trial_0", "error_0.2_trial_0"]
    assert shown_sets(names, limit=2) == ["llm", "pool_depth_10"]


def test_the_grade_confusion_heatmap(tmp_path):
    rows = [(s, r, j, c) for s in ("llm", "second") for r, j, c in
            [(0, 0, 50), (0, 1, 5), (1, 0, 7), (1, 1, 20), (2, 1, 3), (2, 2, 9)]]
    confusion = pd.DataFrame(rows, columns=["judgments", "reference_grade", "judgments_grade", "count"])
    png, pdf = tmp_path / "c.png", tmp_path / "c.pdf"
    assert plot_label_confusion(confusion, png, pdf, title="Test") == [png, pdf]
    _check_png(png)


def _ranks(families: bool) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for s in ("llm", "fraction_0.1_trial_0", "fraction_0.1_trial_1"):
        for measure, alphas in (("P@100", [""]), ("P_rareness@100", ["0", "0.5", "1"])):
            for alpha in alphas:
                changed = rng.permutation(10) + 1
                for r in range(10):
                    rows.append((s, measure, alpha, f"r{r}", ("bm25", "neural")[r % 2] if families else "",
                                 r + 1, int(changed[r])))
    return pd.DataFrame(rows, columns=["judgments", "measure", "alpha", "run", "family", "rank_reference",
                                       "rank_judgments"])


@pytest.mark.slow
@pytest.mark.parametrize("families", [True, False])
def test_reference_rank_against_set_rank(tmp_path, families):
    png, pdf = tmp_path / "r.png", tmp_path / "r.pdf"
    plot_family_ranks(_ranks(families), png, pdf, title="Test")
    _check_png(png)


def test_kappa_against_tau(tmp_path):
    labels = pd.DataFrame({"judgments": ["a", "a", "b", "c"], "topic": ["all", "401", "all", "all"],
                           "cohen_kappa": [0.8, 0.5, 0.4, np.nan]})
    agreement = pd.DataFrame({"judgments": ["a", "a", "b", "b", "c"], "measure": ["P@100", "AP@100"] * 2 + ["P@100"],
                              "alpha": [""] * 5, "kendall_tau": [0.9, 0.85, 0.6, 0.5, 0.7]})
    png, pdf = tmp_path / "k.png", tmp_path / "k.pdf"
    plot_kappa_tau(labels, agreement, png, pdf)
    _check_png(png)
    with pytest.raises(ValueError, match="no set has both"):
        plot_kappa_tau(labels.assign(judgments="z"), agreement, png, pdf)
