"""The reusability tables: ``reusability.csv`` (one row per run, measure, alpha and rarity
rule) and ``reusability_summary.csv`` (one row per measure, alpha and rule), from
:func:`irmeta.metaeval.reusability.leave_one_unit_out`.

Ranks are counted against the other runs' *full* scores, in each measure's own direction
(:attr:`Measure.higher_is_better`): ``rank_full`` is 1 + the other runs scoring better
than the run's full score, ``rank_left_out`` 1 + the other runs whose full score is
better than the run's left-out score, so a rank drop is how many runs of the campaign a
run falls behind when it did not build the pool (Zobel 1998; Sakai 2007).

Summary columns, per ``measure``, ``alpha`` (empty without one) and ``rarity`` (rule, or
``none``):

- ``runs``: the runs scored;
- ``kendall_tau``: Kendall's tau-b between the full and the left-out scores over all runs
  (:func:`irmeta.metaeval.stats.correlation.kendall_tau`);
- ``mean_relative_change``: the mean over runs with a non-zero full score of
  (left-out - full) / |full|;
- ``largest_rank_drop``: the largest rank_left_out - rank_full (0 when no run drops);
- ``drop_threshold``: 5 % of the runs, and ``runs_dropping``: the runs whose rank drops by
  more than it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irmeta.metaeval.reusability import LeftOut
from irmeta.metaeval.stats.correlation import kendall_tau

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["unit", "run", "measure", "alpha", "rarity", "score_full", "score_left_out", "rank_full",
           "rank_left_out", "removed_judged", "removed_relevant"]

SUMMARY_COLUMNS = ["measure", "alpha", "rarity", "runs", "kendall_tau", "mean_relative_change",
                   "largest_rank_drop", "drop_threshold", "runs_dropping"]

DROP_PERCENT = 5  # a rank drop counts when larger than this percentage of the runs


def ranks_against(full: np.ndarray, scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """(runs,) 1 + the number of *other* runs whose full score is better than ``scores[r]``
    (``scores`` is ``full`` itself for the full ranks)."""
    sign = 1.0 if higher_is_better else -1.0
    f, s = sign * np.asarray(full, dtype=np.float64), sign * np.asarray(scores, dtype=np.float64)
    ordered = np.sort(f)
    better = len(f) - np.searchsorted(ordered, s, side="right")  # every run, itself included
    return (1 + better - (f > s)).astype(np.int64)  # the run itself is no other run


def reusability_table(result: LeftOut) -> pd.DataFrame:
    """``reusability.csv``: one row per run, measure, alpha and rule (module docstring)."""
    import pandas as pd

    units = result.units
    unit_names = np.asarray(units.names, dtype=object)[units.of_run]
    frames = []
    for v, variant in enumerate(result.variants):
        full, left = result.full[v], result.left_out[v]
        frames.append(pd.DataFrame({
            "unit": unit_names,
            "run": result.runs,
            "measure": variant.measure,
            "alpha": variant.alpha,
            "rarity": variant.rarity,
            "score_full": full,
            "score_left_out": left,
            "rank_full": ranks_against(full, full, variant.higher_is_better),
            "rank_left_out": ranks_against(full, left, variant.higher_is_better),
            "removed_judged": result.removed_judged[units.of_run],
            "removed_relevant": result.removed_relevant[units.of_run],
        }))
    if not frames:
        return pd.DataFrame({c: [] for c in COLUMNS})
    table = pd.concat(frames, ignore_index=True)[COLUMNS]
    table["alpha"] = table["alpha"].astype("string")
    return table


def mean_relative_change(full: np.ndarray, left: np.ndarray) -> float:
    """Mean of (left - full) / |full| over the runs whose full score is not 0 (NaN if none)."""
    on = full != 0
    return float(np.mean((left[on] - full[on]) / np.abs(full[on]))) if on.any() else float("nan")


def reusability_summary(table: pd.DataFrame) -> pd.DataFrame:
    """``reusability_summary.csv`` from ``reusability.csv``'s rows (module docstring)."""
    import pandas as pd

    rows = []
    keys = ["measure", "alpha", "rarity"]
    for (measure, alpha, rarity), part in table.groupby(keys, sort=False, dropna=False):
        full = part["score_full"].to_numpy(np.float64)
        left = part["score_left_out"].to_numpy(np.float64)
        drop = (part["rank_left_out"] - part["rank_full"]).to_numpy()
        threshold = len(part) * DROP_PERCENT / 100  # 1.2, not 0.05 * 24 = 1.2000000000000002
        rows.append({
            "measure": measure, "alpha": None if pd.isna(alpha) else alpha, "rarity": rarity, "runs": len(part),
            "kendall_tau": kendall_tau(full, left), "mean_relative_change": mean_relative_change(full, left),
            "largest_rank_drop": int(max(drop.max(initial=0), 0)), "drop_threshold": threshold,
            "runs_dropping": int((drop > threshold).sum()),
        })
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out["alpha"] = out["alpha"].astype("string")
    return out
