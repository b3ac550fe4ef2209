"""Parsing of TREC qrels and runs (irmeta.campaign): formats, errors, and round trips.

Every case is a small file written to a temporary directory. Errors must be
``TrecFormatError`` naming the file, the 1-based line (when there is one) and the
fault. Property tests generate random valid runs and qrels and check that the parser
returns exactly what was written, in trec_eval's order.
"""

from __future__ import annotations

import gzip
import math
import string
import struct
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.qrels import QRELS_FIELDS, Qrels, load_qrels, read_qrels, sort_topics, write_qrels
from irmeta.campaign.runs import Runs, _fast_columns, _general_columns, load_runs, read_runs, write_runs
from irmeta.campaign.tokens import INTEGER, arrow_fields, parse_numbers, tokenise, utf8_column

# --------------------------------------------------------------------------- helpers


def write(path: Path, text: str | bytes, *, gz: bool = False) -> Path:
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def rows(runs: Runs) -> list[tuple[str, str, str, int, float]]:
    """Runs as (run, qid, docid, rank, score) tuples, in the stored row order."""
    docids = runs.docids.to_pylist()
    return [
        (runs.names[r], runs.topics[q], docids[d], int(k), float(s))
        for r, q, d, k, s in zip(runs.run, runs.qid, runs.docid, runs.rank, runs.score)
    ]


def qrels_rows(qrels: Qrels) -> list[tuple[str, str, int]]:
    return list(zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), (int(g) for g in qrels.grade)))


def trec_key(docid: str, score: float):
    """trec_eval's order as a sort key: score descending, then docid descending as bytes."""
    return (-score, _Desc(docid.encode("utf-8")))


class _Desc:
    __slots__ = ("b",)

    def __init__(self, b: bytes):
        self.b = b

    def __lt__(self, other: _Desc) -> bool:
        return self.b > other.b

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.b == other.b


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


RUN_TEXT = (
    "401 Q0 DOC-A 1 3.5 tagA\n"
    "401 Q0 DOC-B 2 2.25 tagA\n"
    "401 Q0 DOC-C 3 1.0 tagA\n"
    "402 Q0 DOC-D 1 0.75 tagA\n"
    "402 Q0 DOC-A 2 0.5 tagA\n"
)
RUN_ROWS = [
    ("r", "401", "DOC-A", 1, 3.5),
    ("r", "401", "DOC-B", 2, 2.25),
    ("r", "401", "DOC-C", 3, 1.0),
    ("r", "402", "DOC-D", 1, 0.75),
    ("r", "402", "DOC-A", 2, 0.5),
]


def assert_trec_error(excinfo, path: Path, line: int | None, *fragments: str) -> None:
    err = excinfo.value
    msg = str(err)
    assert isinstance(err, TrecFormatError)
    assert str(path) in msg, msg
    if line is None:
        assert err.line is None, msg
    else:
        assert err.line == line, msg
        assert f"{path}:{line}:" in msg, msg
    for fragment in fragments:
        assert fragment in msg, msg


# ------------------------------------------------------------------ runs: formats


def test_plain_and_gzip_read_the_same(tmp_path):
    plain = read_runs(write(tmp_path / "a" / "r", RUN_TEXT))
    packed = read_runs(write(tmp_path / "b" / "r.gz", RUN_TEXT, gz=True))
    assert rows(plain) == rows(packed) == RUN_ROWS
    assert packed.names == ["r"]


def test_gzip_is_detected_by_content_not_name(tmp_path):
    runs = read_runs(write(tmp_path / "r", RUN_TEXT, gz=True))
    assert rows(runs) == RUN_ROWS


def test_concatenated_gzip_members(tmp_path):
    lines = RUN_TEXT.splitlines(keepends=True)
    data = gzip.compress("".join(lines[:2]).encode()) + gzip.compress("".join(lines[2:]).encode())
    runs = read_runs(write(tmp_path / "r.gz", data))
    assert rows(runs) == RUN_ROWS


def test_corrupt_gzip_is_a_format_error(tmp_path):
    data = gzip.compress(RUN_TEXT.encode())[:-12]
    path = write(tmp_path / "r.gz", data)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(path)
    assert_trec_error(excinfo, path, None, "gzip")


@pytest.mark.parametrize(
    "text",
    [
        RUN_TEXT.replace(" ", "\t"),
        RUN_TEXT.replace(" ", "   "),
        RUN_TEXT.replace(" ", " \t  "),
        RUN_TEXT.replace("\n", "\r\n"),
        "\n\n" + RUN_TEXT.replace("\n", "\n   \n") + "\n\n",  # blank and space-only lines
        "  " + RUN_TEXT.replace("\n", "\n  "),  # leading whitespace
        RUN_TEXT.rstrip("\n"),  # no final newline
        RUN_TEXT.replace("tagA", "tagA trailing text 17 0.5"),  # trec_eval ignores it
    ],
    ids=["tabs", "spaces", "mixed", "crlf", "blank-lines", "leading-ws", "no-final-newline", "trailing-text"],
)
def test_whitespace_variants_read_the_same(tmp_path, text):
    runs = read_runs(write(tmp_path / "r", text))
    assert rows(runs) == RUN_ROWS


def test_column_two_may_hold_anything(tmp_path):
    text = RUN_TEXT.replace(" Q0 ", " NF ", 2).replace(" Q0 ", " AF ")
    assert " NF " in text and " AF " in text
    assert rows(read_runs(write(tmp_path / "r", text))) == RUN_ROWS


def test_rank_column_is_ignored(tmp_path):
    # Same rows, rank column shuffled and the lines themselves reversed.
    lines = RUN_TEXT.splitlines()
    fake_ranks = ["7", "1", "99", "3", "0"]
    shuffled = []
    for line, rank in zip(lines, fake_ranks):
        f = line.split()
        f[3] = rank
        shuffled.append(" ".join(f))
    runs = read_runs(write(tmp_path / "r", "\n".join(reversed(shuffled)) + "\n"))
    assert rows(runs) == RUN_ROWS


def test_non_numeric_rank_is_ignored_too(tmp_path):
    text = RUN_TEXT.replace(" 1 3.5 ", " first 3.5 ")
    assert rows(read_runs(write(tmp_path / "r", text))) == RUN_ROWS


def test_run_name_from_file_name(tmp_path):
    a = write(tmp_path / "alpha.run.gz", RUN_TEXT, gz=True)
    b = write(tmp_path / "beta.gz.txt", RUN_TEXT)
    runs = read_runs([a, b])
    assert runs.names == ["alpha.run", "beta.gz.txt"]


def test_run_name_from_tag(tmp_path):
    runs = read_runs(write(tmp_path / "file.gz", RUN_TEXT, gz=True), run_name="tag")
    assert runs.names == ["tagA"]


def test_run_name_tag_uses_first_line(tmp_path):
    text = RUN_TEXT.replace("tagA", "other").replace("other", "first", 1)
    runs = read_runs(write(tmp_path / "f", text), run_name="tag")
    assert runs.names == ["first"]


def test_bad_options_rejected(tmp_path):
    path = write(tmp_path / "r", RUN_TEXT)
    with pytest.raises(ValueError, match="duplicates"):
        read_runs(path, duplicates="last")
    with pytest.raises(ValueError, match="run_name"):
        read_runs(path, run_name="qid")
    with pytest.raises(ValueError, match="depth"):
        read_runs(path, depth=0)


# ---------------------------------------------------------- runs: files, dirs, globs


def test_directory_input_reads_visible_files_sorted(tmp_path):
    d = tmp_path / "runs"
    write(d / "b.gz", RUN_TEXT, gz=True)
    write(d / "a", RUN_TEXT)
    write(d / ".hidden", "not a run\n")
    (d / "sub").mkdir()
    runs = read_runs(d)
    assert runs.names == ["a", "b"]
    assert [Path(f).name for f in runs.files] == ["a", "b.gz"]
    assert len(runs) == 2 * len(RUN_ROWS)


def test_glob_input(tmp_path):
    d = tmp_path / "runs"
    write(d / "x.gz", RUN_TEXT, gz=True)
    write(d / "y.gz", RUN_TEXT, gz=True)
    write(d / "z.txt", RUN_TEXT)
    runs = read_runs(str(d / "*.gz"))
    assert runs.names == ["x", "y"]


def test_glob_without_match_and_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="matches no file"):
        read_runs(str(tmp_path / "*.gz"))
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_runs(tmp_path / "nope.gz")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError):
        read_runs(tmp_path / "empty")


def test_same_file_twice_is_read_once(tmp_path):
    d = tmp_path / "runs"
    path = write(d / "a.gz", RUN_TEXT, gz=True)
    runs = read_runs([d, path, str(d / "*.gz")])
    assert runs.names == ["a"]
    assert len(runs) == len(RUN_ROWS)


def test_two_files_with_one_run_name_is_an_error(tmp_path):
    first = write(tmp_path / "one" / "r.gz", RUN_TEXT, gz=True)
    second = write(tmp_path / "two" / "r", RUN_TEXT)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs([first, second])
    msg = str(excinfo.value)
    assert "'r'" in msg and str(first) in msg and str(second) in msg


def test_two_files_with_one_tag_is_an_error(tmp_path):
    a = write(tmp_path / "a", RUN_TEXT)
    b = write(tmp_path / "b", RUN_TEXT)
    assert read_runs([a, b]).names == ["a", "b"]
    with pytest.raises(TrecFormatError, match="tagA"):
        read_runs([a, b], run_name="tag")


def test_runs_from_several_files_share_topics_and_docids(tmp_path):
    a = write(tmp_path / "a", "1 Q0 d1 1 1 t\n2 Q0 d2 1 1 t\n")
    b = write(tmp_path / "b", "10 Q0 d2 1 1 t\n2 Q0 d3 1 1 t\n")
    runs = read_runs([a, b])
    assert runs.topics == ["1", "2", "10"]  # numeric topic order
    assert sorted(runs.docids.to_pylist()) == ["d1", "d2", "d3"]
    assert rows(runs) == [
        ("a", "1", "d1", 1, 1.0),
        ("a", "2", "d2", 1, 1.0),
        ("b", "2", "d3", 1, 1.0),
        ("b", "10", "d2", 1, 1.0),
    ]


def test_progress_callback(tmp_path):
    d = tmp_path / "runs"
    for name in "abc":
        write(d / name, RUN_TEXT)
    calls = []
    read_runs(d, threads=1, progress=lambda done, total, path: calls.append((done, total, path.name)))
    assert sorted(calls) == [(1, 3, "a"), (2, 3, "b"), (3, 3, "c")]


# ------------------------------------------------------------------ runs: errors


@pytest.mark.parametrize(
    "bad_line, line_no, fragments",
    [
        ("401 Q0 DOC-X 4 0.5", 3, ("5 columns", "at least 6")),
        ("401", 3, ("1 columns", "at least 6")),
        ("401 Q0 DOC-X 4 abc tagA", 3, ("score", "'abc'", "not a finite number")),
        ("401 Q0 DOC-X 4 0.5x tagA", 3, ("score", "'0.5x'")),
        ("401 Q0 DOC-X 4 0x1p3 tagA", 3, ("score", "'0x1p3'")),
        ("401 Q0 DOC-X 4 nan tagA", 3, ("score", "'nan'")),
        ("401 Q0 DOC-X 4 NaN tagA", 3, ("score", "'NaN'")),
        ("401 Q0 DOC-X 4 inf tagA", 3, ("score", "'inf'")),
        ("401 Q0 DOC-X 4 -Infinity tagA", 3, ("score", "'-Infinity'")),
        ("401 Q0 DOC-X 4 1e400 tagA", 3, ("score", "'1e400'", "overflows")),
        ("401 Q0 DOC-X 4 -1e400 tagA", 3, ("score", "'-1e400'", "overflows")),
    ],
)
def test_bad_run_line(tmp_path, bad_line, line_no, fragments):
    lines = RUN_TEXT.splitlines()
    text = "\n".join(lines[:2] + [bad_line] + lines[2:]) + "\n"
    for gz in (False, True):
        path = write(tmp_path / ("bad.gz" if gz else "bad"), text, gz=gz)
        with pytest.raises(TrecFormatError) as excinfo:
            read_runs(path)
        assert_trec_error(excinfo, path, line_no, *fragments)


def test_line_numbers_count_blank_lines_and_crlf(tmp_path):
    text = "\r\n\r\n401 Q0 d1 1 1 t\r\n   \r\n401 Q0 d2 2 oops t\r\n"
    path = write(tmp_path / "r", text)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(path)
    assert_trec_error(excinfo, path, 5, "'oops'")


def test_tiny_score_underflows_to_zero_without_error(tmp_path):
    # strtod gives 0 (or a subnormal) for these; they are finite, not an error.
    path = write(tmp_path / "r", "1 Q0 a 1 1e-400 t\n1 Q0 b 2 5e-324 t\n")
    runs = read_runs(path)
    assert rows(runs) == [("r", "1", "b", 1, 5e-324), ("r", "1", "a", 2, 0.0)]


@pytest.mark.parametrize("text", ["", "\n", "   \n\t\n  ", "\r\n\r\n"], ids=["empty", "newline", "spaces", "crlf"])
@pytest.mark.parametrize("gz", [False, True])
def test_empty_run_file(tmp_path, text, gz):
    path = write(tmp_path / "r", text, gz=gz)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(path)
    assert_trec_error(excinfo, path, None, "empty file")


def test_one_bad_file_among_good_ones_is_named(tmp_path):
    d = tmp_path / "runs"
    write(d / "a", RUN_TEXT)
    bad = write(d / "b.gz", RUN_TEXT + "402 Q0 DOC-Z 3 - tagA\n", gz=True)
    write(d / "c", RUN_TEXT)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(d)
    assert_trec_error(excinfo, bad, 6, "score", "'-'")


def test_non_utf8_docid(tmp_path):
    path = write(tmp_path / "r", b"1 Q0 ok 1 1 t\n1 Q0 \xff\xfe 2 0.5 t\n")
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(path)
    assert_trec_error(excinfo, path, 2, "UTF-8")


def test_duplicate_docid_is_an_error_by_default(tmp_path):
    text = RUN_TEXT + "401 Q0 DOC-B 9 0.1 tagA\n"
    path = write(tmp_path / "r", text)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(path)
    # Both lines named: the later one as the error line, the earlier one in the text.
    assert_trec_error(excinfo, path, 6, "DOC-B", "401", "line 2", "twice")


def test_duplicate_error_names_the_later_line_even_when_it_scores_higher(tmp_path):
    text = RUN_TEXT + "401 Q0 DOC-C 9 99 tagA\n"
    path = write(tmp_path / "r", text)
    with pytest.raises(TrecFormatError) as excinfo:
        read_runs(path)
    assert_trec_error(excinfo, path, 6, "DOC-C", "line 3")


def test_same_docid_in_two_topics_or_two_runs_is_fine(tmp_path):
    a = write(tmp_path / "a", RUN_TEXT)  # DOC-A in 401 and 402
    b = write(tmp_path / "b", RUN_TEXT)
    runs = read_runs([a, b])
    assert runs.dropped_duplicates == {"a": 0, "b": 0}
    assert len(runs) == 2 * len(RUN_ROWS)


def test_duplicates_first_keeps_best_ranked_copy(tmp_path):
    text = (
        "1 Q0 d1 1 0.1 t\n"
        "1 Q0 d2 2 0.6 t\n"
        "1 Q0 d1 3 0.9 t\n"  # the best-ranked copy of d1
        "1 Q0 d1 4 0.5 t\n"
        "2 Q0 d1 1 0.3 t\n"  # another topic: not a duplicate
        "2 Q0 d3 2 0.3 t\n"
        "2 Q0 d3 2 0.2 t\n"
    )
    path = write(tmp_path / "r", text)
    other = write(tmp_path / "s", "1 Q0 d1 1 1 t\n")
    runs = read_runs([path, other], duplicates="first")
    assert rows(runs) == [
        ("r", "1", "d1", 1, 0.9),
        ("r", "1", "d2", 2, 0.6),
        ("r", "2", "d3", 1, 0.3),
        ("r", "2", "d1", 2, 0.3),
        ("s", "1", "d1", 1, 1.0),
    ]
    assert runs.dropped_duplicates == {"r": 3, "s": 0}
    assert runs.settings()["dropped_duplicates"] == {"r": 3}
    assert runs.duplicates == "first"


def test_duplicates_dropped_before_depth_cut(tmp_path):
    text = "1 Q0 b 3 1 t\n1 Q0 a 1 3 t\n1 Q0 a 2 2 t\n"
    runs = read_runs(write(tmp_path / "r", text), duplicates="first", depth=2)
    assert [(d, k, s) for _, _, d, k, s in rows(runs)] == [("a", 1, 3.0), ("b", 2, 1.0)]
    assert runs.dropped_duplicates == {"r": 1}


@pytest.mark.parametrize("depth", [None, 2])
def test_duplicates_first_on_a_file_already_in_trec_order(tmp_path, depth):
    """A file whose lines are already in trec_eval order, with a docid twice.

    BUG: _read_run_file skips the sort when the file is already ordered
    (``order is None``) and then builds ``rows = np.arange(len(q))`` *after* ``q``
    has been filtered by ``keep``, so ``rows[keep]`` raises IndexError (boolean
    index length mismatch). Found on TREC-style files written in rank order.
    """
    text = "1 Q0 a 1 3 t\n1 Q0 a 2 2 t\n1 Q0 b 3 1 t\n2 Q0 c 1 5 t\n"
    runs = read_runs(write(tmp_path / "r", text), duplicates="first", depth=depth)
    assert rows(runs) == [("r", "1", "a", 1, 3.0), ("r", "1", "b", 2, 1.0), ("r", "2", "c", 1, 5.0)]
    assert runs.dropped_duplicates == {"r": 1}


# ------------------------------------------------------------------------- qrels

QRELS_TEXT = "401 0 DOC-A 1\n401 0 DOC-B 0\n402 0 DOC-A 2\n402 0 DOC-C -2\n"
QRELS_ROWS = [("401", "DOC-A", 1), ("401", "DOC-B", 0), ("402", "DOC-A", 2), ("402", "DOC-C", -2)]


@pytest.mark.parametrize(
    "text",
    [
        QRELS_TEXT,
        QRELS_TEXT.replace(" ", "\t"),
        QRELS_TEXT.replace(" ", "    "),
        QRELS_TEXT.replace("\n", "\r\n"),
        QRELS_TEXT.replace("\n", " \t\n"),
        "\n" + QRELS_TEXT.replace("\n", "\n\n"),
    ],
    ids=["plain", "tabs", "spaces", "crlf", "trailing-space", "blank-lines"],
)
@pytest.mark.parametrize("gz", [False, True])
def test_qrels_formats(tmp_path, text, gz):
    qrels = read_qrels(write(tmp_path / "qrels", text, gz=gz))
    assert qrels_rows(qrels) == QRELS_ROWS
    assert qrels.grade.dtype == np.int64
    assert qrels.topics == ["401", "402"]
    assert len(qrels) == 4


def test_qrels_negative_grades_allowed(tmp_path):
    qrels = read_qrels(write(tmp_path / "q", "251 0 spam -2\n251 0 ok 4\n"))
    assert list(qrels.grade) == [-2, 4]


def test_qrels_topics_natural_order(tmp_path):
    qrels = read_qrels(write(tmp_path / "q", "10 0 a 1\n9 0 a 1\n100 0 a 0\n"))
    assert qrels.topics == ["9", "10", "100"]
    qrels = read_qrels(write(tmp_path / "q2", "CD10 0 a 1\nCD9 0 a 1\nCD100 0 a 0\n"))
    assert qrels.topics == ["CD10", "CD100", "CD9"]  # byte order when not all numeric


@pytest.mark.parametrize(
    "bad_line, fragments",
    [
        ("401 0 DOC-X", ("3 columns", "expected 4 (qid iter docid grade)")),
        ("401 0 DOC-X 1 extra", ("5 columns", "expected 4")),
        ("401 0", ("2 columns",)),
        ("401 0 DOC-X 1.0", ("grade", "'1.0'", "not an integer")),
        ("401 0 DOC-X 1.5", ("grade", "'1.5'")),
        ("401 0 DOC-X yes", ("grade", "'yes'")),
        ("401 0 DOC-X 1e2", ("grade", "'1e2'")),
    ],
)
def test_bad_qrels_line(tmp_path, bad_line, fragments):
    lines = QRELS_TEXT.splitlines()
    text = "\n".join(lines[:1] + [bad_line] + lines[1:]) + "\n"
    path = write(tmp_path / "qrels", text)
    with pytest.raises(TrecFormatError) as excinfo:
        read_qrels(path)
    assert_trec_error(excinfo, path, 2, *fragments)


@pytest.mark.parametrize("text", ["", "\n \n"])
def test_empty_qrels(tmp_path, text):
    path = write(tmp_path / "qrels", text)
    with pytest.raises(TrecFormatError) as excinfo:
        read_qrels(path)
    assert_trec_error(excinfo, path, None, "empty file")


def test_duplicate_qrels_pair_names_both_lines(tmp_path):
    text = QRELS_TEXT + "401 0 DOC-C 0\n402 0 DOC-A 0\n"
    path = write(tmp_path / "qrels", text)
    with pytest.raises(TrecFormatError) as excinfo:
        read_qrels(path)
    assert_trec_error(excinfo, path, 6, "402", "DOC-A", "line 3", "twice")


def test_qrels_same_docid_in_two_topics_is_fine(tmp_path):
    qrels = read_qrels(write(tmp_path / "q", "1 0 a 1\n2 0 a 0\n"))
    assert qrels_rows(qrels) == [("1", "a", 1), ("2", "a", 0)]


def test_qrels_grade_with_plus_sign(tmp_path):
    """strtol/atoi (trec_eval) read '+1' as 1, and INTEGER admits the sign.

    BUG: pyarrow's string->int64 cast rejects a leading '+', so a raw
    pyarrow.ArrowInvalid escapes instead of the grade being read.
    """
    qrels = read_qrels(write(tmp_path / "q", "1 0 a +1\n1 0 b 0\n"))
    assert list(qrels.grade) == [1, 0]


def test_qrels_grade_out_of_int64_range_is_a_format_error(tmp_path):
    """BUG: a grade beyond int64 raises pyarrow.ArrowInvalid, not TrecFormatError."""
    path = write(tmp_path / "q", "1 0 a 1\n1 0 b 99999999999999999999\n")
    with pytest.raises(TrecFormatError) as excinfo:
        read_qrels(path)
    assert_trec_error(excinfo, path, 2, "grade")


# ------------------------------------------------------- pipeline: nothing on error


def test_ingest_writes_nothing_when_a_run_is_bad(tmp_path):
    from irmeta.pipeline.steps import ingest_collection

    qrels = write(tmp_path / "qrels.txt", QRELS_TEXT)
    d = tmp_path / "runs"
    write(d / "good.gz", RUN_TEXT, gz=True)
    bad = write(d / "bad.gz", RUN_TEXT + "402 Q0 DOC-Z 3 NaN tagA\n", gz=True)
    out = tmp_path / "out"
    with pytest.raises(TrecFormatError) as excinfo:
        ingest_collection(qrels=qrels, runs=d, out=out / "judged.npz")
    assert_trec_error(excinfo, bad, 6, "'NaN'")
    assert not (out / "judged.npz").exists()
    assert not out.exists() or not any(out.iterdir())


def test_ingest_writes_nothing_when_qrels_are_bad(tmp_path):
    from irmeta.pipeline.steps import ingest_collection

    qrels = write(tmp_path / "qrels.txt", QRELS_TEXT + "401 0 DOC-A 0\n")
    d = tmp_path / "runs"
    write(d / "good.gz", RUN_TEXT, gz=True)
    out = tmp_path / "out"
    with pytest.raises(TrecFormatError, match="judged twice"):
        ingest_collection(qrels=qrels, runs=d, out=out / "judged.npz")
    assert not out.exists() or not any(out.iterdir())


def test_ingest_writes_nothing_when_no_topic_is_shared(tmp_path):
    from irmeta.pipeline.steps import ingest_collection

    qrels = write(tmp_path / "qrels.txt", "999 0 x 1\n")
    run = write(tmp_path / "runs" / "r.gz", RUN_TEXT, gz=True)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="share no topic"):
        ingest_collection(qrels=qrels, runs=run, out=out / "judged.npz")
    assert not out.exists() or not any(out.iterdir())


def test_ingest_round_trip(tmp_path):
    from irmeta.pipeline.steps import ingest_collection

    qrels = write(tmp_path / "qrels.txt", QRELS_TEXT + "403 0 DOC-A 1\n")
    d = tmp_path / "runs"
    write(d / "r.gz", RUN_TEXT + "404 Q0 DOC-A 1 1 tagA\n401 Q0 DOC-A 9 0 tagA\n", gz=True)
    out = tmp_path / "out"
    summary = ingest_collection(qrels=qrels, runs=d, out=out / "judged.npz", duplicates="first")
    assert summary["runs"] == 1
    assert summary["documents"] == 5  # topic 404 is not judged, the second DOC-A of 401 dropped
    assert summary["qrels_topics"] == 3
    assert summary["run_topics_not_in_qrels"] == ["404"]
    assert summary["dropped_duplicates"] == {"r": 1}
    assert sorted(p.name for p in out.iterdir()) == ["judged.npz"]
    from irmeta.campaign.store import load_matrix, matrix_settings

    m = load_matrix(out / "judged.npz")
    assert m.runs == ["r"] and m.topics == ["401", "402", "403"] and m.length.tolist() == [[3, 2, 0]]
    assert m.ignored_topics == {"r": ["404"]}
    # judged postings: 401 DOC-A rank 1 (relevant), DOC-B rank 2 (grade 0); 402 DOC-A rank 2 (grade 2)
    assert m.relevant[0].tolist() == [[True, False, False], [False, True, False], [False, False, False]]
    assert m.grade[0].tolist() == [[1, 0, 0], [0, 2, 0], [0, 0, 0]]
    assert m.docids[int(m.judgment[0, 1, 1])].as_py() == "DOC-A" and m.qrels_grade[-1] == 1
    assert matrix_settings(out / "judged.npz")["settings"]["dropped_duplicates"] == {"r": 1}


# ------------------------------------------------------------- parquet round trip


def _assert_same_runs(a: Runs, b: Runs) -> None:
    assert rows(a) == rows(b)
    assert a.names == b.names
    assert a.topics == b.topics
    assert a.depth == b.depth
    assert a.duplicates == b.duplicates
    assert a.files == b.files
    assert a.settings() == b.settings()
    assert a.rank.dtype == b.rank.dtype and a.score.dtype == b.score.dtype
    assert [bits(x) for x in a.score] == [bits(x) for x in b.score]
    for name in a.names:
        assert a.dropped_duplicates.get(name, 0) == b.dropped_duplicates.get(name, 0)


def test_write_and_load_runs_round_trip(tmp_path):
    a = write(tmp_path / "in" / "a.gz", RUN_TEXT + "401 Q0 DOC-A 7 -0.0 tagA\n", gz=True)
    b = write(tmp_path / "in" / "b", "402 Q0 x 1 0.1 t\n402 Q0 y 1 0.30000000000000004 t\n10 Q0 z 1 -5e-324 t\n")
    runs = read_runs([a, b], depth=3, duplicates="first")
    write_runs(runs, tmp_path / "out" / "runs.parquet")
    loaded = load_runs(tmp_path / "out" / "runs.parquet")
    _assert_same_runs(runs, loaded)
    assert loaded.depth == 3 and loaded.duplicates == "first"
    assert loaded.dropped_duplicates.get("a") == 1
    assert not list((tmp_path / "out").glob(".*"))  # no temporary file left behind


def test_load_runs_keeps_zero_dropped_counts(tmp_path):
    """Round trip should give back the same dropped_duplicates dict.

    BUG (minor): Runs.to_table stores settings()["dropped_duplicates"], which omits
    zero counts, so load_runs(...).dropped_duplicates lacks runs with no duplicates
    ({"r": 0} comes back as {}), and loaded.dropped_duplicates["r"] raises KeyError.
    """
    runs = read_runs(write(tmp_path / "r", RUN_TEXT))
    write_runs(runs, tmp_path / "runs.parquet")
    loaded = load_runs(tmp_path / "runs.parquet")
    assert loaded.dropped_duplicates == runs.dropped_duplicates == {"r": 0}


def test_write_and_load_qrels_round_trip(tmp_path):
    qrels = read_qrels(write(tmp_path / "q.gz", QRELS_TEXT, gz=True))
    write_qrels(qrels, tmp_path / "q.parquet")
    loaded = load_qrels(tmp_path / "q.parquet")
    assert qrels_rows(loaded) == qrels_rows(qrels) == QRELS_ROWS
    assert loaded.source == qrels.source == str(tmp_path / "q.gz")
    assert loaded.grade.dtype == np.int64
    assert loaded.topics == qrels.topics


def test_select_runs(tmp_path):
    d = tmp_path / "runs"
    write(d / "a", RUN_TEXT)
    write(d / "b", "401 Q0 z 2 0.5 t\n401 Q0 z 1 1 t\n403 Q0 y 1 1 t\n")
    write(d / "c", "402 Q0 q 1 1 t\n")
    runs = read_runs(d, duplicates="first")
    picked = runs.select(["c", "a"])
    assert picked.names == ["c", "a"]
    assert picked.n_runs == 2
    assert rows(picked) == [("c", "402", "q", 1, 1.0)] + [("a",) + r[1:] for r in RUN_ROWS]
    assert picked.topics == runs.topics
    assert picked.dropped_duplicates == {"c": 0, "a": 0}
    only_b = runs.select(["b"])
    assert rows(only_b) == [("b", "401", "z", 1, 1.0), ("b", "403", "y", 1, 1.0)]
    assert only_b.names == ["b"] and set(only_b.run) == {0}
    assert only_b.dropped_duplicates == {"b": 1}
    assert rows(runs.select(["a", "b", "c"])) == rows(runs)
    with pytest.raises(KeyError, match="nope"):
        runs.select(["a", "nope"])


# ------------------------------------------------------------- property tests

_SAFE = "".join(ch for ch in string.printable if not ch.isspace())
_ids = st.text(alphabet=_SAFE, min_size=1, max_size=6)
_qids = st.one_of(st.integers(0, 500).map(str),
                  st.text(alphabet=string.ascii_letters + string.digits + "-_.", min_size=1, max_size=5)
                  ).filter(lambda q: q != "all")  # reserved in qrels (the means' qid)
_floats = st.floats(allow_nan=False, allow_infinity=False)
_score_text = st.one_of(
    _floats.map(repr),
    st.sampled_from(["0", "1", "-1", "0.5", "1.0", "-0.0", "+2", ".25", "3.", "1e-5", "1E+3"]),  # ties
    st.floats(-10, 10, allow_nan=False).map(lambda x: f"{x:.3f}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17e}"),
)
_sep = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t", "\x0b", "\x0c"])
_eol = st.sampled_from(["\n", "\r\n", " \n", "\t\r\n"])


@st.composite
def _run_files(draw, dups: bool = False):
    """1-3 runs: {name: [(qid, docid, rank_text, score_text, tag, extra, sep, eol), ...]} in file order.

    With ``dups``, some documents appear two or three times for a topic, with other scores.
    """
    n_runs = draw(st.integers(1, 3))
    names = draw(st.lists(st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=4), min_size=n_runs,
                          max_size=n_runs, unique=True))
    out = {}
    for name in names:
        qids = draw(st.lists(_qids, min_size=1, max_size=3, unique=True))
        lines = []
        for q in qids:
            docs = draw(st.lists(_ids, min_size=1, max_size=8, unique=True))
            if dups:
                docs = docs + draw(st.lists(st.sampled_from(docs), max_size=4))
            for d in docs:
                lines.append((
                    q, d, str(draw(st.integers(-5, 10_000))), draw(_score_text), draw(_ids),
                    draw(st.sampled_from(["", " x", " 1 2 3", "\textra\tcols"])), draw(_sep), draw(_eol),
                ))
        if draw(st.booleans()):
            order = draw(st.permutations(range(len(lines))))
            lines = [lines[i] for i in order]
        else:  # already in trec_eval order (as most real run files are)
            lines.sort(key=lambda line: (line[0], trec_key(line[1], float(line[3]))))
        out[name] = lines
    return out


def _expected(files: dict) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(run, qid) -> [(docid, score_text)] in trec_eval order, the best-ranked copy of each docid."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for name, lines in files.items():
        for q, d, _rank, score, *_ in lines:
            groups[(name, q)].append((d, score))
    for key in groups:
        groups[key].sort(key=lambda ds: trec_key(ds[0], float(ds[1])))  # stable: file order among equals
        seen: set[str] = set()
        groups[key] = [ds for ds in groups[key] if not (ds[0] in seen or seen.add(ds[0]))]
    return groups


def _write_run_files(root: Path, files: dict, gz: list[bool]) -> list[Path]:
    paths = []
    for (name, lines), packed in zip(files.items(), gz):
        text = "".join(
            f"{q}{sep}Q0{sep}{d}{sep}{rank}{sep}{score}{sep}{tag}{extra}{eol}"
            for q, d, rank, score, tag, extra, sep, eol in lines
        )
        paths.append(write(root / (name + (".gz" if packed else "")), text, gz=packed))
    return paths


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=_run_files(), gz=st.lists(st.booleans(), min_size=3, max_size=3), depth=st.integers(1, 9))
def test_read_runs_property(files, gz, depth):
    expected = _expected(files)
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write_run_files(Path(tmp), files, gz)
        runs = read_runs(paths)
        cut = read_runs(paths, depth=depth)
    assert runs.names == list(files)
    assert runs.topics == sort_topics({q for lines in files.values() for q, *_ in lines})
    got: dict[tuple[str, str], list] = defaultdict(list)
    for name, q, d, k, s in rows(runs):
        got[(name, q)].append((d, k, s))
    assert set(got) == set(expected)
    for key, want in expected.items():
        have = got[key]
        assert [d for d, _, _ in have] == [d for d, _ in want]
        assert [k for _, k, _ in have] == list(range(1, len(want) + 1))
        assert [bits(s) for _, _, s in have] == [bits(float(t)) for _, t in want]
    # Rows are grouped by run (in file order), then topic (in runs.topics order), then rank.
    keys = [(int(r), int(q), int(k)) for r, q, k in zip(runs.run, runs.qid, runs.rank)]
    assert keys == sorted(keys)
    # depth=k keeps exactly the first k of each (run, topic).
    want_cut = [r for r in rows(runs) if r[3] <= depth]
    assert rows(cut) == want_cut
    assert cut.depth == depth


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=_run_files(dups=True), depth=st.one_of(st.none(), st.integers(1, 4)))
def test_read_runs_duplicates_first_property(files, depth):
    expected = _expected(files)
    n_dups = {name: len(lines) - len({(q, d) for q, d, *_ in lines}) for name, lines in files.items()}
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write_run_files(Path(tmp), files, [False, True, False])
        runs = read_runs(paths, duplicates="first", depth=depth)
        if any(n_dups.values()):
            with pytest.raises(TrecFormatError, match="twice"):
                read_runs(paths)
    assert runs.dropped_duplicates == n_dups
    got: dict[tuple[str, str], list] = defaultdict(list)
    for name, q, d, k, s in rows(runs):
        got[(name, q)].append((d, k, s))
    assert set(got) == set(expected)
    for key, want in expected.items():
        want = want[:depth] if depth else want
        assert [(d, k) for d, k, _ in got[key]] == [(d, i + 1) for i, (d, _) in enumerate(want)]
        assert [s for _, _, s in got[key]] == [float(t) for _, t in want]


@st.composite
def _qrels_file(draw):
    qids = draw(st.lists(_qids, min_size=1, max_size=4, unique=True))
    lines = []
    for q in qids:
        docs = draw(st.lists(_ids, min_size=1, max_size=6, unique=True))
        for d in docs:
            lines.append((q, d, draw(st.integers(-3, 5)), draw(st.sampled_from(["0", "Q0", "1"])), draw(_sep),
                          draw(_eol), draw(st.sampled_from(["", " ", "\t"]))))
    order = draw(st.permutations(range(len(lines))))
    return [lines[i] for i in order]


@settings(max_examples=60, deadline=None)
@given(lines=_qrels_file(), gz=st.booleans())
def test_read_qrels_property(lines, gz):
    text = "".join(f"{q}{sep}{it}{sep}{d}{sep}{g}{extra}{eol}" for q, d, g, it, sep, eol, extra in lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "qrels", text, gz=gz)
        qrels = read_qrels(path)
        write_qrels(qrels, Path(tmp) / "q.parquet")
        loaded = load_qrels(Path(tmp) / "q.parquet")
    want = [(q, d, g) for q, d, g, *_ in lines]
    assert qrels_rows(qrels) == want  # file order, every row
    assert qrels_rows(loaded) == want
    assert qrels.topics == sort_topics({q for q, *_ in lines})


@settings(max_examples=40, deadline=None)
@given(files=_run_files(), depth=st.one_of(st.none(), st.integers(1, 5)))
def test_runs_parquet_round_trip_property(files, depth):
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write_run_files(Path(tmp), files, [True, False, True])
        runs = read_runs(paths, depth=depth)
        write_runs(runs, Path(tmp) / "runs.parquet")
        loaded = load_runs(Path(tmp) / "runs.parquet")
    _assert_same_runs(runs, loaded)


@settings(max_examples=200, deadline=None)
@given(
    digits=st.text(alphabet="0123456789", min_size=1, max_size=40),
    point=st.integers(0, 40),
    exponent=st.one_of(st.just(""), st.integers(-330, 310).map(lambda e: f"e{e}")),
    sign=st.sampled_from(["", "-", "+"]),
)
def test_score_parsing_is_correctly_rounded(digits, point, exponent, sign):
    """Any decimal spelling of a score reads as Python's (correctly rounded) float()."""
    p = min(point, len(digits))
    text = f"{sign}{digits[:p]}.{digits[p:]}{exponent}" if p < len(digits) else f"{sign}{digits}{exponent}"
    value = float(text)
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "r", f"1 Q0 d 1 {text} t\n")
        if math.isinf(value):
            with pytest.raises(TrecFormatError, match="overflows"):
                read_runs(path)
            return
        runs = read_runs(path)
    assert bits(float(runs.score[0])) == bits(value)


# ------------------------------------------- fast (Arrow CSV) and general paths agree

_field = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=6)
_score_text = st.one_of(st.sampled_from(["0", "-0", "1", "+2.5", ".5", "5.", "1e-3", "1E+05", "-7.25", "3.0e2",
                                         "0.1", "0.30000000000000004", "1e308", "2e-308"]),
                        st.floats(allow_nan=False, allow_infinity=False).map(repr))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_field, _field, _score_text, _field), min_size=1, max_size=12),
       delimiter=st.sampled_from(["\t", " "]), extra=st.booleans(), final_newline=st.booleans())
def test_fast_columns_equal_the_tokeniser(rows, delimiter, extra, final_newline):
    """Arrow's CSV reader (plain files) reads exactly the qids, docids and scores the
    general numpy tokeniser reads, to the bit."""
    text = "\n".join(delimiter.join([q, "Q0", d, "0", s, t] + (["x"] if extra else [])) for q, d, s, t in rows)
    data = (text + ("\n" if final_newline else "")).encode("utf-8")
    fast = _fast_columns(data)
    general = _general_columns(Path("f"), data)
    assert fast is not None
    assert fast.qid.to_pylist() == general.qid.to_pylist()
    assert fast.docid.to_pylist() == general.docid.to_pylist()
    assert fast.score.tobytes() == general.score.tobytes()
    assert fast.tag == general.tag


@pytest.mark.parametrize("text", ["1 Q0 d 0 1 t\n1 Q0  e 0 2 t\n", " 1 Q0 d 0 1 t\n", "1\tQ0 d\t0\t1\tt\n",
                                  "1 Q0 d 0 1 t\r\n", "1 Q0 d 0 nan t\n", "1 Q0 d 0 1 t\n1 Q0 e 0 2\n",
                                  "1 Q0 d 0 0x1p3 t\n", "1 Q0 d 0 1e999 t\n", "1\t\tQ0\td\t0\t1\tt\n"])
def test_unusual_files_take_the_general_path(text):
    """Doubled or mixed delimiters, leading ones, carriage returns, non-finite or
    non-decimal scores, short lines: the fast path declines, the general path reads or
    words the error with its line."""
    assert _fast_columns(text.encode()) is None


_grade_text = st.one_of(st.sampled_from(["0", "1", "-2", "+3", "007", "-0", "9223372036854775807"]),
                        st.integers(-10**6, 10**6).map(str))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_field, _field, _field, _grade_text), min_size=1, max_size=12),
       delimiter=st.sampled_from(["\t", " "]), extra=st.booleans())
def test_fast_qrels_equal_the_tokeniser(rows, delimiter, extra):
    """Qrels read by Arrow's CSV reader equal the tokeniser's: qids, docids, grades.
    Arrow does not read "+3" as an integer (strtol does): such a file takes the general path."""
    text = "\n".join(delimiter.join([q, it, d, g] + (["x"] if extra else [])) for q, it, d, g in rows) + "\n"
    data = text.encode("utf-8")
    table = arrow_fields(data, QRELS_FIELDS)
    lines = tokenise(data)
    if any(g.startswith("+") for *_, g in rows):
        assert table is None
        return
    assert table is not None
    assert table.column("f0").to_pylist() == utf8_column(Path("q"), lines, 0, "qid").to_pylist()
    assert table.column("f2").to_pylist() == utf8_column(Path("q"), lines, 2, "docid").to_pylist()
    assert table.column("f3").to_pylist() == parse_numbers(Path("q"), lines, 3, "grade", INTEGER,
                                                               np.int64).tolist()
