"""Qrels lines have exactly four fields, and the topic id ``all`` is reserved (issue 18).

A run file given as the qrels used to be read, its rank column taken for the grade; a
topic named ``all`` collided with the means' rows of every score table. Both are refused
with one line naming the file (or object) and the line (or row), by the file reader
(Arrow's fast path and the tokeniser alike), the in-memory qrels, the CLI and the
pipeline's ingest. Every real qrels file of the shared data still reads.
"""

from __future__ import annotations

import gzip
import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

import irmeta
from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.in_memory import to_qrels
from irmeta.campaign.qrels import read_qrels
from irmeta.cli import main

RUN_HINT = "six look like a run file's line (qid Q0 docid rank score tag)"


def write(path: Path, text: str, gz: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def refused(path: Path, line: int, *words: str) -> str:
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:{line}: "), message
    assert info.value.line == line
    for word in words:
        assert word in message, message
    return message


# -------------------------------------------------------------- four fields


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("sep", [" ", "\t", "  "], ids=["space", "tab", "double-space"])  # fast path, and not
def test_a_run_file_given_as_qrels_is_refused_as_one(tmp_path, gz, sep):
    text = "".join(sep.join(["401", "Q0", f"D{i}", str(i), str(10 - i), "tag"]) + "\n" for i in range(1, 4))
    refused(write(tmp_path / "qrels", text, gz), 1, "6 columns, expected 4 (qid iter docid grade)", RUN_HINT)


@pytest.mark.parametrize("bad, n", [("401 0 D9 1 x", 5), ("401 0 D9", 3), ("401 Q0 D9 1 2.5 t", 6),
                                    ("401 0 D9 1 a b c", 7)])
def test_any_line_of_another_count_is_refused_naming_its_line(tmp_path, bad, n):
    text = "401 0 D1 1\n\n401 0 D2 0\n" + bad + "\n401 0 D3 1\n"
    message = refused(write(tmp_path / "qrels", text), 4, f"{n} columns, expected 4")
    assert (RUN_HINT in message) == (n == 6)


@pytest.mark.parametrize("text", ["401 0 D1 1 \n401 0 D2 0\t\n", "401 0 D1 1\r\n401 0 D2 0\r\n",
                                  "\n\n401 0 D1 1\n401 0 D2 0"])
def test_trailing_white_space_is_no_field(tmp_path, text):
    assert read_qrels(write(tmp_path / "qrels", text)).grade.tolist() == [1, 0]


def _qrels_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "qrels" in p.name)


def test_every_shared_qrels_file_reads_with_four_fields(shared_data):
    """The documented collections (docs/reproduce.md, docs/claims.md): TREC-8, CLEF TAR
    2017 (both levels), DL 2020 passages and documents, Web 2014. Each line has four fields, so each judgment is
    read."""
    files = _qrels_files(shared_data)
    assert len(files) >= 6
    for path in files:
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        assert {len(line.split()) for line in lines} == {4}, path
        qrels = read_qrels(path)
        assert len(qrels) == len(lines), path
        assert "all" not in qrels.topics


def test_a_real_run_file_as_qrels_is_refused_by_the_cli_and_the_api(shared_data, tmp_path):
    run = shared_data / "trec8_adhoc" / "runs" / "INQ601.gz"
    qrels = shared_data / "trec8_adhoc" / "qrels.txt"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--qrels", str(run), "--runs", str(run)])
    assert code == 2 and out.getvalue() == ""
    assert err.getvalue().count("\n") == 1 and f"{run}:1: 6 columns" in err.getvalue() and RUN_HINT in err.getvalue()
    with pytest.raises(TrecFormatError, match="look like a run file"):
        irmeta.evaluate(run, [run], ["P@10"])
    assert len(read_qrels(qrels)) == 86830  # the right file still reads


def test_the_pipeline_ingest_refuses_a_run_file_as_qrels_and_writes_nothing(tmp_path):
    from irmeta.pipeline.steps import ingest_collection

    (tmp_path / "runs").mkdir()
    run = write(tmp_path / "runs" / "r", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    out = tmp_path / "out"
    with pytest.raises(TrecFormatError, match=re.escape(RUN_HINT)):
        ingest_collection(qrels=run, runs=tmp_path / "runs", out=out / "judged.npz")
    assert not out.exists() or not any(out.iterdir())


# ---------------------------------------------------------------- topic "all"


@pytest.mark.parametrize("text, line", [("1 0 a 1\nall 0 b 1\n", 2), ("all\t0\ta\t1\n", 1),
                                        ("1  0 a 1\n\nall 0 b 0\n", 3)])
def test_the_topic_all_is_refused_in_a_qrels_file(tmp_path, text, line):
    refused(write(tmp_path / "qrels", text), line, "topic id 'all' is reserved")


def test_only_all_itself_is_reserved(tmp_path):
    qrels = read_qrels(write(tmp_path / "qrels", "ALL 0 a 1\nall2 0 a 1\nAll 0 b 0\n"))
    assert qrels.topics == ["ALL", "All", "all2"]


@pytest.mark.parametrize("given, where", [
    ({"1": {"a": 1}, "all": {"b": 1}}, "qrels:2:"),
    ([("all", "a", 1)], "qrels:1:"),
    (pd.DataFrame({"query_id": ["1", "1", "all"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]}), "qrels:3:"),
])
def test_the_topic_all_is_refused_in_qrels_given_in_memory(given, where):
    with pytest.raises(TrecFormatError) as info:
        to_qrels(given)
    assert str(info.value).startswith(f"{where} topic id 'all' is reserved")


def test_a_run_topic_named_all_is_only_a_topic_the_qrels_do_not_judge():
    # Runs are not refused for it: the topic is ignored and reported, as any unjudged topic.
    table = irmeta.evaluate({"1": {"a": 1}}, {"r": [("1", "a", 1.0), ("all", "a", 1.0)]}, ["P@1"])
    assert table["qid"].tolist() == ["1", "all"] and table["value"].tolist() == [1.0, 1.0]
