"""The claims table's rows from ``test_error_rates.csv`` (issue 41): which test can be
trusted on each measure, and whether a rareness measure's gain in discriminative power is
power or error.

- ``nominal_level``, per collection, measure and paired test (the protocol): does the
  test keep its two-tailed type I error within [0.8 alpha, 1.2 alpha] at ``level`` (0.05)
  at every topic-set size simulated? ``value`` is the smallest topic-set size at which it
  leaves that band (empty when it never does), ``measure_value`` the rate there (the
  largest size's when it never leaves); holds when it never leaves.
- ``type_1_error`` and ``power``, per comparison of ``experiments.comparisons`` (a
  rareness measure against its baseline) and paired test: the two measures' two-tailed
  type I rates, and their powers at the delta nearest :data:`DELTA`, at ``level`` and the
  topic-set size nearest :data:`TOPICS`, side by side (``measure_value``,
  ``baseline_value``; ``value`` their difference). ``type_1_error`` holds when the
  measure's rate is at most 1.2 alpha (its significant pairs are not error), ``power``
  when the measure's power exceeds its baseline's.

The rareness measures' alpha: the table names it in the measure (``AP_rareness(alpha=1)@100``);
the rows carry it in their ``alpha`` column, as the other claims do.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from irmeta.measures.alpha import alpha_label
from irmeta.measures.names import parse_measure
from irmeta.metaeval.stats.registry import name_order

#: The claims' names in the claims table, in their order.
NOMINAL_LEVEL, TYPE_1_ERROR, POWER = "nominal_level", "type_1_error", "power"
ERROR_RATE_CLAIMS = (NOMINAL_LEVEL, TYPE_1_ERROR, POWER)

#: The columns of ``test_error_rates.csv`` the claims read.
ERROR_RATE_COLUMNS = ("measure", "n_topics", "test", "tails", "correction", "alpha", "delta", "rate", "kind")

#: The band of a test that keeps its level: [LOW, HIGH] x alpha.
LOW, HIGH = 0.8, 1.2
#: The comparisons' topic-set size and effect size: the table's nearest to these (TREC's
#: usual 50 topics; the paper's anchor delta).
TOPICS, DELTA = 50, 0.05


def split_label(label: str) -> tuple[str, str]:
    """(measure without alpha, alpha cell): ``AP_rareness(alpha=1)@100`` -> (``AP_rareness@100``, ``1``);
    a name irmeta does not know is its own measure, without alpha."""
    try:
        m = parse_measure(label)
    except ValueError:
        return label, ""
    return str(m.without_alpha()), "" if m.alpha is None else alpha_label(m.alpha)


def _two_tailed(frame: pd.DataFrame, kind: str, level: float) -> pd.DataFrame:
    rows = frame[(frame["kind"] == kind) & (frame["tails"].astype(int) == 2)]
    rows = rows[np.isclose(rows["alpha"].astype(float), float(level))]
    keys = [split_label(str(label)) for label in rows["measure"]]
    return rows.assign(_measure=[k[0] for k in keys], _alpha=[k[1] for k in keys])


def nominal_level_rows(frame: pd.DataFrame, level: float) -> Iterator[dict]:
    """One row per measure and test of the table (both in the table's order, tests in the
    registry's): where it leaves [LOW alpha, HIGH alpha]."""
    rows = _two_tailed(frame, "type_1", level)
    low, high = LOW * level, HIGH * level
    sizes = sorted(int(n) for n in rows["n_topics"].unique())
    criterion = (f"two-tailed type I rate within [{low:g}, {high:g}] at alpha {level:g} at every topic-set size "
                 f"({', '.join(map(str, sizes))})")
    for (measure, alpha), mine in rows.groupby(["_measure", "_alpha"], sort=False):
        for test in sorted(mine["test"].astype(str).unique(), key=name_order):
            curve = mine[mine["test"] == test].sort_values("n_topics")
            rates = curve["rate"].astype(float).to_numpy()
            outside = (rates < low) | (rates > high)
            at = int(np.argmax(outside)) if outside.any() else len(rates) - 1
            yield {"claim": NOMINAL_LEVEL, "protocol": test, "measure": measure, "baseline": "", "alpha": alpha,
                   "value": float(curve["n_topics"].iloc[at]) if outside.any() else np.nan,
                   "baseline_value": np.nan, "measure_value": float(rates[at]), "threshold": float(level),
                   "criterion": criterion, "holds": not bool(outside.any()), "pairs_share": np.nan}


def _nearest(values: pd.Series, target: float) -> float:
    found = np.asarray(sorted(set(values.astype(float))))
    return float(found[np.argmin(np.abs(found - target))])


def comparison_rows(frame: pd.DataFrame, measure: str, baseline: str, key: str, level: float) -> Iterator[dict]:
    """The comparison's ``type_1_error`` and ``power`` rows, one per test both measures
    were simulated with (measure at alpha ``key``, baseline without)."""
    for claim, kind in ((TYPE_1_ERROR, "type_1"), (POWER, "power")):
        rows = _two_tailed(frame, kind, level)
        ours = rows[(rows["_measure"] == measure) & (rows["_alpha"] == key)]
        theirs = rows[(rows["_measure"] == baseline) & (rows["_alpha"] == "")]
        if ours.empty or theirs.empty:
            continue
        n = _nearest(pd.concat([ours["n_topics"], theirs["n_topics"]]), TOPICS)
        ours, theirs = ours[ours["n_topics"] == n], theirs[theirs["n_topics"] == n]
        where = f"alpha {level:g}, {int(n)} topics"
        if kind == "power":
            delta = _nearest(pd.concat([ours["delta"], theirs["delta"]]), DELTA)
            ours = ours[np.isclose(ours["delta"].astype(float), delta)]
            theirs = theirs[np.isclose(theirs["delta"].astype(float), delta)]
            where += f", delta {delta:g}"
            criterion = f"power above the baseline's ({where})"
        else:
            criterion = f"the measure's type I rate at most {HIGH * level:g} ({where})"
        for test in sorted(set(ours["test"].astype(str)) & set(theirs["test"].astype(str)), key=name_order):
            mine = float(ours.loc[ours["test"] == test, "rate"].iloc[0])
            base = float(theirs.loc[theirs["test"] == test, "rate"].iloc[0])
            holds = mine <= HIGH * level if kind == "type_1" else mine > base
            yield {"claim": claim, "protocol": test, "measure": measure, "baseline": baseline, "alpha": key,
                   "value": mine - base, "baseline_value": base, "measure_value": mine,
                   "threshold": HIGH * level if kind == "type_1" else 0.0, "criterion": criterion,
                   "holds": bool(holds), "pairs_share": np.nan}


def measure_alphas(frame: pd.DataFrame, measure: str) -> list[str]:
    """The alpha cells of ``measure`` (without alpha) in the table."""
    return list(dict.fromkeys(a for m, a in map(split_label, frame["measure"].astype(str)) if m == measure))


def error_rate_cell(claim: str, value: float, measure_value: float, baseline_value: float, holds: object) -> str:
    """A cell of the side-by-side view: ``0.051 (yes)`` or ``0.072 from 50 topics (no)`` for
    the nominal level; ``0.052 vs 0.049 (yes)`` (measure vs baseline) for the others."""
    verdict = "yes" if holds else "no"
    if claim == NOMINAL_LEVEL:
        where = "" if np.isnan(value) else f" from {int(value)} topics"
        return f"{measure_value:.3f}{where} ({verdict})"
    return f"{measure_value:.3f} vs {baseline_value:.3f} ({verdict})"


#: What each claim is, for the claims' caption.
INTRO = {
    NOMINAL_LEVEL: "Nominal level (simulated collections, Urbano et al. 2019): a paired test's two-tailed type I "
                   "error on the measure, within [0.8 alpha, 1.2 alpha] or from which topic-set size it is not "
                   "(the rate there)",
    TYPE_1_ERROR: "Type I error (simulated): the measure's two-tailed type I rate vs its baseline's, under each "
                  "paired test",
    POWER: "Power (simulated): the measure's two-tailed power vs its baseline's, under each paired test",
}
