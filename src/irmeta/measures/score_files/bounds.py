"""A score table's values checked against their measures' ranges
(:func:`~irmeta.measures.ranges.measure_range`): a value outside its measure's range, or
a per-topic value off its grid (P@k's multiples of 1/k, RR@k's reciprocal ranks,
Success@k's 0 or 1), is an impossible score, refused with where it is.

A value is compared with the nearest score its measure can give, within the precision
it was printed with (:func:`~irmeta.measures.ranges.printed_tolerance`): trec_eval's
``P_30 0.0333`` is 1/30 and ``P_3 0.33`` may be 1/3, but ``P_3 0.3000`` is not. A file's
rows are checked piece by piece as they are read (:class:`Bounds`, from
:class:`~irmeta.measures.score_files.pieces._Book`), and only the rows a tight check
doubts have their text's decimals counted. A table in memory (:func:`first_misfit`) is held
to the ranges only: its numbers may be anyone's (a synthetic table, scores rescaled or
interpolated), while a value outside its measure's range is impossible whatever it came
from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.measures.counts import SUMMED
from irmeta.measures.names import parse_measure
from irmeta.measures.ranges import (
    Range,
    measure_range,
    nearest_multiple,
    nearest_reciprocal,
    printed_tolerance,
    shortest_decimals,
)
from irmeta.measures.score_files.rows import ScoreRows

_EPS = float(np.finfo(np.float64).eps)


class Bounds:
    """The ranges of a table's measures by measure code, as arrays its rows index;
    :meth:`cover` adds the codes of names as they appear."""

    def __init__(self) -> None:
        self.ranges: list[Range | None] = []
        self.low, self.high = np.zeros(0), np.zeros(0)
        self.multiple = np.zeros(0)  # n of the multiples of 1/n; 0: no such grid
        self.reciprocal = np.zeros(0)  # the deepest rank of the reciprocal ranks; 0: no such grid
        self.summed = np.zeros(0, bool)  # a mean row that is trec_eval's sum over the topics (num_ret)

    def cover(self, names: Sequence[str]) -> None:
        """Add the ranges of ``names[len(self.ranges):]`` (canonical measure names, by code)."""
        new = [_range(name) for name in names[len(self.ranges):]]
        if not new:
            return
        self.ranges += new
        summed = [_summed(name) for name in names[len(self.summed):]]
        low = [-math.inf if r is None else r.low for r in new]
        high = [math.inf if r is None else r.high for r in new]
        multiple = [float(r.grid.n or 1) if r is not None and r.grid is not None and r.grid.kind == "multiples"
                    else 0.0 for r in new]
        reciprocal = [(math.inf if r.grid.n is None else float(r.grid.n))
                      if r is not None and r.grid is not None and r.grid.kind == "reciprocals" else 0.0 for r in new]
        self.low, self.high = np.concatenate((self.low, low)), np.concatenate((self.high, high))
        self.multiple = np.concatenate((self.multiple, multiple))
        self.reciprocal = np.concatenate((self.reciprocal, reciprocal))
        self.summed = np.concatenate((self.summed, np.array(summed, bool)))

    @property
    def checks(self) -> bool:
        """Whether any measure covered has a bound."""
        return bool(np.isfinite(self.low).any() or np.isfinite(self.high).any())

    def nearest(self, codes: np.ndarray, values: np.ndarray, per_topic: np.ndarray) -> np.ndarray:
        """The score each row's measure can give nearest to its value (the grid for the
        ``per_topic`` rows only)."""
        high = np.where(per_topic | ~self.summed[codes], self.high[codes], math.inf)
        out = np.clip(values, self.low[codes], high)
        for table, nearest in ((self.multiple, nearest_multiple), (self.reciprocal, nearest_reciprocal)):
            n = table[codes]
            on = per_topic & (n > 0)
            if on.any():
                out[on] = nearest(out[on], n[on])
        return out

    def misfits(self, codes: np.ndarray, values: np.ndarray, per_topic: np.ndarray,
                decimals: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The rows no score of their measure can be, and their printed decimals;
        ``decimals(rows)`` gives those of the rows a tight check doubts. Only rows outside
        the narrowest range of the measures present, and per-topic rows of a measure with a
        grid, are looked at one by one: a few passes over the rest."""
        if not self.checks or not len(values):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        present = np.bincount(codes, minlength=len(self.ranges)) > 0
        gridded = (self.multiple > 0) | (self.reciprocal > 0)
        candidate = (values < self.low[present].max()) | (values > self.high[present].min())
        if (gridded & present).any():
            candidate |= gridded[codes] & per_topic
        rows = np.flatnonzero(candidate)
        if not len(rows):
            return rows, rows
        at, picked = codes[rows], values[rows]
        gap = np.abs(picked - self.nearest(at, picked, per_topic[rows]))
        size = np.abs(picked)
        doubt = rows[gap > 2.0 ** -24 * size + 16 * _EPS * np.maximum(size, 1.0)]
        if not len(doubt):
            return doubt, doubt
        places = decimals(doubt)
        gap = np.abs(values[doubt] - self.nearest(codes[doubt], values[doubt], per_topic[doubt]))
        off = gap > printed_tolerance(values[doubt], places)
        return doubt[off], places[off]

    def reason(self, rows: ScoreRows, row: int, decimals: int) -> str:
        """Why row ``row`` of ``rows`` is no score of its measure, in one line naming the
        measure, run and topic."""
        code, value = int(rows.measure[row]), float(rows.value[row])
        label, r = rows.measures[code], self.ranges[code]
        assert r is not None
        qid = rows.qids[int(rows.qid[row])]
        run = rows.runs[int(rows.run[row])]
        whose = f"the mean of run {run}" if qid == "all" else f"the score of run {run} on topic {qid}"
        shown = _number(value)
        slack = float(printed_tolerance(np.array([value]), np.array([decimals]))[0])
        high = math.inf if qid == "all" and self.summed[code] else r.high
        if not r.low - slack <= value <= high + slack:
            return f"{label}: {whose} is {shown}, outside {label}'s range {r}"
        nearest = float(self.nearest(np.array([code]), np.array([value]), np.array([qid != "all"]))[0])
        return (f"{label}: {whose} is {shown}, which {label} cannot give: its scores are {r.grid} (the "
                f"nearest, {_point(r, nearest)}, is further from {shown} than its {decimals} printed decimals allow)")


def _summed(name: str) -> bool:
    try:
        return parse_measure(name).family in SUMMED
    except ValueError:
        return False


def _range(name: str) -> Range | None:
    try:
        return measure_range(parse_measure(name))
    except ValueError:  # a name irmeta does not know: reported where the table is laid out
        return None


def text_decimals(text: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> np.ndarray:
    """(len(rows),) int64: the decimals the numbers ``text[rows]`` print (``0.3000``
    4, ``1`` 0, ``1.5e-05`` 6)."""
    picked = text.take(pa.array(rows))
    if isinstance(picked, pa.ChunkedArray):
        picked = picked.combine_chunks()
    length = np.asarray(pc.utf8_length(picked), dtype=np.int64)
    dot = np.asarray(pc.find_substring(picked, "."), dtype=np.int64)
    out = np.where(dot >= 0, length - dot - 1, 0)
    exponent = np.flatnonzero(np.asarray(pc.match_substring(picked, "e", ignore_case=True)))
    for i in exponent.tolist():  # rare: 1e-05
        body, _, power = str(picked[i].as_py()).strip().lower().partition("e")
        out[i] = len(body.partition(".")[2]) - int(power)
    return out


def first_misfit(rows: ScoreRows, step: int) -> tuple[int, str] | None:
    """The first row (in row order) of a table in memory whose value is outside its
    measure's range, and why; None when every value is in range. The values' shortest
    forms stand for their printed precision. ``step``: rows checked at a time."""
    bounds = Bounds()
    bounds.cover(rows.measures)
    for start in range(0, len(rows), step):
        values = rows.value[start:start + step]

        def decimals(doubt: np.ndarray, values: np.ndarray = values) -> np.ndarray:
            return shortest_decimals(values[doubt])

        bad, places = bounds.misfits(rows.measure[start:start + step], values, np.zeros(len(values), bool), decimals)
        if len(bad):
            return start + int(bad[0]), bounds.reason(rows, start + int(bad[0]), int(places[0]))
    return None


def _point(r: Range, point: float) -> str:
    """A point of the range's grid as a fraction: ``1/3``, ``7/10``, ``0``."""
    if r.grid is None or point == 0:
        return _number(point)
    if r.grid.kind == "multiples":
        n = r.grid.n or 1
        return f"{round(point * n)}/{n}" if n > 1 else _number(point)
    return f"1/{round(1 / point)}"


def _number(value: float) -> str:
    return np.format_float_positional(value, trim="-")
