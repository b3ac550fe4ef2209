"""Score tables laid out as arrays: :class:`ScoreGrid` (:func:`score_grid`) and the
:class:`~irmeta.measures.averaging.Scores` the pipeline reads (:func:`scores_from_table`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import irmeta.measures.score_files.pieces as piece_reader
from irmeta.campaign.qrels import sort_topics
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import AVERAGING_NAMES, Scores, block_means, geometric_means
from irmeta.measures.names import Measure, as_measure, measure_label, parse_measure
from irmeta.measures.score_files.bounds import first_misfit
from irmeta.measures.score_files.mean_rows import checked_means, mean_rows_of
from irmeta.measures.score_files.rows import COLUMNS, Missing, ScoreRows, TopicOrder, refuse_missing_names

if TYPE_CHECKING:
    import pandas as pd


# ------------------------------------------------------------------ tables to arrays


@dataclass(frozen=True)
class ScoreGrid:
    """The per-topic rows of a score table as arrays: ``values`` (labels, runs, topics), 0
    where ``present`` (same shape) says the table has no row."""

    runs: list[str]
    topics: list[str]
    labels: list[str]
    values: np.ndarray
    present: np.ndarray


def table_labels(table: pd.DataFrame | ScoreRows, source: str = "scores") -> list[str]:
    """The canonical measure labels of a score table's per-topic rows, in first-appearance order."""
    rows = _score_rows(table, source)
    return _Labels(rows, rows.per_topic(), source).have


def score_grid(table: pd.DataFrame | ScoreRows, labels: Sequence[str] | None = None, *, missing: Missing = "error",
               source: str = "scores", topic_order: TopicOrder = "irmeta") -> ScoreGrid:
    """The per-topic rows (qid other than ``all``) of a table with columns run, measure, qid,
    value (or of :class:`ScoreRows`), as (labels, runs, topics) arrays: the one place score
    tables are pivoted and checked. ``labels``: measure labels as
    :func:`~irmeta.measures.names.measure_label` writes them (any spelling; default: every
    one the table has).

    Runs in first-appearance order; topics every per-topic qid of the table, in irmeta's
    topic order (``irmeta``: numeric when all are integers, as the qrels order the
    pipeline's scores) or first-appearance order (``table``). A run without a row for a
    topic: ``missing="error"`` refuses it, ``"zero"`` scores it 0, except for measures for
    which lower is better (0 would be their best score) and for a run with no row of a
    measure at all. Errors are one line naming ``source``, the measure, run and topic; a
    table's value outside its measure's range is one naming its row
    (:mod:`~irmeta.measures.score_files.bounds`).

    Laid out from integer codes a slice of rows at a time: memory is the arrays' and the
    rows' codes, not a text column per row.
    """
    if missing not in ("error", "zero"):
        raise ValueError(f"missing must be 'error' or 'zero', not {missing!r}")
    rows = _score_rows(table, source)
    if not isinstance(table, ScoreRows):  # a file's rows were checked as it was read, naming the line
        misfit = first_misfit(rows, piece_reader.STEP_ROWS)
        if misfit is not None:
            row = int(np.flatnonzero((table["qid"].astype(str) != "all").to_numpy())[misfit[0]])
            raise ValueError(f"{source}, row {row}: {misfit[1]}")
    mask = rows.per_topic()
    found = _Labels(rows, mask, source)
    run_codes = _in_order(rows.run, len(rows.runs), mask)
    qid_codes = _in_order(rows.qid, len(rows.qids), mask)
    runs = [rows.runs[c] for c in run_codes]
    topics = [rows.qids[c] for c in qid_codes]
    if topic_order == "irmeta":
        at = {t: i for i, t in enumerate(topics)}
        topics = sort_topics(topics)
        qid_codes = qid_codes[[at[t] for t in topics]]
    wanted = found.have if labels is None else list(dict.fromkeys(_label(x, source) for x in labels))
    absent = [x for x in wanted if x not in set(found.have)]
    if absent:
        have = found.have
        raise ValueError(f"{source}: no per-topic scores of {absent[0]} (it has per-topic scores of "
                         f"{', '.join(have) if have else 'no measure'})")
    block = np.full(len(rows.measures), -1, np.int64)
    for code, label in enumerate(found.label_of):
        if label is not None and label in wanted:
            block[code] = wanted.index(label)
    run_at, qid_at = _positions(run_codes, len(rows.runs)), _positions(qid_codes, len(rows.qids))
    grid = ScoreGrid(runs, topics, wanted, np.zeros((len(wanted), len(runs), len(topics))),
                     np.zeros((len(wanted), len(runs), len(topics)), bool))
    values, present = grid.values.reshape(-1), grid.present.reshape(-1)
    chosen, nan = 0, None
    for cell, value in _cells(rows, mask, block, run_at, qid_at, grid.values.shape):
        if nan is None and np.isnan(value).any():
            nan = int(cell[np.flatnonzero(np.isnan(value))[0]])
        values[cell] = value
        present[cell] = True
        chosen += len(cell)
    if np.count_nonzero(present) != chosen:
        label, run, topic = _cell(grid, _first_repeat(_cells(rows, mask, block, run_at, qid_at, grid.values.shape),
                                                      len(present)))
        raise ValueError(f"{source}: {label}: run {run} has two scores on topic {topic}")
    if nan is not None:
        label, run, topic = _cell(grid, nan)
        raise ValueError(f"{source}: {label}: the score of run {run} on topic {topic} is not a number")
    _check_holes(grid, missing, source)
    return grid


def _score_rows(table: pd.DataFrame | ScoreRows, source: str) -> ScoreRows:
    """:class:`ScoreRows` as they are; a DataFrame's per-topic rows as codes (run and qid as
    text, values as numbers)."""
    if isinstance(table, ScoreRows):
        return table
    import pandas as pd

    lacking = [c for c in COLUMNS if c not in table.columns]
    if lacking:
        raise ValueError(f"{source}: no column {', '.join(lacking)} (it needs {', '.join(COLUMNS)})")
    refuse_missing_names(table, source)
    qid = table["qid"].astype(str)
    per_topic = (qid != "all").to_numpy()
    rows = table[per_topic]
    (runs, run), (measures, measure), (qids, q) = (
        _factorized(column) for column in (rows["run"].astype(str), rows["measure"].astype(str), qid[per_topic]))
    return ScoreRows(runs, measures, qids, run, measure, q,
                     pd.to_numeric(rows["value"]).to_numpy(dtype=np.float64), source=source)


def _factorized(column: pd.Series) -> tuple[list[str], np.ndarray]:
    import pandas as pd

    codes, names = pd.factorize(column, use_na_sentinel=False)
    return list(names), codes


class _Labels:
    """The canonical label of each measure code of a table's per-topic rows (None: a code
    on no per-topic row), and the labels in first-appearance order; a name irmeta does not
    know is an error naming ``source`` (the first such in that order)."""

    def __init__(self, rows: ScoreRows, mask: np.ndarray | None, source: str):
        self.label_of: list[str | None] = [None] * len(rows.measures)
        have: dict[str, None] = {}
        for code in _in_order(rows.measure, len(rows.measures), mask):
            label = self.label_of[code] = _label(rows.measures[code], source)
            have[label] = None
        self.have = list(have)


def _in_order(codes: np.ndarray, n: int, mask: np.ndarray | None) -> np.ndarray:
    """The codes on the rows ``mask`` picks (None: every row), in order of first appearance."""
    first = np.full(n, len(codes), np.int64)
    for start in range(0, len(codes), piece_reader.STEP_ROWS):
        part = codes[start:start + piece_reader.STEP_ROWS]
        rows = np.arange(start, start + len(part))
        if mask is not None:
            picked = mask[start:start + piece_reader.STEP_ROWS]
            part, rows = part[picked], rows[picked]
        np.minimum.at(first, part, rows)
    found = np.flatnonzero(first < len(codes))
    return found[np.argsort(first[found], kind="stable")]


def _positions(codes: np.ndarray, n: int) -> np.ndarray:
    """Each code's position in ``codes`` (-1: not there)."""
    at = np.full(n, -1, np.int64)
    at[codes] = np.arange(len(codes))
    return at


def _cells(rows: ScoreRows, mask: np.ndarray | None, block: np.ndarray, run_at: np.ndarray, qid_at: np.ndarray,
           shape: tuple[int, ...]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per slice of rows, the flat cells of (labels, runs, topics) of the chosen rows (per
    topic, of a wanted measure), and their values."""
    for start in range(0, len(rows), piece_reader.STEP_ROWS):
        stop = start + piece_reader.STEP_ROWS
        b = block[rows.measure[start:stop]]
        chosen = b >= 0
        if mask is not None:
            chosen &= mask[start:stop]
        cell = (b[chosen] * shape[1] + run_at[rows.run[start:stop][chosen]]) * shape[2] + \
            qid_at[rows.qid[start:stop][chosen]]
        yield cell, rows.value[start:stop][chosen]


def _first_repeat(cells: Iterator[tuple[np.ndarray, np.ndarray]], size: int) -> int:
    """The cell of the first row whose cell an earlier row has."""
    seen = np.zeros(size, bool)
    for cell, _ in cells:
        order = np.argsort(cell, kind="stable")
        again = np.zeros(len(cell), bool)
        again[order[1:][np.diff(cell[order]) == 0]] = True
        again |= seen[cell]
        if again.any():
            return int(cell[np.flatnonzero(again)[0]])
        seen[cell] = True
    raise AssertionError("no repeated cell")


def _label(text: str, source: str) -> str:
    try:
        return str(parse_measure(text))
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def _cell(grid: ScoreGrid, cell: int) -> tuple[str, str, str]:
    """The (label, run, topic) of a flat index into ``grid.values``."""
    label, run, topic = (int(i) for i in np.unravel_index(cell, grid.values.shape))
    return grid.labels[label], grid.runs[run], grid.topics[topic]


def _check_holes(grid: ScoreGrid, missing: Missing, source: str) -> None:
    holes = np.flatnonzero(~grid.present.reshape(-1))
    if not len(holes):
        return
    name, run_name, qid = _cell(grid, int(holes[0]))
    if missing == "error":
        raise ValueError(f"{source}: {name}: no score of run {run_name} on topic {qid} (every run needs a score "
                         f"on every topic: trec_eval -c gives one; missing='zero' scores a missing topic 0)")
    lower = [i for i, x in enumerate(grid.labels) if not parse_measure(x).higher_is_better
             and not grid.present[i].all()]
    if lower:
        i = lower[0]
        run, topic = (int(j) for j in np.argwhere(~grid.present[i])[0])
        raise ValueError(f"{source}: {grid.labels[i]}: no score of run {grid.runs[run]} on topic {grid.topics[topic]}, "
                         f"and missing='zero' cannot score it 0: lower is better for {grid.labels[i]}, so 0 would be "
                         f"its best score (give every run a score on every topic, e.g. trec_eval -c)")
    none = np.argwhere(~grid.present.any(axis=2))
    if len(none):
        label, run = (int(j) for j in none[0])
        raise ValueError(f"{source}: {grid.labels[label]}: no score of run {grid.runs[run]} on any topic")


def scores_from_table(table: pd.DataFrame | ScoreRows, measures: Sequence[str | Measure], alphas: Sequence[Alpha], *,
                      missing: Missing = "error", source: str = "scores", check_means: bool = True) -> Scores:
    """Per-topic scores of a table (columns run, measure, qid, value; e.g. from
    :func:`read_score_file`; or :class:`ScoreRows`, from :func:`read_score_rows`) as the
    :class:`Scores` the pipeline writes to ``scores.npz``.

    Blocks as :func:`~irmeta.measures.averaging.score_arrays` lays them out: each measure as
    config names it (``P@100``), and a measure that takes alpha once per alpha of
    ``alphas`` (or the one its name fixes), read from the table's label
    ``P_rareness(alpha=0.5)@100``. Runs in the table's order; topics every per-topic qid of
    the table in irmeta's topic order (the order the pipeline gives the qrels' topics, so
    that the randomised experiments draw the same topics for the same scores). A missing
    score: see :func:`score_grid` (``missing``).

    Means: ``all_topics`` over every topic (a missing one 0 with ``missing="zero"``, as
    trec_eval -c), ``returned_topics`` over the topics the table scores the run on, both
    :func:`~irmeta.measures.averaging.run_means` with S the table's runs, and
    ``geometric_all_topics`` (:func:`~irmeta.measures.averaging.geometric_means`) over every
    topic, from the per-topic rows as printed (a score rounded to 0.0000 counts as 1e-5): the bits irmeta
    gives the same per-topic scores from runs. The table's ``all`` rows are checked against
    them (:mod:`~irmeta.measures.score_files.mean_rows`; ``check_means=False``: by the
    caller, on the topics it lays the scores on), then ignored.
    """
    names, parsed, alpha_labels, labels = [], [], [], []
    for item in measures:
        m = as_measure(item)  # config's measures arrive read; a caller's names are read here
        own = ([m.alpha] if m.alpha is not None else list(alphas)) if m.uses_alpha else [None]
        for a in own:
            names.append(str(m.without_alpha()))
            parsed.append(m.without_alpha())
            alpha_labels.append(None if a is None else alpha_label(a))
            labels.append(measure_label(m.without_alpha(), a))
    grid = score_grid(table, labels, missing=missing, source=source)
    at = [grid.labels.index(x) for x in labels]
    if at == list(range(len(grid.labels))):  # each block once, in order: no copy
        per_topic, present = grid.values, grid.present
    else:
        per_topic, present = grid.values[at], grid.present[at]
    s = len(grid.runs)  # the runs rarity is counted over, as the pipeline counts it
    over_all = block_means(per_topic, parsed, alpha_labels, s)
    scores = Scores(runs=grid.runs, topics=grid.topics, measures=names, alphas=alpha_labels, per_topic=per_topic,
                    means={AVERAGING_NAMES["all"]: over_all,
                           AVERAGING_NAMES["returned"]: block_means(per_topic, parsed, alpha_labels, s, present),
                           AVERAGING_NAMES["geometric"]: geometric_means(per_topic)}, parsed=parsed)
    if check_means:
        checked_means(scores, mean_rows_of(table, source), over_all=over_all)
    return scores
