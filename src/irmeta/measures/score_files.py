"""Bring your own scores: per-topic scores computed elsewhere, read into irmeta's experiments.

Two formats (:func:`read_score_file`):

- ``irmeta``: the TSV of ``irmeta score --per-topic``, a header ``run<TAB>measure<TAB>qid<TAB>value``
  then one row per run, measure and topic; qid ``all`` rows are means. Every measure must
  be one irmeta knows (its own, a plugin's, or one registered with
  :func:`irmeta.measures.plugins.register_imported_measure`).
- ``trec_eval``: the output of ``trec_eval -q``, ``measure qid value`` per line; each run's
  block is its per-topic lines then its summary lines (qid ``all``), where
  ``runid all <name>`` names it. Files may hold several runs' blocks one after another.
  trec_eval's names (``P_10``, ``map``, ``ndcg_cut_10``) become irmeta's (``P@10``, ``AP``,
  ``nDCG@10``); lines of measures irmeta does not know (counts such as ``num_q``,
  ``num_ret``, ``num_rel_ret``, the ``runid`` line itself, strings such as ``relstring``,
  measures such as ``gm_map`` or ``iprec_at_recall_0.00``) are left out and counted.

:func:`scores_from_table` lays such a table out as the :class:`~irmeta.measures.averaging.Scores`
the pipeline scores runs into, so that the experiments read imported scores as they read
their own. Names are read with :func:`~irmeta.measures.names.parse_measure`, which knows
trec_eval's spellings (and :func:`~irmeta.measures.names.trec_eval_name` writes them).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import read_bytes, without_bom
from irmeta.campaign.qrels import sort_topics
from irmeta.campaign.tokens import NUMBER, WHITESPACE, Lines, tokenise, utf8_column
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import AVERAGING_NAMES, Scores, exact_mean
from irmeta.measures.names import measure_label, parse_measure

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("irmeta")

ScoreFormat = Literal["auto", "irmeta", "trec_eval"]
Missing = Literal["error", "zero"]
TopicOrder = Literal["irmeta", "table"]
COLUMNS = ("run", "measure", "qid", "value")
HEADER = "\t".join(COLUMNS)

# ------------------------------------------------------------------ reading files


@dataclass(frozen=True)
class _Rows:
    """One file's score rows: text columns, values, the line each came from, and the
    lines left out (trec_eval's name -> count)."""

    run: pa.Array
    measure: pa.Array
    qid: pa.Array
    value: np.ndarray
    line: np.ndarray
    dropped: dict[str, int]


def read_score_file(path: str | Path, format: ScoreFormat = "auto") -> pd.DataFrame:
    """A scores file (or a directory of them: its non-hidden files, by name) as a table:
    columns run, measure, qid (text) and value (float64), one row per line in file order,
    measures by irmeta's canonical names; qid ``all`` rows are the file's means.

    ``format``: ``irmeta``, ``trec_eval`` or ``auto`` (the irmeta header line, else
    trec_eval); gzip files are read as such. Lines of measures irmeta does not know are
    left out of trec_eval files (see the module docstring): the table's
    ``attrs["dropped"]`` counts them by trec_eval's name (``{"num_q": 3, "runid": 3, ...}``)
    and they are logged; in irmeta files they are an error. A fault is one line naming the
    file, the line and what is wrong: a wrong number of fields, a value that is not a
    finite number, a trec_eval block without its ``runid`` line, a run, measure and topic
    given twice, an unknown measure (irmeta format), an empty file.
    """
    if format not in ("auto", "irmeta", "trec_eval"):
        raise ValueError(f"scores file format must be auto, irmeta or trec_eval, not {format!r}")
    files = _score_paths(Path(path))
    parts = [_read_one(p, format) for p in files]
    run = pa.concat_arrays([p.run for p in parts])
    measure = pa.concat_arrays([p.measure for p in parts])
    qid = pa.concat_arrays([p.qid for p in parts])
    file_of = np.repeat(np.arange(len(parts)), [len(p.value) for p in parts])
    line = np.concatenate([p.line for p in parts])
    _refuse_repeats(files, file_of, line, run, measure, qid)
    dropped: dict[str, int] = {}
    for p in parts:
        for name, n in p.dropped.items():
            dropped[name] = dropped.get(name, 0) + n
    if dropped:
        log.info("%s: left out %d line(s) of measures irmeta does not know (%s)", path, sum(dropped.values()),
                 ", ".join(sorted(dropped)))
    frame = pa.table({"run": run, "measure": measure, "qid": qid,
                      "value": np.concatenate([p.value for p in parts])}).to_pandas()
    frame.attrs["dropped"] = dropped
    frame.attrs["source"] = str(path)
    return frame


def _score_paths(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise FileNotFoundError(f"{path}: the directory holds no scores file")
        return files
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file or directory")
    return [path]


def _read_one(path: Path, format: ScoreFormat) -> _Rows:
    data = without_bom(path, read_bytes(path))
    if not data.strip():
        raise TrecFormatError(path, None, "empty file")
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    if format == "irmeta" or (format == "auto" and first == HEADER.encode()):
        if first != HEADER.encode():
            raise TrecFormatError(path, 1, "expected the header run<TAB>measure<TAB>qid<TAB>value "
                                           "(irmeta score --per-topic's TSV)")
        return _read_irmeta(path, data)
    return _read_trec_eval(path, data)


def _read_irmeta(path: Path, data: bytes) -> _Rows:
    lines = _tab_lines(data)
    lines = Lines(lines.buf, lines.starts, lines.ends, lines.first[1:], lines.count[1:], lines.number[1:])
    if not len(lines.count):
        raise TrecFormatError(path, None, "no scores, only the header")
    _check_fields(path, lines, 4, "run, measure, qid, value separated by tabs")
    run, label, qid = (_text(path, lines, i, what) for i, what in enumerate(("run", "measure", "qid")))
    measure, known, faults = _canonical(label)
    if not known.all():
        bad = int(np.flatnonzero(~known)[0])
        raise TrecFormatError(path, int(lines.number[bad]), faults[label[bad].as_py()])
    value = _values(path, lines, utf8_column(path, lines, 3, "value"), np.ones(len(known), bool), label)
    return _Rows(run, measure, qid, value, lines.number, {})


def _read_trec_eval(path: Path, data: bytes) -> _Rows:
    lines = tokenise(data)
    _check_fields(path, lines, 3, "measure qid value, as trec_eval -q prints them")
    name, qid = _text(path, lines, 0, "measure"), _text(path, lines, 1, "qid")
    is_all = pc.equal(qid, "all").to_numpy(zero_copy_only=False)
    is_runid = is_all & pc.equal(name, "runid").to_numpy(zero_copy_only=False)
    block = _blocks(is_all, is_runid)
    named = np.bincount(block, weights=is_runid, minlength=block[-1] + 1)
    if (named == 0).any():
        start = int(np.searchsorted(block, int(np.flatnonzero(named == 0)[0])))
        raise TrecFormatError(path, int(lines.number[start]),
                              "a trec_eval block (per-topic lines, then the run's 'all' lines) without its "
                              "'runid all <name>' line, so its run has no name")
    text = utf8_column(path, lines, 2, "value")
    run_names = text.filter(pa.array(is_runid))
    measure, known, _ = _canonical(name)
    left_out = pc.value_counts(name.filter(pa.array(~known))).to_pylist()
    keep = pa.array(known)
    rows = np.flatnonzero(known)
    return _Rows(run_names.take(pa.array(block[rows])), measure.filter(keep), qid.filter(keep),
                 _values(path, lines, text, known, name)[rows], lines.number[rows],
                 {d["values"]: int(d["counts"]) for d in left_out})


def _blocks(is_all: np.ndarray, is_runid: np.ndarray) -> np.ndarray:
    """Each line's run block: a block is per-topic lines then 'all' lines, so one starts at
    a per-topic line after an 'all' line, and at a second ``runid`` line in the same span
    (summary-only outputs one after another, whose summaries start with ``runid``)."""
    after_all = np.zeros(len(is_all), bool)
    after_all[1:] = ~is_all[1:] & is_all[:-1]
    span = np.cumsum(after_all)
    seen = np.cumsum(is_runid)
    before_span = np.concatenate(([0], seen))[np.flatnonzero(np.diff(span, prepend=-1))]
    second_runid = is_runid & (seen - np.repeat(before_span, np.bincount(span)) >= 2)
    return np.cumsum(after_all | second_runid)


def _tab_lines(data: bytes) -> Lines:
    """Tab-separated fields of every non-blank line (a trailing carriage return dropped), as
    :class:`~irmeta.campaign.tokens.Lines`: only tabs separate, since a run's name (its
    file's) may hold a space."""
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == 10)
    begin = np.concatenate(([0], newlines + 1))
    end = np.concatenate((newlines, [len(buf)]))
    end = end - ((end > begin) & (buf[np.maximum(end - 1, 0)] == 13))
    solid = np.concatenate(([0], np.cumsum(~WHITESPACE[buf])))
    kept = np.flatnonzero(solid[end] > solid[begin])
    begin, end = begin[kept], end[kept]
    tabs = np.flatnonzero(buf == 9)
    line_of_tab = np.searchsorted(begin, tabs, side="right") - 1
    inside = (line_of_tab >= 0) & (tabs < end[np.maximum(line_of_tab, 0)])
    tabs, line_of_tab = tabs[inside], line_of_tab[inside]
    count = np.bincount(line_of_tab, minlength=len(begin)) + 1
    # tokens are disjoint and in order, so their sorted starts and sorted ends pair up
    starts, ends = np.sort(np.concatenate((begin, tabs + 1))), np.sort(np.concatenate((tabs, end)))
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    return Lines(buf, starts, ends, first, count, kept + 1)


def _check_fields(path: Path, lines: Lines, n: int, layout: str) -> None:
    if not len(lines.count):
        raise TrecFormatError(path, None, "empty file")
    bad = np.flatnonzero(lines.count != n)
    if len(bad):
        raise TrecFormatError(path, int(lines.number[bad[0]]),
                              f"{int(lines.count[bad[0]])} fields, expected {n} ({layout})")


def _text(path: Path, lines: Lines, i: int, what: str) -> pa.Array:
    text = utf8_column(path, lines, i, what)
    empty = np.flatnonzero(pc.equal(pc.binary_length(text), 0).to_numpy(zero_copy_only=False))
    if len(empty):
        raise TrecFormatError(path, int(lines.number[empty[0]]), f"empty {what}")
    return text


def _canonical(names: pa.Array) -> tuple[pa.Array, np.ndarray, dict[str, str]]:
    """Canonical measure names of a column (null where irmeta knows no such measure), which
    rows have one, and why each unknown name is not one. Parses each distinct name once."""
    encoded = names.dictionary_encode()
    canonical: list[str | None] = []
    faults: dict[str, str] = {}
    for name in encoded.dictionary.to_pylist():
        try:
            canonical.append(str(parse_measure(name)))
        except ValueError as exc:
            canonical.append(None)
            faults[name] = str(exc)
    codes = encoded.indices
    out = pa.array(canonical, pa.large_string()).take(codes)
    return out, out.is_valid().to_numpy(zero_copy_only=False), faults


def _values(path: Path, lines: Lines, text: pa.Array, check: np.ndarray, measure: pa.Array) -> np.ndarray:
    """The value column as float64 where ``check`` (NaN elsewhere); a value there that is
    not a finite number is an error naming its line and measure."""
    number = pc.match_substring_regex(text, NUMBER).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(check & ~number)
    if len(bad):
        raise TrecFormatError(path, int(lines.number[bad[0]]),
                              f"value {text[bad[0]].as_py()!r} of {measure[bad[0]].as_py()} is not a finite number")
    values = pc.cast(pc.if_else(pa.array(number), text, pa.scalar(None, pa.large_string())), pa.float64())
    out = values.to_numpy(zero_copy_only=False).astype(np.float64)
    overflow = np.flatnonzero(check & ~np.isfinite(out))
    if len(overflow):
        raise TrecFormatError(path, int(lines.number[overflow[0]]),
                              f"value {text[overflow[0]].as_py()!r} overflows a double")
    return out


def _codes(values: pa.Array) -> tuple[np.ndarray, int]:
    encoded = values.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), len(encoded.dictionary)


def _refuse_repeats(files: list[Path], file_of: np.ndarray, line: np.ndarray, run: pa.Array,
                    measure: pa.Array, qid: pa.Array) -> None:
    """A (run, measure, qid) given twice is an error at its second line, naming the first."""
    (r, _), (m, n_m), (q, n_q) = _codes(run), _codes(measure), _codes(qid)
    key = (r * n_m + m) * n_q + q
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(np.diff(key[order]) == 0)
    if not len(same):
        return
    at = int(np.argmin(order[same + 1]))  # the earliest second occurrence, in file order
    first, second = int(order[same[at]]), int(order[same[at] + 1])
    where = (f"line {line[first]}" if file_of[first] == file_of[second]
             else f"{files[file_of[first]]}:{line[first]}")
    raise TrecFormatError(files[file_of[second]], int(line[second]),
                          f"run {run[second].as_py()} scores {measure[second].as_py()} on topic "
                          f"{qid[second].as_py()} twice (also on {where})")


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


def table_labels(table: pd.DataFrame, source: str = "scores") -> list[str]:
    """The canonical measure labels of a score table's per-topic rows, in first-appearance order."""
    rows = _per_topic_rows(table, source)
    return list(dict.fromkeys(rows["measure"]))


def score_grid(table: pd.DataFrame, labels: Sequence[str] | None = None, *, missing: Missing = "error",
               source: str = "scores", topic_order: TopicOrder = "irmeta") -> ScoreGrid:
    """The per-topic rows (qid other than ``all``) of a table with columns run, measure, qid,
    value, as (labels, runs, topics) arrays: the one place score tables are pivoted and
    checked. ``labels``: measure labels as :func:`~irmeta.measures.names.measure_label`
    writes them (any spelling; default: every one the table has).

    Runs in first-appearance order; topics every per-topic qid of the table, in irmeta's
    topic order (``irmeta``: numeric when all are integers, as the qrels order the
    pipeline's scores) or first-appearance order (``table``). A run without a row for a
    topic: ``missing="error"`` refuses it, ``"zero"`` scores it 0, except for measures for
    which lower is better (0 would be their best score) and for a run with no row of a
    measure at all. Errors are one line naming ``source``, the measure, run and topic.
    """
    if missing not in ("error", "zero"):
        raise ValueError(f"missing must be 'error' or 'zero', not {missing!r}")
    rows = _per_topic_rows(table, source)
    runs = list(dict.fromkeys(rows["run"]))
    topics = list(dict.fromkeys(rows["qid"]))
    topics = sort_topics(topics) if topic_order == "irmeta" else topics
    have = list(dict.fromkeys(rows["measure"]))
    wanted = have if labels is None else list(dict.fromkeys(_label(x, source) for x in labels))
    absent = [x for x in wanted if x not in set(have)]
    if absent:
        raise ValueError(f"{source}: no per-topic scores of {absent[0]} (it has per-topic scores of "
                         f"{', '.join(have) if have else 'no measure'})")
    import pandas as pd

    chosen = rows[rows["measure"].isin(wanted)]
    shape = (len(wanted), len(runs), len(topics))
    cell = np.ravel_multi_index((pd.Index(wanted).get_indexer(chosen["measure"]),
                                 pd.Index(runs).get_indexer(chosen["run"]),
                                 pd.Index(topics).get_indexer(chosen["qid"])), shape)
    value = chosen["value"].to_numpy(dtype=np.float64)
    grid = ScoreGrid(runs, topics, wanted, np.zeros(shape), np.zeros(shape, bool))
    twice = np.flatnonzero(pd.Series(cell).duplicated().to_numpy())
    if len(twice):
        label, run, topic = _cell(grid, int(cell[twice[0]]))
        raise ValueError(f"{source}: {label}: run {run} has two scores on topic {topic}")
    nan = np.flatnonzero(np.isnan(value))
    if len(nan):
        label, run, topic = _cell(grid, int(cell[nan[0]]))
        raise ValueError(f"{source}: {label}: the score of run {run} on topic {topic} is not a number")
    grid.values.reshape(-1)[cell] = value
    grid.present.reshape(-1)[cell] = True
    _check_holes(grid, missing, source)
    return grid


def _per_topic_rows(table: pd.DataFrame, source: str) -> pd.DataFrame:
    """The table's per-topic rows, run and qid as text, measures by canonical label."""
    import pandas as pd

    lacking = [c for c in COLUMNS if c not in table.columns]
    if lacking:
        raise ValueError(f"{source}: no column {', '.join(lacking)} (it needs {', '.join(COLUMNS)})")
    qid = table["qid"].astype(str)
    rows = table[(qid != "all").to_numpy()]
    labels = rows["measure"].astype(str)
    canonical = {label: _label(label, source) for label in labels.unique()}
    return pd.DataFrame({"run": rows["run"].astype(str).to_numpy(), "measure": labels.map(canonical).to_numpy(),
                         "qid": qid[(qid != "all").to_numpy()].to_numpy(),
                         "value": pd.to_numeric(rows["value"]).to_numpy(dtype=np.float64)})


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


def scores_from_table(table: pd.DataFrame, measures: Sequence[str], alphas: Sequence[Alpha], *,
                      missing: Missing = "error", source: str = "scores") -> Scores:
    """Per-topic scores of a table (columns run, measure, qid, value; e.g. from
    :func:`read_score_file`) as the :class:`Scores` the pipeline writes to ``scores.npz``.

    Blocks as :func:`~irmeta.measures.averaging.score_arrays` lays them out: each measure as
    config names it (``P@100``), and a measure that takes alpha once per alpha of
    ``alphas`` (or the one its name fixes), read from the table's label
    ``P_rareness(alpha=0.5)@100``. Runs in the table's order; topics every per-topic qid of
    the table in irmeta's topic order (the order the pipeline gives the qrels' topics, so
    that the randomised experiments draw the same topics for the same scores). A missing
    score: see :func:`score_grid` (``missing``).

    Means: ``all_topics`` over every topic (a missing one 0 with ``missing="zero"``, as
    trec_eval -c), ``returned_topics`` over the topics the table scores the run on, both
    sorted sums (:func:`~irmeta.measures.averaging.exact_mean`). The table's ``all`` rows
    are not read: trec_eval without -c averages over a run's own topics, a different set.
    Means of the precision family may differ in the last bit from irmeta's own, which come
    from integer totals.
    """
    names, alpha_labels, labels = [], [], []
    for item in measures:
        m = parse_measure(item)
        own = ([m.alpha] if m.alpha is not None else list(alphas)) if m.uses_alpha else [None]
        for a in own:
            names.append(str(m.without_alpha()))
            alpha_labels.append(None if a is None else alpha_label(a))
            labels.append(measure_label(m.without_alpha(), a))
    grid = score_grid(table, labels, missing=missing, source=source)
    at = [grid.labels.index(x) for x in labels]
    per_topic, present = grid.values[at], grid.present[at]
    return Scores(runs=grid.runs, topics=grid.topics, measures=names, alphas=alpha_labels, per_topic=per_topic,
                  means={AVERAGING_NAMES["all"]: exact_mean(per_topic),
                         AVERAGING_NAMES["returned"]: exact_mean(per_topic, present)})
