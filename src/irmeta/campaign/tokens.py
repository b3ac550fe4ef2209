"""Whitespace-separated TREC text to columns without a Python loop over lines.

Plain files (one delimiter, never doubled) go through Arrow's multithreaded CSV reader
(:func:`arrow_fields`); anything else through a numpy tokeniser (:func:`tokenise`) that
also words every error with its 1-based line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError

WHITESPACE = np.zeros(256, dtype=bool)
WHITESPACE[[9, 10, 11, 12, 13, 32]] = True


# A decimal number as strtod reads it, finite spellings only (no nan/inf/hex).
NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"


INTEGER = r"^[+-]?\d+$"


@dataclass(frozen=True)
class Lines:
    """Whitespace tokens of one file, grouped by non-blank line."""

    buf: np.ndarray  # uint8 view of the file
    starts: np.ndarray  # token start offsets
    ends: np.ndarray  # token end offsets (exclusive)
    first: np.ndarray  # index of each non-blank line's first token
    count: np.ndarray  # tokens on each non-blank line
    number: np.ndarray  # 1-based line number of each non-blank line

    def field(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        tok = self.first + i
        return self.starts[tok], self.ends[tok]

    def strings(self, i: int) -> pa.Array:
        """Field ``i`` of every line as a pyarrow binary array (one vectorised gather)."""
        starts, ends = self.field(i)
        lengths = ends - starts
        offsets = np.zeros(len(starts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        gather = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
        values = self.buf[gather]
        return pa.Array.from_buffers(
            pa.large_binary(), len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(values)]
        )


def tokenise(data: bytes) -> Lines:
    buf = np.frombuffer(data, dtype=np.uint8)
    solid = ~WHITESPACE[buf]
    pad = np.zeros(1, dtype=np.int8)
    edges = np.diff(np.concatenate((pad, solid.view(np.int8), pad)))  # int8: a byte per byte of the file
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    newlines = np.flatnonzero(buf == 10)
    token_line = np.searchsorted(newlines, starts)  # 0-based line of each token
    if len(token_line):
        first = np.flatnonzero(np.diff(token_line, prepend=-1))
    else:
        first = np.zeros(0, dtype=np.int64)
    count = np.diff(np.append(first, len(starts)))
    return Lines(buf, starts, ends, first, count, token_line[first] + 1)


def utf8_column(path: Path, lines: Lines, i: int, what: str) -> pa.Array:
    raw = lines.strings(i)
    try:
        return raw.cast(pa.large_string())
    except pa.ArrowInvalid:
        bad = next(j for j, v in enumerate(raw.to_pylist()) if not_utf8(v))
        raise TrecFormatError(path, int(lines.number[bad]), f"{what} is not valid UTF-8") from None


def not_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def first_false(mask: pa.Array | np.ndarray) -> int | None:
    arr = np.asarray(mask, dtype=bool) if not isinstance(mask, np.ndarray) else mask
    bad = np.flatnonzero(~arr)
    return int(bad[0]) if len(bad) else None


def parse_numbers(path: Path, lines: Lines, i: int, what: str, pattern: str, dtype) -> np.ndarray:
    text = utf8_column(path, lines, i, what)
    bad = first_false(pc.match_substring_regex(text, pattern).to_numpy(zero_copy_only=False))
    if bad is not None:
        value = text[bad].as_py()
        kind = "an integer" if dtype is np.int64 else "a finite number"
        raise TrecFormatError(path, int(lines.number[bad]), f"{what} {value!r} is not {kind}")
    if dtype is np.int64:
        text = pc.replace_substring_regex(text, r"^\+", "")  # strtol reads '+1'; arrow does not
        try:
            values = pc.cast(text, pa.int64()).to_numpy()
        except pa.ArrowInvalid:
            bad = next(j for j, v in enumerate(text.to_pylist()) if not -2**63 <= int(v) < 2**63)
            raise TrecFormatError(path, int(lines.number[bad]),
                                  f"{what} {text[bad].as_py()!r} is out of the int64 range") from None
        return values
    values = pc.cast(text, pa.float64()).to_numpy()
    if dtype is np.float64:
        bad = first_false(np.isfinite(values))
        if bad is not None:
            raise TrecFormatError(
                path, int(lines.number[bad]), f"{what} {text[bad].as_py()!r} overflows a double"
            )
    return values


def check_columns(path: Path, lines: Lines, minimum: int, layout: str) -> None:
    if len(lines.count) == 0:
        raise TrecFormatError(path, None, "empty file")
    bad = first_false(lines.count >= minimum)
    if bad is not None:
        raise TrecFormatError(
            path,
            int(lines.number[bad]),
            f"{int(lines.count[bad])} columns, expected at least {minimum} ({layout})",
        )


def _plain_delimiter(buf: np.ndarray) -> int | None:
    """The one whitespace byte that separates fields, when the file is that plain: one
    delimiter (tab or space), never two in a row, none at a line's start, no carriage
    return, vertical tab or form feed. Anything else goes to the general tokeniser."""
    if not len(buf) or any(np.count_nonzero(buf == c) for c in (11, 12, 13)):
        return None
    tabs, spaces = np.count_nonzero(buf == 9), np.count_nonzero(buf == 32)
    if tabs and spaces:
        return None
    delimiter = 9 if tabs else 32
    if buf[0] == delimiter:
        return None
    at = buf == delimiter
    if (at[1:] & ((buf[:-1] == delimiter) | (buf[:-1] == 10))).any():
        return None  # two in a row, or one starting a line
    return delimiter


def arrow_fields(data: bytes, types: dict[str, pa.DataType]) -> pa.Table | None:
    """The named fields (``f0``, ``f1``, ...) of every line by Arrow's CSV reader, for a
    plain file: one delimiter, never doubled, at least as many non-empty fields on every
    line, values Arrow reads as ``types``; None when the file needs the general
    tokeniser (which also words the error, with its line)."""
    from pyarrow import csv

    delimiter = _plain_delimiter(np.frombuffer(data, dtype=np.uint8))
    if delimiter is None:
        return None
    if not data.endswith(b"\n"):  # Arrow's reader wants the last line ended
        data += b"\n"
    names = list(types)
    try:
        table = csv.read_csv(
            pa.py_buffer(data),
            read_options=csv.ReadOptions(autogenerate_column_names=True, use_threads=False,
                                         block_size=max(1 << 20, len(data) + 1)),
            parse_options=csv.ParseOptions(delimiter=chr(delimiter), quote_char=False, double_quote=False,
                                           escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=csv.ConvertOptions(include_columns=names, column_types=types,
                                               strings_can_be_null=False, null_values=[]),
        )
    except (pa.ArrowInvalid, KeyError):
        return None
    if table.num_rows == 0 or table.schema.names != names:
        return None
    strings = [name for name, kind in types.items() if pa.types.is_large_string(kind)]
    if any(pc.min(pc.binary_length(table.column(name))).as_py() == 0 for name in strings):
        return None  # an empty field: a line ending in a delimiter before its last field
    return table
