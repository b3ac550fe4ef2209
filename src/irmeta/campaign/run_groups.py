"""Run groups: which participant (group) submitted each run, the unit of leave-one-group-out.

A groups file is tab-separated with a header line whose first column is ``run``; the
group is the column named ``group`` (irmeta's simulated campaigns), else ``participant``
(TREC's ``runs_participants.tsv``: run, participant, task, type), else the second column.
A run TREC pooled but a group did not submit would make a unit of nothing, and a run
without a group would escape its group's removal, so both are errors naming the file and
the run (issue 19). Blank lines are skipped, a UTF-8 byte order mark is read past, a run
listed twice or with an empty group is an error. :func:`groups_for_runs` is the one
reader of a collection's groups file: its properties and its reusability both call it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from irmeta.campaign.runs import check_same_runs

UnitKind = Literal["group", "run"]

_GROUP_COLUMNS = ("group", "participant")


def read_run_groups(path: str | Path) -> dict[str, str]:
    """Run name -> group name, from a groups file (module docstring); a malformed line, or a
    run listed twice, is a ValueError naming the file and the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's byte order mark is no part of 'run'
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    lines = [line.rstrip("\r\n") for line in text.splitlines()]
    lines = [line for line in lines if line.strip()]
    if not lines:
        raise ValueError(f"{path}: empty groups file (expected a header line 'run<TAB>group')")
    header = lines[0].split("\t")
    if header[0].strip().lower() != "run" or len(header) < 2:
        raise ValueError(f"{path}: line 1: the header must start with 'run' and name a group column, "
                         f"got {lines[0]!r}")
    names = [h.strip().lower() for h in header]
    column = next((names.index(c) for c in _GROUP_COLUMNS if c in names), 1)
    groups: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) <= column or not fields[0] or not fields[column]:
            raise ValueError(f"{path}: line {number}: expected a run and its group, got {line!r}")
        if fields[0] in groups:
            raise ValueError(f"{path}: line {number}: run {fields[0]} is listed twice")
        groups[fields[0]] = fields[column]
    return groups


def groups_for_runs(path: str | Path, runs: Sequence[str]) -> dict[str, str]:
    """Run -> group of each of ``runs`` (in their order), from the groups file ``path``
    (:func:`read_run_groups`), which must name exactly ``runs``: a run it names that
    ``runs`` lack, or one of ``runs`` it does not name, is a ValueError naming the file
    and the run (:func:`irmeta.campaign.runs.check_same_runs`)."""
    groups = read_run_groups(path)
    check_same_runs(groups, runs, path, "group")
    return {run: groups[run] for run in runs}


@dataclass(frozen=True)
class Units:
    """The units runs are left out by: ``names`` (units,), ``of_run`` (runs,) int64 codes
    into ``names`` (units in order of their first run), and their ``kind``."""

    names: list[str]
    of_run: np.ndarray
    kind: UnitKind

    @property
    def n_units(self) -> int:
        return len(self.names)

    def runs_of(self, unit: int) -> np.ndarray:
        """Indices of the unit's runs, in run order."""
        return np.flatnonzero(self.of_run == unit)


def run_units(runs: Sequence[str], groups: Mapping[str, str] | None = None, *, kind: UnitKind = "group",
              source: str | Path = "run_groups") -> Units:
    """The units of ``runs``: their groups (``kind`` group with ``groups``), else each run
    alone (``kind`` run, or no groups file). ``groups`` must name exactly the runs: a run
    it names that ``runs`` lack, or a run it misses, is a ValueError naming ``source``
    and the run."""
    if kind not in ("group", "run"):
        raise ValueError(f"unit must be 'group' or 'run', not {kind!r}")
    if kind == "run" or groups is None:
        return Units(names=list(runs), of_run=np.arange(len(runs), dtype=np.int64), kind="run")
    check_same_runs(groups, runs, source, "group")
    names = list(dict.fromkeys(groups[r] for r in runs))
    code = {name: i for i, name in enumerate(names)}
    return Units(names=names, of_run=np.array([code[groups[r]] for r in runs], dtype=np.int64), kind="group")
