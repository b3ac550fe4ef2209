"""The two formats' pieces read into a :class:`~irmeta.measures.score_files.pieces._Book`:
irmeta's TSV and trec_eval -q, the tokenisers' checks, and a run, measure and topic given
twice."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import irmeta.measures.score_files.pieces as piece_reader
from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.tokens import NUMBER, WHITESPACE, Lines, tokenise, utf8_column
from irmeta.measures.score_files.pieces import (
    _FIELDS,
    _MEASURE,
    _NO_RUNID,
    _NO_SPACE,
    _QID,
    _RUN,
    _SPACE,
    _UNKNOWN,
    _VALUE,
    _arrow_tab,
    _blank,
    _Book,
    _dictionary,
    _Fault,
    _Faults,
    _numbers,
    _Part,
    _ranked,
    _shifted,
)
from irmeta.measures.score_files.rows import ScoreRows

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
                book.add(book.runs.codes(runs)[run], codes[label], book.qids.codes(qids)[qid], value, len(piece),
                         text=table.column(3))
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
    # a geometric mean's row (``gm_<measure>``, qid all: irmeta score --average geometric)
    # is left out and counted, as trec_eval's gm_map is: means are never read from a file
    geometric = _geometric_mean_rows(book, labels, label, qid_text)
    if (measure[~geometric] < 0).any():
        bad = int(np.flatnonzero((measure < 0) & ~geometric)[0])
        raise _Fault(_UNKNOWN, TrecFormatError(path, int(lines.number[bad]), book.faults[labels[label[bad]]]))
    text = _ranked(_VALUE, utf8_column, path, lines, 3, "value")
    kept = np.flatnonzero(~geometric)
    value = _values(path, lines, text, ~geometric, label_text)[kept]
    if keep:
        (runs, run), (qids, qid) = _dictionary(run_text), _dictionary(qid_text)
        book.add(book.runs.codes(runs)[run][kept], measure[kept], book.qids.codes(qids)[qid][kept], value, len(piece),
                 text=text, at=kept)
        part.lines.append((len(value), before, None, lines.number[kept] - before))
        for d in pc.value_counts(label_text.filter(pa.array(geometric))).to_pylist():
            part.dropped[d["values"]] = part.dropped.get(d["values"], 0) + int(d["counts"])
    return len(lines.count)


def _geometric_mean_rows(book: _Book, labels: list[str], label: np.ndarray, qid_text: pa.Array) -> np.ndarray:
    """Which rows are a geometric mean's (``gm_`` and a measure irmeta knows, qid ``all``)."""
    named = np.array([x.startswith("gm_") and book.measure_codes([x[3:]])[0] >= 0 for x in labels], bool)
    if not named.any():
        return np.zeros(len(label), bool)
    return named[label] & pc.equal(qid_text, "all").to_numpy(zero_copy_only=False)


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
    text: pa.Array | pa.ChunkedArray | None = None  # each line's value as written
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
            book.add(block[got.kept].astype(np.int32), got.measure, got.qid, got.value, len(piece),  # runs: below
                     text=got.text, at=got.kept)
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
    for at in range(start, book.value.size, piece_reader.STEP_ROWS):  # each row's block -> its run, in place
        blocks_of_rows = book.run.data[at:min(at + piece_reader.STEP_ROWS, book.value.size)]
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
                      left_out=np.flatnonzero(~known).astype(np.int32), text=text, dropped=dropped)


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
    got.measure, got.value, got.text = measure[got.kept], value[got.kept], text
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
        for start in range(0, n, piece_reader.STEP_ROWS):
            flags[keys(start, start + piece_reader.STEP_ROWS)] = True
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
