"""irmeta.artefacts.figures: every figure writes a PNG and a PDF, and a rerun writes the same bytes.

The inputs are small synthetic tables with the pipeline's columns (no campaign data).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irmeta.artefacts.figures.collection import (
    plot_discriminative_power,
    plot_kendall_tau,
    plot_rarity_distribution,
    plot_stability,
    plot_synthetic_rare_common,
    plot_system_subsampling,
    tau_limits,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ALPHAS = ["0", "0.25", "0.5", "0.75", "1"]
RARENESS = ["P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"]


def kendall_table(drop: float = 0.03) -> pd.DataFrame:
    rows = []
    for i, measure in enumerate(RARENESS):
        baseline = "P@100" if measure.startswith("P") else "AP@100"
        for a in ALPHAS + ["1/R"]:
            x = 0.5 if a == "1/R" else float(a)
            tau = 1 - drop * (i + 1) * x
            rows.append({"measure": measure, "baseline": baseline, "alpha": a, "tau": tau,
                         "tau_ap": tau - 0.01 * x, "n_runs": 20, "averaging": "all_topics"})
    return pd.DataFrame(rows)


def discriminative_table() -> pd.DataFrame:
    rows = []
    for method in ("paper_pairwise", "tukey_hsd", "randomised_tukey_hsd"):
        for level in (0.05, 0.01):
            base = 100 if level == 0.05 else 70
            perms = 50 if method == "randomised_tukey_hsd" else np.nan
            for measure in ("P@100", "AP@100"):
                rows.append({"measure": measure, "alpha": np.nan, "method": method, "level": level,
                             "significant_pairs": base, "total_pairs": 190, "permutations": perms})
            for j, measure in enumerate(RARENESS):
                for a in ALPHAS:
                    rows.append({"measure": measure, "alpha": a, "method": method, "level": level,
                                 "significant_pairs": base + int(10 * (j + 1) * float(a)),
                                 "total_pairs": 190, "permutations": perms})
    return pd.DataFrame(rows)


def stability_table() -> pd.DataFrame:
    rows = []
    for mode in ("absolute", "relative"):
        for measure in ("P@100", "AP@100"):
            rows.append({"measure": measure, "alpha": np.nan, "fuzziness_mode": mode, "fuzziness": 0.05,
                         "topics_per_trial": 5, "trials": 10, "seed": 0, "stability": 0.5})
        for j, measure in enumerate(RARENESS):
            for a in ALPHAS:
                rows.append({"measure": measure, "alpha": a, "fuzziness_mode": mode, "fuzziness": 0.05,
                             "topics_per_trial": 5, "trials": 10, "seed": 0,
                             "stability": 0.5 + 0.05 * (j - 1.5) * float(a)})
    return pd.DataFrame(rows)


def subsampling_table() -> pd.DataFrame:
    rows = []
    for measure in ("P_rareness@100", "AP_rareness@100"):
        for n in (2, 4, 8, 16):
            rows.append({"measure": measure, "alpha": "1", "n_systems": n, "trials": 20,
                         "undefined_trials": 3 if n == 2 else 0, "mean_tau": 1 - 0.1 / n, "sd_tau": 0.2 / n})
    return pd.DataFrame(rows)


def synthetic_table(variants: bool = False) -> pd.DataFrame:
    rows = []
    for variant in (("protocol", "paper_script") if variants else (None,)):
        for a in (0.0, 0.5, 1.0):
            for d in range(1, 16):
                for system in ("S_rare", "S_common"):
                    bonus = a * d if system == "S_rare" else 0.0
                    row = {"topic": 7, "system": system, "alpha": a, "n_relevant": d, "n_relevant_retrieved": d,
                           "rank": max(1.0, 25.0 - d - bonus)}
                    if variant:
                        row["rare_systems"] = variant
                    rows.append(row)
    return pd.DataFrame(rows)


def rarity_listing() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for depth in (10, 100):
        for q in ("1", "2"):
            for d in range(30):
                n = int(rng.integers(0, 21))
                rows.append({"qid": q, "docid": f"d{d}", "grade": 1, "depth": depth, "n_retrieving": n,
                             "rarity": 1 - n / 20, "rarity_prime": 1 - (n - 1) / 19})
    return pd.DataFrame(rows)


CASES = {
    "kendall": lambda stem: plot_kendall_tau({"A": kendall_table(), "B": kendall_table(0.1)}, stem),
    "synthetic": lambda stem: plot_synthetic_rare_common(synthetic_table(), stem),
    "synthetic_variants": lambda stem: plot_synthetic_rare_common(synthetic_table(True), stem),
    "discriminative": lambda stem: plot_discriminative_power(discriminative_table(), stem),
    "stability": lambda stem: plot_stability(stability_table(), stem),
    "subsampling": lambda stem: plot_system_subsampling(subsampling_table(), stem),
    "rarity": lambda stem: plot_rarity_distribution(rarity_listing(), stem),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_writes_png_and_pdf_deterministically(tmp_path, name):
    stem = tmp_path / "out" / name
    paths = CASES[name](stem)
    assert paths == [stem.with_name(name + ".png"), stem.with_name(name + ".pdf")]
    png, pdf = (p.read_bytes() for p in paths)
    assert png.startswith(PNG_MAGIC) and len(png) > 1000
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000
    assert b"CreationDate" not in pdf
    assert b"Matplotlib" not in png  # no version-bearing Software chunk
    again = CASES[name](stem)
    assert again == paths
    assert paths[0].read_bytes() == png
    assert paths[1].read_bytes() == pdf
    assert not [p for p in stem.parent.iterdir() if p.name.endswith(".tmp")]


def test_alpha_read_as_float_and_baselines_without_alpha(tmp_path):
    """What pandas gives back from a CSV without 1/R: float alphas, NaN for baselines."""
    table = discriminative_table()
    table["alpha"] = pd.to_numeric(table["alpha"])
    paths = plot_discriminative_power(table, tmp_path / "dp")
    assert all(p.stat().st_size > 0 for p in paths)


def _dark_red_pixels(png) -> int:
    from matplotlib.image import imread

    rgb = imread(png)[..., :3]
    return int((np.abs(rgb - np.array([0x8B, 0, 0]) / 255.0).max(axis=-1) < 0.08).sum())


@pytest.mark.slow
def test_a_level_no_pair_can_reach_is_marked_in_its_panel(tmp_path):
    """A paired test's Holm rows that 1 / (B + 1) cannot pass (``attainable`` False) get
    the note, in dark red, in their panel; the same table with them attainable has none."""
    table = discriminative_table()
    paired = table[table["method"] == "randomised_tukey_hsd"].assign(method="randomisation+holm",
                                                                       significant_pairs=0, permutations=1000)
    marked = pd.concat([table.assign(attainable=True), paired.assign(attainable=False)], ignore_index=True)
    png = plot_discriminative_power(marked, tmp_path / "marked")[0]
    plain = plot_discriminative_power(marked.assign(attainable=True), tmp_path / "plain")[0]
    assert _dark_red_pixels(png) > 200 and _dark_red_pixels(plain) == 0


def test_kendall_axis_extends_below_paper_range(tmp_path):
    """Data below 0.8 must stay visible; the default range is the paper's 0.8-1.0."""
    assert tau_limits([0.95, 1.0]) == (0.8, 1.0)
    low, high = tau_limits([0.79, 0.9, 1.0])
    assert low <= 0.79 - 0.01 and high == 1.0
    assert tau_limits([0.19])[0] <= 0.18
    table = kendall_table(0.2)  # reaches 1 - 0.8 - 0.01 = 0.19
    assert table["tau_ap"].min() < 0.8
    paths = plot_kendall_tau({"X": table}, tmp_path / "tau")
    assert paths[0].read_bytes().startswith(PNG_MAGIC)


def test_missing_column_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="missing column"):
        plot_stability(stability_table().drop(columns="fuzziness_mode"), tmp_path / "s")


def test_rc_params_left_untouched(tmp_path):
    import matplotlib

    before = dict(matplotlib.rcParams)
    plot_system_subsampling(subsampling_table(), tmp_path / "sub")
    assert dict(matplotlib.rcParams) == before
