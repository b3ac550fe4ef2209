"""Document rarity: how few of the campaign's runs found each relevant document.

Türkmen, Lease and Kutlu (ECIR 2023), eq. 2 and section 5.2. For topic q and relevant
document d, S_d is the number of runs whose top-k for q holds d, S the number of runs:

    R(d)  = 1 - S_d / S                 in [0, (S-1)/S] for a retrieved document  (eq. 2)
    R'(d) = 1 - (S_d - 1) / (S - 1)     in [0, 1] for a retrieved document   (sec. 5.2)

Relevant documents no run found are kept with S_d = 0 (R = 1, R' = S/(S-1)); they
never enter a run's score, but the rarity listing shows them. Rarity can be counted
from any subset of the runs (the system-subsampling experiment draws N of them), at a
depth of its own (the paper's Table 4 counted S_d over the runs' full depth, 1000).

Rarity functions (issue 20; the paper's future work), a measure's ``rarity`` parameter:

    linear   f(S_d) = 1 - S_d / S                   (eq. 2, the default)
    log      f(S_d) = log(S / S_d) / log(S)         (an IDF read over runs; needs S >= 2)
    inverse  f(S_d) = 1 / S_d

each in [0, 1] for a retrieved document, 1 at S_d = 1. Under ``log`` and ``inverse`` a
relevant document no run retrieved (S_d = 0) counts as S_d = 1. The [0, 1] form f' is f
rescaled min-max over the values a retrieved document can take (S_d = 1..S):
f'(S_d) = (f(S_d) - f(S)) / (f(1) - f(S)), so linear's f' is R' of section 5.2, log's
f' is f itself, and inverse's f' is (S / S_d - 1) / (S - 1); every f' needs S >= 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from irmeta.campaign.postings import Postings, RelevanceMatrix

if TYPE_CHECKING:
    import pandas as pd


LINEAR = "linear"
#: The rarity functions a rareness measure takes as its ``rarity`` parameter.
RARITY_FUNCTIONS = (LINEAR, "log", "inverse")

#: The columns of the rarity listing, in order: ``rarity.parquet`` (:func:`rarity_listing`)
#: and Table 4, ``rarity_listing.csv`` (the experiment manifest names this constant; the
#: documentation's table reference is written from it). Each rarity function but the
#: linear one adds its two columns when named (:data:`OPTIONAL_COLUMNS`).
LISTING_COLUMNS = ("qid", "docid", "grade", "depth", "n_retrieving", "rarity", "rarity_prime",
                   *(f"rarity{prime}_{f}" for f in RARITY_FUNCTIONS[1:] for prime in ("", "_prime")))
#: Columns of :data:`LISTING_COLUMNS` written only under some settings, with when.
OPTIONAL_COLUMNS = {f"rarity{prime}_{f}": f"a configured measure names rarity={f}"
                    for f in RARITY_FUNCTIONS[1:] for prime in ("", "_prime")}


def check_rarity_function(function: object, measure: str = "a rareness measure") -> str:
    """``function`` if it is one of :data:`RARITY_FUNCTIONS`, else a one-line ValueError
    naming it and what ``measure`` takes."""
    if not isinstance(function, str) or function not in RARITY_FUNCTIONS:
        raise ValueError(f"{measure} takes rarity={', '.join(RARITY_FUNCTIONS)}, not rarity={function!r}")
    return function


def rarity_values(n_retrieving: np.ndarray, n_systems: int, function: str = LINEAR,
                  normalised: bool = False) -> np.ndarray:
    """f(S_d) of the rarity ``function`` for S_d = ``n_retrieving`` of S = ``n_systems``
    runs, or with ``normalised`` its [0, 1] form f' (module docstring). S_d = 0 keeps
    linear's 1 - 0/S = 1 (R' = S/(S-1)) and counts as S_d = 1 under log and inverse."""
    check_rarity_function(function)
    s = int(n_systems)
    if s < 1:
        raise ValueError("rarity needs at least one run")
    if normalised and s < 2:
        raise ValueError("R'(d) needs at least two runs (S - 1 > 0)")
    s_d = np.asarray(n_retrieving, dtype=np.float64)
    if function == LINEAR:
        return 1.0 - (s_d - 1.0) / (s - 1) if normalised else 1.0 - s_d / s
    s_d = np.maximum(s_d, 1.0)
    if function == "log":
        if s < 2:
            raise ValueError("log rarity log(S / S_d) / log(S) needs at least two runs (log S > 0)")
        return np.log(s / s_d) / np.log(s)  # already 1 at S_d = 1 and 0 at S_d = S: f' = f
    if normalised:
        return (s / s_d - 1.0) / (s - 1)
    return 1.0 / s_d


@dataclass(frozen=True)
class Rarity:
    """S_d of every relevant judgment of the qrels, counted over ``n_systems`` runs."""

    judgment: np.ndarray  # (J,) row of the qrels
    topic: np.ndarray  # (J,) topic index
    doc: np.ndarray  # (J,) document code
    grade: np.ndarray  # (J,)
    n_retrieving: np.ndarray  # (J,) S_d
    n_systems: int  # S
    depth: int  # the depth S_d was counted at
    index_of_judgment: np.ndarray  # (qrels rows,) -> index into the arrays above, -1 if not relevant

    @property
    def rarity(self) -> np.ndarray:
        """R(d) = 1 - S_d / S (eq. 2)."""
        return 1.0 - self.n_retrieving / self.n_systems

    def values(self, function: str = LINEAR, normalised: bool = False) -> np.ndarray:
        """(J,) the rarity function's value of every relevant judgment (:func:`rarity_values`)."""
        return rarity_values(self.n_retrieving, self.n_systems, function, normalised)

    @property
    def rarity_prime(self) -> np.ndarray:
        """R'(d) = 1 - (S_d - 1) / (S - 1) (section 5.2); needs S >= 2."""
        if self.n_systems < 2:
            raise ValueError("R'(d) needs at least two runs (S - 1 > 0)")
        return 1.0 - (self.n_retrieving - 1) / (self.n_systems - 1)

    def per_posting(self, hits: Postings, values: np.ndarray) -> np.ndarray:
        """``values`` (one per relevant judgment) at each relevant posting of ``hits``."""
        # values[index[judgment]] as (values[index])[judgment]: the same numbers, one gather
        # over the qrels rows and one over the postings (at 10^9 lines, 30 M of them)
        values = np.asarray(values)
        if not len(values):  # no relevant judgment: no relevant posting either
            return values[self.index_of_judgment[hits.judgment]]
        return values[self.index_of_judgment][hits.judgment]

    def by_qrels_row(self, values: np.ndarray) -> np.ndarray:
        """(qrels rows,) ``values`` (one per relevant judgment) at each relevant row, 0 at the
        other judged rows: a gain below the relevance threshold carries no rarity, as
        rarity rewards rare *relevant* documents."""
        out = np.zeros(len(self.index_of_judgment), dtype=np.float64)
        out[self.judgment] = values
        return out

    def table(self, matrix: RelevanceMatrix, functions: Sequence[str] = (LINEAR,)) -> pd.DataFrame:
        """One row per relevant judgment: qid, docid, grade, n_retrieving, rarity, rarity_prime
        (the linear rarity, eq. 2, and R'), then ``rarity_<f>`` and ``rarity_prime_<f>`` for
        each other rarity function f of ``functions`` (NaN where f needs S >= 2 and S = 1)."""
        import pandas as pd

        prime = self.rarity_prime if self.n_systems >= 2 else np.full(len(self.doc), np.nan)
        columns = {
            "qid": np.asarray(matrix.topics, dtype=object)[self.topic],
            "docid": matrix.docids.take(self.doc).to_numpy(zero_copy_only=False),
            "grade": self.grade,
            "n_retrieving": self.n_retrieving,
            "rarity": self.rarity,
            "rarity_prime": prime,
        }
        for function in dict.fromkeys(functions):
            if check_rarity_function(function, "the rarity listing") == LINEAR:
                continue
            for normalised, column in ((False, f"rarity_{function}"), (True, f"rarity_prime_{function}")):
                columns[column] = (self.values(function, normalised) if self.n_systems >= 2 or
                                   (function == "inverse" and not normalised) else np.full(len(self.doc), np.nan))
        return pd.DataFrame(columns)


def relevant_judgments(matrix: RelevanceMatrix) -> np.ndarray:
    """Rows of the qrels that are relevant (grade >= threshold), in qrels order."""
    return np.flatnonzero(matrix.qrels_grade >= matrix.threshold)


def document_rarity(matrix: RelevanceMatrix, depth: int | None = None, runs: np.ndarray | None = None) -> Rarity:
    """Count S_d for every relevant judgment over ``runs`` (indices; default all) at ``depth``
    (default: the depth the runs were cut to, else all they returned).

    S is the number of runs counted. No file is re-read: counts come from the matrix.
    """
    kept = matrix.run_depth or matrix.depth
    d = kept if depth is None else depth
    if d > kept:
        raise ValueError(f"rarity depth {d} exceeds the depth the runs were kept to ({kept})")
    rows = relevant_judgments(matrix)
    index_of = np.full(len(matrix.qrels_grade), -1, dtype=np.int64)
    index_of[rows] = np.arange(len(rows))
    hits = matrix.hits.top(d)
    if runs is not None:
        hits = hits.cells((np.asarray(runs, dtype=np.int64)[:, None] * matrix.n_topics
                           + np.arange(matrix.n_topics)).reshape(-1))
    n_retrieving = np.bincount(index_of[hits.judgment], minlength=len(rows)).astype(np.int64)
    n_systems = len(matrix.runs) if runs is None else len(np.asarray(runs))
    if n_systems < 1:
        raise ValueError("rarity needs at least one run")
    return Rarity(
        judgment=rows, topic=matrix.qrels_topic[rows], doc=matrix.qrels_doc[rows],
        grade=matrix.qrels_grade[rows], n_retrieving=n_retrieving, n_systems=n_systems,
        depth=d, index_of_judgment=index_of,
    )


def rarity_listing(matrix: RelevanceMatrix, depths: list[int], functions: Sequence[str] = (LINEAR,)) -> pd.DataFrame:
    """Rarity of every relevant judgment counted at each of ``depths`` (long table, with
    depth), under the linear rarity and each other of ``functions`` (:meth:`Rarity.table`)."""
    import pandas as pd

    frames = []
    for d in depths:
        table = document_rarity(matrix, depth=d).table(matrix, functions)
        table.insert(3, "depth", d)
        frames.append(table)
    return listing_columns(pd.concat(frames, ignore_index=True))


def listing_columns(listing: pd.DataFrame) -> pd.DataFrame:
    """``listing`` with the columns of :data:`LISTING_COLUMNS` it holds, in that order
    (the other rarity functions in their fixed order, whatever order the measures name them)."""
    return listing[[c for c in LISTING_COLUMNS if c not in OPTIONAL_COLUMNS or c in listing.columns]]
