"""One run file read in blocks of lines, for a file whose whole reading would not fit a
job's memory budget (:mod:`irmeta.campaign.ingest_parts`): the file is gunzipped and
parsed a block of lines at a time, and each topic, once the file has moved past it, is
put in trec_eval's order, rid of its duplicates and cut at the depth on its own
(:func:`~irmeta.campaign.runs.ordered_run`, whose work is topic by topic). The pieces
are the run read whole, topic for topic: the same ranks, scores and dropped duplicates.

Memory holds a block of lines and the rows of the topic the block ends in, whatever the
file's size. A TREC run lists each topic's lines together; a file that lists a topic in
two places cannot be read this way (its first place would be cut before its second is
read) and says so (:class:`TopicsNotGrouped`), for its reader to read it whole.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import run_name_from_path, without_bom
from irmeta.campaign.runs import (
    DuplicatePolicy,
    RunColumns,
    RunFile,
    RunNameSource,
    ScorePrecision,
    ordered_run,
    run_columns,
)

_GZIP = b"\x1f\x8b"
_READ = 1 << 20  # bytes read from the file at a time, blocks of lines aside


class TopicsNotGrouped(Exception):
    """The file lists ``topic`` in two places (again on ``line``)."""

    def __init__(self, path: str | Path, topic: str, line: int):
        self.path, self.topic, self.line = str(path), topic, line
        super().__init__(f"{path}:{line}: topic {topic} again, after other topics")


def line_blocks(path: str | Path, lines: int) -> Iterator[tuple[bytes, int]]:
    """The file's content (gunzipped when it starts with the gzip magic number, a leading
    byte-order mark dropped as :func:`~irmeta.campaign.files.read_bytes` and
    :func:`~irmeta.campaign.files.without_bom` do) in blocks of ``lines`` whole lines
    (blank ones counted; the last block may be shorter), each with the number of lines
    before it."""
    if lines < 1:
        raise ValueError(f"a block holds at least one line, not {lines}")
    with open(path, "rb") as raw:
        zipped = raw.read(2) == _GZIP
    before, kept, newlines, first = 0, [], 0, True
    with gzip.open(path, "rb") if zipped else open(path, "rb") as stream:
        while True:
            try:
                data = stream.read(max(_READ, min(lines, 1 << 20) * 64))
            except (OSError, EOFError, zlib.error) as exc:
                raise TrecFormatError(path, None, f"corrupt gzip data ({exc})") from exc
            if first:
                data, first = without_bom(path, data), False
            if not data:
                break
            kept.append(data)
            newlines += data.count(b"\n")
            if newlines < lines:
                continue
            whole = b"".join(kept)
            ends = np.flatnonzero(np.frombuffer(whole, dtype=np.uint8) == 10)[lines - 1::lines] + 1
            start = 0
            for end in ends.tolist():
                yield whole[start:end], before
                before, start = before + lines, end
            kept, newlines = ([whole[start:]], newlines - len(ends) * lines) if start < len(whole) else ([], 0)
    rest = b"".join(kept)
    if rest:
        yield rest, before


def _line_numbers(data: bytes, columns: RunColumns, before: int) -> np.ndarray:
    """Each row's 1-based line in the file: the tokeniser's, or (Arrow's reader keeps
    none) the non-empty lines', which are its rows."""
    if columns.line is not None:
        return columns.line.astype(np.int64) + before
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], ends + 1))
    filled = np.flatnonzero(np.append(ends, len(buf)) > starts)
    return filled.astype(np.int64) + (before + 1)


def _rows(path: str | Path, data: bytes, before: int) -> tuple[RunColumns, np.ndarray] | None:
    """A block's columns and lines (None for a block of blank lines), an error's line
    counted from the file's start."""
    if not data or data.isspace():
        return None
    try:
        columns = run_columns(Path(path), data)
    except TrecFormatError as exc:
        raise TrecFormatError(path, None if exc.line is None else exc.line + before, exc.reason) from None
    line = _line_numbers(data, columns, before)
    if len(line) != len(columns.score):  # not for Arrow's plain lines, which are its rows: the tokeniser's own
        columns = run_columns(Path(path), data, numbered=True)
        line = _line_numbers(data, columns, before)
    return columns, line


def read_run_pieces(path: str | Path, run_name: RunNameSource, depth: int | None, duplicates: DuplicatePolicy,
                    score_precision: ScorePrecision = "double", *, lines: int) -> Iterator[RunFile]:
    """The run in ``path`` as pieces, each every row of the topics it holds, in trec_eval's
    order and cut at ``depth`` (:func:`~irmeta.campaign.runs.ordered_run`), the file read
    ``lines`` lines at a time (:func:`line_blocks`); every piece is named as the whole
    file would be. Errors name the file's line as reading it whole does; a topic listed
    in two places raises :class:`TopicsNotGrouped`."""
    name = run_name_from_path(path) if run_name == "file" else None
    tag = ""
    held: list[tuple[pa.Array, pa.Array, np.ndarray, np.ndarray]] = []  # rows of the topic the last block ended in
    held_topic: str | None = None
    done: set[str] = set()
    any_rows = False

    def piece(qid: pa.Array, docid: pa.Array, score: np.ndarray, line: np.ndarray) -> RunFile:
        topics = pc.unique(qid).to_pylist()
        again = [t for t in topics if t in done]
        if again:
            raise TopicsNotGrouped(path, again[0], int(line[np.flatnonzero(np.asarray(pc.equal(qid, again[0])))[0]]))
        done.update(topics)
        return ordered_run(RunColumns(qid, docid, score, tag, line), name or tag, Path(path), depth, duplicates,
                           lambda: line, score_precision=score_precision)

    def joined() -> tuple[pa.Array, pa.Array, np.ndarray, np.ndarray]:
        return (pa.concat_arrays([h[0] for h in held]), pa.concat_arrays([h[1] for h in held]),
                np.concatenate([h[2] for h in held]), np.concatenate([h[3] for h in held]))

    for data, before in line_blocks(path, lines):
        rows = _rows(path, data, before)
        if rows is None:
            continue
        columns, line = rows
        if not any_rows:
            tag, any_rows = columns.tag, True
        qid = columns.qid.cast(pa.large_string())
        docid = columns.docid.cast(pa.large_string())
        held.append((qid, docid, columns.score, line))
        if held_topic is not None and pc.all(pc.equal(qid, held_topic)).as_py():
            continue  # still the topic the previous block ended in
        qid, docid, score, line = joined()
        last = qid[-1].as_py()
        if last in done:
            raise TopicsNotGrouped(path, last, int(line[-1]))
        is_last = np.asarray(pc.equal(qid, last))
        if is_last.all():
            held, held_topic = [(qid, docid, score, line)], last
            continue
        others = pa.array(~is_last)
        held = [(qid.filter(pa.array(is_last)), docid.filter(pa.array(is_last)), score[is_last], line[is_last])]
        held_topic = last
        yield piece(qid.filter(others), docid.filter(others), score[~is_last], line[~is_last])
    if not any_rows:
        raise TrecFormatError(path, None, "empty file")
    yield piece(*joined())
