"""The values a measure's scores can take, resolved for a named measure with its
parameters: :func:`measure_range` reads the family's :class:`~irmeta.measures.registry.RangeDeclaration`
and gives a :class:`Range` ([low, high], and for a per-topic score the :class:`Grid` it
lies on: P@k's multiples of 1/k, RR@k's reciprocal ranks, Success@k's 0 or 1).

Scores files are checked against it (:mod:`irmeta.measures.score_files.bounds`), with
a tolerance read from how each value was printed (:func:`printed_tolerance`): trec_eval
prints ``P_30`` of 1/30 as 0.0333, which must read as on the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from irmeta.measures.alpha import PER_TOPIC_ALPHA, Alpha, parse_alpha
from irmeta.measures.names import Measure, as_measure

_EPS = float(np.finfo(np.float64).eps)
# A score held in single precision on its way (a tool computing in float32) is off its
# exact value by up to half a float32 unit: 2^-24 of it.
_SINGLE = 2.0 ** -24
# The most decimals a printed double needs (17 significant digits of a number >= 0.1).
_MOST_DECIMALS = 17


@dataclass(frozen=True)
class Grid:
    """The values a per-topic score lies on besides its range: ``multiples`` of 1/n
    (j/n for j = 0..n: P@k with n = k, Success@k with n = 1), or ``reciprocals``, 0 and
    1/i for i = 1..n (RR@k; n None: any i, RR without a cutoff)."""

    kind: Literal["multiples", "reciprocals"]
    n: int | None

    def nearest(self, values: np.ndarray) -> np.ndarray:
        """Each value's nearest point of the grid (float64, vectorised)."""
        v = np.asarray(values, dtype=np.float64)
        if self.kind == "multiples":
            return nearest_multiple(v, np.full(v.shape, float(self.n or 1)))
        return nearest_reciprocal(v, np.full(v.shape, math.inf if self.n is None else float(self.n)))

    def __str__(self) -> str:
        if self.kind == "multiples":
            return "0 or 1" if self.n == 1 else f"0, 1/{self.n}, 2/{self.n}, ..., 1"
        return "0 and 1/i for i = 1, 2, ..." + ("" if self.n is None else f", {self.n}")


@dataclass(frozen=True)
class Range:
    """The values a measure's scores can take: [``low``, ``high``] (``high`` math.inf:
    unbounded above) and, for a per-topic score, ``grid`` (None: any value in range).
    A mean over topics lies in the range, not on the grid."""

    low: float
    high: float
    grid: Grid | None = None

    @property
    def bounded(self) -> bool:
        """Both ends finite: scores can be scaled into it."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    def nearest(self, values: np.ndarray, *, per_topic: bool = True) -> np.ndarray:
        """Each value clipped into the range and, per topic, moved to the nearest point of
        the grid: the score closest to it the measure can give."""
        clipped = np.clip(np.asarray(values, dtype=np.float64), self.low, self.high)
        return self.grid.nearest(clipped) if per_topic and self.grid is not None else clipped

    def __str__(self) -> str:
        low = "(-inf" if math.isinf(self.low) else f"[{_number(self.low)}"
        high = "inf)" if math.isinf(self.high) else f"{_number(self.high)}]"
        return f"{low}, {high}"


def nearest_multiple(values: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The nearest of j/n, j = 0..n, to each value (``n`` per value, >= 1)."""
    return np.clip(np.rint(values * n), 0.0, n) / n


def nearest_reciprocal(values: np.ndarray, top: np.ndarray) -> np.ndarray:
    """The nearest of 0 and 1/i, i = 1..top, to each value (``top`` per value, >= 1 or
    inf): 1/v rounded is the nearest rank or its neighbour."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        i = np.clip(np.rint(1.0 / np.maximum(values, 1e-300)), 1.0, top)
    best = np.zeros_like(values)  # 0 is on the grid
    for candidate in (i - 1.0, i, i + 1.0):
        point = np.where((candidate >= 1.0) & (candidate <= top), 1.0 / np.maximum(candidate, 1.0), 0.0)
        best = np.where(np.abs(values - point) < np.abs(values - best), point, best)
    return best


def measure_range(measure: str | Measure, alpha: Alpha | None = None) -> Range | None:
    """The values ``measure`` (a :class:`Measure`; a name a caller gives is read here) can
    take, from its family's declaration in the registry
    (:class:`~irmeta.measures.registry.RangeDeclaration`); None when the family declares
    none (a plugin may leave it out).

    The rareness forms' upper end is 1 + alpha (eq. 1 and 3 of Türkmen et al.: Rel
    (1 + alpha R), R <= 1), alpha the one the name fixes (``P_rareness(alpha=0.5)@100``:
    [0, 1.5]), else ``alpha``; ``1/R`` is at most 1 (N_R >= 1); with neither, the end
    is unknown and the range unbounded above. The grid needs the cutoff: P@k lies on
    j/k, RR@k on 0 and 1/i for i <= k, Success@k on 0 or 1 (the condensed lists of
    ``judged_only=true`` too).
    """
    m = as_measure(measure)
    declared = m.definition.value_range
    if declared is None:
        return None
    high = declared.high
    if set(declared.unbounded_with) & set(m.params):
        high = math.inf
    if declared.per_alpha:
        weight = _largest_alpha(m.alpha if m.alpha is not None else alpha)
        high = high + declared.per_alpha * weight if weight is not None else math.inf
    grid = None
    if declared.grid == "binary":
        grid = Grid("multiples", 1)
    elif declared.grid == "per_cutoff" and m.cutoff is not None:
        grid = Grid("multiples", m.cutoff)
    elif declared.grid == "reciprocal_ranks":
        grid = Grid("reciprocals", m.cutoff)
    return Range(float(declared.low), float(high), grid)


def _largest_alpha(alpha: Alpha | None) -> float | None:
    if alpha is None:
        return None
    value = parse_alpha(alpha)
    return 1.0 if value == PER_TOPIC_ALPHA else float(value)


def shortest_decimals(values: np.ndarray) -> np.ndarray:
    """(n,) int64: the fewest decimals that print each value so that it reads back the
    same (``0.0333`` 4, ``0.5`` 1, ``3`` 0, ``1e-05`` 5); a value that needs all its
    digits gets :data:`_MOST_DECIMALS` or more. Never more than the text it was read
    from printed (that text reads back the same), so a tolerance from it is never
    narrower than the printed precision's."""
    v = np.asarray(values, dtype=np.float64)
    out = np.full(v.shape, -1, np.int64)
    scale = np.maximum(np.abs(v), 1e-300)
    for d in range(0, 23):  # 10^d is exact in a double up to 10^22
        open_ = out < 0
        if not open_.any():
            break
        shifted = v[open_] * 10.0 ** d
        exact = (np.rint(shifted) / 10.0 ** d == v[open_]) | (np.abs(shifted) >= 2.0 ** 53)
        out[np.flatnonzero(open_)[exact]] = d
    rest = out < 0  # tiny values: their last digit is far below any score's precision
    out[rest] = np.maximum(_MOST_DECIMALS, -np.floor(np.log10(scale[rest])).astype(np.int64) + _MOST_DECIMALS)
    return out


def printed_tolerance(values: np.ndarray, decimals: np.ndarray | None = None) -> np.ndarray:
    """How far each printed value may be from the score it prints: half a unit of its
    last decimal (``decimals``, default :func:`shortest_decimals`: 0.33 for 1/3 is within
    0.005, trec_eval's 0.3333 within 0.00005), plus a single-precision rounding of the
    value and a few double ulps of float error."""
    v = np.abs(np.asarray(values, dtype=np.float64))
    d = shortest_decimals(v) if decimals is None else np.asarray(decimals)
    return 0.5 * 10.0 ** -d.astype(np.float64) + _SINGLE * v + 16 * _EPS * np.maximum(v, 1.0)


def _number(value: float) -> str:
    return np.format_float_positional(value, trim="-")
