"""Qrels and runs given as Python objects instead of files, for the Python API.

Accepted, for qrels and for each run:

- a path (or, for runs, paths, directories and globs): the file readers; runs also as a
  mapping of names to paths, ``{"INQ601": "runs/INQ601.gz"}`` (each one file, named by
  its key as ``run_name="file"`` names a file by its file name; under ``run_name="tag"``
  the key must be the file's tag);
- a pandas DataFrame with the column names ir_measures and ranx use (``query_id`` or
  ``q_id``, ``doc_id``, and ``relevance`` for qrels or ``score`` for runs; irmeta's
  own ``qid``, ``docid``, ``grade`` too); a ``run`` column splits one frame into runs;
- pytrec_eval's and ranx's ``{qid: {docid: relevance or score}}``;
- an iterable of ir_measures' ``Qrel`` / ``ScoredDoc`` named tuples, or of plain
  ``(qid, docid, value)`` tuples.

They go through what the file readers' rows go through: a pair judged twice is refused,
runs are put in trec_eval's order (score descending, docid descending), a document twice
for a topic is refused (or its worse copy dropped), and the depth cut applies. Errors
name the object and the 1-based row: ``runs['bm25']:3: score 'nan' is not a finite number``.
Qrels without a judgment, the reserved topic id ``all``, a frame with two columns for one
role (``qid`` and ``query_id``, or ``grade`` twice), a grade beyond int64 and a score
beyond a double are refused as the file readers refuse theirs; so is a topic, document or
run id that is missing (NaN, None, pandas' NA) or a float (:mod:`irmeta.support.names`),
which read as text would silently name a topic ``nan`` or ``401.0``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import resolve_paths
from irmeta.campaign.judgment_groups import qrels_jg
from irmeta.campaign.qrels import Qrels, checked_qrels
from irmeta.campaign.qrels_formats import read_qrels_as
from irmeta.campaign.runs import (
    DuplicatePolicy,
    RunColumns,
    RunFile,
    RunNameSource,
    ScorePrecision,
    ordered_run,
    read_run_file,
)
from irmeta.campaign.subtopics import subtopic_qrels, warn_single_subtopics
from irmeta.support.names import first_missing

# Column names, irmeta's first, then ir_measures' and ranx's.
QID_COLUMNS = ("qid", "query_id", "q_id")
DOCID_COLUMNS = ("docid", "doc_id")
GRADE_COLUMNS = ("grade", "relevance", "rel", "score")  # ranx's qrels call it score
SCORE_COLUMNS = ("score",)
SUBTOPIC_COLUMNS = ("subtopic", "subtopic_id", "iteration")  # irmeta's, pyndeval's, ir_measures'


@dataclass(frozen=True)
class NamedFile:
    """A run file given under a name (``{"INQ601": "runs/INQ601.gz"}``): the name is the
    key, as a file's name is its file name under ``run_name="file"``; under ``"tag"`` the
    runs are named by their tags, and a key that is not the file's tag is refused."""

    name: str
    path: Path


@dataclass(frozen=True)
class GivenRun:
    """One run given in memory: its name, what errors call it, and its columns."""

    name: str
    label: str
    columns: tuple[list, list, list]  # qid, docid, score per row, as given


def to_qrels(qrels: Any, label: str = "qrels", qrels_format: str = "trec") -> Qrels:
    """Qrels from a path, a :class:`Qrels`, or any form the module accepts; with
    ``qrels_format="subtopics"``, subtopic qrels (:mod:`irmeta.campaign.subtopics`) from a
    path, a frame with a subtopic column or (qid, subtopic, docid, grade) tuples (pyndeval's
    ``SubtopicQrel``); with ``qrels_format="qrels_jg"``, judgment-group qrels
    (:mod:`irmeta.campaign.judgment_groups`) from a path, a frame with a ``jg`` column or
    (qid, jg, docid, grade) tuples. A :class:`Qrels` is taken as it is."""
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, Path)):
        return read_qrels_as(qrels, qrels_format)
    if isinstance(qrels, Mapping) and not qrels:
        raise TrecFormatError(label, None, "no judgments (the qrels are empty)")
    if qrels_format == "subtopics":
        return _subtopic_qrels(qrels, label)
    if qrels_format == "qrels_jg":
        return _judgment_group_qrels(qrels, label)
    qid, docid, value = _rows(qrels, GRADE_COLUMNS, label, "relevance")
    grade = np.array([_grade(v, label, row) for row, v in enumerate(value)], dtype=np.int64)
    return checked_qrels(pa.array(qid, pa.large_string()), pa.array(docid, pa.large_string()), grade, label,
                         lambda: np.arange(1, len(grade) + 1), unit="row")


def _subtopic_qrels(qrels: Any, label: str) -> Qrels:
    """Subtopic qrels from a frame (a column of :data:`SUBTOPIC_COLUMNS` beside the qrels')
    or from (qid, subtopic, docid, grade) tuples, named ones by their fields."""
    if hasattr(qrels, "columns"):
        subtopic = qrels[_column(qrels, SUBTOPIC_COLUMNS, label)].tolist()
        qid, docid, value = _rows(qrels, GRADE_COLUMNS, label, "relevance")
    elif isinstance(qrels, Iterable) and not isinstance(qrels, (str, bytes, Mapping)):
        subtopic, triples = [], []
        for row, item in enumerate(qrels):
            fields = getattr(item, "_fields", None)
            named = dict(zip(fields, item)) if fields else {}
            if fields and any(c in named for c in SUBTOPIC_COLUMNS):
                subtopic.append(next(named[c] for c in SUBTOPIC_COLUMNS if c in named))
                triples.append(_tuple_fields(item, GRADE_COLUMNS, label, row, "relevance"))
            elif not fields and isinstance(item, (tuple, list)) and len(item) == 4:
                subtopic.append(item[1])
                triples.append((item[0], item[2], item[3]))
            else:
                raise TrecFormatError(label, row + 1, f"expected (qid, subtopic, docid, grade), not {_short(item)}")
        qid, docid, value = _rows(triples, GRADE_COLUMNS, label, "relevance")
    else:
        raise TrecFormatError(label, None, f"cannot read {type(qrels).__name__} as subtopic qrels (qrels_format "
                                           f"'subtopics'): give a path, a DataFrame with a subtopic column or (qid, "
                                           f"subtopic, docid, grade) tuples")
    missing = first_missing(subtopic)
    if missing is not None:
        raise TrecFormatError(label, missing[0] + 1, f"subtopic is {missing[1]}")
    grade = np.array([_grade(v, label, row) for row, v in enumerate(value)], dtype=np.int64)
    found = subtopic_qrels(pa.array(qid, pa.large_string()), pa.array([str(x) for x in subtopic], pa.large_string()),
                           pa.array(docid, pa.large_string()), grade, label, lambda: np.arange(1, len(grade) + 1),
                           unit="row")
    warn_single_subtopics(label, found)
    return found


def _judgment_group_qrels(qrels: Any, label: str) -> Qrels:
    """Judgment-group qrels from a frame (a ``jg`` column beside the qrels') or from
    (qid, jg, docid, grade) tuples."""
    if hasattr(qrels, "columns"):
        group = qrels[_column(qrels, ("jg",), label)].tolist()
        qid, docid, value = _rows(qrels, GRADE_COLUMNS, label, "relevance")
    elif isinstance(qrels, Iterable) and not isinstance(qrels, (str, bytes, Mapping)):
        group, triples = [], []
        for row, item in enumerate(qrels):
            if not isinstance(item, (tuple, list)) or len(item) != 4:
                raise TrecFormatError(label, row + 1, f"expected (qid, jg, docid, grade), not {_short(item)}")
            group.append(item[1])
            triples.append((item[0], item[2], item[3]))
        qid, docid, value = _rows(triples, GRADE_COLUMNS, label, "relevance")
    else:
        raise TrecFormatError(label, None, f"cannot read {type(qrels).__name__} as judgment-group qrels: give a "
                                           f"path, a DataFrame with a jg column or (qid, jg, docid, grade) tuples")
    missing = first_missing(group)
    if missing is not None:
        raise TrecFormatError(label, missing[0] + 1, f"jg is {missing[1]}")
    bad = next((row for row, g in enumerate(group) if str(g).strip() == "" or any(ch.isspace() for ch in str(g))),
               None)
    if bad is not None:
        raise TrecFormatError(label, bad + 1, f"jg {group[bad]!r} must be non-empty text without white space")
    grade = np.array([_grade(v, label, row) for row, v in enumerate(value)], dtype=np.int64)
    return qrels_jg(pa.array(qid, pa.large_string()), pa.array([str(g) for g in group], pa.large_string()),
                    pa.array(docid, pa.large_string()), grade, label, lambda: np.arange(1, len(grade) + 1),
                    unit="row")


def run_sources(runs: Any) -> Sequence[Path] | Sequence[GivenRun | NamedFile]:
    """What :func:`read_given` reads: run files (paths, directories, globs, as the CLI
    takes them) or runs named by a mapping's keys (each a path to one run file or a run
    in memory) or a frame's ``run`` column (a single run without a name is ``run``)."""
    if isinstance(runs, (list, tuple, Mapping)) and not runs:
        raise TrecFormatError("runs", None, f"no runs were given (an empty {type(runs).__name__})")
    if isinstance(runs, (str, Path)) or (isinstance(runs, (list, tuple)) and runs
                                         and all(isinstance(r, (str, Path)) for r in runs)):
        return resolve_paths(runs)
    if hasattr(runs, "columns") and "run" in runs.columns:
        _column(runs, ("run",), "runs")  # refuses two run columns
        missing = first_missing(runs["run"].tolist())
        if missing is not None:  # groupby would drop its rows
            raise TrecFormatError("runs", missing[0] + 1, f"run is {missing[1]}")
        named = list(runs.groupby("run", sort=False))
        if not named:
            raise TrecFormatError("runs", None, "no runs were given (the frame has no rows)")
    elif isinstance(runs, Mapping) and not _is_run_dict(runs):
        named = list(runs.items())  # name -> run
        missing = first_missing(runs)
        if missing is not None:
            raise TrecFormatError("runs", None, f"a run's name is {missing[1]}")
    else:
        return [GivenRun("run", "runs", _rows(runs, SCORE_COLUMNS, "runs", "score"))]
    return [_named(str(name), run) for name, run in named]


def _named(name: str, run: Any) -> GivenRun | NamedFile:
    """One run of a mapping or a frame: a path (``str`` or :class:`~pathlib.Path`) to one
    run file, or a run in memory."""
    label = f"runs[{name!r}]"
    if isinstance(run, (str, Path)):
        try:
            files = resolve_paths(run)
        except FileNotFoundError as exc:
            raise TrecFormatError(label, None, str(exc)) from None
        if len(files) > 1:
            raise TrecFormatError(label, None, f"{run} holds {len(files)} run files; a name takes one file")
        return NamedFile(name, files[0])
    return GivenRun(name, label, _rows(run, SCORE_COLUMNS, label, "score"))


def read_given(source: Path | GivenRun | NamedFile, run_name: RunNameSource, depth: int | None,
               duplicates: DuplicatePolicy, score_precision: ScorePrecision = "double") -> RunFile:
    """One run, from its file or from memory, in trec_eval's order (on its scores at
    ``score_precision``) and cut at ``depth``."""
    if isinstance(source, Path):
        return read_run_file(source, run_name, depth, duplicates, score_precision)
    if isinstance(source, NamedFile):
        run = read_run_file(source.path, run_name, depth, duplicates, score_precision)
        if run_name == "file":
            return replace(run, name=source.name)
        if run.name != source.name:  # run_name="tag": the tag names the run, and the key says which
            raise TrecFormatError(source.path, None, f"the run's tag is {run.name!r}, not {source.name!r}, its "
                                                     f"name in runs (run_name='tag' names runs by their tag)")
        return run
    qid, docid, values = source.columns
    if not qid:
        raise TrecFormatError(source.label, None, "the run is empty")
    score = np.array([_number(v, source.label, row, "score") for row, v in enumerate(values)], dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(score))
    if len(bad):
        raise TrecFormatError(source.label, int(bad[0]) + 1, f"score {values[bad[0]]!r} is not a finite number")
    rows = np.arange(1, len(score) + 1)
    columns = RunColumns(pa.array(qid, pa.large_string()), pa.array(docid, pa.large_string()), score,
                         source.name, rows)
    return ordered_run(columns, source.name, source.label, depth, duplicates, lambda: rows, unit="row",
                       score_precision=score_precision)


def _is_run_dict(obj: Any) -> bool:
    """pytrec_eval's {qid: {docid: value}}: a mapping whose values are mappings of numbers."""
    return isinstance(obj, Mapping) and bool(obj) and all(
        isinstance(v, Mapping) and all(not isinstance(x, (Mapping, list, tuple)) for x in v.values())
        for v in obj.values())


def _rows(obj: Any, value_columns: tuple[str, ...], label: str, what: str) -> tuple[list, list, list]:
    """(qid, docid, value) per row, qids and docids as text, from any accepted form."""
    if hasattr(obj, "columns"):  # a DataFrame
        qid_col = _column(obj, QID_COLUMNS, label)
        doc_col = _column(obj, DOCID_COLUMNS, label)
        value_col = _column(obj, value_columns, label)
        qid, docid, value = (obj[c].tolist() for c in (qid_col, doc_col, value_col))
    elif isinstance(obj, Mapping):
        if not _is_run_dict(obj):
            raise TrecFormatError(label, None, f"a mapping must be {{qid: {{docid: {what}}}}}")
        qid, docid, value = [], [], []
        for q, docs in obj.items():
            for d, v in docs.items():
                qid.append(q)
                docid.append(d)
                value.append(v)
    elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        qid, docid, value = [], [], []
        for row, item in enumerate(obj):
            q, d, v = _tuple_fields(item, value_columns, label, row, what)
            qid.append(q)
            docid.append(d)
            value.append(v)
    else:
        raise TrecFormatError(label, None, f"cannot read {type(obj).__name__}: give a path (str or pathlib.Path), "
                                           f"a DataFrame, {{qid: {{docid: {what}}}}} or (qid, docid, {what}) tuples")
    for role, ids in (("qid", qid), ("docid", docid)):
        missing = first_missing(ids)
        if missing is not None:
            raise TrecFormatError(label, missing[0] + 1, f"{role} is {missing[1]}")
    for row, (q, d) in enumerate(zip(qid, docid)):
        if str(q).strip() == "" or str(d).strip() == "" or any(
                ch.isspace() for ch in str(q) + str(d)):
            raise TrecFormatError(label, row + 1, f"qid {q!r} and docid {d!r} must be non-empty text without "
                                                  f"white space (as in a TREC file)")
    return [str(q) for q in qid], [str(d) for d in docid], value


def _column(frame: Any, names: tuple[str, ...], label: str) -> str:
    """The one column of ``frame`` named one of ``names``: none, two names for the same
    role (``qid`` and ``query_id``) or one name twice is refused, not resolved by a guess."""
    present = [c for c in frame.columns if isinstance(c, str) and c in names]
    if len(present) == 1:
        return present[0]
    if not present:
        have = ", ".join(map(str, frame.columns))
        raise TrecFormatError(label, None, f"no column {' or '.join(names)} (columns: {have})")
    twice = next((c for c in present if present.count(c) > 1), None)
    if twice is not None:
        raise TrecFormatError(label, None, f"column {twice!r} appears twice: keep one")
    raise TrecFormatError(label, None, f"columns {' and '.join(map(repr, present))} name the same thing: keep one")


def _tuple_fields(item: Any, value_columns: tuple[str, ...], label: str, row: int, what: str) -> tuple:
    fields = getattr(item, "_fields", None)
    if fields:  # a named tuple: ir_measures' Qrel(query_id, doc_id, relevance, iteration), ScoredDoc
        by_name = dict(zip(fields, item))
        try:
            return (next(by_name[c] for c in QID_COLUMNS if c in by_name),
                    next(by_name[c] for c in DOCID_COLUMNS if c in by_name),
                    next(by_name[c] for c in value_columns if c in by_name))
        except StopIteration:
            raise TrecFormatError(label, row + 1, f"a {type(item).__name__} without query_id, doc_id and "
                                                  f"{what}") from None
    if isinstance(item, (tuple, list)) and len(item) == 3:
        return tuple(item)
    raise TrecFormatError(label, row + 1, f"expected (qid, docid, {what}), not {item!r}")


def _number(value: Any, label: str, row: int, what: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        raise TrecFormatError(label, row + 1, f"{what} {_short(value)} is not a number")
    try:
        return float(value)
    except OverflowError:  # an int beyond a double, as a file's "1e999"
        raise TrecFormatError(label, row + 1, f"{what} {_short(value)} overflows a double") from None
    except (TypeError, ValueError):
        raise TrecFormatError(label, row + 1, f"{what} {_short(value)} is not a number") from None


def _grade(value: Any, label: str, row: int) -> int:
    """An integer grade within int64, as the qrels reader takes them; an int is read exactly."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        grade = int(value)
    else:
        number = _number(value, label, row, "relevance")
        if not number.is_integer():
            raise TrecFormatError(label, row + 1, f"relevance {_short(value)} is not an integer grade")
        grade = int(number)
    if not -2**63 <= grade < 2**63:
        raise TrecFormatError(label, row + 1, f"relevance {_short(value)} is out of the int64 range")
    return grade


def _short(value: Any) -> str:
    """``repr(value)`` cut short, so an error stays one readable line."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 40 else text[:37] + "..."


def reader(run_name: RunNameSource, depth: int | None, duplicates: DuplicatePolicy,
           score_precision: ScorePrecision = "double") -> Callable[[Any], RunFile]:
    """:func:`read_given` with the reading settings bound, for :func:`irmeta.campaign.judge.judge_each`."""
    return lambda source: read_given(source, run_name, depth, duplicates, score_precision)
