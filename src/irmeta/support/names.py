"""What counts as a name (a topic, document, run, measure or family id) where Python
objects give one: not a missing value. A frame's missing cell (NaN, None, pandas' NA or
NaT) read as text would become the name ``nan`` or ``None``, and a row would silently
join a topic or run of that name; every reader of names in memory asks :func:`missing_name`
first and refuses the row in one line.

A float id is refused too: a column of integer ids holding one missing value is read as
floats (``401.0``), and ``"401.0"`` would silently match none of the qrels' ``401``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np


def missing_name(value: Any) -> str | None:
    """Why ``value`` is no name, as words (``"missing (NaN)"``, ``"401.0, a float, ..."``), or
    None: it is one."""
    if value is None:
        return "missing (None)"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "missing (NaN)"
        return (f"{value!r}, a float, not an id (integer ids with a missing value are read as floats: give them as "
                f"text or integers)")
    kind = type(value).__name__
    if kind in ("NAType", "NaTType"):
        return f"missing ({kind[:-4]})"
    return None


def first_missing(values: Iterable[Any]) -> tuple[int, str] | None:
    """The 0-based position of the first value of ``values`` that is no name, and why."""
    for i, value in enumerate(values):
        fault = missing_name(value)
        if fault is not None:
            return i, fault
    return None
