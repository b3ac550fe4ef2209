"""The claims table's ``other_judgments`` rows (issue 27, item 7): does a rareness
measure rank the runs under another judgment set as faithfully as its baseline does?

Per rareness comparison and judgment set, from ``judgment_agreement.csv``: the measure's
Kendall tau-b between the runs' means under the set and under the qrels (column
``kendall_tau``) beside its baseline's. The claim holds when the measure's tau is not
lower than the baseline's by more than :data:`JUDGMENTS_TOLERANCE` (the tolerance of the
reusability claim: both ask whether the measure keeps its ranking when the judgments
change, and a difference of 0.01 in tau is a swap or two of run pairs among ~100 runs).

Which sets: every named set (``alternative_qrels``, an assessor of a folder, a fused set)
under its own name, and each generated assessor error rate ``error_<q>`` (Carterette and
Soboroff, SIGIR 2010) as the mean tau over its trials ``error_<q>_trial_<t>`` (the
measure's mean beside the baseline's mean over the same trials; math.fsum, so the order
of the shards does not matter). Shallower pools (``pool_depth_<d>``) and sampled
judgments (``fraction_<f>_trial_<t>``) are left out: they ask whether fewer judgments
suffice, not whether other assessors agree (``judgment_reduction.csv`` answers that).
Averaging: the mean over all topics (``all_topics``) when the table holds several.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import pandas as pd

from irmeta.artefacts.paper.tables import select_rows, with_keys
from irmeta.metaeval.generated_set_names import ERROR, fraction_label, parse_set_name

#: How far below its baseline's tau under a judgment set the rareness measure's may fall.
JUDGMENTS_TOLERANCE = 0.01

#: The claim's name in the claims table.
OTHER_JUDGMENTS = "other_judgments"

#: The columns of ``judgment_agreement.csv`` the claim reads.
JUDGMENT_COLUMNS = ("judgments", "measure", "alpha", "kendall_tau")

#: The criterion as the claims table states it.
CRITERION = f"tau under the set at most {JUDGMENTS_TOLERANCE:g} below the baseline's"


@dataclass(frozen=True)
class SetTaus:
    """One judgment set's (or one error rate's mean of trials) tau for the measure and its baseline."""

    judgments: str
    measure_tau: float
    baseline_tau: float
    sets: int  #: the sets averaged: 1 for a named set, the trials for an error rate


def claim_set(name: str) -> str | None:
    """The claims' name of judgment set ``name``: itself for a named set, ``error_<q>`` for
    a generated assessor's trial, None for a shallower pool or a sample (left out)."""
    try:
        generated = parse_set_name(name)
    except ValueError:
        return name
    return f"{ERROR}_{fraction_label(generated.value)}" if generated.kind == ERROR else None


def judgment_taus(frame: pd.DataFrame, measure: str, baseline: str, key: str) -> Iterator[SetTaus]:
    """Per claims set of ``judgment_agreement.csv`` (``frame``, in the table's order of
    sets): the mean tau of ``measure`` at alpha ``key`` and of ``baseline`` (no alpha)
    over the set's rows; a set lacking either is skipped. A set with two rows of one
    judgments name (two levels, say) is refused, naming the set."""
    rows = with_keys(_all_topics(frame))
    names = rows["judgments"].astype(str)
    rows = rows.assign(_set=names.map(claim_set), judgments=names)
    for name in dict.fromkeys(s for s in rows["_set"] if s is not None):
        of_set = rows[rows["_set"] == name]
        ours = select_rows(of_set, measure, key)
        theirs = select_rows(of_set, baseline, "")
        if ours.empty or theirs.empty:
            continue
        for what, chosen in ((f"{measure} at alpha {key}", ours), (baseline, theirs)):
            if not chosen["judgments"].is_unique:
                raise ValueError(f"judgment_agreement: set {name!r} has {len(chosen)} rows of {what}; "
                                 "one per set is expected")
        trials = set(ours["judgments"])
        if trials != set(theirs["judgments"]):
            continue  # not the same trials: the means would not compare
        yield SetTaus(name, _mean(ours["kendall_tau"]), _mean(theirs["kendall_tau"]), len(trials))


def _all_topics(frame: pd.DataFrame) -> pd.DataFrame:
    """The mean over all topics when the table holds several averagings."""
    if "averaging" in frame.columns and frame["averaging"].nunique() > 1:
        return frame[frame["averaging"].astype(str) == "all_topics"]
    return frame


def _mean(values: pd.Series) -> float:
    """The exact mean (math.fsum), NaN when any value is undefined (a tau over tied runs)."""
    numbers = pd.to_numeric(values, errors="coerce").astype(float).tolist()
    return math.fsum(numbers) / len(numbers)


def holds(measure_tau: float, baseline_tau: float) -> bool | None:
    """Does the claim hold: tau at most :data:`JUDGMENTS_TOLERANCE` below the baseline's
    (None when either is undefined)."""
    gain = measure_tau - baseline_tau
    return None if math.isnan(gain) else bool(gain >= -JUDGMENTS_TOLERANCE)
