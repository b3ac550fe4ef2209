"""irmeta.artefacts.figures.judgments: the judgment-agreement figure of a table computed
on TREC-8 ad hoc (10 runs, depth 100, the official qrels against a 50% and a 10% sample
of each topic's judged documents) writes a PNG and a PDF, the same bytes on a rerun and
after the table's round trip through CSV."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from irmeta.api import score
from irmeta.artefacts.figures.judgments import plot_judgment_agreement
from irmeta.metaeval.judgment_agreement import judgment_agreement_table

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SEED = 20230402


def sampled(qrels: pd.DataFrame, share: float) -> pd.DataFrame:
    """A ``share`` of each topic's judged documents (at least one kept per topic)."""
    keys = pd.Series(np.random.default_rng(SEED).random(len(qrels)), index=qrels.index)
    ranks = keys.groupby(qrels["query_id"]).rank(method="first")
    sizes = qrels.groupby("query_id")["doc_id"].transform("size")
    return qrels[ranks <= np.maximum(1, (sizes * share).astype(int))]


@pytest.fixture(scope="module")
def table(shared_data) -> pd.DataFrame:
    folder = shared_data / "trec8_adhoc"
    paths = sorted((folder / "runs").glob("*.gz"))[::12][:10]
    qrels = pd.read_csv(folder / "qrels.txt", sep=r"\s+", header=None, dtype={0: str, 2: str},
                        names=["query_id", "iteration", "doc_id", "relevance"])
    scored = {name: score(q, paths, ["P@100", "AP@100", "P_rareness@100"], depth=100, alphas=[0, 1]).scores
              for name, q in (("official", qrels), ("50% judged", sampled(qrels, 0.5)),
                              ("10% judged", sampled(qrels, 0.1)))}
    official = scored.pop("official")
    return judgment_agreement_table(official, scored)


@pytest.mark.slow
def test_writes_png_and_pdf_deterministically(tmp_path, table):
    paths = plot_judgment_agreement(table, tmp_path / "a" / "agreement.png", tmp_path / "a" / "agreement.pdf",
                                    title="TREC-8, 10 runs")
    assert paths == [tmp_path / "a" / "agreement.png", tmp_path / "a" / "agreement.pdf"]
    png, pdf = (p.read_bytes() for p in paths)
    assert png.startswith(PNG_MAGIC) and pdf.startswith(b"%PDF") and len(png) > 1000 and len(pdf) > 1000
    again = plot_judgment_agreement(table, tmp_path / "b" / "agreement.png", tmp_path / "b" / "agreement.pdf",
                                    title="TREC-8, 10 runs")
    assert [p.read_bytes() for p in again] == [png, pdf]


@pytest.mark.slow
def test_a_table_read_back_from_csv_draws_the_same_figure(tmp_path, table):
    """Read back, alpha is a float (NaN for measures without one)."""
    table.to_csv(tmp_path / "agreement.csv", index=False)
    read = pd.read_csv(tmp_path / "agreement.csv")
    assert read["alpha"].dtype == float
    first = plot_judgment_agreement(table, tmp_path / "x.png", tmp_path / "x.pdf")
    second = plot_judgment_agreement(read, tmp_path / "y.png", tmp_path / "y.pdf")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_leaves_matplotlib_settings_alone(tmp_path, table):
    before = dict(matplotlib.rcParams)
    plot_judgment_agreement(table, tmp_path / "f.png", tmp_path / "f.pdf")
    assert dict(matplotlib.rcParams) == before


def test_bad_arguments_are_refused(tmp_path, table):
    with pytest.raises(ValueError, match="<stem>.png and <stem>.pdf"):
        plot_judgment_agreement(table, tmp_path / "f.png", tmp_path / "g.pdf")
    with pytest.raises(ValueError, match="missing column"):
        plot_judgment_agreement(table.drop(columns="tau_ap"), tmp_path / "f.png", tmp_path / "f.pdf")
    with pytest.raises(ValueError, match="empty"):
        plot_judgment_agreement(table.iloc[:0], tmp_path / "f.png", tmp_path / "f.pdf")
