"""A score table's mean rows (qid ``all``) checked against its per-topic rows, then ignored.

Every path takes a run's mean from its per-topic scores with the one definition,
:func:`~irmeta.measures.averaging.run_means`, so identical per-topic scores give identical
means whatever file or table they came from. A mean row is only checked: it must agree,
within its printed precision (10^-d, d the decimals its text prints; a table in memory
keeps no text, so d is that of each value's shortest form) plus the float error,
with the run's mean over all n topics (trec_eval -c, irmeta's default) or with its sum
over n' topics for an integer n' from the run's nonzero scores to n (trec_eval without
-c, ``irmeta score --average returned``: the topics a run lacks score 0, whatever
``missing`` says). A row that agrees with neither is an error naming it and both values
(docs/PROTOCOL.md, Numerical care).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from irmeta.measures.averaging import MeanGrid, Scores, block_means, mean_grid, run_means
from irmeta.measures.counts import SUMMED
from irmeta.measures.names import parse_measure
from irmeta.measures.score_files.pieces import printed_decimals
from irmeta.measures.score_files.rows import MeanRows, ScoreRows, refuse_missing_names

if TYPE_CHECKING:
    import pandas as pd

_EPS = np.finfo(np.float64).eps


def mean_rows_of(table: pd.DataFrame | ScoreRows, source: str = "the scores table") -> MeanRows:
    """The mean rows of a table: as its file printed them (:attr:`ScoreRows.means`), else
    taken from its rows (``row i``: the i-th row, from 0), their measures by canonical
    label (a name irmeta does not know is kept as written: no block has it)."""
    if isinstance(table, ScoreRows):
        if table.means is not None:
            return table.means
        at = (np.flatnonzero(table.qid == table.qids.index("all")) if "all" in table.qids
              else np.zeros(0, np.int64))
        runs = [table.runs[c] for c in table.run[at].tolist()]
        names = [table.measures[c] for c in table.measure[at].tolist()]
        value = table.value[at]
    else:
        if all(c in table.columns for c in ("run", "measure", "qid")):
            refuse_missing_names(table, source)
        at = (np.flatnonzero((table["qid"].astype(str) == "all").to_numpy()) if "qid" in table.columns
              else np.zeros(0, np.int64))
        rows = table.iloc[at]
        runs, names = rows["run"].astype(str).tolist(), rows["measure"].astype(str).tolist()
        value = rows["value"].to_numpy(dtype=np.float64)
    labels = {name: _canonical(name) for name in set(names)}
    return MeanRows(runs=runs, labels=[labels[x] for x in names], value=value,
                    decimals=printed_decimals([repr(float(v)) for v in value.tolist()]),
                    where=[f"{source}, row {i}" for i in np.asarray(at).tolist()])


def _canonical(name: str) -> str:
    try:
        return str(parse_measure(name))
    except ValueError:
        return name


def checked_means(scores: Scores, rows: MeanRows, *, n_systems: int | None = None,
                  over_all: np.ndarray | None = None) -> np.ndarray:
    """Each block's run means (blocks, runs) as the mean rows say they were taken: over
    every topic (``over_all``, default :func:`~irmeta.measures.averaging.block_means`), or,
    for a run whose mean row agrees only with its sum over n' < n topics, that sum / n'
    (:func:`~irmeta.measures.averaging.run_means` with ``counts``). A mean row that agrees
    with neither is a ValueError naming where it is and both values. Rows of runs or
    measures the scores lack are not read. S (for the grid): ``n_systems``, default the
    runs of ``scores``."""
    s = len(scores.runs) if n_systems is None else n_systems
    if over_all is None:
        over_all = block_means(scores.per_topic, scores.parsed, scores.alphas, s)
    out = np.array(over_all, dtype=np.float64, copy=True)
    if not len(rows.runs):
        return out
    run_at = {r: i for i, r in enumerate(scores.runs)}
    of_label: dict[str, list[int]] = defaultdict(list)
    for j, (run, label) in enumerate(zip(rows.runs, rows.labels)):
        if run in run_at:
            of_label[label].append(j)
    for i, (measure, alpha, parsed) in enumerate(zip(scores.parsed, scores.alphas, scores.labelled())):
        label = str(parsed)
        picked = np.asarray(of_label.get(label, []), np.int64)
        if not len(picked):
            continue
        at = np.array([run_at[rows.runs[j]] for j in picked.tolist()], np.int64)
        grid = mean_grid(measure, alpha, s)
        given = rows.value[picked]
        if parsed.family in SUMMED:
            _check_sums(scores.per_topic[i][at], given, rows.decimals[picked], parsed.family,
                        [rows.where[j] for j in picked.tolist()], [rows.runs[j] for j in picked.tolist()])
            continue
        ok, chosen = agreeing_means(scores.per_topic[i][at], given, rows.decimals[picked], grid, out[i, at])
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            j = int(picked[bad])
            raise ValueError(f"{rows.where[j]}: the mean of {label} for run {rows.runs[j]} is {float(given[bad])!r}, "
                             f"but its per-topic scores give {float(out[i, at[bad]])!r} over the "
                             f"{scores.per_topic.shape[-1]} topics (nor is it their sum over fewer topics): correct "
                             f"or drop the 'all' rows (irmeta takes means from the per-topic rows)")
        out[i, at] = chosen
    return out


def _check_sums(values: np.ndarray, given: np.ndarray, decimals: np.ndarray, family: str,
                where: list[str], runs: list[str]) -> None:
    """trec_eval's summary of num_q, num_ret, num_rel and num_rel_ret is a sum over the
    topics (:data:`~irmeta.measures.counts.SUMMED`): it must equal the run's per-topic sum,
    or, as ``trec_eval -c`` prints them, count every topic (num_q: n) and add the relevant
    documents of the topics the run lacks (num_rel: at least the sum)."""
    n = values.shape[-1]
    total = values.sum(axis=-1)
    close = np.abs(given - total) <= 10.0 ** -decimals.astype(np.float64) + 8 * n * _EPS * np.abs(total)
    if family == "NumQ":
        close |= given == n
    elif family == "NumRel":
        close |= given >= total
    if close.all():
        return
    bad = int(np.flatnonzero(~close)[0])
    raise ValueError(f"{where[bad]}: the summary of {family} for run {runs[bad]} is {float(given[bad])!r}, but its "
                     f"per-topic scores sum to {float(total[bad])!r} (trec_eval prints this measure's sum): correct "
                     f"or drop the 'all' rows (irmeta takes means from the per-topic rows)")


def agreeing_means(values: np.ndarray, given: np.ndarray, decimals: np.ndarray, grid: MeanGrid | None,
                   over_all: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether each given mean agrees with its run's per-topic ``values`` (runs, n), and
    the mean it agrees with: ``over_all`` (the run's :func:`run_means` over all n topics),
    else sum / n' with n' = rint(sum / given) from the run's nonzero scores to n - 1.
    Agreement: |given - mean| <= 10^-decimals + 8 (n + terms) eps mean |x| + tiny: the
    rounding of the printed mean and of the printed per-topic scores, and the float error
    of any order of summation."""
    n = values.shape[-1]
    terms = 1 if grid is None else grid.terms
    printed = 10.0 ** -decimals.astype(np.float64)

    def tolerance(count: np.ndarray, size: np.ndarray, at: np.ndarray | slice = slice(None)) -> np.ndarray:
        return printed[at] + 8 * (count + terms) * _EPS * size + np.finfo(np.float64).tiny

    ok = np.abs(given - over_all) <= tolerance(np.full(len(given), n), np.abs(values).sum(axis=-1) / max(n, 1))
    chosen = np.array(over_all, dtype=np.float64, copy=True)
    rest = np.flatnonzero(~ok & (given != 0))
    if not len(rest):
        return ok, chosen
    part = values[rest]
    total = np.sort(part, axis=-1).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.rint(total / given[rest])
    fewer = np.isfinite(guess) & (guess >= np.maximum(np.count_nonzero(part, axis=-1), 1)) & (guess < n)
    counts = np.where(fewer, guess, n).astype(np.int64)
    some = run_means(part, grid=grid, counts=counts)
    size = np.abs(part).sum(axis=-1) / counts
    agree = fewer & (np.abs(given[rest] - some) <= tolerance(counts, size, rest))
    ok[rest] = agree
    chosen[rest] = np.where(agree, some, chosen[rest])
    return ok, chosen
