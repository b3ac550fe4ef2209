"""Reading helpers both formats share: a file read a piece of whole lines at a time, the
rows kept as codes (:class:`_Book`), where they came from (:class:`_Part`), ranked faults
and Arrow's readers.

Memory follows the rows, not the text: a file is read a piece of whole lines at a time
(Arrow's CSV reader; the tokeniser, which words faults with their line, for a piece Arrow
cannot read as it does), each row kept as integer codes of its run, measure and topic and
its value (:class:`ScoreRows`, :func:`read_score_rows`, which the pipeline reads), and
laid out from the codes a slice of rows at a time. Only :func:`read_score_file` builds a
text column per row, for people.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import without_bom
from irmeta.campaign.tokens import NUMBER, Lines
from irmeta.measures.names import parse_measure
from irmeta.measures.ranges import shortest_decimals
from irmeta.measures.score_files.bounds import Bounds, text_decimals

# ------------------------------------------------------------------ reading files

# Bytes of whole lines read and parsed at a time: a file's rows are kept as codes, never
# its text, so reading takes the memory of its rows' codes and values plus one piece.
PIECE_BYTES = 1 << 25
# Rows laid out (or checked for repeats) at a time: the temporary arrays of a step.
STEP_ROWS = 1 << 22
# Whitespace as the tokenisers read it (tokens.WHITESPACE), for the text of names.
_SPACE = re.compile(r"[\t\n\x0b\x0c\r ]")
_NO_SPACE = r"^[^\t\n\x0b\x0c\r ]+$"


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
        # the mean rows (qid 'all'): their rows and the decimals their text prints
        self.mean_row, self.mean_decimals = _Column(np.int64), _Column(np.int64)
        # the first row no score of its measure can be, and its printed decimals
        self.bounds = Bounds()
        self.misfit: tuple[int, int] | None = None

    def add(self, run: np.ndarray, measure: np.ndarray, qid: np.ndarray, value: np.ndarray, piece_bytes: int,
            text: pa.Array | pa.ChunkedArray | None = None, at: np.ndarray | None = None) -> None:
        """Rows to the columns; ``text``: the values as written (row i's at ``at[i]``, or i),
        read for the mean rows and the rows the range check doubts."""
        if self.misfit is None:
            self._check(measure, qid, value, text, at)
        if text is not None and "all" in self.qids.index:
            means = np.flatnonzero(qid == self.qids.index["all"])
            if len(means):
                self.mean_row.add(self.value.size + means)
                self.mean_decimals.add(printed_decimals(text.take(pa.array(means if at is None else at[means]))
                                                        .to_pylist()))
        if not self.value.size and piece_bytes:  # room for the rows the files hold at the first piece's rate
            rows = int(len(value) * (self.text_bytes / piece_bytes) * 1.05) + 1024
            for column in (self.run, self.measure, self.qid, self.value):
                column.reserve(rows)
        for column, values in ((self.run, run), (self.measure, measure), (self.qid, qid), (self.value, value)):
            column.add(values)

    def _check(self, measure: np.ndarray, qid: np.ndarray, value: np.ndarray,
               text: pa.Array | pa.ChunkedArray | None, at: np.ndarray | None) -> None:
        """Keep the first of the rows (to be added) no score of its measure can be."""
        self.bounds.cover(self.measures.names)
        every = self.qids.index.get("all", -1)

        def decimals(rows: np.ndarray) -> np.ndarray:
            if text is None:
                return shortest_decimals(value[rows])
            return text_decimals(text, rows if at is None else at[rows])

        bad, places = self.bounds.misfits(measure, value, qid != every, decimals)
        if len(bad):
            self.misfit = (self.value.size + int(bad[0]), int(places[0]))

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

    def lines_of(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`line` of many rows at once."""
        out, first = np.zeros(len(rows), np.int64), 0
        for n, before, left_out, line in self.lines:
            here = (rows >= first) & (rows < first + n)
            row = rows[here] - first
            if line is not None:
                out[here] = before + line[row]
            else:
                assert left_out is not None
                kept_before = left_out - np.arange(len(left_out))
                out[here] = before + 1 + row + np.searchsorted(kept_before, row, side="right")
            first += n
        return out

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


def printed_decimals(texts: Sequence[str]) -> np.ndarray:
    """The decimals each number's text prints: ``0.6920`` 4, ``1`` 0, ``1.5e-05`` 6."""
    out = np.zeros(len(texts), np.int64)
    for i, text in enumerate(texts):
        body, _, exponent = text.strip().lower().partition("e")
        out[i] = len(body.partition(".")[2]) - (int(exponent) if exponent else 0)
    return out


def _blank(piece: bytes) -> bool:
    return not piece or piece.isspace()


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
