"""Which effect sizes delta a margin can be moved by, decided from a measure's declared
range alone, before any score is read or model fitted (the workflow's config checks,
``irmeta test-errors --delta``, ``irmeta.test_errors(deltas=)``).

Power and type III trials move a run's margin on [0, high] to its mean + delta
(:meth:`~.margins.Margin.shifted`, simIReff's transformation G = F^a, a finite). A fitted
margin's mean is above 0 (a run with one distinct score has no margin), and a reshaped
margin keeps mass below the top, so its mean stays below ``high``: no margin reaches
mean + delta once delta >= high (the range's width, its low being 0). Whether a delta
below it is reached depends on the fitted margins (:func:`~irmeta.metaeval.error_rate_models.checked_deltas`).

Imports nothing heavy: the workflow's parse calls it.
"""

from __future__ import annotations

import math


def delta_fault(delta: object, high: float, measure: str) -> str | None:
    """Why no margin of ``measure``, whose scores lie in [0, ``high``], can be moved to its
    mean + ``delta`` (one line starting ``delta ...``), None if some margin may: delta not
    a number, or not a gain (<= 0), or at least the range's width ``high``."""
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not math.isfinite(float(delta)):
        return f"delta {delta!r} is not a finite number"
    if delta <= 0:
        return f"delta {delta:g} is not a gain: power moves the second run's margin up, by a delta > 0"
    if delta >= high:
        return (f"delta {delta:g} is out of reach of every margin of {measure}: its scores lie in [0, {high:g}], "
                f"so a run's mean + delta stays below {high:g}")
    return None
