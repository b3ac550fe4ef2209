"""How measures and alphas are printed in tables and figures: the paper's names
(``P@100_rareness``, ``AP'_rareness``) and the alpha cells of tables read back from CSV.
"""

from __future__ import annotations

import math
import re
import pandas as pd


MEASURE_PATTERN = re.compile(r"^(?P<family>AP|P)(?P<rareness>_rareness)?(?P<norm>_norm)?@(?P<k>\d+)$")


_LABEL_PATTERN = re.compile(r"^(?P<family>AP|P)(?P<prime>')?(?:@(?P<k>\d+))?(?P<rareness>_rareness)?$")


def alpha_key(value: object) -> str:
    """Canonical text of an alpha cell: ``""`` (baseline), ``"0.25"``, ``"1"``, ``"1/R"``.

    Accepts what a CSV read gives back: floats (``1.0`` -> ``"1"``), numeric strings
    (``"1.0"`` -> ``"1"``), NaN/None/"" for measures without alpha, and non-numeric
    labels such as ``1/R`` kept as they are.
    """
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    text = str(value).strip()
    if text == "" or text.lower() == "nan":
        return ""
    try:
        return f"{float(text):g}"
    except ValueError:
        return text


def alpha_number(value: object) -> float | None:
    """The numeric alpha of a cell; None for baselines and per-topic alphas (``1/R``)."""
    key = alpha_key(value)
    try:
        return float(key) if key else None
    except ValueError:
        return None


def alpha_display(value: object) -> str:
    """An alpha as the paper prints it: ``0.0``, ``0.5``, ``1.0``, ``0.25``, ``1/R``;
    a baseline (no alpha) is ``0.0``."""
    key = alpha_key(value)
    if key == "":
        return "0.0"
    if alpha_number(key) is None:
        return key
    return key if any(c in key for c in ".e") else key + ".0"


def alpha_sort_key(key: str) -> tuple:
    number = alpha_number(key)
    return (0, number, "") if number is not None else (1, 0.0, key)


def paper_label(measure: str) -> str:
    """The paper's name of a measure: ``P_rareness@100`` -> ``P@100_rareness``,
    ``AP@100`` -> ``AP``, ``AP_rareness@100`` -> ``AP_rareness``; the [0, 1] forms of
    eq. 4 get a prime: ``P_rareness_norm@100`` -> ``P'@100_rareness``. Other cutoffs
    keep theirs (``AP@10`` -> ``AP@10``). Unknown names are returned unchanged."""
    m = MEASURE_PATTERN.match(str(measure))
    if not m:
        return str(measure)
    prime = "'" if m["norm"] else ""
    suffix = "_rareness" if m["rareness"] else ""
    if m["family"] == "P":
        return f"P{prime}@{m['k']}{suffix}"
    cut = "" if m["k"] == "100" else f"@{m['k']}"
    return f"AP{prime}{cut}{suffix}"


def measure_from_paper_label(label: str, cutoff: int = 100) -> str:
    """Inverse of :func:`paper_label`: ``P@100_rareness`` -> ``P_rareness@100``,
    ``AP`` -> ``AP@100`` (the paper's AP is cut at ``cutoff``)."""
    m = _LABEL_PATTERN.match(str(label).strip())
    if not m:
        raise ValueError(f"not a measure label of the paper: {label!r}")
    k = m["k"] or str(cutoff)
    return f"{m['family']}{'_rareness' if m['rareness'] else ''}{'_norm' if m['prime'] else ''}@{k}"


def is_baseline(measure: str) -> bool:
    m = MEASURE_PATTERN.match(str(measure))
    return bool(m) and not m["rareness"]
