"""Alpha, the rarity weight of the rareness measures: reading it (a number >= 0, or
``1/R`` for 1/N_R per topic), its range for the [0, 1] forms, and its canonical text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

PER_TOPIC_ALPHA = "1/R"  # the authors' "document importance": alpha = 1 / N_R per topic


Alpha = float | str

# The largest alpha: a rareness score is at most about (1 + alpha) times its measure's
# largest value (every rarity is in [0, 1], R' at most 2), and the statistics square
# scores and sum the squares (variances, t intervals); at 1e100 those stay below 1e210,
# far from the largest double (1.8e308), while rarity already outweighs relevance a
# googol to one. At 1e300 the squares overflow: p = 1 and an infinite interval.
ALPHA_LIMIT = 1e100


def parse_alpha(value: Alpha) -> Alpha:
    """A rarity weight: a number in [0, 1e100] (``ALPHA_LIMIT``), or ``"1/R"`` for alpha =
    1/N_R per topic.

    Eq. 1 and 3, Rel (1 + alpha R), take any alpha >= 0 (above 1, rarity weighs more
    than relevance; eq. 4 at alpha in [0, 1) is eq. 1 at alpha S / ((1 - alpha)(S - 1))).
    The [0, 1] forms of eq. 4 are convex combinations and take alpha in [0, 1] only:
    :func:`check_unit_alphas`.
    """
    given = value
    if isinstance(value, str):
        text = value.strip()
        if text.replace(" ", "") in ("1/R", "1/N_R"):
            return PER_TOPIC_ALPHA
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"alpha {given!r} is neither a number nor 1/R") from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"alpha {given!r} is neither a number nor 1/R")
    alpha = float(value)
    if not 0.0 <= alpha < np.inf:  # also refuses NaN
        raise ValueError(f"alpha {given!r} is not a finite number >= 0")
    if alpha > ALPHA_LIMIT:
        raise ValueError(f"alpha {given!r} is above {ALPHA_LIMIT:g}, the largest irmeta takes: "
                         f"the squares of its scores would overflow the statistics")
    return alpha


def check_unit_alphas(alphas: Sequence[Alpha], measure: str) -> None:
    """Alphas of a [0, 1] form (eq. 4): (1 - alpha) Rel + alpha Rel R' leaves [0, 1] for alpha > 1."""
    for a in alphas:
        value = parse_alpha(a)
        if isinstance(value, float) and value > 1.0:
            raise ValueError(f"alpha {a!r} is outside [0, 1], the range of {measure} (eq. 4 is a convex "
                             f"combination; only P_rareness and AP_rareness take alpha > 1)")


def alpha_label(alpha: Alpha) -> str:
    """Canonical text of an alpha: ``0``, ``0.25``, ``1``, ``1/R`` (shortest round-trip digits)."""
    alpha = parse_alpha(alpha)
    return alpha if isinstance(alpha, str) else np.format_float_positional(alpha, trim="-")


def alpha_cell(value: object) -> str:
    """Canonical text of an alpha as a table holds it, read back from CSV or Parquet:
    ``""`` for a measure without alpha (None, NaN, ``<NA>``, empty), else
    :func:`alpha_label`'s text (``1.0`` and ``"1.0"`` -> ``"1"``, ``"1/N_R"`` -> ``"1/R"``);
    text that is no alpha is kept as it is, for the caller to report."""
    return _cell_of_text("" if value is None else str(value))


# Tables map every row's alpha (a million rows, a handful of texts): read each text once.
@lru_cache(maxsize=4096)
def _cell_of_text(text: str) -> str:
    text = text.strip()
    if text.lower() in ("", "nan", "<na>", "none"):
        return ""
    try:
        return alpha_label(text)
    except ValueError:
        return text


def alpha_value(value: object) -> float | None:
    """The number of an alpha cell (:func:`alpha_cell`); None without alpha or for ``1/R``."""
    text = alpha_cell(value)
    try:
        return float(text) if text else None
    except ValueError:
        return None


def alpha_sort_key(value: object) -> tuple[int, float, str]:
    """Order of alpha cells: no alpha first, then numbers ascending, then ``1/R``."""
    return _sort_key_of_cell(alpha_cell(value))


@lru_cache(maxsize=4096)
def _sort_key_of_cell(text: str) -> tuple[int, float, str]:
    number = alpha_value(text)
    if not text:
        return (0, 0.0, "")
    return (1, number, "") if number is not None else (2, 0.0, text)
