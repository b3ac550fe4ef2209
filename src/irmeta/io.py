"""Read TREC qrels and runs with trec_eval's semantics, into columnar arrays.

Formats (whitespace separated, plain or gzip):

- qrels: ``qid iter docid grade``; ``iter`` is ignored, ``grade`` is an integer and
  may be negative (the 2014 Web Track marks spam with -2).
- run: ``qid Q0 docid rank score tag``; column 2 and ``rank`` are ignored (CLEF TAR
  runs hold NF/AF in column 2), anything after ``tag`` is ignored, as trec_eval does.

trec_eval's order: within a run and topic, documents are sorted by score descending,
ties broken by docid descending as byte strings, and only then cut at the depth
(``trec_eval -M``).  A docid twice for one topic in a run is an error in trec_eval;
``duplicates="first"`` keeps the best-ranked copy instead and reports what it dropped.

Each file is read once: plain files (one delimiter, six fields or more) by Arrow's
multithreaded CSV reader, anything else by a numpy tokeniser that also words every
error with its line (no Python loop over lines either way). A leading UTF-8
byte-order mark is dropped with a :class:`TrecFormatWarning` naming the file;
trec_eval would read it as part of the first qid.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import re
import tempfile
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Literal, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

DuplicatePolicy = Literal["error", "first"]
RunNameSource = Literal["file", "tag"]

_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True
# A decimal number as strtod reads it, finite spellings only (no nan/inf/hex).
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_INTEGER = r"^[+-]?\d+$"


class TrecFormatWarning(UserWarning):
    """Input read with a fix it needed (a byte-order mark dropped); names the file."""


_BOM = b"\xef\xbb\xbf"


def _without_bom(path: str | Path, data: bytes) -> bytes:
    """The file's bytes without a leading UTF-8 byte-order mark, with a warning. trec_eval
    would read the mark as part of the first qid (a topic "\\ufeff401" no run shares)."""
    if not data.startswith(_BOM):
        return data
    warnings.warn(TrecFormatWarning(f"{path}:1: starts with a UTF-8 byte-order mark, read without it "
                                    f"(trec_eval would take it for part of the first topic id)"), stacklevel=3)
    return data[len(_BOM):]


class TrecFormatError(ValueError):
    """Bad input: names the file, the 1-based line (when there is one) and the fault."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")


# --------------------------------------------------------------------------- files


def resolve_paths(specs: str | Path | Iterable[str | Path]) -> list[Path]:
    """Expand files, directories (their non-hidden files) and globs, sorted, no repeats."""
    if isinstance(specs, (str, Path)):
        specs = [specs]
    found: list[Path] = []
    for spec in specs:
        text = str(spec)
        if any(ch in text for ch in "*?["):
            matches = sorted(Path(p) for p in glob.glob(text))
            files = [p for p in matches if p.is_file()]
            if not files:
                raise FileNotFoundError(f"{text}: the pattern matches no file")
            found.extend(files)
        elif Path(text).is_dir():
            files = sorted(p for p in Path(text).iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise FileNotFoundError(f"{text}: the directory holds no run file")
            found.extend(files)
        elif Path(text).is_file():
            found.append(Path(text))
        else:
            raise FileNotFoundError(f"{text}: no such file or directory")
    unique: dict[Path, None] = {}
    for p in found:
        unique.setdefault(p, None)
    return list(unique)


def read_bytes(path: str | Path) -> bytes:
    """The file's content, gunzipped when it starts with the gzip magic number."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            # wbits=47: gzip header, and concatenated members are handled by gzip below
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TrecFormatError(path, None, f"corrupt gzip data ({exc})") from exc
    return data


def run_name_from_path(path: str | Path) -> str:
    """A run's name from its file name, minus a final ``.gz``."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


# ----------------------------------------------------------------------- tokeniser


@dataclass(frozen=True)
class _Lines:
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


def _tokenise(data: bytes) -> _Lines:
    buf = np.frombuffer(data, dtype=np.uint8)
    solid = ~_WHITESPACE[buf]
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
    return _Lines(buf, starts, ends, first, count, token_line[first] + 1)


def _utf8(path: Path, lines: _Lines, i: int, what: str) -> pa.Array:
    raw = lines.strings(i)
    try:
        return raw.cast(pa.large_string())
    except pa.ArrowInvalid:
        bad = next(j for j, v in enumerate(raw.to_pylist()) if _not_utf8(v))
        raise TrecFormatError(path, int(lines.number[bad]), f"{what} is not valid UTF-8") from None


def _not_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _first_false(mask: pa.Array | np.ndarray) -> int | None:
    arr = np.asarray(mask, dtype=bool) if not isinstance(mask, np.ndarray) else mask
    bad = np.flatnonzero(~arr)
    return int(bad[0]) if len(bad) else None


def _parse_numbers(path: Path, lines: _Lines, i: int, what: str, pattern: str, dtype) -> np.ndarray:
    text = _utf8(path, lines, i, what)
    bad = _first_false(pc.match_substring_regex(text, pattern).to_numpy(zero_copy_only=False))
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
        bad = _first_false(np.isfinite(values))
        if bad is not None:
            raise TrecFormatError(
                path, int(lines.number[bad]), f"{what} {text[bad].as_py()!r} overflows a double"
            )
    return values


def _check_columns(path: Path, lines: _Lines, minimum: int, layout: str) -> None:
    if len(lines.count) == 0:
        raise TrecFormatError(path, None, "empty file")
    bad = _first_false(lines.count >= minimum)
    if bad is not None:
        raise TrecFormatError(
            path,
            int(lines.number[bad]),
            f"{int(lines.count[bad])} columns, expected at least {minimum} ({layout})",
        )


# --------------------------------------------------------------------------- qrels


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per judged (topic, document)."""

    qid: pa.Array  # string per judgment
    docid: pa.Array  # string per judgment
    grade: np.ndarray  # int64 per judgment
    source: str = ""

    @property
    def topics(self) -> list[str]:
        """Topics of the qrels in natural order (numerically when all are integers)."""
        return sort_topics(pc.unique(self.qid).to_pylist())

    def __len__(self) -> int:
        return len(self.grade)

    def to_table(self) -> pa.Table:
        table = pa.table({"qid": self.qid.cast(pa.string()), "docid": self.docid.cast(pa.string()),
                          "grade": pa.array(self.grade, pa.int64())})
        return table.replace_schema_metadata({"irmeta": json.dumps({"source": self.source})})

    @classmethod
    def from_table(cls, table: pa.Table) -> "Qrels":
        meta = json.loads((table.schema.metadata or {}).get(b"irmeta", b"{}"))
        return cls(
            qid=table.column("qid").combine_chunks().cast(pa.large_string()),
            docid=table.column("docid").combine_chunks().cast(pa.large_string()),
            grade=table.column("grade").to_numpy().astype(np.int64),
            source=meta.get("source", ""),
        )


def sort_topics(topics: Iterable[str]) -> list[str]:
    """Natural topic order: numeric when every qid is an integer, else byte order."""
    topics = list(topics)
    if all(re.fullmatch(r"\d+", t) for t in topics):
        return sorted(topics, key=lambda t: (int(t), t))
    return sorted(topics)


def read_qrels(path: str | Path) -> Qrels:
    """Read a qrels file (``qid iter docid grade``); a (qid, docid) twice is an error."""
    path = Path(path)
    data = _without_bom(path, read_bytes(path))
    table = _arrow_fields(data, _QRELS_FIELDS)
    lines = None
    if table is not None:
        qid, docid = table.column("f0").combine_chunks(), table.column("f2").combine_chunks()
        grade = table.column("f3").to_numpy().astype(np.int64)
    else:
        lines = _tokenise(data)
        _check_columns(path, lines, 4, "qid iter docid grade")
        qid = _utf8(path, lines, 0, "qid")
        docid = _utf8(path, lines, 2, "docid")
        grade = _parse_numbers(path, lines, 3, "grade", _INTEGER, np.int64)
    codes = _pair_codes(qid, docid)
    order = np.argsort(codes, kind="stable")
    repeat = np.flatnonzero(np.diff(codes[order]) == 0)
    if len(repeat):
        number = (lines or _tokenise(data)).number  # line numbers, only to word the error
        first_row, second_row = order[repeat[0]], order[repeat[0] + 1]
        raise TrecFormatError(
            path,
            int(number[second_row]),
            f"topic {qid[second_row].as_py()} document {docid[second_row].as_py()} is judged twice "
            f"(first on line {int(number[first_row])})",
        )
    return Qrels(qid=qid, docid=docid, grade=grade, source=str(path))


def _pair_codes(a: pa.ChunkedArray | pa.Array, b: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """One int64 per (a, b) pair, equal exactly when both strings are equal."""
    ca = _codes(a)
    cb = _codes(b)
    return ca.astype(np.int64) * (int(cb.max(initial=0)) + 1) + cb


def _codes(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    enc = values.dictionary_encode()
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    return enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)


# ---------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class _RunFile:
    """One run file in trec_eval order, duplicates handled, cut at the depth."""

    path: Path
    name: str
    qid: pa.DictionaryArray  # per kept row, codes into the file's own topics
    docid: pa.DictionaryArray  # per kept row, codes into the file's own docids
    score: np.ndarray
    rank: np.ndarray
    dropped: int


@dataclass(frozen=True)
class _RunColumns:
    """The columns of a run file that trec_eval reads, one row per non-blank line."""

    qid: pa.Array  # string
    docid: pa.Array  # string
    score: np.ndarray  # float64, finite
    tag: str  # the first line's tag
    line: np.ndarray | None  # 1-based line numbers (None from the fast path: no error to report)


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


def _arrow_fields(data: bytes, types: dict[str, pa.DataType]) -> pa.Table | None:
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


# Only the fields irmeta reads: Arrow skips the others (Q0, iter, rank) unparsed.
_RUN_FIELDS = {"f0": pa.large_string(), "f2": pa.large_string(), "f4": pa.float64(), "f5": pa.large_string()}
_QRELS_FIELDS = {"f0": pa.large_string(), "f2": pa.large_string(), "f3": pa.int64()}


def _fast_columns(data: bytes) -> _RunColumns | None:
    """A run's columns by Arrow's CSV reader (:func:`_arrow_fields`), finite scores only."""
    table = _arrow_fields(data, _RUN_FIELDS)
    if table is None:
        return None
    score = table.column("f4").to_numpy()
    if not np.isfinite(score).all():  # nan, inf: the general path words the error
        return None
    return _RunColumns(table.column("f0").combine_chunks(), table.column("f2").combine_chunks(),
                       np.ascontiguousarray(score), table.column("f5")[0].as_py(), None)


def _general_columns(path: Path, data: bytes) -> _RunColumns:
    lines = _tokenise(data)
    _check_columns(path, lines, 6, "qid Q0 docid rank score tag")
    start, end = lines.field(5)
    tag = bytes(lines.buf[start[0]:end[0]]).decode("utf-8", errors="replace")
    return _RunColumns(_utf8(path, lines, 0, "qid"), _utf8(path, lines, 2, "docid"),
                       _parse_numbers(path, lines, 4, "score", _NUMBER, np.float64), tag, lines.number)


def _read_run_file(path: Path, run_name: RunNameSource, depth: int | None,
                   duplicates: DuplicatePolicy) -> _RunFile:
    data = _without_bom(path, read_bytes(path))
    columns = _fast_columns(data) or _general_columns(path, data)
    name = columns.tag if run_name == "tag" else run_name_from_path(path)
    qid, docid, score = columns.qid, columns.docid, columns.score

    q_enc, d_enc = qid.dictionary_encode(), docid.dictionary_encode()
    q = q_enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    d = d_enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    order = trec_order(q, score, d_enc)
    if order is not None:
        q, d, score = q[order], d[order], score[order]

    key = q * len(d_enc.dictionary) + d
    by_key = np.argsort(key, kind="stable")  # stable: the better-ranked copy comes first
    repeat = np.flatnonzero(np.diff(key[by_key]) == 0)
    keep = None
    if len(repeat):
        first_row, second_row = by_key[repeat[0]], by_key[repeat[0] + 1]
        if duplicates == "error":
            line = (columns.line if columns.line is not None else _general_columns(path, data).line)
            line = line if order is None else line[order]
            lo, hi = sorted((int(line[first_row]), int(line[second_row])))
            raise TrecFormatError(
                path, hi,
                f"document {d_enc.dictionary[d[second_row]].as_py()} appears twice for topic "
                f"{q_enc.dictionary[q[second_row]].as_py()} (also on line {lo}); trec_eval refuses "
                f"this, set duplicates: first to keep the best-ranked copy",
            )
        keep = np.ones(len(key), dtype=bool)
        keep[by_key[repeat + 1]] = False

    if keep is not None:
        q, d, score = q[keep], d[keep], score[keep]
    starts = np.flatnonzero(np.diff(q, prepend=-1))
    rank = np.arange(1, len(q) + 1) - np.repeat(starts, np.diff(np.append(starts, len(q))))
    if depth is not None:
        cut = rank <= depth
        q, d, score, rank = q[cut], d[cut], score[cut], rank[cut]
    return _RunFile(
        path=path, name=name,
        qid=pa.DictionaryArray.from_arrays(pa.array(q.astype(np.int32)), q_enc.dictionary),
        docid=pa.DictionaryArray.from_arrays(pa.array(d.astype(np.int32)), d_enc.dictionary),
        score=score, rank=rank.astype(np.int32), dropped=int(len(repeat)),
    )


def trec_order(topic: np.ndarray, score: np.ndarray, docid: pa.DictionaryArray) -> np.ndarray | None:
    """Row order of trec_eval: topics in blocks, score descending, ties by docid descending
    as byte strings (trec_eval compares docnos with strcmp); None when the rows already are.

    Numbers are sorted first; docids only for the rows that tie on a score, so the string
    sort costs what the ties are, not the file.
    """
    blocks = np.flatnonzero(topic[1:] != topic[:-1])
    grouped = len(blocks) + 1 == len(np.unique(topic)) if len(topic) else True
    same = topic[1:] == topic[:-1]
    descending = grouped and bool(np.all((score[1:] <= score[:-1]) | ~same))
    order = None if descending else np.lexsort((-score, topic))
    t, sc = (topic, score) if order is None else (topic[order], score[order])
    tied = np.flatnonzero((t[1:] == t[:-1]) & (sc[1:] == sc[:-1]))
    if not len(tied):
        return order
    rows = np.union1d(tied, tied + 1)  # every row of a run of equal (topic, score)
    group = np.cumsum(np.concatenate([[1], np.diff(rows) != 1]) | np.concatenate(
        [[True], (t[rows[1:]] != t[rows[:-1]]) | (sc[rows[1:]] != sc[rows[:-1]])]))
    at = rows if order is None else order[rows]
    names = docid.dictionary.take(pa.array(docid.indices.to_numpy(zero_copy_only=False)[at]))
    within = np.asarray(pc.sort_indices(pa.table({"g": group, "d": names}),
                                        sort_keys=[("g", "ascending"), ("d", "descending")]))
    if order is None and np.array_equal(within, np.arange(len(rows))):
        return None
    full = np.arange(len(topic)) if order is None else order.copy()
    full[rows] = at[within]
    return full


@dataclass(frozen=True)
class Runs:
    """Runs in trec_eval order, one row per retrieved document, cut at ``depth``.

    Rows are sorted by run, topic (in each run's order of codes) and rank. ``run``,
    ``qid`` and ``docid`` are integer codes into ``names``, ``topics`` and ``docids``.
    """

    run: np.ndarray  # int32 code into names
    qid: np.ndarray  # int32 code into topics
    docid: np.ndarray  # int32 code into docids
    rank: np.ndarray  # int32, 1-based, trec_eval order
    score: np.ndarray  # float64, as read
    names: list[str]
    topics: list[str]
    docids: pa.Array  # large_string vocabulary
    depth: int | None = None
    duplicates: DuplicatePolicy = "error"
    dropped_duplicates: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rank)

    @property
    def n_runs(self) -> int:
        return len(self.names)

    def settings(self) -> dict:
        """The reading choices that produced these rows, for the record."""
        return {
            "depth": self.depth,
            "order": "score descending, then docid descending (trec_eval)",
            "duplicates": self.duplicates,
            "dropped_duplicates": {k: v for k, v in self.dropped_duplicates.items() if v},
            "files": self.files,
        }

    def to_table(self) -> pa.Table:
        names = pa.array(self.names, pa.string())
        topics = pa.array(self.topics, pa.string())
        table = pa.table({
            "run": pa.DictionaryArray.from_arrays(pa.array(self.run, pa.int32()), names),
            "qid": pa.DictionaryArray.from_arrays(pa.array(self.qid, pa.int32()), topics),
            "docid": self.docids.cast(pa.string()).take(pa.array(self.docid)),
            "rank": pa.array(self.rank, pa.int32()),
            "score": pa.array(self.score, pa.float64()),
        })
        meta = dict(self.settings(), names=self.names, topics=self.topics)
        return table.replace_schema_metadata({"irmeta": json.dumps(meta)})

    @classmethod
    def from_table(cls, table: pa.Table) -> "Runs":
        meta = json.loads((table.schema.metadata or {}).get(b"irmeta", b"{}"))
        names = meta.get("names") or sort_topics_unique(table.column("run"))
        topics = meta.get("topics") or sort_topics_unique(table.column("qid"))
        run = _index_in(table.column("run"), names)
        qid = _index_in(table.column("qid"), topics)
        doc = table.column("docid").combine_chunks().cast(pa.large_string()).dictionary_encode()
        return cls(
            run=run,
            qid=qid,
            docid=doc.indices.to_numpy(zero_copy_only=False).astype(np.int32),
            rank=table.column("rank").to_numpy().astype(np.int32),
            score=table.column("score").to_numpy().astype(np.float64),
            names=list(names),
            topics=list(topics),
            docids=doc.dictionary,
            depth=meta.get("depth"),
            duplicates=meta.get("duplicates", "error"),
            dropped_duplicates={n: int(meta.get("dropped_duplicates", {}).get(n, 0)) for n in names},
            files=list(meta.get("files", [])),
        )

    def select(self, names: Sequence[str]) -> "Runs":
        """The given runs only (no re-reading), in the given order."""
        lookup = {n: i for i, n in enumerate(self.names)}
        missing = [n for n in names if n not in lookup]
        if missing:
            raise KeyError(f"unknown runs: {', '.join(missing)}")
        remap = np.full(len(self.names), -1, dtype=np.int32)
        remap[[lookup[n] for n in names]] = np.arange(len(names), dtype=np.int32)
        new_run = remap[self.run]
        keep = new_run >= 0
        order = np.argsort(new_run[keep], kind="stable")
        idx = np.flatnonzero(keep)[order]
        return Runs(
            run=new_run[idx], qid=self.qid[idx], docid=self.docid[idx], rank=self.rank[idx],
            score=self.score[idx], names=list(names), topics=self.topics, docids=self.docids,
            depth=self.depth, duplicates=self.duplicates,
            dropped_duplicates={n: self.dropped_duplicates.get(n, 0) for n in names},
            files=self.files,
        )


def sort_topics_unique(column: pa.ChunkedArray) -> list[str]:
    col = column.combine_chunks()
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return sort_topics(pc.unique(col).to_pylist())


def _index_in(column: pa.ChunkedArray, vocabulary: Sequence[str]) -> np.ndarray:
    col = column.combine_chunks()
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    idx = pc.index_in(col.cast(pa.string()), value_set=pa.array(list(vocabulary), pa.string()))
    if idx.null_count:
        raise ValueError("a value is missing from the table's vocabulary")
    return idx.to_numpy(zero_copy_only=False).astype(np.int32)


def read_runs(
    paths: str | Path | Iterable[str | Path],
    *,
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    run_name: RunNameSource = "file",
    threads: int = 2,
    progress: Callable[[int, int, Path], None] | None = None,
) -> Runs:
    """Read TREC runs into trec_eval order, cut at ``depth`` (None keeps everything).

    ``paths``: files, directories or globs. The run's name is the file name minus
    ``.gz`` (``run_name="file"``) or the tag column of its first line (``"tag"``).
    A docid twice for a topic in a run raises :class:`TrecFormatError` unless
    ``duplicates="first"``, which keeps the best-ranked copy (trec_eval's order).
    """
    if duplicates not in ("error", "first"):
        raise ValueError(f"duplicates must be 'error' or 'first', not {duplicates!r}")
    if run_name not in ("file", "tag"):
        raise ValueError(f"run_name must be 'file' or 'tag', not {run_name!r}")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be a positive integer, not {depth}")
    files = resolve_paths(paths)
    if not files:
        raise FileNotFoundError("no run file given")

    def load(i_path: tuple[int, Path]) -> _RunFile:
        i, path = i_path
        out = _read_run_file(path, run_name, depth, duplicates)
        if progress is not None:
            progress(i + 1, len(files), path)
        return out

    # Each file is ordered and cut on its own; zlib, numpy's sorts and pyarrow release
    # the GIL, so threads overlap the work of several files.
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        parsed = list(pool.map(load, enumerate(files)))
    seen: dict[str, Path] = {}
    for f in parsed:
        if f.name in seen:
            raise TrecFormatError(f.path, None, f"run name {f.name!r} is also the name of {seen[f.name]}")
        seen[f.name] = f.path
    return _assemble(parsed, depth=depth, duplicates=duplicates)


def _assemble(parsed: list[_RunFile], *, depth: int | None, duplicates: DuplicatePolicy) -> Runs:
    """Concatenate per-file rows; one docid vocabulary; rows sorted by run, topic, rank."""
    sizes = np.array([len(f.score) for f in parsed], dtype=np.int64)
    run = np.repeat(np.arange(len(parsed), dtype=np.int32), sizes)
    qid_enc = pa.chunked_array([f.qid.dictionary_decode() for f in parsed],
                               pa.large_string()).dictionary_encode().combine_chunks()
    doc_enc = pa.chunked_array([f.docid.dictionary_decode() for f in parsed],
                               pa.large_string()).dictionary_encode().combine_chunks()
    topics = sort_topics(qid_enc.dictionary.to_pylist())
    topic_code = np.asarray(pc.index_in(qid_enc.dictionary, value_set=pa.array(topics, pa.large_string())))
    qid = topic_code[qid_enc.indices.to_numpy(zero_copy_only=False)].astype(np.int32)
    docid = doc_enc.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    score = np.concatenate([f.score for f in parsed]) if parsed else np.zeros(0)
    rank = np.concatenate([f.rank for f in parsed]) if parsed else np.zeros(0, np.int32)
    group = run.astype(np.int64) * max(len(topics), 1) + qid
    if len(group) and np.any(np.diff(group) < 0):
        # Files list topics in their own order; a stable sort keeps ranks in order.
        order = np.argsort(group, kind="stable")
        run, qid, docid, score, rank = run[order], qid[order], docid[order], score[order], rank[order]
    return Runs(
        run=run, qid=qid, docid=docid, rank=rank, score=score,
        names=[f.name for f in parsed], topics=topics, docids=doc_enc.dictionary, depth=depth,
        duplicates=duplicates,
        dropped_duplicates={f.name: f.dropped for f in parsed},
        files=[str(f.path) for f in parsed],
    )


# ------------------------------------------------------------------------- parquet


def lean_memory() -> None:
    """Have freed memory go back to the system at once: Arrow allocates with the system
    allocator, and glibc maps every block above 256 KB on its own (its threshold would
    otherwise grow with the largest block freed, keeping the heap at its peak). Reading
    run files one after the other then peaks at about one file per thread, not at the
    sum of the files' fragments; it costs some speed. For the command line."""
    import ctypes
    import ctypes.util

    pa.set_memory_pool(pa.system_memory_pool())
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        if libc is not None and hasattr(libc, "mallopt"):
            libc.mallopt(-3, 256 * 1024)  # M_MMAP_THRESHOLD (glibc); absent elsewhere
    except OSError:
        pass


def joined_bytes(strings: pa.Array) -> bytes:
    """The strings of an Arrow array back to back, as bytes: its data buffer between the
    first and last offsets, without a Python string per element."""
    if not len(strings):
        return b""
    width = np.int64 if pa.types.is_large_string(strings.type) or pa.types.is_large_binary(strings.type) else np.int32
    offsets = np.frombuffer(strings.buffers()[1], dtype=width)[strings.offset:strings.offset + len(strings) + 1]
    return strings.buffers()[2][int(offsets[0]):int(offsets[-1])].to_pybytes()


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (a unique name, so concurrent writers never share
    one) to write to; renamed to ``path`` when the block ends, removed if it fails, so a
    reader never sees a partial file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o666 & ~umask)  # mkstemp makes it private; the output is an ordinary file
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Arrays to an uncompressed ``.npz`` (each member loads on its own), atomically."""
    with atomic_path(path) as tmp, open(tmp, "wb") as stream:
        np.savez(stream, **arrays)


def write_table(table: pa.Table, path: str | Path) -> None:
    """Write Parquet atomically: a temporary file renamed into place, so no partial output."""
    import pyarrow.parquet as pq  # here: libparquet costs 10 MB the command line does not need

    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def write_runs(runs: Runs, path: str | Path) -> None:
    write_table(runs.to_table(), path)


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    write_table(qrels.to_table(), path)


def load_runs(path: str | Path) -> Runs:
    """Runs written by :func:`write_runs`."""
    import pyarrow.parquet as pq

    return Runs.from_table(pq.read_table(path))


def load_qrels(path: str | Path) -> Qrels:
    """Qrels written by :func:`write_qrels`."""
    import pyarrow.parquet as pq

    return Qrels.from_table(pq.read_table(path))
