"""The paired tests as discriminative-power methods (irmeta.metaeval.pairwise_tests): the
pairwise tests table, the counts of discriminative_power.csv read from it, the claims
under three of them and the p-value curves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from statsmodels.stats.multitest import multipletests

from irmeta import api
from irmeta.artefacts.claims import claims_table, power_protocols
from irmeta.artefacts.figures.collection import plot_discriminative_power
from irmeta.artefacts.figures.pairwise import curve_alpha, plot_p_value_curves, sorted_pvalues
from irmeta.measures.names import measure_label
from irmeta.metaeval import pairwise_tests as pt
from irmeta.metaeval.discriminative_power import discriminative_power_table
from irmeta.metaeval.score_matrices import ScoreMatrix
from irmeta.pipeline.stored_scores import write_table_in_blocks

PARQUET_COLUMNS = ["measure", "alpha", "run_a", "run_b", "method", "mean_difference", "statistic", "p_value",
                   "p_adjusted_holm", "p_adjusted_bh", "p_adjusted_bonferroni", "effect_size_dz", "effect_size_e",
                   "ci_low", "ci_high"]
RUNS = ["zeta", "Beta", "alpha", "b\u00e9ta", "gamma", "delta", "eps", "Zeta", "omega", "mu"]

PAIRED = ("paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap")  # the shipped paired tests
RANDOMISED = ("randomisation", "paired_bootstrap")


def _matrices(seed: int = 0) -> list[ScoreMatrix]:
    rng = np.random.default_rng(seed)
    topics = [f"q{j}" for j in range(15)]
    base = rng.beta(2, 5, size=(len(RUNS), 1)) + rng.normal(0, 0.1, size=(len(RUNS), len(topics)))

    def scores(values: np.ndarray, decimals: int) -> np.ndarray:  # in the measures' range, [0, 1] at most
        return values.clip(0, 1).round(decimals)

    return [ScoreMatrix("P@100", None, RUNS, topics, scores(base, 2)),
            ScoreMatrix("P_rareness@100", "0.5", RUNS, topics, scores(base + rng.normal(0, 0.05, base.shape), 3)),
            ScoreMatrix("P_rareness@100", "1", RUNS, topics, scores(base + rng.normal(0, 0.1, base.shape), 3))]


def _tests(seed: int = 5, permutations: int = 300) -> pd.DataFrame:
    return pt.pairwise_tests_table(_matrices(), list(PAIRED), permutations, seed)


def _parquet(table: pd.DataFrame, path) -> bytes:
    blocks = (pa.Table.from_pandas(block, preserve_index=False)
              for _, block in table.groupby(["measure", "alpha"], sort=False))
    write_table_in_blocks(blocks, path, {"seed": 5})
    return path.read_bytes()


def test_the_table_has_exactly_the_issues_columns_and_pairs_in_byte_order():
    tests = _tests()
    assert list(tests.columns) == PARQUET_COLUMNS
    n_pairs = len(RUNS) * (len(RUNS) - 1) // 2
    assert len(tests) == 3 * len(PAIRED) * n_pairs
    assert all(a.encode() < b.encode() for a, b in zip(tests["run_a"], tests["run_b"]))
    # mean_difference is a - b of the per-topic scores
    matrix = _matrices()[1]
    row = tests[(tests["alpha"] == "0.5") & (tests["method"] == "sign")].iloc[7]
    a, b = RUNS.index(row["run_a"]), RUNS.index(row["run_b"])
    assert row["mean_difference"] == pytest.approx((matrix.values[a] - matrix.values[b]).mean(), abs=1e-15)
    assert set(tests["alpha"]) == {"", "0.5", "1"}


@pytest.mark.slow
def test_adjusted_pvalues_are_statsmodels_over_the_family_of_a_measure_alpha_and_test():
    tests = _tests()
    for (_, _, _), family in tests.groupby(["measure", "alpha", "method"]):
        for column, method in (("p_adjusted_holm", "holm"), ("p_adjusted_bh", "fdr_bh"),
                               ("p_adjusted_bonferroni", "bonferroni")):
            expected = multipletests(family["p_value"].to_numpy(), method=method)[1]
            np.testing.assert_allclose(family[column].to_numpy(), expected, rtol=1e-12, atol=0)


def test_power_rows_are_counts_of_p_below_each_level_in_the_table():
    tests = _tests()
    corrections = ["none", "holm", "bh", "bonferroni"]
    levels = [0.1, 0.05, 0.01]
    methods = ["tukey_hsd", *PAIRED]
    table = discriminative_power_table(_matrices(), methods=methods, levels=levels, corrections=corrections,
                                       pairwise=tests, permutations=300)
    names = [m if c == "none" else f"{m}+{c}" for m in PAIRED for c in corrections]
    assert list(dict.fromkeys(table["method"])) == ["tukey_hsd", *names]
    column = {"none": "p_value", "holm": "p_adjusted_holm", "bh": "p_adjusted_bh",
              "bonferroni": "p_adjusted_bonferroni"}
    checked = 0
    for row in table[table["method"] != "tukey_hsd"].itertuples(index=False):
        method, _, correction = row.method.partition("+")
        p = tests[(tests["measure"] == row.measure) & (tests["alpha"] == row.alpha) & (tests["method"] == method)]
        assert row.significant_pairs == int((p[column[correction or "none"]] < row.level).sum())
        assert row.total_pairs == len(p) == 45
        assert (row.permutations == 300) if method in RANDOMISED else pd.isna(row.permutations)
        checked += 1
    assert checked == 3 * len(names) * len(levels)
    # a correction never finds more pairs than the raw test
    wide = table.pivot_table(index=["measure", "alpha", "level"], columns="method", values="significant_pairs")
    assert (wide["paired_t+holm"] <= wide["paired_t"]).all()
    assert (wide["paired_t+bonferroni"] <= wide["paired_t+holm"]).all()
    assert (wide["paired_t+holm"] <= wide["paired_t+bh"]).all()


def test_same_seed_same_bytes_other_seed_changes_only_the_randomised_tests(tmp_path):
    first, again = _parquet(_tests(seed=5), tmp_path / "a.parquet"), _parquet(_tests(seed=5), tmp_path / "b.parquet")
    assert first == again
    one, other = _tests(seed=5), _tests(seed=6)
    for method in PAIRED:
        same = one[one["method"] == method].reset_index(drop=True).equals(
            other[other["method"] == method].reset_index(drop=True))
        assert same == (method not in RANDOMISED), method
    assert list(pd.read_parquet(tmp_path / "a.parquet").columns) == PARQUET_COLUMNS


def test_the_api_tests_the_pairs_itself_with_the_experiments_seed_offset():
    matrices = _matrices()
    table = pd.DataFrame([{"run": r, "qid": q, "measure": measure_label(m.measure, m.alpha), "value": m.values[i, j]}
                          for m in matrices for i, r in enumerate(m.runs) for j, q in enumerate(m.topics)])
    pairwise = api.pairwise_tests_table(table, methods=["paired_t", "randomisation"], permutations=200, seed=11)
    assert pairwise.equals(pt.pairwise_tests_table(api.matrices_of(table), ["paired_t", "randomisation"], 200,
                                                   11 + pt.SEED_OFFSET))
    by_itself = api.discriminative_power_table(table, methods=["paired_t", "randomisation"], permutations=200,
                                               seed=11)
    given = api.discriminative_power_table(table, methods=["paired_t", "randomisation"], permutations=200, seed=11,
                                           pairwise=pairwise)
    assert by_itself.equals(given)
    assert list(dict.fromkeys(by_itself["method"])) == ["paired_t", "paired_t+holm", "paired_t+bh", "randomisation",
                                                        "randomisation+holm", "randomisation+bh"]
    with pytest.raises(ValueError, match="corrections"):
        api.discriminative_power_table(table, methods=["paired_t"], corrections=["sidak"])
    with pytest.raises(ValueError, match="unknown paired tests"):
        api.pairwise_tests_table(table, methods=["tukey_hsd"])


def test_a_paired_method_without_its_table_or_with_missing_pairs_is_refused():
    with pytest.raises(ValueError, match="pairwise_tests.parquet"):
        discriminative_power_table(_matrices(), methods=["paired_t"])
    partial = _tests().iloc[5:]
    with pytest.raises(ValueError, match="expected 45"):
        discriminative_power_table(_matrices(), methods=["paired_t"], pairwise=partial)


def test_claims_take_three_paired_protocols_beside_the_papers():
    matrices = _matrices()
    methods = ["paper_pairwise", "tukey_hsd", *PAIRED]
    # Holm over 45 pairs needs p < 0.05/45: 1/(B + 1) gets there from B = 900 draws
    power = discriminative_power_table(matrices, methods=methods, pairwise=_tests(permutations=1000),
                                       permutations=1000)
    tau = pd.DataFrame({"measure": ["P_rareness@100"] * 2, "baseline": ["P@100"] * 2, "alpha": ["0.5", "1"],
                        "tau": [0.9, 0.8], "tau_ap": [0.85, 0.7]})
    stability = pd.DataFrame({"measure": ["P@100", "P_rareness@100"], "alpha": ["", "1"],
                              "fuzziness_mode": ["absolute"] * 2, "fuzziness": [0.05] * 2, "stability": [0.8, 0.7]})
    claims = claims_table({"Toy": {"kendall_tau": tau, "discriminative_power": power, "stability": stability}},
                          [{"measure": "P_rareness@100", "baseline": "P@100"}])
    protocols = list(claims.loc[claims["claim"] == "discriminative_power", "protocol"])
    assert protocols == ["paper_pairwise", "tukey_hsd", "paired_t+holm", "randomisation+holm", "paired_bootstrap"]
    assert set(protocols) <= set(power_protocols())
    row = claims[claims["protocol"] == "paired_t+holm"].iloc[0]
    at = power[(power["method"] == "paired_t+holm") & (power["level"] == 0.05)].set_index("alpha")
    assert row["value"] == at.loc["1", "significant_pairs"] - at.loc["", "significant_pairs"]


@pytest.mark.slow
def test_p_value_curves_sort_each_measures_pvalues_at_its_largest_alpha(tmp_path):
    tests = _tests()
    assert curve_alpha(["0.5", "1", "1/R"]) == "1" and curve_alpha([""]) == ""
    curves = sorted_pvalues(tests, "wilcoxon")
    assert list(curves) == ["P@100", "P_rareness@100"]
    label, p = curves["P_rareness@100"]
    assert "alpha 1" in label and (np.diff(p) >= 0).all() and len(p) == 45
    expected = tests[(tests["method"] == "wilcoxon") & (tests["alpha"] == "1")]["p_value"].sort_values().to_numpy()
    np.testing.assert_array_equal(p, expected)
    paths = plot_p_value_curves(tests, tmp_path / "p_value_curves")
    again = plot_p_value_curves(tests, tmp_path / "again")
    assert [p.name for p in paths] == ["p_value_curves.png", "p_value_curves.pdf"]
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in again]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_discriminative_power_figure_has_a_panel_per_method_name(tmp_path):
    methods = ["paper_pairwise", *PAIRED]
    power = discriminative_power_table(_matrices(), methods=methods, pairwise=_tests(), permutations=300)
    paths = plot_discriminative_power(power, tmp_path / "discriminative_power")
    assert paths[1].read_bytes()[:5] == b"%PDF-"
    assert power["method"].nunique() == 1 + 3 * len(PAIRED)


def _with_duplicates() -> list[ScoreMatrix]:
    """A rareness measure at alpha 0 is its baseline bit for bit: two identical matrices."""
    first, *rest = _matrices()
    same = ScoreMatrix("P_rareness@100", "0", first.runs, first.topics, first.values.copy())
    return [first, same, *rest]


def test_identical_matrices_are_tested_once_and_keep_their_own_names():
    matrices = _with_duplicates()
    assert pt.identical_groups(matrices) == [[0, 1], [2], [3]]
    tests = pt.pairwise_tests_table(matrices, list(PAIRED), 200, 3)
    assert list(dict.fromkeys(zip(tests["measure"], tests["alpha"]))) == [m.key for m in matrices]
    alone = pt.pairwise_tests_table([matrices[1]], list(PAIRED), 200, 3)
    pd.testing.assert_frame_equal(tests[(tests["measure"] == "P_rareness@100") & (tests["alpha"] == "0")]
                                  .reset_index(drop=True), alone)


def _gathered(tmp_path, matrices, shards: int):
    """The matrices' pairwise tests written in ``shards`` shards and gathered."""
    from irmeta.pipeline.stored_pairwise import gather_pairwise_shards, write_pairwise_shard

    folder = tmp_path / f"shards{shards}"
    folder.mkdir()
    paths = []
    for shard in range(shards):
        path = folder / f"{shard}.parquet"
        write_pairwise_shard(pt.pairwise_test_blocks(matrices, PAIRED, 200, 3, shard, shards), path, {"seed": 3})
        paths.append(path)
    gathered = folder / "pairwise_tests.parquet"
    return gathered, gather_pairwise_shards(paths, gathered)


@pytest.mark.slow
@pytest.mark.parametrize("shards", [1, 2, 3, 5])
def test_shards_split_the_matrices_without_changing_a_row(tmp_path, shards):
    """Every shard's rows gathered equal the whole table, row for row in the matrices'
    order (the draws are shared, not split), and the file is the same bytes whatever the
    shards; a shard with no matrix still writes its (empty) file."""
    from irmeta.pipeline.stored_pairwise import StoredFamilies, read_p_values

    matrices = _with_duplicates()
    whole = pt.pairwise_tests_table(matrices, list(PAIRED), 200, 3)
    assert sum(len(pt.shard_groups(matrices, s, shards)) for s in range(shards)) == 3
    gathered, rows = _gathered(tmp_path, matrices, shards)
    assert rows == len(whole)
    read = pd.read_parquet(gathered)
    assert list(read.columns) == PARQUET_COLUMNS
    pd.testing.assert_frame_equal(read, whole, check_dtype=False)
    assert gathered.read_bytes() == _gathered(tmp_path, matrices, 4 if shards == 1 else 1)[0].read_bytes()
    assert pq.read_metadata(gathered).metadata[b"irmeta"] == b'{"seed": 3}'
    assert b"irmeta.blocks" not in pq.read_metadata(gathered).metadata
    # the families read one block at a time equal those of the whole table, and so do the counts
    stored = StoredFamilies(gathered)
    for family, rows in pt.families(whole).items():
        pd.testing.assert_frame_equal(stored[family].sort_values(["run_a", "run_b"]).reset_index(drop=True),
                                      rows.sort_values(["run_a", "run_b"]).reset_index(drop=True), check_dtype=False)
    assert len(stored) == len(pt.families(whole))
    counted = [discriminative_power_table(matrices, methods=list(PAIRED), pairwise=source,
                                          permutations=200) for source in (whole, stored)]
    pd.testing.assert_frame_equal(*counted)
    assert len(read_p_values(gathered)) == len(whole)


def test_gathering_other_files_or_a_matrix_twice_is_refused(tmp_path):
    from irmeta.pipeline.stored_pairwise import gather_pairwise_shards, write_pairwise_shard

    pd.DataFrame({"a": [1.0]}).to_parquet(tmp_path / "a.parquet")
    with pytest.raises(ValueError, match="not those of the pairwise tests"):
        gather_pairwise_shards([tmp_path / "a.parquet"], tmp_path / "out.parquet")
    matrices = _with_duplicates()
    for name in ("b", "c"):
        write_pairwise_shard(pt.pairwise_test_blocks(matrices, PAIRED, 200, 3), tmp_path / f"{name}.parquet", {})
    with pytest.raises(ValueError, match="in two shards"):
        gather_pairwise_shards([tmp_path / "b.parquet", tmp_path / "c.parquet"], tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_curves_keep_their_shape_and_level_crossings_with_fewer_points():
    from irmeta.artefacts.figures.pairwise import curve_points

    p = np.sort(np.random.default_rng(1).random(50_000) ** 3)
    x = curve_points(p, [0.05, 0.01], most=500)
    assert len(x) <= 504 and x[0] == 0 and x[-1] == len(p) - 1 and (np.diff(x) > 0).all()
    for level in (0.05, 0.01):
        last_under = np.searchsorted(p, level) - 1
        assert last_under in x and last_under + 1 in x
    np.testing.assert_array_equal(curve_points(p[:100], [0.05]), np.arange(100))


def test_the_table_is_part_of_the_top_level_api():
    import irmeta

    assert irmeta.pairwise_tests_table is api.pairwise_tests_table


def test_stored_families_and_curve_blocks_read_only_what_they_need(tmp_path):
    """A 1,000-run table has 55 M rows: its families are found a row group at a time, and
    the curves read only the blocks they draw, with the curves of the whole table."""
    import pyarrow.parquet as pq

    from irmeta.artefacts.figures.pairwise import curve_blocks
    from irmeta.pipeline.stored_pairwise import read_p_values, stored_keys

    tests = _tests()
    path = tmp_path / "pairwise_tests.parquet"
    _parquet(tests, path)
    assert pq.ParquetFile(path).num_row_groups > 1
    keys = stored_keys(path)
    assert keys == list(dict.fromkeys(zip(tests["measure"], tests["alpha"], tests["method"])))
    blocks = curve_blocks((m, a) for m, a, _ in keys)
    assert blocks == [("P@100", ""), ("P_rareness@100", "1")]
    drawn = read_p_values(path, blocks)
    assert len(drawn) == 2 * len(tests) // 3 and len(read_p_values(path, [])) == 0  # two blocks of three
    for method in PAIRED:
        whole, part = sorted_pvalues(tests, method), sorted_pvalues(drawn, method)
        assert [label for label, _ in whole.values()] == [label for label, _ in part.values()]
        for (_, p), (_, q) in zip(whole.values(), part.values()):
            np.testing.assert_array_equal(p, q)
