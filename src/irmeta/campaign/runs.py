"""Read TREC qrels and runs with trec_eval's semantics, into columnar arrays.

Formats (whitespace separated, plain or gzip):

- qrels: ``qid iter docid grade``; ``iter`` is ignored, ``grade`` is an integer and
  may be negative (the 2014 Web Track marks spam with -2).
- run: ``qid Q0 docid rank score tag``; column 2 and ``rank`` are ignored (CLEF TAR
  runs hold NF/AF in column 2), anything after ``tag`` is ignored, as trec_eval does.

trec_eval's order: within a run and topic, documents are sorted by score descending,
ties broken by docid descending as byte strings, and only then cut at the depth
(``trec_eval -M``). Scores are doubles, as trec_eval >= 9.0.8 reads them;
``score_precision="float32"`` rounds each to the nearest single-precision float first, as
trec_eval did until 9.0.8 (``float sim``) and pytrec_eval does, so that two scores the
rounding makes equal are ordered by docid (docs/PROTOCOL.md, Numerical care).

A docid twice for one topic in a run is an error in trec_eval; ``duplicates="first"``
keeps the best-ranked copy instead and reports what it dropped.

Each file is read once: plain files (one delimiter, six fields or more) by Arrow's
multithreaded CSV reader, anything else by a numpy tokeniser that also words every
error with its line (no Python loop over lines either way). A leading UTF-8
byte-order mark is dropped with a :class:`TrecFormatWarning` naming the file;
trec_eval would read it as part of the first qid.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import DuplicateDocumentError, TrecFormatError
from irmeta.campaign.files import read_bytes, resolve_paths, run_name_from_path, without_bom
from irmeta.campaign.qrels import sort_topics
from irmeta.campaign.tokens import NUMBER, arrow_fields, check_columns, parse_numbers, tokenise, utf8_column
from irmeta.support.atomic import write_parquet

DuplicatePolicy = Literal["error", "first"]


RunNameSource = Literal["file", "tag"]

ScorePrecision = Literal["double", "float32"]
SCORE_PRECISIONS: tuple[ScorePrecision, ...] = ("double", "float32")


@dataclass(frozen=True)
class RunFile:
    """One run file in trec_eval order, duplicates handled, cut at the depth."""

    path: Path | str  # the file, or what a run given in memory is called in errors
    name: str
    qid: pa.DictionaryArray  # per kept row, codes into the file's own topics
    docid: pa.DictionaryArray  # per kept row, codes into the file's own docids
    score: np.ndarray
    rank: np.ndarray
    dropped: int


@dataclass(frozen=True)
class RunColumns:
    """The columns of a run file that trec_eval reads, one row per non-blank line."""

    qid: pa.Array  # string
    docid: pa.Array  # string
    score: np.ndarray  # float64, finite
    tag: str  # the first line's tag
    line: np.ndarray | None  # 1-based line numbers (None from the fast path: no error to report)


# Only the fields irmeta reads: Arrow skips the others (Q0, iter, rank) unparsed.
_RUN_FIELDS = {"f0": pa.large_string(), "f2": pa.large_string(), "f4": pa.float64(), "f5": pa.large_string()}


def _fast_columns(data: bytes) -> RunColumns | None:
    """A run's columns by Arrow's CSV reader (:func:`arrow_fields`), finite scores only."""
    table = arrow_fields(data, _RUN_FIELDS)
    if table is None:
        return None
    score = table.column("f4").to_numpy()
    if not np.isfinite(score).all():  # nan, inf: the general path words the error
        return None
    return RunColumns(table.column("f0").combine_chunks(), table.column("f2").combine_chunks(),
                       np.ascontiguousarray(score), table.column("f5")[0].as_py(), None)


def _general_columns(path: Path, data: bytes) -> RunColumns:
    lines = tokenise(data)
    check_columns(path, lines, 6, "qid Q0 docid rank score tag")
    start, end = lines.field(5)
    tag = bytes(lines.buf[start[0]:end[0]]).decode("utf-8", errors="replace")
    return RunColumns(utf8_column(path, lines, 0, "qid"), utf8_column(path, lines, 2, "docid"),
                       parse_numbers(path, lines, 4, "score", NUMBER, np.float64), tag, lines.number)


def run_columns(path: Path, data: bytes, *, numbered: bool = False) -> RunColumns:
    """The columns of a run's lines (``data``: a whole file, or whole lines of one), by
    Arrow's reader when they are plain, else (or when ``numbered``: each row's line
    wanted) by the tokeniser, which words any error."""
    return (None if numbered else _fast_columns(data)) or _general_columns(path, data)


def read_run_file(path: Path, run_name: RunNameSource, depth: int | None,
                   duplicates: DuplicatePolicy, score_precision: ScorePrecision = "double") -> RunFile:
    data = without_bom(path, read_bytes(path))
    columns = run_columns(path, data)
    name = columns.tag if run_name == "tag" else run_name_from_path(path)

    def line_numbers() -> np.ndarray:
        # the fast path keeps no line numbers: the general one counts them, for an error only
        line = columns.line if columns.line is not None else _general_columns(path, data).line
        assert line is not None  # the general tokeniser always numbers its lines
        return line

    return ordered_run(columns, name, path, depth, duplicates, line_numbers, score_precision=score_precision)


def ordered_run(columns: RunColumns, name: str, source: Path | str, depth: int | None,
                duplicates: DuplicatePolicy, line_numbers: Callable[[], np.ndarray], *,
                unit: str = "line", score_precision: ScorePrecision = "double") -> RunFile:
    """One run's rows in trec_eval's order (:func:`trec_order`) on its scores at
    ``score_precision`` (:func:`at_precision`), a document twice for a topic refused or
    its worse copy dropped, cut at ``depth``: what every run goes through, read from a
    file or given in memory. ``line_numbers()`` gives each row's line (or row, ``unit``)
    in ``source``, asked for only to word an error."""
    qid, docid = columns.qid, columns.docid
    score = at_precision(columns.score, score_precision, source, line_numbers, unit)

    q_enc, d_enc = qid.dictionary_encode(), docid.dictionary_encode()
    q = q_enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    d = d_enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    order = trec_order(q, score, d_enc)
    if order is not None:
        q, d, score = q[order], d[order], score[order]

    key = q * len(d_enc.dictionary) + d
    by_key = np.argsort(key, kind="stable")  # stable: the better-ranked copy comes first
    repeat = np.flatnonzero(np.diff(key[by_key]) == 0)
    keep = None
    if len(repeat):
        first_row, second_row = by_key[repeat[0]], by_key[repeat[0] + 1]
        if duplicates == "error":
            line = line_numbers()
            line = line if order is None else line[order]
            lo, hi = sorted((int(line[first_row]), int(line[second_row])))
            raise DuplicateDocumentError(
                source, hi,
                f"document {d_enc.dictionary[d[second_row]].as_py()} appears twice for topic "
                f"{q_enc.dictionary[q[second_row]].as_py()} (also on {unit} {lo})",
            )
        keep = np.ones(len(key), dtype=bool)
        keep[by_key[repeat + 1]] = False

    if keep is not None:
        q, d, score = q[keep], d[keep], score[keep]
    starts = np.flatnonzero(np.diff(q, prepend=-1))
    rank = np.arange(1, len(q) + 1) - np.repeat(starts, np.diff(np.append(starts, len(q))))
    if depth is not None:
        cut = rank <= depth
        q, d, score, rank = q[cut], d[cut], score[cut], rank[cut]
    return RunFile(
        path=source, name=name,
        qid=pa.DictionaryArray.from_arrays(pa.array(q.astype(np.int32)), q_enc.dictionary),
        docid=pa.DictionaryArray.from_arrays(pa.array(d.astype(np.int32)), d_enc.dictionary),
        score=score, rank=rank.astype(np.int32), dropped=int(len(repeat)),
    )


def at_precision(score: np.ndarray, precision: ScorePrecision, source: Path | str,
                 line_numbers: Callable[[], np.ndarray], unit: str = "line") -> np.ndarray:
    """The scores as trec_eval holds them: doubles (9.0.8 on), or ``float32``, each double
    rounded to the nearest single-precision float (ties to even), as C's conversion of
    trec_eval's ``atof`` result to ``float sim`` (and pytrec_eval's of a Python float) does;
    kept as float64 for the rest of irmeta. A score beyond float32's range is refused (the
    conversion would make it infinite)."""
    if precision == "double":
        return score
    with np.errstate(over="ignore"):
        single = score.astype(np.float32)
    beyond = np.flatnonzero(np.isinf(single))
    if len(beyond):
        raise TrecFormatError(source, int(line_numbers()[beyond[0]]),
                              f"score {float(score[beyond[0]])!r} is beyond a single-precision float "
                              f"(score_precision float32; the largest is {float(np.finfo(np.float32).max):.7g})")
    return single.astype(np.float64)


def trec_order(topic: np.ndarray, score: np.ndarray, docid: pa.DictionaryArray) -> np.ndarray | None:
    """Row order of trec_eval: topics in blocks, score descending, ties by docid descending
    as byte strings (trec_eval compares docnos with strcmp); None when the rows already are.

    Numbers are sorted first; docids only for the rows that tie on a score, so the string
    sort costs what the ties are, not the file.
    """
    blocks = np.flatnonzero(topic[1:] != topic[:-1])
    grouped = len(blocks) + 1 == len(np.unique(topic)) if len(topic) else True
    same = topic[1:] == topic[:-1]
    descending = grouped and bool(np.all((score[1:] <= score[:-1]) | ~same))
    order = None if descending else np.lexsort((-score, topic))
    t, sc = (topic, score) if order is None else (topic[order], score[order])
    tied = np.flatnonzero((t[1:] == t[:-1]) & (sc[1:] == sc[:-1]))
    if not len(tied):
        return order
    rows = np.union1d(tied, tied + 1)  # every row of a run of equal (topic, score)
    group = np.cumsum(np.concatenate([[1], np.diff(rows) != 1]) | np.concatenate(
        [[True], (t[rows[1:]] != t[rows[:-1]]) | (sc[rows[1:]] != sc[rows[:-1]])]))
    at = rows if order is None else order[rows]
    names = docid.dictionary.take(pa.array(docid.indices.to_numpy(zero_copy_only=False)[at]))
    within = np.asarray(pc.sort_indices(pa.table({"g": group, "d": names}),
                                        sort_keys=[("g", "ascending"), ("d", "descending")]))
    if order is None and np.array_equal(within, np.arange(len(rows))):
        return None
    full = np.arange(len(topic)) if order is None else order.copy()
    full[rows] = at[within]
    return full


@dataclass(frozen=True)
class Runs:
    """Runs in trec_eval order, one row per retrieved document, cut at ``depth``.

    Rows are sorted by run, topic (in each run's order of codes) and rank. ``run``,
    ``qid`` and ``docid`` are integer codes into ``names``, ``topics`` and ``docids``.
    """

    run: np.ndarray  # int32 code into names
    qid: np.ndarray  # int32 code into topics
    docid: np.ndarray  # int32 code into docids
    rank: np.ndarray  # int32, 1-based, trec_eval order
    score: np.ndarray  # float64, as read
    names: list[str]
    topics: list[str]
    docids: pa.Array  # large_string vocabulary
    depth: int | None = None
    duplicates: DuplicatePolicy = "error"
    dropped_duplicates: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    score_precision: ScorePrecision = "double"

    def __len__(self) -> int:
        return len(self.rank)

    @property
    def n_runs(self) -> int:
        return len(self.names)

    def settings(self) -> dict:
        """The reading choices that produced these rows, for the record."""
        return {
            "depth": self.depth,
            "order": "score descending, then docid descending (trec_eval)",
            "duplicates": self.duplicates,
            "dropped_duplicates": {k: v for k, v in self.dropped_duplicates.items() if v},
            "files": self.files,
            "score_precision": self.score_precision,
        }

    def to_table(self) -> pa.Table:
        names = pa.array(self.names, pa.string())
        topics = pa.array(self.topics, pa.string())
        table = pa.table({
            "run": pa.DictionaryArray.from_arrays(pa.array(self.run, pa.int32()), names),
            "qid": pa.DictionaryArray.from_arrays(pa.array(self.qid, pa.int32()), topics),
            "docid": self.docids.cast(pa.string()).take(pa.array(self.docid)),
            "rank": pa.array(self.rank, pa.int32()),
            "score": pa.array(self.score, pa.float64()),
        })
        meta = dict(self.settings(), names=self.names, topics=self.topics)
        return table.replace_schema_metadata({"irmeta": json.dumps(meta)})

    @classmethod
    def from_table(cls, table: pa.Table) -> Runs:
        meta = json.loads((table.schema.metadata or {}).get(b"irmeta", b"{}"))
        names = meta.get("names") or sort_topics_unique(table.column("run"))
        topics = meta.get("topics") or sort_topics_unique(table.column("qid"))
        run = _index_in(table.column("run"), names)
        qid = _index_in(table.column("qid"), topics)
        doc = table.column("docid").combine_chunks().cast(pa.large_string()).dictionary_encode()
        return cls(
            run=run,
            qid=qid,
            docid=doc.indices.to_numpy(zero_copy_only=False).astype(np.int32),
            rank=table.column("rank").to_numpy().astype(np.int32),
            score=table.column("score").to_numpy().astype(np.float64),
            names=list(names),
            topics=list(topics),
            docids=doc.dictionary,
            depth=meta.get("depth"),
            duplicates=meta.get("duplicates", "error"),
            dropped_duplicates={n: int(meta.get("dropped_duplicates", {}).get(n, 0)) for n in names},
            files=list(meta.get("files", [])),
            score_precision=meta.get("score_precision", "double"),
        )

    def select(self, names: Sequence[str]) -> Runs:
        """The given runs only (no re-reading), in the given order."""
        lookup = {n: i for i, n in enumerate(self.names)}
        missing = [n for n in names if n not in lookup]
        if missing:
            raise KeyError(f"unknown runs: {', '.join(missing)}")
        remap = np.full(len(self.names), -1, dtype=np.int32)
        remap[[lookup[n] for n in names]] = np.arange(len(names), dtype=np.int32)
        new_run = remap[self.run]
        keep = new_run >= 0
        order = np.argsort(new_run[keep], kind="stable")
        idx = np.flatnonzero(keep)[order]
        return Runs(
            run=new_run[idx], qid=self.qid[idx], docid=self.docid[idx], rank=self.rank[idx],
            score=self.score[idx], names=list(names), topics=self.topics, docids=self.docids,
            depth=self.depth, duplicates=self.duplicates,
            dropped_duplicates={n: self.dropped_duplicates.get(n, 0) for n in names},
            files=self.files, score_precision=self.score_precision,
        )


def sort_topics_unique(column: pa.ChunkedArray) -> list[str]:
    col = column.combine_chunks()
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return sort_topics(pc.unique(col).to_pylist())


def _index_in(column: pa.ChunkedArray, vocabulary: Sequence[str]) -> np.ndarray:
    col = column.combine_chunks()
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    idx = pc.index_in(col.cast(pa.string()), value_set=pa.array(list(vocabulary), pa.string()))
    if idx.null_count:
        raise ValueError("a value is missing from the table's vocabulary")
    return idx.to_numpy(zero_copy_only=False).astype(np.int32)


def read_runs(
    paths: str | Path | Iterable[str | Path],
    *,
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    run_name: RunNameSource = "file",
    threads: int = 2,
    progress: Callable[[int, int, Path], None] | None = None,
    score_precision: ScorePrecision = "double",
) -> Runs:
    """Read TREC runs into trec_eval order, cut at ``depth`` (None keeps everything).

    ``paths``: files, directories or globs. The run's name is the file name minus
    ``.gz`` (``run_name="file"``) or the tag column of its first line (``"tag"``).
    A docid twice for a topic in a run raises :class:`TrecFormatError` unless
    ``duplicates="first"``, which keeps the best-ranked copy (trec_eval's order).
    ``score_precision``: ``"double"`` (trec_eval >= 9.0.8) or ``"float32"`` (earlier
    trec_eval, pytrec_eval): the scores the order is taken on, and kept.
    """
    if duplicates not in ("error", "first"):
        raise ValueError(f"duplicates must be 'error' or 'first', not {duplicates!r}")
    if run_name not in ("file", "tag"):
        raise ValueError(f"run_name must be 'file' or 'tag', not {run_name!r}")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be a positive integer, not {depth}")
    check_score_precision(score_precision)
    parsed = read_each_run(resolve_paths(paths),
                           lambda path: read_run_file(path, run_name, depth, duplicates, score_precision),
                           threads=threads, progress=progress)
    return replace(_assemble(parsed, depth=depth, duplicates=duplicates), score_precision=score_precision)


def check_score_precision(value: object) -> None:
    if value not in SCORE_PRECISIONS:
        raise ValueError(f"score_precision must be 'double' or 'float32', not {value!r}")


class _NamedRun(Protocol):
    """What :func:`read_each_run` needs of what it reads: the run's name and its file."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> Any: ...


RunT = TypeVar("RunT", bound=_NamedRun)


def read_each_run(files: Sequence[Any], read: Callable[[Any], RunT], *, threads: int = 2,
                  progress: Callable[[int, int, Any], None] | None = None) -> list[RunT]:
    """``read`` applied to every run file, in threads, in file order; ``progress(done,
    total, path)`` after each. Two files that give one run name are refused, naming both."""
    if not files:
        raise FileNotFoundError("no run file given")

    def load(i_path: tuple[int, Any]) -> RunT:
        i, path = i_path
        out = read(path)
        if progress is not None:
            progress(i + 1, len(files), path)
        return out

    # Each file is ordered and cut on its own; zlib, numpy's sorts and pyarrow release
    # the GIL, so threads overlap the work of several files.
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        runs = list(pool.map(load, enumerate(files)))
    seen: dict[str, Any] = {}
    for run in runs:
        if run.name in seen:
            raise TrecFormatError(run.path, None, f"run name {run.name!r} is also the name of {seen[run.name]}")
        seen[run.name] = run.path
    return runs


def _assemble(parsed: list[RunFile], *, depth: int | None, duplicates: DuplicatePolicy) -> Runs:
    """Concatenate per-file rows; one docid vocabulary; rows sorted by run, topic, rank."""
    sizes = np.array([len(f.score) for f in parsed], dtype=np.int64)
    run = np.repeat(np.arange(len(parsed), dtype=np.int32), sizes)
    qid_enc = pa.chunked_array([f.qid.dictionary_decode() for f in parsed],
                               pa.large_string()).dictionary_encode().combine_chunks()
    doc_enc = pa.chunked_array([f.docid.dictionary_decode() for f in parsed],
                               pa.large_string()).dictionary_encode().combine_chunks()
    topics = sort_topics(qid_enc.dictionary.to_pylist())
    topic_code = np.asarray(pc.index_in(qid_enc.dictionary, value_set=pa.array(topics, pa.large_string())))
    qid = topic_code[qid_enc.indices.to_numpy(zero_copy_only=False)].astype(np.int32)
    docid = doc_enc.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    score = np.concatenate([f.score for f in parsed]) if parsed else np.zeros(0)
    rank = np.concatenate([f.rank for f in parsed]) if parsed else np.zeros(0, np.int32)
    group = run.astype(np.int64) * max(len(topics), 1) + qid
    if len(group) and np.any(np.diff(group) < 0):
        # Files list topics in their own order; a stable sort keeps ranks in order.
        order = np.argsort(group, kind="stable")
        run, qid, docid, score, rank = run[order], qid[order], docid[order], score[order], rank[order]
    return Runs(
        run=run, qid=qid, docid=docid, rank=rank, score=score,
        names=[f.name for f in parsed], topics=topics, docids=doc_enc.dictionary, depth=depth,
        duplicates=duplicates,
        dropped_duplicates={f.name: f.dropped for f in parsed},
        files=[str(f.path) for f in parsed],
    )


def write_runs(runs: Runs, path: str | Path) -> None:
    write_parquet(runs.to_table(), path)


def load_runs(path: str | Path) -> Runs:
    """Runs written by :func:`write_runs`."""
    import pyarrow.parquet as pq

    return Runs.from_table(pq.read_table(path))


def check_same_runs(named: Iterable[str], runs: Sequence[str], source: str | Path, lacking: str) -> None:
    """A file naming runs (groups, scores) names exactly the campaign's ``runs``: a run it
    names that the campaign does not have, or a campaign run it lacks, is a ValueError
    naming ``source`` and the first such run (``lacking``: what that run has none of)."""
    named = set(named)
    extra = sorted(named - set(runs))
    if extra:
        raise ValueError(f"{source}: run {extra[0]} is not among the collection's runs "
                         f"({len(extra)} such run{'s' if len(extra) > 1 else ''})")
    absent = [r for r in runs if r not in named]
    if absent:
        raise ValueError(f"{source}: run {absent[0]} has no {lacking} ({len(absent)} of the collection's runs "
                         f"have none)")

