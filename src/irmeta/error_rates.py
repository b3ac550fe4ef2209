"""Which test can I trust on my collection? ``irmeta test-errors`` and
``irmeta.test_errors``: the error rates of every paired test of the registry (a
``--plugin``'s too) on test collections simulated from one's own score matrices (Urbano,
Lima and Hanjalic, SIGIR 2019): type I, power, type III and the familywise error of each
correction, in the columns of ``tables/test_error_rates.csv``
(:data:`irmeta.metaeval.test_error_rates.COLUMNS`), with the models they were drawn from.

A score matrix is

- a CSV file with one column per run and one row per topic, a header of run names (the
  layout of the paper's data, julian-urbano/sigir2019-statistical's ``data/*.csv``); a
  first column headed ``topic`` or ``qid`` names the topics;
- irmeta's own per-topic scores (``irmeta score --per-topic``'s TSV, or trec_eval -q's
  output), of one measure (``measure`` picks one when it holds several);
- in Python, also a DataFrame: one column per run and one row per topic, or the long
  table of :func:`irmeta.evaluate` (run, measure, qid, value).

Several matrices are pooled as the paper pooled its collections (a collection drawn with
probability proportional to its runs, then two runs). Where the scores lie: the measure's
name says it (its range, and P@k's, RR@k's or Success@k's grid), or ``measure_kind``
(``continuous``, ``discrete:K`` for {0, 1/K, ..., 1}, or ``discrete``: the coarsest such
grid the scores lie on). Everything a matrix can be refused for is checked before any
fitting (:func:`irmeta.metaeval.error_rate_models.checked_matrices`), every delta before
any trial. The same inputs and seed give the same bytes, the pipeline's table for the
same scores and settings.
"""

from __future__ import annotations

import csv
import gzip
import io
import logging
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

import irmeta.settings as check
from irmeta.api import DEFAULT_SEED
from irmeta.metaeval.error_rate_models import (
    ScoreMatrix,
    checked_deltas,
    fit_models,
    models_table,
    rate_counts_in,
)
from irmeta.metaeval.simulation.margins import Support, support_from_kind, support_of_measure
from irmeta.metaeval.simulation.models import SimulationProtocol
from irmeta.metaeval.simulation.reach import delta_fault
from irmeta.metaeval.test_error_rates import (
    COLUMNS,
    DEFAULT_ALPHAS,
    DEFAULT_CHUNK,
    DEFAULT_DELTAS,
    DEFAULT_PERMUTATIONS,
    DEFAULT_RUNS_AT_ONCE,
    DEFAULT_TOPICS,
    DEFAULT_TRIALS,
    ErrorRateSettings,
    error_rate_table,
)
from irmeta.support.formats import REPORT_FORMATS, check_tsv_names

if TYPE_CHECKING:
    import pandas as pd

    from irmeta.measures.names import Measure

log = logging.getLogger("irmeta")

FORMATS = ("tsv", "markdown", "latex")
assert set(FORMATS) == set(REPORT_FORMATS)
#: Headers of a topic column in a CSV matrix (the rest are runs).
TOPIC_HEADERS = ("topic", "qid")


class PartialReachWarning(UserWarning):
    """A delta some baselines' margins do not reach: its power and type III trials start
    from the others (the message names them; ``irmeta test-errors`` prints it in one line)."""


class ErrorRates(NamedTuple):
    """What :func:`test_errors` gives: ``rates`` (``test_error_rates.csv``'s columns) and
    ``models`` (``simulation_models.csv``'s)."""

    rates: pd.DataFrame
    models: pd.DataFrame


# ------------------------------------------------------------------ reading matrices


def _open_text(path: Path):
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8-sig")


def read_matrix(path: str | Path, measure: str | Measure | None = None) -> tuple[ScoreMatrix, str | None]:
    """One score matrix from a file, and its measure's name when the file says it (irmeta's
    or trec_eval's per-topic scores; None for a CSV matrix)."""
    path = Path(path)
    text = _open_text(path)
    first = text.split("\n", 1)[0].rstrip("\r")
    from irmeta.measures.score_files import HEADER

    if first.startswith(HEADER) or ("," not in first and first.strip()):
        return _read_scores_file(path, measure)
    return _read_csv_matrix(path, text), None


def _read_scores_file(path: Path, measure: str | Measure | None) -> tuple[ScoreMatrix, str]:
    """irmeta's (or trec_eval's) per-topic scores of one measure, runs x topics."""
    from irmeta.measures.names import as_measure, parse_measure
    from irmeta.measures.score_files import read_score_rows, score_grid, table_labels

    rows = read_score_rows(path)
    labels = table_labels(rows, str(path))
    if measure is not None:
        wanted = as_measure(measure)  # read where test_errors took it, unless only a file knows it
        chosen = [x for x in labels if x == str(wanted) or parse_measure(x).without_alpha() == wanted]
        if len(chosen) != 1:
            held = ", ".join(labels) or "none"
            why = "no" if not chosen else "several"
            raise ValueError(f"{path}: {why} per-topic scores of {measure} (it holds {held}); name one of them")
    elif len(labels) != 1:
        raise ValueError(f"{path}: per-topic scores of {len(labels)} measures ({', '.join(labels)}); name the one to "
                         f"simulate (--measure)")
    else:
        chosen = labels
    grid = score_grid(rows, chosen, source=str(path), topic_order="table")
    return ScoreMatrix(str(path), tuple(grid.runs), tuple(grid.topics), grid.values[0]), chosen[0]


def _read_csv_matrix(path: Path, text: str) -> ScoreMatrix:
    """A CSV with a header of run names and one row of scores per topic (a first column
    headed ``topic`` or ``qid`` names the topics); one line naming file and line for a
    fault: a run named twice or not at all, a row of another length, a cell that is not a
    finite number."""
    lines = list(csv.reader(io.StringIO(text)))
    while lines and not any(cell.strip() for cell in lines[-1]):
        lines.pop()
    if not lines:
        raise ValueError(f"{path}: empty: a score matrix needs a header of run names and a row per topic")
    header = [cell.strip() for cell in lines[0]]
    named = header[0].lower() in TOPIC_HEADERS
    runs = header[1:] if named else header
    for i, run in enumerate(runs):
        if not run:
            raise ValueError(f"{path}:1: column {i + 1 + named} has no run name")
        if run in runs[:i]:
            raise ValueError(f"{path}:1: run {run} named twice")
    check_tsv_names("run", runs)
    topics: list[str] = []
    values = np.empty((len(lines) - 1, len(runs)))
    for row, cells in enumerate(lines[1:]):
        line = row + 2
        if len(cells) != len(header):
            raise ValueError(f"{path}:{line}: {len(cells)} fields, the header has {len(header)}")
        topics.append(cells[0].strip() if named else str(row + 1))
        for j, cell in enumerate(cells[named:]):
            try:
                value = float(cell)
            except ValueError:
                value = float("nan")
            if not np.isfinite(value):
                raise ValueError(f"{path}:{line}: run {runs[j]}: {cell.strip() or 'an empty cell'!r} is not a finite "
                                 f"number; simulation needs every run's score on every topic")
            values[row, j] = value
    if named and len(set(topics)) != len(topics):
        raise ValueError(f"{path}: topic {next(t for i, t in enumerate(topics) if t in topics[:i])} named twice")
    return ScoreMatrix(str(path), tuple(runs), tuple(topics), values.T)


def _frame_matrix(frame: pd.DataFrame, measure: str | Measure | None, index: int
                  ) -> tuple[ScoreMatrix, str | None]:
    """A DataFrame given to :func:`test_errors`: the long table of :func:`irmeta.evaluate`
    (run, measure, qid, value), else one column per run and one row per topic."""
    from irmeta.api import score_matrices

    source = f"scores[{index}]"
    if {"run", "measure", "qid", "value"} <= set(frame.columns):
        found = score_matrices(frame, None if measure is None else [measure])
        if len(found) != 1:
            names = ", ".join(m.measure if m.alpha is None else f"{m.measure} (alpha {m.alpha})" for m in found)
            raise ValueError(f"{source}: per-topic scores of {len(found)} measures ({names}); name one (measure=)")
        m = found[0]
        label = str(m.parsed.with_alpha(m.alpha))
        return ScoreMatrix(source, tuple(m.runs), tuple(m.topics), m.values), label
    values = frame.to_numpy(dtype=np.float64, na_value=np.nan).T
    return ScoreMatrix(source, tuple(map(str, frame.columns)), tuple(map(str, frame.index)), values), None


def score_matrices_of(scores: Any, measure: str | Measure | None = None) -> tuple[list[ScoreMatrix], str | None]:
    """The matrices of ``scores`` (a path, a DataFrame or a sequence of them) and the
    measure's name where one says it (all that say one must agree)."""
    given = list(scores) if isinstance(scores, (list, tuple)) else [scores]
    if not given:
        raise ValueError("scores: no score matrix given")
    matrices, named = [], []
    for i, item in enumerate(given):
        if isinstance(item, (str, Path)):
            matrix, label = read_matrix(item, measure)
        elif hasattr(item, "columns"):
            matrix, label = _frame_matrix(item, measure, i)
        else:
            raise TypeError(f"scores[{i}] must be a path or a DataFrame, not {type(item).__name__}")
        matrices.append(matrix)
        if label is not None:
            named.append((matrix.source, label))
    labels = dict.fromkeys(label for _, label in named)
    if len(labels) > 1:
        held = ", ".join(f"{source}: {label}" for source, label in named)
        raise ValueError(f"the score matrices pooled hold different measures ({held}); pool one measure's matrices")
    return matrices, next(iter(labels), None)


def _support(label: str, measure_kind: str | None, matrices: Sequence[ScoreMatrix], known: Measure | None
             ) -> Support:
    """The matrices' support: the measure's own (``known``, the measure irmeta reads
    ``label`` as: its declared range and grid,
    :func:`~irmeta.metaeval.simulation.margins.support_of_measure`), or ``measure_kind``
    on the measure's range when irmeta knows the measure, on [0, 1] otherwise."""
    if known is not None:
        own = support_of_measure(known)
        if measure_kind is None:
            return own
        upper, declared = own.upper, own.declared
    elif measure_kind is None:
        raise ValueError(f"{matrices[0].source}: say where the scores lie: --measure-kind continuous, discrete or "
                         f"discrete:K (measure_kind=), or name an irmeta measure (--measure P@10)")
    else:
        upper, declared = 1.0, False
    for m in matrices:  # in range before a grid is looked for (a NaN is named later, with its topic)
        for run, row in zip(m.runs, m.values):
            if np.isfinite(row).any():
                Support(upper, declared=declared).check(row[np.isfinite(row)], f"{m.source}: {label}: run {run}")
    scores = np.concatenate([m.values.ravel() for m in matrices])
    return replace(support_from_kind(measure_kind, scores, upper=upper), declared=declared)


def _known(measure: str | None) -> Measure | None:
    """The measure irmeta reads ``measure`` as (read once, here, where test_errors takes
    it), None for none or a name only the scores know."""
    from irmeta.measures.names import parse_measure

    if measure is None:
        return None
    try:
        return parse_measure(measure)
    except ValueError:
        return None


# ------------------------------------------------------------------ the experiment


def error_rate_plan(*, n_topics: Sequence[int] = DEFAULT_TOPICS, trials: int = DEFAULT_TRIALS,
                    alphas: Sequence[float] = DEFAULT_ALPHAS, deltas: Sequence[float] = DEFAULT_DELTAS,
                    permutations: int = DEFAULT_PERMUTATIONS, runs_at_once: Sequence[int] = DEFAULT_RUNS_AT_ONCE,
                    tests: Sequence[str] | None = None, chunk: int = DEFAULT_CHUNK) -> ErrorRateSettings:
    """The settings checked, before any reading (one ValueError line naming the setting)."""
    if tests is not None:
        from irmeta.metaeval.stats.registry import TESTS, unknown_test

        tests = [tests] if isinstance(tests, str) else list(tests)
        for name in tests:
            if name not in TESTS:
                raise ValueError(f"tests: {unknown_test(name)}")
    for name, value in (("n_topics", n_topics), ("alphas", alphas), ("deltas", deltas),
                        ("runs_at_once", runs_at_once)):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"{name} must be a list, not {check.shown(value)}")
    return ErrorRateSettings(tests=None if tests is None else tuple(tests), n_topics=tuple(n_topics), trials=trials,
                             alphas=tuple(alphas), deltas=tuple(deltas), runs_at_once=tuple(runs_at_once),
                             permutations=permutations, chunk=chunk)


def test_errors(scores: Any, *, measure: str | None = None, measure_kind: str | None = None,
                n_topics: Sequence[int] = DEFAULT_TOPICS, trials: int = DEFAULT_TRIALS,
                alphas: Sequence[float] = DEFAULT_ALPHAS, deltas: Sequence[float] = DEFAULT_DELTAS,
                permutations: int = DEFAULT_PERMUTATIONS, runs_at_once: Sequence[int] = DEFAULT_RUNS_AT_ONCE,
                tests: Sequence[str] | None = None, seed: int = DEFAULT_SEED, chunk: int = DEFAULT_CHUNK,
                protocol: SimulationProtocol | Mapping[str, Any] | None = None,
                workers: int | None = None, hints: Mapping[str, str] | None = None) -> ErrorRates:
    """The error rates of every paired test (``tests``: None, every paired test of the
    registry, a user's included) on collections simulated from ``scores`` (see the
    module's docstring): per topic-set size of ``n_topics``, ``trials`` trials of each
    kind (type I; power and type III at each of ``deltas``; the familywise error of each
    correction with k runs, each k of ``runs_at_once``), counted at each of ``alphas``;
    the randomised tests draw ``permutations`` times. ``measure``: the table's name of
    the measure (and, for irmeta's scores files, which measure to read); default, the
    measure the scores name, else the files' names. ``protocol``: the simulation
    protocol's settings (:class:`~irmeta.metaeval.simulation.models.SimulationProtocol`).
    ``seed``: as ``experiments.seed`` (the draws add the experiment's SEED_OFFSET).
    ``workers``: processes of the fit and of the trials (shards of chunks; None: the
    processors available); the rates are the same bytes whatever their number.
    Returns :class:`ErrorRates`: ``rates``, ``models``."""
    hints = {"deltas": "deltas", "degenerate_runs": "protocol degenerate_runs='drop'", **(hints or {})}
    settings = error_rate_plan(n_topics=n_topics, trials=trials, alphas=alphas, deltas=deltas,
                               permutations=permutations, runs_at_once=runs_at_once, tests=tests, chunk=chunk)
    seed = check.integer("seed", seed, 0)
    if protocol is None:
        protocol = SimulationProtocol()
    elif isinstance(protocol, Mapping):
        protocol = SimulationProtocol(**protocol)
    elif not isinstance(protocol, SimulationProtocol):
        raise TypeError(f"protocol must be a SimulationProtocol or a mapping of its settings, not "
                        f"{type(protocol).__name__}")
    typed = _known(measure)
    matrices, named = score_matrices_of(scores, measure if typed is None else typed)
    label = _label(measure, typed, named, matrices)
    known = typed if named is None and measure is not None else _known(label)  # a file's name, read back
    support = _support(label, measure_kind, matrices, known)
    for delta in settings.deltas:  # before any fitting: what the range alone rules out
        fault = delta_fault(delta, support.upper, label)
        if fault is not None:
            raise ValueError(f"{hints['deltas']}: {fault}")
    log.info("fitting the models of %s: %d matrix(es), %s runs", label, len(matrices),
             " + ".join(str(len(m.runs)) for m in matrices))
    models = fit_models(matrices, support, protocol, seed, label, workers=workers, drop_hint=hints["degenerate_runs"])
    for note in models.notes:
        log.warning("%s", note)
    for note in checked_deltas(models, settings.deltas, hints["deltas"]):
        warnings.warn(note, PartialReachWarning, stacklevel=2)
    counts = rate_counts_in([models], settings, seed, workers)
    return ErrorRates(error_rate_table(counts, settings.trials), models_table([models]))


def _label(measure: str | None, typed: Measure | None, named: str | None, matrices: Sequence[ScoreMatrix]) -> str:
    """The measure's name in the table: ``measure`` (canonical, ``typed``, when irmeta knows
    it), else the one the scores name, else the matrices' file names."""
    if measure is not None:
        return named if named is not None else (str(typed) if typed is not None else measure)
    if named is not None:
        return named
    return "+".join(dict.fromkeys(Path(m.source).name.split(".")[0] for m in matrices))


# ------------------------------------------------------------------ rendering


def render(rates: pd.DataFrame, fmt: str = "tsv", digits: int | None = None) -> str:
    """The rates in one of :data:`FORMATS`: ``tsv`` exactly :data:`COLUMNS`, full
    precision (shortest round trip) or ``digits`` decimals, ``delta`` empty where there is
    none; ``markdown`` and ``latex`` the same columns, 4 decimals unless ``digits``."""
    from irmeta.artefacts.tables import table_texts

    fmt = check.choice("format", fmt, FORMATS)
    table = rates[list(COLUMNS)]
    check_tsv_names("measure", table["measure"].unique())
    if fmt == "tsv":
        return table.to_csv(sep="\t", index=False, lineterminator="\n", quoting=csv.QUOTE_NONE,
                            float_format=None if digits is None else f"%.{digits}f")
    texts = table_texts(table, float_format=f"{{:.{4 if digits is None else digits}f}}", name="test_error_rates")
    return texts["md" if fmt == "markdown" else "tex"]
