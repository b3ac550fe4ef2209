"""Score tables as codes (:class:`ScoreRows`) and the names every module of
:mod:`irmeta.measures.score_files` shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa

from irmeta.support.names import first_missing

if TYPE_CHECKING:
    import pandas as pd


ScoreFormat = Literal["auto", "irmeta", "trec_eval"]
Missing = Literal["error", "zero"]
TopicOrder = Literal["irmeta", "table"]
COLUMNS = ("run", "measure", "qid", "value")
HEADER = "\t".join(COLUMNS)


@dataclass(frozen=True)
class MeanRows:
    """A file's mean rows (qid ``all``), as read: per row its run, its measure's canonical
    label, its value, the decimals its text prints (``0.6920``: 4; ``1e-05``: 5) and where
    it is (``path:line``, or ``row i`` of a table in memory). Few (runs x measures), kept
    to check them against the per-topic rows (:mod:`~irmeta.measures.score_files.mean_rows`)."""

    runs: list[str]
    labels: list[str]
    value: np.ndarray
    decimals: np.ndarray
    where: list[str]


@dataclass(frozen=True)
class ScoreRows:
    """A score table as codes: row ``i`` is run ``runs[run[i]]``, measure
    ``measures[measure[i]]``, topic ``qids[qid[i]]`` (``all``: a mean), value ``value[i]``.
    Each name is held once, each row as integers and a float: what :func:`read_score_rows`
    gives and :func:`score_grid` lays out. ``dropped``: the lines left out (see
    :func:`read_score_file`); ``source``: the file; ``means``: the mean rows as their text
    printed them (None: take them from the rows, as a table in memory holds them)."""

    runs: list[str]
    measures: list[str]
    qids: list[str]
    run: np.ndarray
    measure: np.ndarray
    qid: np.ndarray
    value: np.ndarray
    dropped: dict[str, int] = field(default_factory=dict)
    source: str = ""
    means: MeanRows | None = None

    def __len__(self) -> int:
        return len(self.value)

    def per_topic(self) -> np.ndarray | None:
        """Which rows are per-topic (qid other than ``all``); None: every one."""
        if "all" not in self.qids:
            return None
        return self.qid != self.qids.index("all")

    def where(self, keep: np.ndarray) -> ScoreRows:
        """The rows ``keep`` (a mask) picks, with the same names."""
        return ScoreRows(self.runs, self.measures, self.qids, self.run[keep], self.measure[keep], self.qid[keep],
                         self.value[keep], self.dropped, self.source, self.means)

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame: run, measure, qid (text) and value (float64)."""
        def text(names: list[str], codes: np.ndarray) -> pa.Array:
            return pa.array(names, pa.large_string()).take(pa.array(codes))

        frame = pa.table({"run": text(self.runs, self.run), "measure": text(self.measures, self.measure),
                          "qid": text(self.qids, self.qid), "value": self.value}).to_pandas()
        frame.attrs["dropped"] = dict(self.dropped)
        frame.attrs["source"] = self.source
        return frame


def refuse_missing_names(table: pd.DataFrame, source: str) -> None:
    """A run, measure or topic cell of a table in memory that is missing (NaN, None, NA)
    or a float is refused naming its row (:mod:`irmeta.support.names`): read as text it
    would be a run or topic ``nan``."""
    for column in ("run", "measure", "qid"):
        values = table[column]
        if values.dtype.kind in "Of":  # integers and bytes are names; objects may hold a NaN
            missing = first_missing(values.tolist())
            if missing is not None:
                raise ValueError(f"{source}, row {missing[0]}: {column} is {missing[1]}")
