"""Scores files read: :func:`read_score_file` (a table, for people) and
:func:`read_score_rows` (:class:`~irmeta.measures.score_files.rows.ScoreRows`, codes)."""

from __future__ import annotations

import dataclasses
import itertools
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from irmeta.campaign.errors import TrecFormatError
from irmeta.measures.score_files.formats import _file_line, _read_irmeta, _read_trec_eval, _refuse_repeats
from irmeta.measures.score_files.pieces import _blank, _Book, _Part, _pieces, _text_bytes
from irmeta.measures.score_files.rows import HEADER, MeanRows, ScoreFormat, ScoreRows

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("irmeta")


def read_score_file(path: str | Path, format: ScoreFormat = "auto") -> pd.DataFrame:
    """A scores file (or a directory of them: its non-hidden files, by name) as a table:
    columns run, measure, qid (text) and value (float64), one row per line in file order,
    measures by irmeta's canonical names; qid ``all`` rows are the file's means.

    ``format``: ``irmeta``, ``trec_eval`` or ``auto`` (the irmeta header line, else
    trec_eval); gzip files are read as such. Lines of measures irmeta does not know are
    left out of trec_eval files (see the module docstring): the table's
    ``attrs["dropped"]`` counts them by trec_eval's name (``{"num_q": 3, "runid": 3, ...}``)
    and they are logged; in irmeta files they are an error, except the geometric means'
    rows (``gm_<measure>``, qid ``all``: ``irmeta score --average geometric``), left out and
    counted as trec_eval's ``gm_map`` is. A fault is one line naming the
    file, the line and what is wrong: a wrong number of fields, a value that is not a
    finite number, a trec_eval block without its ``runid`` line, a run, measure and topic
    given twice, an unknown measure (irmeta format), an empty file, a score no score of
    its measure can be (outside its range, or a per-topic P@k, RR@k or Success@k off its
    grid, within the precision it was printed with: :mod:`.bounds`).

    The rows as codes, without a text column per row: :func:`read_score_rows`.
    """
    return read_score_rows(path, format).frame()


def read_score_rows(path: str | Path, format: ScoreFormat = "auto") -> ScoreRows:
    """The rows :func:`read_score_file` reads, as :class:`ScoreRows`: each run, measure and
    topic name once, a code per row. Files are read a piece of whole lines at a time
    (Arrow's CSV reader, or, for a piece it cannot read as the tokenisers do, the tokeniser,
    which words the fault with its line); a fault in several pieces is the one a whole-file
    check finds first."""
    if format not in ("auto", "irmeta", "trec_eval"):
        raise ValueError(f"scores file format must be auto, irmeta or trec_eval, not {format!r}")
    files = _score_paths(Path(path))
    book = _Book(sum(_text_bytes(p) for p in files))
    parts = [_read_one(p, format, book) for p in files]
    rows = ScoreRows(runs=book.runs.names, measures=book.measures.names, qids=book.qids.names,
                     run=book.run.array(), measure=book.measure.array(), qid=book.qid.array(),
                     value=book.value.array(), source=str(path))
    _refuse_repeats(files, parts, rows)
    if book.misfit is not None:  # an impossible score: outside its measure's range, or off its grid
        row, decimals = book.misfit
        at, line = _file_line(parts, row)
        raise TrecFormatError(files[at], line, book.bounds.reason(rows, row, decimals))
    rows = dataclasses.replace(rows, means=_mean_rows(files, parts, rows, book))
    dropped: dict[str, int] = {}
    for p in parts:
        for name, n in p.dropped.items():
            dropped[name] = dropped.get(name, 0) + n
    if dropped:
        log.info("%s: left out %d line(s) of measures irmeta does not know (%s)", path, sum(dropped.values()),
                 ", ".join(sorted(dropped)))
    rows.dropped.update(dropped)
    return rows


def _mean_rows(files: list[Path], parts: list[_Part], rows: ScoreRows, book: _Book) -> MeanRows:
    """The mean rows, each with the decimals its text printed and its file and line."""
    at = book.mean_row.array()
    where = np.empty(len(at), object)
    first = 0
    for path, part in zip(files, parts):
        here = (at >= first) & (at < first + part.rows)
        where[here] = [f"{path}:{line}" for line in part.lines_of(at[here] - first).tolist()]
        first += part.rows
    return MeanRows(runs=[rows.runs[c] for c in rows.run[at].tolist()],
                    labels=[rows.measures[c] for c in rows.measure[at].tolist()],
                    value=rows.value[at], decimals=book.mean_decimals.array(), where=where.tolist())


def _score_paths(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise FileNotFoundError(f"{path}: the directory holds no scores file")
        return files
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file or directory")
    return [path]


def _read_one(path: Path, format: ScoreFormat, book: _Book) -> _Part:
    pieces = _pieces(path)
    piece, before = next(pieces, (b"", 0))
    end = piece.find(b"\n")
    first = (piece if end < 0 else piece[:end]).rstrip(b"\r")
    start = [(piece, before)]
    while _blank(piece):  # a file of blank lines is empty, whatever its format
        piece, before = next(pieces, (b"", -1))
        if before < 0:
            raise TrecFormatError(path, None, "empty file")
        start = [(piece, before)]
    if format == "irmeta" or (format == "auto" and first == HEADER.encode()):
        if first != HEADER.encode():
            for _ in pieces:  # a gzip file's corrupt data is its first fault, as when read whole
                pass
            raise TrecFormatError(path, 1, "expected the header run<TAB>measure<TAB>qid<TAB>value "
                                           "(irmeta score --per-topic's TSV)")
        start = [(piece[end + 1:] if end >= 0 else b"", before + 1)]  # the header is line 1 of the first piece
        return _read_irmeta(path, itertools.chain(start, pieces), book)
    return _read_trec_eval(path, itertools.chain(start, pieces), book)
