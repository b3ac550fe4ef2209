"""The claims :func:`irmeta.artefacts.claims.claims_table` could not fill, and why: a
comparison whose measure or baseline a collection's tables lack, a discriminative-power
method (:func:`~irmeta.artefacts.claims.power_protocols`) or a fuzziness that was not
configured or whose draws cannot reach the level over all pairs (``attainable`` False), a
collection without the reusability table (no run groups), a generated assessor error rate
another collection has (named judgment sets belong to one collection and are expected
nowhere else). One row per
(claim, protocol, comparison, collection) expected and absent, with a ``note``.

Expected: per comparison and collection, the rank-agreement protocols of its
``kendall_tau`` table, every power protocol, every fuzziness setting and rarity rule
some collection holds (reusability only when some collection has it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.artefacts.claims import CLAIMS, TAU_PROTOCOLS, power_protocols
from irmeta.artefacts.claims_judgments import OTHER_JUDGMENTS
from irmeta.metaeval.discriminative_power import attainable_rows
from irmeta.metaeval.generated_set_names import ERROR
from irmeta.metaeval.stats.registry import unattainable_note

#: Columns of :func:`unfilled_claims`: the claims' key columns, then why.
UNFILLED_COLUMNS = ["claim", "protocol", "measure", "baseline", "alpha", "collection", "note"]

_POWER_KEYS = "experiments.discriminative_power.methods / corrections"


def unfilled_claims(table: pd.DataFrame, tables: Mapping[str, Mapping[str, pd.DataFrame]],
                    comparisons: Sequence[Mapping[str, str]], *, level: float = 0.05) -> pd.DataFrame:
    """The rows ``table`` (:func:`~irmeta.artefacts.claims.claims_table` of ``tables``
    and ``comparisons`` at ``level``) lacks, each with the reason (columns
    :data:`UNFILLED_COLUMNS`); empty when every expected row is there."""
    expected = _expected_protocols(table, tables)
    have = set(zip(table["claim"], table["protocol"], table["measure"], table["baseline"], table["collection"]))
    rows = []
    for comparison in comparisons:
        measure, baseline = str(comparison["measure"]), str(comparison["baseline"])
        for label, frames in tables.items():
            ours = table[(table["measure"] == measure) & (table["baseline"] == baseline)
                         & (table["collection"] == label)]
            alpha = str(ours["alpha"].iloc[0]) if len(ours) else ""
            absent = _absent_measure(frames, measure, baseline)
            if absent:
                rows.append(["all", "", measure, baseline, alpha, label, absent])
                continue
            for claim, protocol in expected:
                if (claim, protocol, measure, baseline, label) not in have:
                    note = _why(claim, protocol, frames, label, level)
                    rows.append([claim, protocol, measure, baseline, alpha, label, note])
    return pd.DataFrame(rows, columns=UNFILLED_COLUMNS)


def _expected_protocols(table: pd.DataFrame, tables: Mapping[str, Mapping[str, pd.DataFrame]]) -> list[tuple]:
    """(claim, protocol) every comparison should have, in the claims' order."""
    seen = list(dict.fromkeys(zip(table["claim"], table["protocol"])))
    taus = [p for column, p in TAU_PROTOCOLS.items()
            if any(column in frames["kendall_tau"].columns for frames in tables.values())]
    wanted = ([("rank_agreement", p) for p in taus] + [("discriminative_power", p) for p in power_protocols()]
              + [s for s in seen if s[0] in ("stability", "reusability")]
              # generated assessors are every ranked collection's; a named set is its collection's own
              + [s for s in seen if s[0] == OTHER_JUDGMENTS and s[1].startswith(ERROR + "_")])
    if any(frames.get("reusability_summary") is not None for frames in tables.values()):
        wanted += [("reusability", "leave_one_out+frozen"), ("reusability", "leave_one_out+joined")]
    out = list(dict.fromkeys(wanted))
    return sorted(out, key=lambda s: CLAIMS.index(s[0]))


def _absent_measure(frames: Mapping[str, pd.DataFrame], measure: str, baseline: str) -> str:
    """Why no claim of the comparison can be filled, or ""."""
    held = set()
    for name in ("kendall_tau", "discriminative_power", "stability"):
        held |= set(frames[name]["measure"].astype(str))
    for name, what in ((measure, "measure"), (baseline, "baseline")):
        if name not in held:
            return (f"the {what} {name} is in none of the collection's tables "
                    f"(not among measures / experiments.comparisons)")
    return ""


def _why(claim: str, protocol: str, frames: Mapping[str, pd.DataFrame], label: str, level: float) -> str:
    if claim == "rank_agreement":
        return "no Kendall tau row of the measure against this baseline at the alpha"
    if claim == "discriminative_power":
        power = frames["discriminative_power"]
        if not (power["method"].astype(str) == protocol).any():
            return f"{protocol} is not configured ({_POWER_KEYS})"
        at_level = np.isclose(power["level"].astype(float), float(level))
        if not at_level.any():
            return f"level {level:g} is not configured (experiments.discriminative_power.levels)"
        blocked = power[at_level & (power["method"].astype(str) == protocol) & ~attainable_rows(power)]
        if len(blocked):
            row = blocked.iloc[0]
            # only a plus-one p (1 / (B + 1) at least) is ever unattainable
            return unattainable_note(protocol, level, int(row["permutations"]), int(row["total_pairs"]),
                                     plus_one=True)
        return f"the measure or the baseline has no {protocol} row at level {level:g}"
    if claim == "stability":
        return f"fuzziness {protocol} not computed for {label} (experiments.stability.fuzziness)"
    if claim == OTHER_JUDGMENTS:
        if frames.get("judgment_agreement") is None:
            return f"{label} has no judgment_agreement table (no judgment sets, or scores only)"
        return f"judgment set {protocol} has no tau row of the measure or the baseline"
    if frames.get("reusability_summary") is None:
        return f"{label} has no reusability table (no run groups, or scores only)"
    return f"the measure or the baseline has no {protocol.split('+')[-1]} rarity row in the reusability table"
