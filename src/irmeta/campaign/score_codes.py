"""The scores of rankings stored exactly in fewer bytes (``ranked.npz``).

Runs write scores as decimals (``1.996501``); read, each is the double nearest that
decimal. When every score is ``m / 10**k`` for integers ``m`` (the *codes*, below 2^51 in
magnitude) the codes are stored instead: ``m / 10**k`` divides two doubles that are exact
(``10**k`` is for k <= 22), so IEEE 754's correctly rounded division gives the double
nearest the decimal, the very score read. A ranking's scores never rise (trec_eval's
order), so each cell keeps its first code and then the falls from one code to the next,
non-negative and usually far below the codes themselves. The smallest such ``k`` of a
union of runs is the largest of its parts' (a score exact at ``k`` is exact at every
larger ``k``), so the coding is the same whatever the shards. Scores with no decimal code
are stored as float32 when each is one (``score_precision: float32``), else as float64.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irmeta.support.bit_fields import bit_width

MOST_DECIMALS = 22  # 10**22 is the largest power of ten a double holds exactly
CODE_BOUND = 1 << 51  # codes below it are found exactly from score x 10**k (rint's error < 0.5)
_SAMPLE = 4096  # scores tried first: most wrong k fail on them, at no cost


@dataclass(frozen=True)
class ScoreSummary:
    """What a part's scores need of a coding: the fewest ``decimals`` giving codes (-1:
    none), the largest fall within a cell and the largest magnitude of a code (at those
    decimals), and whether every score is a float32."""

    decimals: int
    fall: int
    magnitude: int
    single: bool

    def as_array(self) -> np.ndarray:
        return np.array([self.decimals, self.fall, self.magnitude, int(self.single)], dtype=np.int64)

    @classmethod
    def of_array(cls, values: np.ndarray) -> ScoreSummary:
        decimals, fall, magnitude, single = (int(v) for v in values)
        return cls(decimals, fall, magnitude, bool(single))


@dataclass(frozen=True)
class ScoreCoding:
    """How ``ranked.npz`` stores scores: ``kind`` ``decimal`` (codes at ``decimals``, falls
    at ``fall_bits``), ``float32`` or ``float64``."""

    kind: str
    decimals: int = 0
    fall_bits: int = 0

    def as_dict(self) -> dict:
        return {"kind": self.kind, "decimals": self.decimals, "fall_bits": self.fall_bits}


def _exact_at(score: np.ndarray, decimals: int) -> bool:
    scale = 10.0 ** decimals
    return bool(np.array_equal(np.rint(score * scale) / scale, score))


def decimal_places(score: np.ndarray) -> int | None:
    """The fewest decimals ``k`` with every score ``m / 10**k``, ``|m| < 2^51``; None if
    there are none (a score not finite, too many digits)."""
    score = np.asarray(score, dtype=np.float64)
    if not len(score):
        return 0
    if not np.isfinite(score).all():
        return None
    top = float(np.abs(score).max())
    sample = score[:: max(len(score) // _SAMPLE, 1)]
    for decimals in range(MOST_DECIMALS + 1):
        if top * 10.0 ** decimals >= CODE_BOUND:
            return None
        if _exact_at(sample, decimals) and _exact_at(score, decimals):
            return decimals
    return None


def codes(score: np.ndarray, decimals: int) -> np.ndarray:
    """The scores' codes at ``decimals`` (int64), checked to give the scores back."""
    scale = 10.0 ** decimals
    code = np.rint(np.asarray(score, dtype=np.float64) * scale)
    if not np.array_equal(code / scale, score):
        raise ValueError(f"scores without a code at {decimals} decimals")
    return code.astype(np.int64)


def falls(code: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Each code's fall from the one before it in its cell (``start``: the cells'
    offsets); 0 at a cell's first."""
    fall = np.zeros(len(code), dtype=np.int64)
    if len(code) > 1:
        fall[1:] = code[:-1] - code[1:]
    fall[start[:-1][np.diff(start) > 0]] = 0
    return fall


def score_summary(score: np.ndarray, start: np.ndarray) -> ScoreSummary:
    """A part's :class:`ScoreSummary` (``start``: its cells' offsets into ``score``)."""
    score = np.asarray(score, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        single = bool(np.array_equal(score.astype(np.float32).astype(np.float64), score))
    decimals = decimal_places(score)
    if decimals is None:
        return ScoreSummary(-1, 0, 0, single)
    code = codes(score, decimals)
    fall = falls(code, start)
    if len(fall) and fall.min() < 0:  # a ranking whose scores rise: not trec_eval's order
        return ScoreSummary(-1, 0, 0, single)
    return ScoreSummary(decimals, int(fall.max(initial=0)), int(np.abs(code).max(initial=0)), single)


def score_coding(summaries: Sequence[ScoreSummary], n_scores: int, n_cells: int) -> ScoreCoding:
    """The coding of the parts' scores together: decimal codes when every part has them
    and they take fewer bytes, else float32 when every score is one, else float64."""
    options = [(8 * n_scores, ScoreCoding("float64"))]
    if all(s.single for s in summaries):
        options.append((4 * n_scores, ScoreCoding("float32")))
    if all(s.decimals >= 0 for s in summaries):
        decimals = max((s.decimals for s in summaries), default=0)
        scaled = [10 ** (decimals - s.decimals) for s in summaries]
        if all(s.magnitude * k < CODE_BOUND for s, k in zip(summaries, scaled)):
            bits = bit_width(max((s.fall * k for s, k in zip(summaries, scaled)), default=0))
            options.append((8 * n_cells + (n_scores * bits + 7) // 8, ScoreCoding("decimal", decimals, bits)))
    return min(options, key=lambda option: option[0])[1]


def scores_of_codes(first: np.ndarray, fall: np.ndarray, start: np.ndarray, decimals: int) -> np.ndarray:
    """Scores (float64) from each cell's first code and the falls (``start``: the cells'
    offsets into ``fall``, the first cell's at 0, no cell empty)."""
    if not len(fall):
        return np.zeros(0)
    # A code is its cell's first less the falls since; the running sum may wrap int64,
    # but each difference is a code's fall from its cell's first, so it comes out exact.
    drop = np.cumsum(fall)
    code = np.repeat(np.asarray(first, dtype=np.int64) + drop[start[:-1]], np.diff(start)) - drop
    return code / 10.0 ** decimals
