"""The workflow's steps of the family-bias analysis (:mod:`irmeta.metaeval.family_bias`):
the families a job reads, and the family rows and ranks of judgment sets, generated ones
in shards (compare_reduced_judgments) and alternative ones in the tabulating rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from irmeta.campaign.run_families import families_for_runs
from irmeta.measures.averaging import Scores
from irmeta.metaeval.family_bias import FAMILY_BIAS_COLUMNS, RANK_COLUMNS, family_bias_frames

#: The family of every run when the collection names none (one colour in the figure).
NO_FAMILY = ""


def run_families(path: str | Path | None, runs: Sequence[str]) -> dict[str, str] | None:
    """Run -> family from the collection's families file; None without one."""
    return None if path is None else families_for_runs(path, runs)


class FamilyCollector:
    """Gathers the family rows and ranks of judgment sets one at a time (``each`` of
    :func:`irmeta.metaeval.judgment_reduction.generated_agreement_rows`)."""

    def __init__(self, reference: Scores, families: Mapping[str, str] | None, *, permutations: int, seed: int):
        self.reference, self.families = reference, families
        self.permutations, self.seed = int(permutations), int(seed)
        self.tables: list[pd.DataFrame] = []
        self.ranks: list[pd.DataFrame] = []

    def __call__(self, name: str, scores: Scores) -> None:
        self.add({name: scores})

    def add(self, sets: Mapping[str, Scores]) -> None:
        families = self.families or {run: NO_FAMILY for run in self.reference.runs}
        # without families only the ranks are wanted: one draw, never read
        table, ranks = family_bias_frames(self.reference, sets, families,
                                          permutations=self.permutations if self.families else 1, seed=self.seed)
        if self.families:
            self.tables.append(table)
        self.ranks.append(ranks)

    def table(self) -> pd.DataFrame:
        return _concat(self.tables, FAMILY_BIAS_COLUMNS)

    def rank_frame(self) -> pd.DataFrame:
        return _concat(self.ranks, RANK_COLUMNS)


def _concat(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(columns))
