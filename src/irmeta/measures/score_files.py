"""Bring your own scores: per-topic scores computed elsewhere, read into irmeta's experiments.

Two formats (:func:`read_score_file`):

- ``irmeta``: the TSV of ``irmeta score --per-topic``, a header ``run<TAB>measure<TAB>qid<TAB>value``
  then one row per run, measure and topic; qid ``all`` rows are means. Every measure must
  be one irmeta knows (its own, a plugin's, or one registered with
  :func:`irmeta.measures.plugins.register_imported_measure`).
- ``trec_eval``: the output of ``trec_eval -q``, ``measure qid value`` per line; each run's
  block is its per-topic lines then its summary lines (qid ``all``), where
  ``runid all <name>`` names it. Files may hold several runs' blocks one after another.
  trec_eval's names (``P_10``, ``map``, ``ndcg_cut_10``) become irmeta's (``P@10``, ``AP``,
  ``nDCG@10``); lines of measures irmeta does not know (counts such as ``num_q``,
  ``num_ret``, ``num_rel_ret``, the ``runid`` line itself, strings such as ``relstring``,
  measures such as ``gm_map`` or ``iprec_at_recall_0.00``) are left out and counted.

:func:`scores_from_table` lays such a table out as the :class:`~irmeta.measures.averaging.Scores`
the pipeline scores runs into, so that the experiments read imported scores as they read
their own. Names are read with :func:`~irmeta.measures.names.parse_measure`, which knows
trec_eval's spellings (and :func:`~irmeta.measures.names.trec_eval_name` writes them).

Memory follows the rows, not the text: a file is read a piece of whole lines at a time
(Arrow's CSV reader; the tokeniser, which words faults with their line, for a piece Arrow
cannot read as it does), each row kept as integer codes of its run, measure and topic and
its value (:class:`ScoreRows`, :func:`read_score_rows`, which the pipeline reads), and
laid out from the codes a slice of rows at a time. Only :func:`read_score_file` builds a
text column per row, for people.
"""

from __future__ import annotations

import gzip
import itertools
import logging
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import without_bom
from irmeta.campaign.qrels import sort_topics
from irmeta.campaign.tokens import NUMBER, WHITESPACE, Lines, tokenise, utf8_column
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import AVERAGING_NAMES, Scores, exact_mean
from irmeta.measures.names import measure_label, parse_measure

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("irmeta")

ScoreFormat = Literal["auto", "irmeta", "trec_eval"]
Missing = Literal["error", "zero"]
TopicOrder = Literal["irmeta", "table"]
COLUMNS = ("run", "measure", "qid", "value")
HEADER = "\t".join(COLUMNS)

# ------------------------------------------------------------------ reading files

# Bytes of whole lines read and parsed at a time: a file's rows are kept as codes, never
# its text, so reading takes the memory of its rows' codes and values plus one piece.
PIECE_BYTES = 1 << 25
# Rows laid out (or checked for repeats) at a time: the temporary arrays of a step.
STEP_ROWS = 1 << 22
# Whitespace as the tokenisers read it (tokens.WHITESPACE), for the text of names.
_SPACE = re.compile(r"[\t\n\x0b\x0c\r ]")
_NO_SPACE = r"^[^\t\n\x0b\x0c\r ]+$"


@dataclass(frozen=True)
class ScoreRows:
    """A score table as codes: row ``i`` is run ``runs[run[i]]``, measure
    ``measures[measure[i]]``, topic ``qids[qid[i]]`` (``all``: a mean), value ``value[i]``.
    Each name is held once, each row as integers and a float: what :func:`read_score_rows`
    gives and :func:`score_grid` lays out. ``dropped``: the lines left out (see
    :func:`read_score_file`); ``source``: the file."""

    runs: list[str]
    measures: list[str]
    qids: list[str]
    run: np.ndarray
    measure: np.ndarray
    qid: np.ndarray
    value: np.ndarray
    dropped: dict[str, int] = field(default_factory=dict)
    source: str = ""

    def __len__(self) -> int:
        return len(self.value)

    def per_topic(self) -> np.ndarray | None:
        """Which rows are per-topic (qid other than ``all``); None: every one."""
        if "all" not in self.qids:
            return None
        return self.qid != self.qids.index("all")

    def where(self, keep: np.ndarray) -> ScoreRows:
        """The rows ``keep`` (a mask) picks, with the same names."""
        return ScoreRows(self.runs, self.measures, self.qids, self.run[keep], self.measure[keep], self.qid[keep],
                         self.value[keep], self.dropped, self.source)

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame: run, measure, qid (text) and value (float64)."""
        def text(names: list[str], codes: np.ndarray) -> pa.Array:
            return pa.array(names, pa.large_string()).take(pa.array(codes))

        frame = pa.table({"run": text(self.runs, self.run), "measure": text(self.measures, self.measure),
                          "qid": text(self.qids, self.qid), "value": self.value}).to_pandas()
        frame.attrs["dropped"] = dict(self.dropped)
        frame.attrs["source"] = self.source
        return frame


def read_score_file(path: str | Path, format: ScoreFormat = "auto") -> pd.DataFrame:
    """A scores file (or a directory of them: its non-hidden files, by name) as a table:
    columns run, measure, qid (text) and value (float64), one row per line in file order,
    measures by irmeta's canonical names; qid ``all`` rows are the file's means.

    ``format``: ``irmeta``, ``trec_eval`` or ``auto`` (the irmeta header line, else
    trec_eval); gzip files are read as such. Lines of measures irmeta does not know are
    left out of trec_eval files (see the module docstring): the table's
    ``attrs["dropped"]`` counts them by trec_eval's name (``{"num_q": 3, "runid": 3, ...}``)
    and they are logged; in irmeta files they are an error. A fault is one line naming the
    file, the line and what is wrong: a wrong number of fields, a value that is not a
    finite number, a trec_eval block without its ``runid`` line, a run, measure and topic
    given twice, an unknown measure (irmeta format), an empty file.

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
    dropped: dict[str, int] = {}
    for p in parts:
        for name, n in p.dropped.items():
            dropped[name] = dropped.get(name, 0) + n
    if dropped:
        log.info("%s: left out %d line(s) of measures irmeta does not know (%s)", path, sum(dropped.values()),
                 ", ".join(sorted(dropped)))
    rows.dropped.update(dropped)
    return rows


def _score_paths(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise FileNotFoundError(f"{path}: the directory holds no scores file")
        return files
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file or directory")
    return [path]


class _Names:
    """Names to integer codes, in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.names: list[str] = []

    def codes(self, names: Sequence[str]) -> np.ndarray:
        out = np.empty(len(names), np.int32)
        for i, name in enumerate(names):  # a dictionary's entries, not the lines
            code = self.index.get(name)
            if code is None:
                code = self.index[name] = len(self.names)
                self.names.append(name)
            out[i] = code
        return out


def _text_bytes(path: Path) -> int:
    """The size of a file's text: its own, or a gzip file's uncompressed size as its trailer
    gives it (modulo 4 GiB: at least the compressed size)."""
    size = path.stat().st_size
    with open(path, "rb") as raw:
        if raw.read(2) != b"\x1f\x8b" or size < 8:
            return size
        raw.seek(size - 4)
        return max(size, int.from_bytes(raw.read(4), "little"))


class _Column:
    """An array filled piece by piece in place: its room grows by half when full, and a
    first estimate (:meth:`reserve`) usually leaves it at that; room not filled is never
    written, so it takes no memory."""

    def __init__(self, dtype) -> None:
        self.data = np.empty(0, dtype)
        self.size = 0

    def reserve(self, n: int) -> None:
        if n > len(self.data):
            data = np.empty(n, self.data.dtype)
            data[:self.size] = self.data[:self.size]
            self.data = data

    def add(self, values: np.ndarray) -> None:
        end = self.size + len(values)
        if end > len(self.data):
            self.reserve(max(end, len(self.data) * 3 // 2, 1 << 16))
        self.data[self.size:end] = values
        self.size = end

    def array(self) -> np.ndarray:
        return self.data[:self.size]


class _Book:
    """Every file's rows, end to end: the codes of their runs, measures (by canonical name)
    and topics, and their values. ``text_bytes``: the files' size, to estimate the rows
    from the first piece's."""

    def __init__(self, text_bytes: int) -> None:
        self.runs, self.measures, self.qids = _Names(), _Names(), _Names()
        self.parsed: dict[str, int] = {}  # a name as written -> canonical measure's code, -1 unknown
        self.faults: dict[str, str] = {}  # an unknown name -> why
        self.run, self.measure, self.qid = _Column(np.int32), _Column(np.int32), _Column(np.int32)
        self.value = _Column(np.float64)
        self.text_bytes = text_bytes

    def add(self, run: np.ndarray, measure: np.ndarray, qid: np.ndarray, value: np.ndarray, piece_bytes: int) -> None:
        if not self.value.size and piece_bytes:  # room for the rows the files hold at the first piece's rate
            rows = int(len(value) * (self.text_bytes / piece_bytes) * 1.05) + 1024
            for column in (self.run, self.measure, self.qid, self.value):
                column.reserve(rows)
        for column, values in ((self.run, run), (self.measure, measure), (self.qid, qid), (self.value, value)):
            column.add(values)

    def measure_codes(self, names: Sequence[str]) -> np.ndarray:
        """The canonical measures' codes of names as written, -1 where irmeta knows no such
        measure (:attr:`faults` says why). Parses each distinct name once."""
        out = np.empty(len(names), np.int32)
        for i, name in enumerate(names):
            code = self.parsed.get(name)
            if code is None:
                try:
                    code = int(self.measures.codes([str(parse_measure(name))])[0])
                except ValueError as exc:
                    code = -1
                    self.faults[name] = str(exc)
                self.parsed[name] = code
            out[i] = code
        return out


@dataclass
class _Part:
    """Where one file's rows came from, piece by piece: ``(rows, lines before the piece,
    lines of the piece left out, as 0-based positions among its lines, or None: each
    row's line in the piece)``, so a piece of consecutive lines keeps no line numbers; and
    the lines left out by name."""

    lines: list[tuple[int, int, np.ndarray | None, np.ndarray | None]] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return sum(n for n, _, _, _ in self.lines)

    def line(self, row: int) -> int:
        for n, before, left_out, line in self.lines:
            if row < n:
                if line is not None:
                    return before + int(line[row])
                assert left_out is not None
                kept_before = left_out - np.arange(len(left_out))  # rows before each line left out
                return before + 1 + row + int(np.searchsorted(kept_before, row, side="right"))
            row -= n
        raise IndexError(row)


class _Fault(Exception):
    """A fault of a piece, ranked as a whole-file check finds it: the checks run in rank
    order over every line, so the fault reported is the lowest rank's earliest line."""

    def __init__(self, rank: int, error: TrecFormatError):
        super().__init__(str(error))
        self.rank, self.error = rank, error


class _Faults:
    def __init__(self) -> None:
        self.first: _Fault | None = None

    def add(self, fault: _Fault) -> None:
        if self.first is None or fault.rank < self.first.rank:
            self.first = fault

    def raise_first(self) -> None:
        if self.first is not None:
            raise self.first.error


# ranks of the faults, in the order the whole-file checks find them
_FIELDS, _RUN, _MEASURE, _QID, _UNKNOWN, _NO_RUNID, _VALUE = 0, 1, 3, 5, 7, 7, 8


def _ranked(rank: int, call, *args):
    try:
        return call(*args)
    except TrecFormatError as exc:
        raise _Fault(rank, exc) from None


def _pieces(path: Path) -> Iterator[tuple[bytes, int]]:
    """The file's bytes (gunzipped; without a leading byte-order mark, with a warning),
    whole lines at a time (the last piece may lack its newline), each piece with the
    number of lines before it."""
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        stream = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
        rest, before, first = b"", 0, True
        while True:
            try:
                block = stream.read(PIECE_BYTES)
            except (OSError, EOFError, zlib.error) as exc:
                if not gz:
                    raise
                raise TrecFormatError(path, None, f"corrupt gzip data ({exc})") from exc
            if not block:
                break
            if first:
                block, first = without_bom(path, block), False
            cut = block.rfind(b"\n") + 1
            if not cut:
                rest += block
                continue
            # one copy: the last piece's unfinished line, then this block's whole lines
            piece = b"".join((rest, memoryview(block)[:cut])) if rest or cut < len(block) else block
            rest = block[cut:]
            del block
            yield piece, before
            before += piece.count(b"\n")
        if rest:
            yield rest, before


def _blank(piece: bytes) -> bool:
    return not piece or piece.isspace()


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


def _arrow_tab(piece: bytes, n: int) -> pa.Table | None:
    """The tab-separated fields of a piece by Arrow's CSV reader (the first ``n - 1`` as
    dictionary arrays, the last as text), when its rows are its lines as the tokenisers
    read them: no blank line (the tokenisers skip it, keeping the line count), a carriage
    return only before a newline, ``n`` fields on every line, valid UTF-8, and no byte-order
    mark at its start (which Arrow would drop); None otherwise."""
    if (piece.startswith((b"\n", b"\r\n", b"\xef\xbb\xbf")) or b"\n\n" in piece or b"\n\r\n" in piece
            or (b"\r" in piece and piece.count(b"\r") != piece.count(b"\r\n"))):
        return None
    from pyarrow import csv

    names = [f"f{i}" for i in range(n)]
    types = {name: pa.dictionary(pa.int32(), pa.string()) for name in names[:-1]} | {names[-1]: pa.string()}
    try:
        return csv.read_csv(
            pa.py_buffer(piece),
            read_options=csv.ReadOptions(column_names=names, use_threads=True, block_size=1 << 22),
            parse_options=csv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False, escape_char=False,
                                           newlines_in_values=False, ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                               quoted_strings_can_be_null=False, null_values=[]))
    except pa.ArrowInvalid:
        return None


def _dictionary(column: pa.ChunkedArray | pa.Array) -> tuple[list[str], np.ndarray]:
    """A text column as (its distinct values, each row's index into them)."""
    if isinstance(column, pa.ChunkedArray):
        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        column = column.unify_dictionaries()
        if not column.num_chunks:
            return [], np.zeros(0, np.int32)
        indices = [c.indices.to_numpy(zero_copy_only=False) for c in column.chunks]
        return column.chunk(0).dictionary.to_pylist(), np.concatenate(indices).astype(np.int32, copy=False)
    encoded = column.dictionary_encode()
    return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)


def _numbers(text: pa.ChunkedArray, rows: np.ndarray | None = None) -> np.ndarray | None:
    """The values of a text column (of ``rows``, a mask; NaN elsewhere) when every one of
    them is a finite number as :func:`_values` reads it; None otherwise."""
    number = np.asarray(pc.match_substring_regex(text, NUMBER))
    if not (number if rows is None else number | ~rows).all():
        return None
    try:
        if rows is None:
            values = np.asarray(pc.cast(text, pa.float64()))
        else:
            given = pc.if_else(pa.array(number & rows), text, pa.scalar(None, pa.string()))
            values = pc.cast(given, pa.float64()).to_numpy().astype(np.float64)
    except pa.ArrowInvalid:
        return None
    return values if np.isfinite(values if rows is None else values[rows]).all() else None


def _shifted(lines: Lines, before: int) -> Lines:
    return Lines(lines.buf, lines.starts, lines.ends, lines.first, lines.count, lines.number + before)


# ------------------------------------------------------------------ irmeta's TSV


def _read_irmeta(path: Path, pieces: Iterator[tuple[bytes, int]], book: _Book) -> _Part:
    part, faults, seen = _Part(), _Faults(), 0
    for piece, before in pieces:
        if _blank(piece):
            continue
        try:
            seen += _irmeta_piece(path, piece, before, book, part, keep=faults.first is None)
        except _Fault as fault:
            faults.add(fault)
            seen += 1
    if not seen:
        raise TrecFormatError(path, None, "no scores, only the header")
    faults.raise_first()
    return part


def _irmeta_piece(path: Path, piece: bytes, before: int, book: _Book, part: _Part, keep: bool) -> int:
    """Reads a piece's rows into ``part`` (when ``keep``); the number of its lines."""
    table = _arrow_tab(piece, 4)
    if table is not None:
        (runs, run), (labels, label), (qids, qid) = (_dictionary(table.column(i)) for i in range(3))
        codes = book.measure_codes(labels)
        value = _numbers(table.column(3))
        if value is not None and (codes >= 0).all() and all(runs) and all(labels) and all(qids):
            if keep:
                book.add(book.runs.codes(runs)[run], codes[label], book.qids.codes(qids)[qid], value, len(piece))
                part.lines.append((len(value), before, np.zeros(0, np.int32), None))
            return len(value)
    lines = _shifted(_tab_lines(piece), before)
    if not len(lines.count):
        return 0
    _ranked(_FIELDS, _check_fields, path, lines, 4, "run, measure, qid, value separated by tabs")
    run_text, label_text, qid_text = (_text(path, lines, i, what, rank)
                                      for i, what, rank in ((0, "run", _RUN), (1, "measure", _MEASURE),
                                                            (2, "qid", _QID)))
    labels, label = _dictionary(label_text)
    measure = book.measure_codes(labels)[label]
    if (measure < 0).any():
        bad = int(np.flatnonzero(measure < 0)[0])
        raise _Fault(_UNKNOWN, TrecFormatError(path, int(lines.number[bad]), book.faults[labels[label[bad]]]))
    text = _ranked(_VALUE, utf8_column, path, lines, 3, "value")
    value = _values(path, lines, text, np.ones(len(measure), bool), label_text)
    if keep:
        (runs, run), (qids, qid) = _dictionary(run_text), _dictionary(qid_text)
        book.add(book.runs.codes(runs)[run], measure, book.qids.codes(qids)[qid], value, len(piece))
        part.lines.append((len(value), before, None, lines.number - before))
    return len(lines.count)


# ------------------------------------------------------------------ trec_eval -q


@dataclass
class _TrecLines:
    """A piece of a trec_eval file: per non-blank line, whether its qid is ``all`` and
    whether it is a ``runid`` line, and its line; the names of its runid lines and its
    rows (lines of measures irmeta knows: ``kept``, their codes and values; the lines left
    out as positions, or the rows' lines in the piece: see :class:`_Part`), unless a fault
    in its values (``fault``) left them unread."""

    is_all: np.ndarray
    is_runid: np.ndarray
    line: np.ndarray
    run_names: list[str] | None = None
    kept: np.ndarray | None = None
    measure: np.ndarray | None = None
    qid: np.ndarray | None = None
    value: np.ndarray | None = None
    left_out: np.ndarray | None = None
    kept_lines: np.ndarray | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    fault: _Fault | None = None


def _read_trec_eval(path: Path, pieces: Iterator[tuple[bytes, int]], book: _Book) -> _Part:
    part, faults, blocks = _Part(), _Faults(), _Blocks()
    broken = False  # a fault in the lines' fields: the blocks are not known, nor needed
    start = book.value.size
    for piece, before in pieces:
        if _blank(piece):
            continue
        try:
            got = _trec_eval_fast(piece, before, book) or _trec_eval_piece(path, piece, before, book)
        except _Fault as fault:
            faults.add(fault)
            broken = True
            continue
        if broken:
            continue
        block = blocks.add(got)
        if got.fault is not None:
            faults.add(got.fault)
        if faults.first is None:
            assert got.run_names is not None and got.kept is not None and got.measure is not None
            assert got.qid is not None and got.value is not None
            blocks.names += got.run_names
            book.add(block[got.kept].astype(np.int32), got.measure, got.qid, got.value, len(piece))  # runs: below
            part.lines.append((len(got.kept), before, got.left_out, got.kept_lines))
            for name, n in got.dropped.items():
                part.dropped[name] = part.dropped.get(name, 0) + n
    if not broken:
        unnamed = blocks.unnamed()
        if unnamed is not None:
            faults.add(_Fault(_NO_RUNID, TrecFormatError(
                path, unnamed, "a trec_eval block (per-topic lines, then the run's 'all' lines) without its "
                               "'runid all <name>' line, so its run has no name")))
    faults.raise_first()
    names = book.runs.codes(blocks.names)
    for at in range(start, book.value.size, STEP_ROWS):  # each row's block -> its run, in place
        blocks_of_rows = book.run.data[at:min(at + STEP_ROWS, book.value.size)]
        blocks_of_rows[:] = names[blocks_of_rows]
    return part


class _Blocks:
    """The run blocks of a trec_eval file, read piece by piece (:func:`_blocks` over the
    whole file): a block is per-topic lines then 'all' lines, so one starts at a per-topic
    line after an 'all' line, and at a second ``runid`` line in the same span."""

    def __init__(self) -> None:
        self.after_all = False  # the last line read was an 'all' line
        self.runids = 0  # runid lines in the last line's span so far
        self.block = -1  # the last line's block
        self.first_lines: list[np.ndarray] = []
        self.named: list[np.ndarray] = []  # the blocks of the runid lines
        self.names: list[str] = []  # the runid lines' names, in block order

    def add(self, got: _TrecLines) -> np.ndarray:
        """Each line's block."""
        is_all, is_runid = got.is_all, got.is_runid
        after_all = np.empty(len(is_all), bool)
        after_all[0] = self.after_all and not is_all[0]
        after_all[1:] = ~is_all[1:] & is_all[:-1]
        span_start = after_all.copy()
        span_start[0] = True
        span = np.cumsum(span_start) - 1
        seen = np.cumsum(is_runid)
        in_span = seen - (seen - is_runid)[span_start][span]
        if not after_all[0]:
            in_span[span == 0] += self.runids
        starts = after_all | (is_runid & (in_span >= 2))
        if self.block < 0:
            starts[0] = True
        block = self.block + np.cumsum(starts)
        self.first_lines.append(got.line[starts])
        self.named.append(block[is_runid])
        self.after_all, self.runids, self.block = bool(is_all[-1]), int(in_span[-1]), int(block[-1])
        return block

    def unnamed(self) -> int | None:
        """The first line of the first block without a runid line (None: every one has one)."""
        named = np.bincount(np.concatenate(self.named), minlength=self.block + 1) if self.named else (
            np.zeros(self.block + 1, int))
        if (named > 0).all():
            return None
        return int(np.concatenate(self.first_lines)[int(np.flatnonzero(named == 0)[0])])


def _trec_eval_fast(piece: bytes, before: int, book: _Book) -> _TrecLines | None:
    """A piece as trec_eval writes it (``name<spaces><TAB>qid<TAB>value``) by Arrow's CSV
    reader; None when the tokeniser must read it."""
    table = _arrow_tab(piece, 3)
    if table is None:
        return None
    written, name = _dictionary(table.column(0))
    names = [x.rstrip(" \x0b\x0c") for x in written]  # trec_eval pads names with spaces
    qids, qid = _dictionary(table.column(1))
    if any(not x or _SPACE.search(x) for x in names + qids):
        return None
    codes = book.measure_codes(names)
    measure = codes[name]
    known = measure >= 0
    text = table.column(2)
    value = _numbers(text, known)
    if value is None:
        return None
    if not known.all() and not pc.all(pc.match_substring_regex(text.filter(pa.array(~known)), _NO_SPACE)).as_py():
        return None
    is_all = np.array([q == "all" for q in qids], bool)[qid]
    is_runid = is_all & np.array([x == "runid" for x in names], bool)[name]
    kept = np.flatnonzero(known)
    counts = np.bincount(name[~known], minlength=len(names))
    dropped: dict[str, int] = {}
    for i in np.flatnonzero(counts):
        dropped[names[i]] = dropped.get(names[i], 0) + int(counts[i])
    return _TrecLines(is_all, is_runid, before + 1 + np.arange(len(name)), text.filter(pa.array(is_runid)).to_pylist(),
                      kept, measure[kept], book.qids.codes(qids)[qid[kept]], value[kept],
                      left_out=np.flatnonzero(~known).astype(np.int32), dropped=dropped)


def _trec_eval_piece(path: Path, piece: bytes, before: int, book: _Book) -> _TrecLines:
    """A piece by the tokeniser (any whitespace between fields), its faults worded."""
    lines = _shifted(tokenise(piece), before)
    _ranked(_FIELDS, _check_fields, path, lines, 3, "measure qid value, as trec_eval -q prints them")
    name, qid = _text(path, lines, 0, "measure", _MEASURE), _text(path, lines, 1, "qid", _QID)
    is_all = pc.equal(qid, "all").to_numpy(zero_copy_only=False)
    got = _TrecLines(is_all, is_all & pc.equal(name, "runid").to_numpy(zero_copy_only=False), lines.number)
    try:
        text = _ranked(_VALUE, utf8_column, path, lines, 2, "value")
        names, index = _dictionary(name)
        measure = book.measure_codes(names)[index]
        known = measure >= 0
        value = _values(path, lines, text, known, name)
    except _Fault as fault:
        got.fault = fault
        return got
    got.run_names = text.filter(pa.array(got.is_runid)).to_pylist()
    got.kept = np.flatnonzero(known)
    got.kept_lines = lines.number[got.kept] - before
    got.measure, got.value = measure[got.kept], value[got.kept]
    qids, q = _dictionary(qid.filter(pa.array(known)))
    got.qid = book.qids.codes(qids)[q]
    left_out = pc.value_counts(name.filter(pa.array(~known))).to_pylist()
    got.dropped = {d["values"]: int(d["counts"]) for d in left_out}
    return got


# ------------------------------------------------------------------ the tokenisers' checks


def _tab_lines(data: bytes) -> Lines:
    """Tab-separated fields of every non-blank line (a trailing carriage return dropped), as
    :class:`~irmeta.campaign.tokens.Lines`: only tabs separate, since a run's name (its
    file's) may hold a space."""
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == 10)
    begin = np.concatenate(([0], newlines + 1))
    end = np.concatenate((newlines, [len(buf)]))
    end = end - ((end > begin) & (buf[np.maximum(end - 1, 0)] == 13))
    solid = np.concatenate(([0], np.cumsum(~WHITESPACE[buf])))
    kept = np.flatnonzero(solid[end] > solid[begin])
    begin, end = begin[kept], end[kept]
    tabs = np.flatnonzero(buf == 9)
    line_of_tab = np.searchsorted(begin, tabs, side="right") - 1
    inside = (line_of_tab >= 0) & (tabs < end[np.maximum(line_of_tab, 0)])
    tabs, line_of_tab = tabs[inside], line_of_tab[inside]
    count = np.bincount(line_of_tab, minlength=len(begin)) + 1
    # tokens are disjoint and in order, so their sorted starts and sorted ends pair up
    starts, ends = np.sort(np.concatenate((begin, tabs + 1))), np.sort(np.concatenate((tabs, end)))
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    return Lines(buf, starts, ends, first, count, kept + 1)


def _check_fields(path: Path, lines: Lines, n: int, layout: str) -> None:
    if not len(lines.count):
        raise TrecFormatError(path, None, "empty file")
    bad = np.flatnonzero(lines.count != n)
    if len(bad):
        raise TrecFormatError(path, int(lines.number[bad[0]]),
                              f"{int(lines.count[bad[0]])} fields, expected {n} ({layout})")


def _text(path: Path, lines: Lines, i: int, what: str, rank: int) -> pa.Array:
    """Field ``i`` of every line as text; not UTF-8 is a fault of ``rank``, empty of the next."""
    text = _ranked(rank, utf8_column, path, lines, i, what)
    empty = np.flatnonzero(pc.equal(pc.binary_length(text), 0).to_numpy(zero_copy_only=False))
    if len(empty):
        raise _Fault(rank + 1, TrecFormatError(path, int(lines.number[empty[0]]), f"empty {what}"))
    return text


def _values(path: Path, lines: Lines, text: pa.Array, check: np.ndarray, measure: pa.Array) -> np.ndarray:
    """The value column as float64 where ``check`` (NaN elsewhere); a value there that is
    not a finite number is a fault naming its line and measure."""
    number = pc.match_substring_regex(text, NUMBER).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(check & ~number)
    if len(bad):
        raise _Fault(_VALUE + 1, TrecFormatError(
            path, int(lines.number[bad[0]]),
            f"value {text[bad[0]].as_py()!r} of {measure[bad[0]].as_py()} is not a finite number"))
    values = pc.cast(pc.if_else(pa.array(number), text, pa.scalar(None, pa.large_string())), pa.float64())
    out = values.to_numpy(zero_copy_only=False).astype(np.float64)
    overflow = np.flatnonzero(check & ~np.isfinite(out))
    if len(overflow):
        raise _Fault(_VALUE + 2, TrecFormatError(path, int(lines.number[overflow[0]]),
                                                 f"value {text[overflow[0]].as_py()!r} overflows a double"))
    return out


def _refuse_repeats(files: list[Path], parts: list[_Part], rows: ScoreRows) -> None:
    """A (run, measure, qid) given twice is an error at its second line, naming the first.
    Looked for with a flag per possible key (or a sort, when they are too many); only a
    repeat found costs a sort of the keys, to name the lines."""
    n, shape = len(rows), (len(rows.runs), len(rows.measures), len(rows.qids))
    size = shape[0] * shape[1] * shape[2]

    def keys(start: int, stop: int) -> np.ndarray:
        return (rows.run[start:stop].astype(np.int64) * shape[1] + rows.measure[start:stop]) * shape[2] + \
            rows.qid[start:stop]

    if size <= max(8 * n, 1 << 20):
        flags = np.zeros(size, bool)
        for start in range(0, n, STEP_ROWS):
            flags[keys(start, start + STEP_ROWS)] = True
        if np.count_nonzero(flags) == n:
            return
        del flags
    elif not (np.diff(np.sort(keys(0, n))) == 0).any():
        return
    key = keys(0, n)
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(np.diff(key[order]) == 0)
    at = int(np.argmin(order[same + 1]))  # the earliest second occurrence, in file order
    first, second = (_file_line(parts, int(order[same[at] + k])) for k in (0, 1))
    where = f"line {first[1]}" if first[0] == second[0] else f"{files[first[0]]}:{first[1]}"
    row = int(order[same[at] + 1])
    raise TrecFormatError(files[second[0]], second[1],
                          f"run {rows.runs[rows.run[row]]} scores {rows.measures[rows.measure[row]]} on topic "
                          f"{rows.qids[rows.qid[row]]} twice (also on {where})")


def _file_line(parts: list[_Part], row: int) -> tuple[int, int]:
    """The file (its index) and line of a row of the files' rows end to end."""
    for i, part in enumerate(parts):
        n = part.rows
        if row < n:
            return i, part.line(row)
        row -= n
    raise IndexError(row)


# ------------------------------------------------------------------ tables to arrays


@dataclass(frozen=True)
class ScoreGrid:
    """The per-topic rows of a score table as arrays: ``values`` (labels, runs, topics), 0
    where ``present`` (same shape) says the table has no row."""

    runs: list[str]
    topics: list[str]
    labels: list[str]
    values: np.ndarray
    present: np.ndarray


def table_labels(table: pd.DataFrame | ScoreRows, source: str = "scores") -> list[str]:
    """The canonical measure labels of a score table's per-topic rows, in first-appearance order."""
    rows = _score_rows(table, source)
    return _Labels(rows, rows.per_topic(), source).have


def score_grid(table: pd.DataFrame | ScoreRows, labels: Sequence[str] | None = None, *, missing: Missing = "error",
               source: str = "scores", topic_order: TopicOrder = "irmeta") -> ScoreGrid:
    """The per-topic rows (qid other than ``all``) of a table with columns run, measure, qid,
    value (or of :class:`ScoreRows`), as (labels, runs, topics) arrays: the one place score
    tables are pivoted and checked. ``labels``: measure labels as
    :func:`~irmeta.measures.names.measure_label` writes them (any spelling; default: every
    one the table has).

    Runs in first-appearance order; topics every per-topic qid of the table, in irmeta's
    topic order (``irmeta``: numeric when all are integers, as the qrels order the
    pipeline's scores) or first-appearance order (``table``). A run without a row for a
    topic: ``missing="error"`` refuses it, ``"zero"`` scores it 0, except for measures for
    which lower is better (0 would be their best score) and for a run with no row of a
    measure at all. Errors are one line naming ``source``, the measure, run and topic.

    Laid out from integer codes a slice of rows at a time: memory is the arrays' and the
    rows' codes, not a text column per row.
    """
    if missing not in ("error", "zero"):
        raise ValueError(f"missing must be 'error' or 'zero', not {missing!r}")
    rows = _score_rows(table, source)
    mask = rows.per_topic()
    found = _Labels(rows, mask, source)
    run_codes = _in_order(rows.run, len(rows.runs), mask)
    qid_codes = _in_order(rows.qid, len(rows.qids), mask)
    runs = [rows.runs[c] for c in run_codes]
    topics = [rows.qids[c] for c in qid_codes]
    if topic_order == "irmeta":
        at = {t: i for i, t in enumerate(topics)}
        topics = sort_topics(topics)
        qid_codes = qid_codes[[at[t] for t in topics]]
    wanted = found.have if labels is None else list(dict.fromkeys(_label(x, source) for x in labels))
    absent = [x for x in wanted if x not in set(found.have)]
    if absent:
        have = found.have
        raise ValueError(f"{source}: no per-topic scores of {absent[0]} (it has per-topic scores of "
                         f"{', '.join(have) if have else 'no measure'})")
    block = np.full(len(rows.measures), -1, np.int64)
    for code, label in enumerate(found.label_of):
        if label is not None and label in wanted:
            block[code] = wanted.index(label)
    run_at, qid_at = _positions(run_codes, len(rows.runs)), _positions(qid_codes, len(rows.qids))
    grid = ScoreGrid(runs, topics, wanted, np.zeros((len(wanted), len(runs), len(topics))),
                     np.zeros((len(wanted), len(runs), len(topics)), bool))
    values, present = grid.values.reshape(-1), grid.present.reshape(-1)
    chosen, nan = 0, None
    for cell, value in _cells(rows, mask, block, run_at, qid_at, grid.values.shape):
        if nan is None and np.isnan(value).any():
            nan = int(cell[np.flatnonzero(np.isnan(value))[0]])
        values[cell] = value
        present[cell] = True
        chosen += len(cell)
    if np.count_nonzero(present) != chosen:
        label, run, topic = _cell(grid, _first_repeat(_cells(rows, mask, block, run_at, qid_at, grid.values.shape),
                                                      len(present)))
        raise ValueError(f"{source}: {label}: run {run} has two scores on topic {topic}")
    if nan is not None:
        label, run, topic = _cell(grid, nan)
        raise ValueError(f"{source}: {label}: the score of run {run} on topic {topic} is not a number")
    _check_holes(grid, missing, source)
    return grid


def _score_rows(table: pd.DataFrame | ScoreRows, source: str) -> ScoreRows:
    """:class:`ScoreRows` as they are; a DataFrame's per-topic rows as codes (run and qid as
    text, values as numbers)."""
    if isinstance(table, ScoreRows):
        return table
    import pandas as pd

    lacking = [c for c in COLUMNS if c not in table.columns]
    if lacking:
        raise ValueError(f"{source}: no column {', '.join(lacking)} (it needs {', '.join(COLUMNS)})")
    qid = table["qid"].astype(str)
    per_topic = (qid != "all").to_numpy()
    rows = table[per_topic]
    (runs, run), (measures, measure), (qids, q) = (
        _factorized(column) for column in (rows["run"].astype(str), rows["measure"].astype(str), qid[per_topic]))
    return ScoreRows(runs, measures, qids, run, measure, q,
                     pd.to_numeric(rows["value"]).to_numpy(dtype=np.float64), source=source)


def _factorized(column: pd.Series) -> tuple[list[str], np.ndarray]:
    import pandas as pd

    codes, names = pd.factorize(column, use_na_sentinel=False)
    return list(names), codes


class _Labels:
    """The canonical label of each measure code of a table's per-topic rows (None: a code
    on no per-topic row), and the labels in first-appearance order; a name irmeta does not
    know is an error naming ``source`` (the first such in that order)."""

    def __init__(self, rows: ScoreRows, mask: np.ndarray | None, source: str):
        self.label_of: list[str | None] = [None] * len(rows.measures)
        have: dict[str, None] = {}
        for code in _in_order(rows.measure, len(rows.measures), mask):
            label = self.label_of[code] = _label(rows.measures[code], source)
            have[label] = None
        self.have = list(have)


def _in_order(codes: np.ndarray, n: int, mask: np.ndarray | None) -> np.ndarray:
    """The codes on the rows ``mask`` picks (None: every row), in order of first appearance."""
    first = np.full(n, len(codes), np.int64)
    for start in range(0, len(codes), STEP_ROWS):
        part = codes[start:start + STEP_ROWS]
        rows = np.arange(start, start + len(part))
        if mask is not None:
            picked = mask[start:start + STEP_ROWS]
            part, rows = part[picked], rows[picked]
        np.minimum.at(first, part, rows)
    found = np.flatnonzero(first < len(codes))
    return found[np.argsort(first[found], kind="stable")]


def _positions(codes: np.ndarray, n: int) -> np.ndarray:
    """Each code's position in ``codes`` (-1: not there)."""
    at = np.full(n, -1, np.int64)
    at[codes] = np.arange(len(codes))
    return at


def _cells(rows: ScoreRows, mask: np.ndarray | None, block: np.ndarray, run_at: np.ndarray, qid_at: np.ndarray,
           shape: tuple[int, ...]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per slice of rows, the flat cells of (labels, runs, topics) of the chosen rows (per
    topic, of a wanted measure), and their values."""
    for start in range(0, len(rows), STEP_ROWS):
        stop = start + STEP_ROWS
        b = block[rows.measure[start:stop]]
        chosen = b >= 0
        if mask is not None:
            chosen &= mask[start:stop]
        cell = (b[chosen] * shape[1] + run_at[rows.run[start:stop][chosen]]) * shape[2] + \
            qid_at[rows.qid[start:stop][chosen]]
        yield cell, rows.value[start:stop][chosen]


def _first_repeat(cells: Iterator[tuple[np.ndarray, np.ndarray]], size: int) -> int:
    """The cell of the first row whose cell an earlier row has."""
    seen = np.zeros(size, bool)
    for cell, _ in cells:
        order = np.argsort(cell, kind="stable")
        again = np.zeros(len(cell), bool)
        again[order[1:][np.diff(cell[order]) == 0]] = True
        again |= seen[cell]
        if again.any():
            return int(cell[np.flatnonzero(again)[0]])
        seen[cell] = True
    raise AssertionError("no repeated cell")


def _label(text: str, source: str) -> str:
    try:
        return str(parse_measure(text))
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def _cell(grid: ScoreGrid, cell: int) -> tuple[str, str, str]:
    """The (label, run, topic) of a flat index into ``grid.values``."""
    label, run, topic = (int(i) for i in np.unravel_index(cell, grid.values.shape))
    return grid.labels[label], grid.runs[run], grid.topics[topic]


def _check_holes(grid: ScoreGrid, missing: Missing, source: str) -> None:
    holes = np.flatnonzero(~grid.present.reshape(-1))
    if not len(holes):
        return
    name, run_name, qid = _cell(grid, int(holes[0]))
    if missing == "error":
        raise ValueError(f"{source}: {name}: no score of run {run_name} on topic {qid} (every run needs a score "
                         f"on every topic: trec_eval -c gives one; missing='zero' scores a missing topic 0)")
    lower = [i for i, x in enumerate(grid.labels) if not parse_measure(x).higher_is_better
             and not grid.present[i].all()]
    if lower:
        i = lower[0]
        run, topic = (int(j) for j in np.argwhere(~grid.present[i])[0])
        raise ValueError(f"{source}: {grid.labels[i]}: no score of run {grid.runs[run]} on topic {grid.topics[topic]}, "
                         f"and missing='zero' cannot score it 0: lower is better for {grid.labels[i]}, so 0 would be "
                         f"its best score (give every run a score on every topic, e.g. trec_eval -c)")
    none = np.argwhere(~grid.present.any(axis=2))
    if len(none):
        label, run = (int(j) for j in none[0])
        raise ValueError(f"{source}: {grid.labels[label]}: no score of run {grid.runs[run]} on any topic")


def scores_from_table(table: pd.DataFrame | ScoreRows, measures: Sequence[str], alphas: Sequence[Alpha], *,
                      missing: Missing = "error", source: str = "scores") -> Scores:
    """Per-topic scores of a table (columns run, measure, qid, value; e.g. from
    :func:`read_score_file`; or :class:`ScoreRows`, from :func:`read_score_rows`) as the
    :class:`Scores` the pipeline writes to ``scores.npz``.

    Blocks as :func:`~irmeta.measures.averaging.score_arrays` lays them out: each measure as
    config names it (``P@100``), and a measure that takes alpha once per alpha of
    ``alphas`` (or the one its name fixes), read from the table's label
    ``P_rareness(alpha=0.5)@100``. Runs in the table's order; topics every per-topic qid of
    the table in irmeta's topic order (the order the pipeline gives the qrels' topics, so
    that the randomised experiments draw the same topics for the same scores). A missing
    score: see :func:`score_grid` (``missing``).

    Means: ``all_topics`` over every topic (a missing one 0 with ``missing="zero"``, as
    trec_eval -c), ``returned_topics`` over the topics the table scores the run on, both
    sorted sums (:func:`~irmeta.measures.averaging.exact_mean`). The table's ``all`` rows
    are not read: trec_eval without -c averages over a run's own topics, a different set.
    Means of the precision family may differ in the last bit from irmeta's own, which come
    from integer totals.
    """
    names, alpha_labels, labels = [], [], []
    for item in measures:
        m = parse_measure(item)
        own = ([m.alpha] if m.alpha is not None else list(alphas)) if m.uses_alpha else [None]
        for a in own:
            names.append(str(m.without_alpha()))
            alpha_labels.append(None if a is None else alpha_label(a))
            labels.append(measure_label(m.without_alpha(), a))
    grid = score_grid(table, labels, missing=missing, source=source)
    at = [grid.labels.index(x) for x in labels]
    if at == list(range(len(grid.labels))):  # each block once, in order: no copy
        per_topic, present = grid.values, grid.present
    else:
        per_topic, present = grid.values[at], grid.present[at]
    return Scores(runs=grid.runs, topics=grid.topics, measures=names, alphas=alpha_labels, per_topic=per_topic,
                  means={AVERAGING_NAMES["all"]: _means(per_topic),
                         AVERAGING_NAMES["returned"]: _means(per_topic, present)})


def _means(values: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    """:func:`exact_mean` of (blocks, runs, topics) block by block: the same numbers, with one
    block's temporary arrays at a time."""
    out = np.zeros(values.shape[:-1])
    for i, block in enumerate(values):
        out[i] = exact_mean(block, None if present is None else present[i])
    return out
