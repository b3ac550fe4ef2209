"""Run names drawn from all of Unicode through the writers and readers test_formats.py does
not cover (issue 26, ask 7): scores.npz, scores.parquet, compare's TSV, run files named by
their file or their tag. A name a format can carry comes back exactly; one it cannot
(a tab, a newline, a carriage return, a lone surrogate) is refused in one line."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from irmeta.campaign.runs import read_runs
from irmeta.comparison import COLUMNS, comparison_tsv
from irmeta.measures.averaging import Scores
from irmeta.pipeline.stored_scores import (
    load_scores,
    scores_arrow_blocks,
    write_scores,
    write_table_in_blocks,
)
from irmeta.support.formats import tsv_fault

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

#: Any text of Unicode but lone surrogates (no file or UTF-8 stream holds one).
ANY_NAME = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=10)
#: What TSV carries: no tab, newline or carriage return.
CARRIED = ANY_NAME.filter(lambda name: tsv_fault(name) is None)


def _scores(runs: list[str]) -> Scores:
    values = np.linspace(0.0, 1.0, 2 * len(runs)).reshape(1, len(runs), 2)
    return Scores(runs=runs, topics=["401", "402"], measures=["P@10"], alphas=[None], per_topic=values,
                  means={"all_topics": values.mean(axis=-1)})


@PROPERTY
@given(st.lists(ANY_NAME, min_size=1, max_size=3, unique=True))
def test_any_run_name_round_trips_through_scores_npz_and_parquet(tmp_path_factory, runs):
    folder = tmp_path_factory.mktemp("stored")
    scores = _scores(runs)
    write_scores(scores, folder / "scores.npz", {"seed": 1})
    back = load_scores(folder / "scores.npz")
    assert back.runs == runs and np.array_equal(back.per_topic, scores.per_topic)
    write_table_in_blocks(scores_arrow_blocks(scores), folder / "scores.parquet", {"seed": 1})
    table = pd.read_parquet(folder / "scores.parquet")
    assert list(pd.unique(table["run"].astype(str))) == runs


def _comparison(runs: list[str]) -> pd.DataFrame:
    rows = [{column: 0.5 for column in COLUMNS} | {"run": run, "measure": "P@10", "baseline": runs[0],
                                                  "significant": False} for run in runs]
    return pd.DataFrame(rows, columns=list(COLUMNS))


@PROPERTY
@given(st.lists(ANY_NAME, min_size=1, max_size=3, unique=True))
@example(['"'])  # pandas quoted it: '""""' in the TSV, which irmeta's readers (no quoting) read as 4 characters
def test_compare_tsv_carries_a_name_or_refuses_it_in_one_line(runs):
    table = _comparison(runs)
    if all(tsv_fault(run) is None for run in runs):
        back = pd.read_csv(io.StringIO(comparison_tsv(table)), sep="\t", dtype=str, keep_default_na=False,
                           quoting=3)
        assert back["run"].tolist() == runs
        return
    with pytest.raises(ValueError) as caught:
        comparison_tsv(table)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("run name ")


def _run_lines(tag: str) -> bytes:
    return "".join(f"401 Q0 d{i} {i} {10 - i} {tag}\n" for i in range(1, 4)).encode("utf-8")


#: A file name: no slash, not . or .., no NUL, at most 60 bytes of UTF-8 (file systems take 255).
FILE_NAME = CARRIED.filter(lambda n: "/" not in n and "\x00" not in n and n not in (".", "..")
                           and not n.startswith(".") and len(n.encode("utf-8")) <= 60)
#: A tag: one whitespace-free field of the run's line.
TAG = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=10).filter(
    lambda t: not any(c.isspace() for c in t))


@PROPERTY
@given(st.lists(FILE_NAME, min_size=2, max_size=3, unique=True), TAG)
def test_a_run_name_round_trips_through_its_file_name_and_its_tag(tmp_path_factory, names, tag):
    folder = tmp_path_factory.mktemp("runs")
    for name in names:
        (folder / f"{name}.gz").write_bytes(gzip.compress(_run_lines(tag)))
    runs = read_runs(folder, run_name="file")
    assert sorted(runs.names) == sorted(names)
    one = tmp_path_factory.mktemp("tag") / "run.txt"
    one.write_bytes(_run_lines(tag))
    assert read_runs(one, run_name="tag").names == [tag]
