"""The pipeline's reproducibility step (rule tabulate_reproducibility) on TREC-8 runs:
its table is the library's, row for row; same inputs, same bytes; bad reproductions
files refused on one line."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from irmeta.api import score
from irmeta.campaign.rankings import rankings_of
from irmeta.campaign.runs import read_runs
from irmeta.metaeval.reproducibility_table import OrderSettings, Reproduction, reproducibility_table, table_columns
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.reproducibility import read_reproductions, tabulate_reproducibility
from irmeta.pipeline.stored_scores import write_scores

DATA = Path("/work/shared/data/trec8_adhoc")
NAMES = ("CL99SD", "CL99SDopt1", "CL99XT", "CL99XTopt", "CL99SDopt2")
READING = {"depth": None, "duplicates": "error", "run_name": "file"}


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("repro")
    files = [DATA / "runs" / f"{n}.gz" for n in NAMES]
    scores = score(DATA / "qrels.txt", files, ["AP", "P@10", "P_rareness@100"], alphas=[0, 1]).scores
    write_scores(scores, folder / "scores.npz", {})
    pairs = folder / "pairs.tsv"
    pairs.write_text("original\treproduced\nCL99SD\tCL99SDopt1\nCL99XT\tCL99XTopt\nCL99SDopt2\tCL99SDopt2\n")
    return folder, files, scores, pairs


def _tabulate(folder: Path, files, pairs: Path, out: str, **given):
    settings = dict(measures=["AP", "P_rareness@100"], alphas=[1], baselines=["CL99SD"], order=OrderSettings(
        ktu_cutoff=100, rbo_p=0.8, rbo_depth=100))
    settings.update(given)
    return tabulate_reproducibility(scores=folder / "scores.npz", reproductions=pairs, run_files=files,
                                    other_scores=None, reading=READING, table_out=folder / f"{out}.csv",
                                    figure_stem=folder / out, label="TREC-8", **settings)


@pytest.mark.slow
def test_the_table_is_the_librarys_and_byte_identical(collection):
    folder, files, scores, pairs = collection
    table = _tabulate(folder, files, pairs, "a")
    assert list(table.columns) == table_columns()
    assert table[["advanced", "measure", "alpha"]].values.tolist() == [
        ["CL99XT", "AP", ""], ["CL99XT", "P_rareness@100", "1"],
        ["CL99SDopt2", "AP", ""], ["CL99SDopt2", "P_rareness@100", "1"]]
    ranks = rankings_of(read_runs(files))
    b = Reproduction("CL99SD", "CL99SDopt1", ranks["CL99SD"], ranks["CL99SDopt1"])
    a = Reproduction("CL99XT", "CL99XTopt", ranks["CL99XT"], ranks["CL99XTopt"])
    ap = scores.block("AP")
    alone = reproducibility_table(scores, scores, b, a, order=OrderSettings(100, 0.8, 100))
    expected = alone[alone["measure"] == "AP"].iloc[0]
    got = table.iloc[0]
    for column in table_columns()[5:]:
        assert got[column] == expected[column] or (math.isnan(got[column]) and math.isnan(expected[column])), column
    assert scores.measures[ap] == "AP"
    # a run reproduced by itself (CL99SDopt2) as the advanced run
    own = table[table["advanced"] == "CL99SDopt2"].iloc[0]
    assert own.ktu_advanced == own.rbo_advanced == 1.0 and own.rmse_advanced == 0.0 and own.p_value_advanced == 1.0
    _tabulate(folder, files, pairs, "b")
    for ext in ("csv", "png", "pdf"):
        assert (folder / f"a.{ext}").read_bytes() == (folder / f"b.{ext}").read_bytes(), ext
    assert ",," in (folder / "a.csv").read_text() or not table.isna().any().any()  # missing values: empty cells
    assert "nan" not in (folder / "a.csv").read_text().lower()


@pytest.mark.slow
def test_every_baseline_by_default(collection):
    folder, files, _, pairs = collection
    table = _tabulate(folder, files, pairs, "c", baselines=[], measures=["AP"])
    assert sorted(zip(table["baseline"], table["advanced"])) == sorted(
        (b, a) for b in ("CL99SD", "CL99XT", "CL99SDopt2") for a in ("CL99SD", "CL99XT", "CL99SDopt2") if a != b)


def test_bad_reproductions_are_refused_on_one_line(collection, tmp_path):
    folder, files, _, _ = collection
    bad = tmp_path / "bad.tsv"
    bad.write_text("original\treproduced\nCL99SD\tnope\nCL99XT\tCL99XTopt\n")
    with pytest.raises(ValueError, match=r"bad.tsv: reproduced run 'nope' \(pair 1\) is not a run of its collection"):
        _tabulate(folder, files, bad, "d")
    bad.write_text("orig\trepro\nCL99SD\tCL99SDopt1\n")
    with pytest.raises(ValueError, match=r"bad.tsv:1: the header must be 'original<TAB>reproduced'"):
        read_reproductions(bad)
    bad.write_text("original\treproduced\nCL99SD\tCL99SDopt1\nCL99SD\tCL99XT\n")
    with pytest.raises(ValueError, match=r"bad.tsv:3: original run 'CL99SD' is named twice"):
        read_reproductions(bad)
    bad.write_text("original\treproduced\nCL99SD\tCL99SDopt1\n")
    with pytest.raises(ValueError, match=r"bad.tsv: 1 reproduced run\(s\); .* at least two"):
        read_reproductions(bad)
    good = tmp_path / "good.tsv"
    good.write_text("original\treproduced\nCL99SD\tCL99SDopt1\nCL99XT\tCL99XTopt\n")
    with pytest.raises(ConfigError, match="experiments.reproducibility.baselines': 'CL99XTopt' is not an original"):
        _tabulate(folder, files, good, "e", baselines=["CL99XTopt"])


def test_the_figure_reads_only_defined_points(tmp_path):
    from irmeta.artefacts.figures.reproducibility import plot_reproducibility, plotted_rows

    table = pd.DataFrame({"measure": ["AP", "AP", "P_rareness@100"], "alpha": ["", "", "1"],
                          "er": [1.0, float("nan"), 0.5], "delta_ri": [0.0, 0.1, -0.2]})
    rows = plotted_rows(table)
    assert rows["series"].tolist() == ["AP", "P_rareness@100 (alpha 1)"]
    paths = plot_reproducibility(table, tmp_path / "fig")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size > 0 for p in paths)


def test_collection_key_reproductions_is_read_and_checked(tmp_path):
    from irmeta.pipeline.collection_config import check_reproductions, load_collection

    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("original\treproduced\n")
    base = "name: {n}\nqrels: q.txt\nruns: runs\n"
    (tmp_path / "same.yaml").write_text(base.format(n="same") + "reproductions: pairs.tsv\n")
    (tmp_path / "other.yaml").write_text(base.format(n="other") + "reproductions: {path: pairs.tsv, collection: x}\n")
    same = load_collection(tmp_path / "same.yaml", tmp_path, base_dir=tmp_path)
    other = load_collection(tmp_path / "other.yaml", tmp_path, base_dir=tmp_path)
    assert same.reproductions == pairs and same.reproductions_collection is None
    assert other.reproductions == pairs and other.reproductions_collection == "x"
    check_reproductions({"same": same}, ["same"])
    with pytest.raises(ConfigError, match=r"other.yaml: key 'reproductions.collection': 'x' is not among the "
                                          r"config's collections \(same, other\)"):
        check_reproductions({"same": same, "other": other}, ["same", "other"])
    pairs.unlink()
    with pytest.raises(ConfigError, match=r"same.yaml: key 'reproductions': .*pairs.tsv: no such file"):
        check_reproductions({"same": same}, ["same"])
    (tmp_path / "bad.yaml").write_text(base.format(n="bad") + "reproductions: {path: pairs.tsv}\n")
    with pytest.raises(ConfigError, match="reproductions"):
        load_collection(tmp_path / "bad.yaml", tmp_path, base_dir=tmp_path)


@pytest.mark.slow
def test_degradation_step_writes_its_tables_and_figure_byte_identically(tmp_path):
    from irmeta.pipeline.reproducibility import tabulate_degradation

    files = [DATA / "runs" / f"{n}.gz" for n in ("CL99SD", "CL99XT", "Dm8Nbn")]

    def run(out: str):
        return tabulate_degradation(
            qrels=DATA / "qrels.txt", runs=files, measures=["AP", "P@10"], alphas=[], rarity_depth=None,
            measure_options=None, baselines=["CL99SD"], order=OrderSettings(30, 0.9, 30), seed=3, threshold=1,
            degradations={"kinds": ["swap", "noise"], "levels": [0.4, 0.0], "trials": 2, "depth": 30},
            reading=READING, table_out=tmp_path / f"{out}.csv", trust_out=tmp_path / f"{out}_trust.csv",
            figure_stem=tmp_path / out, label="TREC-8")

    run("a")
    run("b")
    for name in ("a.csv", "a_trust.csv", "a.png", "a.pdf"):
        assert (tmp_path / name).read_bytes() == (tmp_path / name.replace("a", "b", 1)).read_bytes(), name
    summary = pd.read_csv(tmp_path / "a.csv", keep_default_na=False, na_values=[""])
    zero = summary[summary["level"] == 0.0].set_index(["kind", "measure", "reproducibility_measure"])["mean"]
    assert (zero.xs("ktu", level=2) == 1.0).all() and (zero.xs("er", level=2) == 1.0).all()
    assert (zero.xs("p_value", level=2) == 1.0).all() and (zero.xs("rmse", level=2) == 0.0).all()
    assert set(summary["n"][summary["reproducibility_measure"] == "er"]) == {4}  # 2 runs beside the baseline x 2
    with pytest.raises(ConfigError, match="'nope' is not a run of the collection"):
        tabulate_degradation(
            qrels=DATA / "qrels.txt", runs=files, measures=["AP"], alphas=[], rarity_depth=None, measure_options=None,
            baselines=["nope"], order=OrderSettings(), seed=3, threshold=1,
            degradations={"kinds": ["swap"], "levels": [0.0, 0.1], "trials": 1, "depth": 10}, reading=READING,
            table_out=tmp_path / "c.csv", trust_out=tmp_path / "c_t.csv", figure_stem=tmp_path / "c")


@pytest.mark.slow
def test_degradation_reads_the_qrels_as_ingestion_read_them(tmp_path):
    """The rule passes judged.npz: gzipped graded qrels judged at threshold 2 give the
    tables the plain file gives."""
    import gzip

    from irmeta.pipeline.reproducibility import tabulate_degradation
    from irmeta.pipeline.steps import ingest_collection

    lines = (DATA / "qrels.txt").read_text().splitlines()
    graded = "\n".join(" ".join([*f[:3], "2" if f[3] == "1" and i % 3 == 0 else f[3]])
                       for i, f in enumerate(line.split() for line in lines)) + "\n"
    (tmp_path / "plain.txt").write_text(graded)
    (tmp_path / "packed.gz").write_bytes(gzip.compress(graded.encode()))
    files = [DATA / "runs" / f"{n}.gz" for n in ("CL99SD", "CL99XT")]
    ingest_collection(qrels=tmp_path / "packed.gz", runs=files, out=tmp_path / "judged.npz", threshold=2)
    for qrels, out in ((tmp_path / "plain.txt", "plain"), (tmp_path / "judged.npz", "ingested")):
        tabulate_degradation(
            qrels=qrels, runs=files, measures=["AP", "nDCG@20"], alphas=[], rarity_depth=None, measure_options=None,
            baselines=[], order=OrderSettings(20, 0.9, 20), seed=3, threshold=2,
            degradations={"kinds": ["replace"], "levels": [0.0, 0.2], "trials": 1, "depth": 20}, reading=READING,
            table_out=tmp_path / f"{out}.csv", trust_out=tmp_path / f"{out}_t.csv", figure_stem=tmp_path / out)
    assert (tmp_path / "plain.csv").read_bytes() == (tmp_path / "ingested.csv").read_bytes()
    table = pd.read_csv(tmp_path / "plain.csv")
    assert (table[(table["level"] == 0.2) & (table["reproducibility_measure"] == "rmse")]["mean"] > 0).all()


def test_ties_add_the_tied_columns_and_change_no_other(collection):
    """experiments.reproducibility.ties (issue 42): the tie-aware KTU and RBO after the
    table's columns, read from the runs' scores; every other column as without."""
    folder, files, _, pairs = collection
    plain = _tabulate(folder, files, pairs, "untied")
    tied = _tabulate(folder, files, pairs, "tied", order=OrderSettings(100, 0.8, 100, ("a", "b", "w")))
    assert list(tied.columns) == table_columns(["a", "b", "w"])
    assert tied[table_columns()].equals(plain)
    own = tied[tied["advanced"] == "CL99SDopt2"].iloc[0]  # reproduced by itself
    assert own.ktu_b_advanced == own.rbo_w_advanced == own.rbo_b_advanced == 1.0
    # its scores tie: RBO^a, the expected RBO over random tie-breaks, falls short of 1 (what RBO^b corrects)
    assert 0.99 < own.rbo_a_advanced < 1.0
    assert tied[["ktu_b_baseline", "rbo_w_baseline", "rbo_a_baseline", "rbo_b_baseline"]].notna().all().all()
    assert (folder / "tied.csv").read_text().splitlines()[0].split(",") == table_columns(["a", "b", "w"])
