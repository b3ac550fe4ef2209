"""TREC qrels (``qid iter docid grade``) read with trec_eval's semantics: ``iter`` is
ignored, grades are integers and may be negative (the 2014 Web Track marks spam with
-2), a pair judged twice is an error.

Every line has exactly four fields: every qrels file of the shared campaigns (TREC-8,
CLEF TAR 2017 both levels, TREC DL 2020 passages and documents, the 2014 Web Track) has
four on every line, and a line of six is a run file's (``qid Q0 docid rank score tag``)
given as the qrels, whose rank would otherwise be read as the grade. The topic id
``all`` is reserved: it names the means in every score table irmeta writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import read_bytes, without_bom
from irmeta.campaign.tokens import INTEGER, Lines, arrow_fields, parse_numbers, tokenise, utf8_column
from irmeta.support.atomic import write_parquet

if TYPE_CHECKING:
    from irmeta.campaign.judgment_groups import JudgmentGroups
    from irmeta.campaign.subtopics import SubtopicJudgments


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per judged (topic, document); ``subtopics``: each
    row's subtopic judgments when read from subtopic qrels (:mod:`irmeta.campaign.subtopics`);
    ``judgment_groups``: each row's judgments by group when read from judgment-group qrels
    (trec_eval's qrels_jg, :mod:`irmeta.campaign.judgment_groups`)."""

    qid: pa.Array  # string per judgment
    docid: pa.Array  # string per judgment
    grade: np.ndarray  # int64 per judgment
    source: str = ""
    subtopics: SubtopicJudgments | None = None
    judgment_groups: JudgmentGroups | None = None

    @cached_property
    def topics(self) -> list[str]:
        """Topics of the qrels in natural order (numerically when all are integers); found
        once (a campaign of 10^7 judgments asks for them at every copy it judges)."""
        return sort_topics(pc.unique(self.qid).to_pylist())

    @cached_property
    def topic_of_row(self) -> np.ndarray:
        """(J,) int64: each row's topic, an index into :attr:`topics`; found once."""
        return np.asarray(pc.index_in(self.qid, value_set=pa.array(self.topics, pa.large_string())), dtype=np.int64)

    def __len__(self) -> int:
        return len(self.grade)

    def to_table(self) -> pa.Table:
        table = pa.table({"qid": self.qid.cast(pa.string()), "docid": self.docid.cast(pa.string()),
                          "grade": pa.array(self.grade, pa.int64())})
        return table.replace_schema_metadata({"irmeta": json.dumps({"source": self.source})})

    @classmethod
    def from_table(cls, table: pa.Table) -> Qrels:
        meta = json.loads((table.schema.metadata or {}).get(b"irmeta", b"{}"))
        return cls(
            qid=table.column("qid").combine_chunks().cast(pa.large_string()),
            docid=table.column("docid").combine_chunks().cast(pa.large_string()),
            grade=table.column("grade").to_numpy().astype(np.int64),
            source=meta.get("source", ""),
        )


def sort_topics(topics: Iterable[str]) -> list[str]:
    """Natural topic order: numeric when every qid is an integer, else byte order."""
    topics = list(topics)
    if all(re.fullmatch(r"\d+", t) for t in topics):
        return sorted(topics, key=lambda t: (int(t), t))
    return sorted(topics)


QRELS_FIELDS = {"f0": pa.large_string(), "f2": pa.large_string(), "f3": pa.int64()}
QRELS_LAYOUT = "qid iter docid grade"
#: The qid of the means' rows in irmeta's score tables (``irmeta score``, evaluate, the pipeline).
RESERVED_TOPIC = "all"


#: A four-column judgment file's Arrow fields, its second column a group of the topic's.
GROUPED_FIELDS = {"f0": pa.large_string(), "f1": pa.large_string(), "f2": pa.large_string(), "f3": pa.int64()}


@dataclass(frozen=True)
class GroupedRows:
    """The columns of a judgment file ``topic group docid grade`` (ndeval's subtopic qrels,
    trec_eval's ``qrels_jg``), one row per line; ``line_numbers`` gives each row's line."""

    qid: pa.Array
    group: pa.Array
    docid: pa.Array
    grade: np.ndarray
    line_numbers: Callable[[], np.ndarray]


def read_grouped_rows(path: Path, names: tuple[str, str], layout: str) -> GroupedRows:
    """The four columns of ``path`` (``names`` its first two as an error names them,
    ``layout`` the line a column-count error quotes), read by Arrow when every line has
    four fields, else by the tokeniser, which words the error."""
    data = without_bom(path, read_bytes(path))
    table = arrow_fields(data, GROUPED_FIELDS)
    if table is not None and _first_line_fields(data) == 4:
        qid, group, docid = (table.column(f).combine_chunks() for f in ("f0", "f1", "f2"))
        grade = table.column("f3").to_numpy().astype(np.int64)
        return GroupedRows(qid, group, docid, grade, lambda: tokenise(data).number)
    lines = tokenise(data)
    if len(lines.count) == 0:
        raise TrecFormatError(path, None, "empty file")
    bad = np.flatnonzero(lines.count != 4)
    if len(bad):
        raise TrecFormatError(path, int(lines.number[bad[0]]),
                              f"{int(lines.count[bad[0]])} columns, expected 4 ({layout})")
    qid, group, docid = (utf8_column(path, lines, i, what) for i, what in enumerate((*names, "docid")))
    grade = parse_numbers(path, lines, 3, "grade", INTEGER, np.int64)
    return GroupedRows(qid, group, docid, grade, lambda: lines.number)


def read_qrels(path: str | Path) -> Qrels:
    """Read a qrels file (``qid iter docid grade``); a (qid, docid) twice is an error."""
    path = Path(path)
    data = without_bom(path, read_bytes(path))
    table = arrow_fields(data, QRELS_FIELDS)
    if table is not None and _first_line_fields(data) != 4:
        table = None  # Arrow read every line with that count: the tokeniser words the error
    lines = None
    if table is not None:
        qid, docid = table.column("f0").combine_chunks(), table.column("f2").combine_chunks()
        grade = table.column("f3").to_numpy().astype(np.int64)
    else:
        lines = tokenise(data)
        _check_fields(path, lines)
        qid = utf8_column(path, lines, 0, "qid")
        docid = utf8_column(path, lines, 2, "docid")
        grade = parse_numbers(path, lines, 3, "grade", INTEGER, np.int64)
    return checked_qrels(qid, docid, grade, path, lambda: (lines or tokenise(data)).number)


def _first_line_fields(data: bytes) -> int:
    """Fields on the first non-blank line (Arrow's reader has checked every line has as many)."""
    first = re.search(rb"\S[^\n]*", data)
    return len(first.group().split()) if first else 0


def _check_fields(path: Path, lines: Lines) -> None:
    """Four fields on every line; a line of six is a run file's, said so."""
    if len(lines.count) == 0:
        raise TrecFormatError(path, None, "empty file")
    bad = np.flatnonzero(lines.count != 4)
    if len(bad):
        n = int(lines.count[bad[0]])
        hint = "; six look like a run file's line (qid Q0 docid rank score tag): a run given as the qrels?" \
            if n == 6 else ""
        raise TrecFormatError(path, int(lines.number[bad[0]]), f"{n} columns, expected 4 ({QRELS_LAYOUT}){hint}")


def checked_qrels(qid: pa.Array, docid: pa.Array, grade: np.ndarray, source: str | Path,
                  line_numbers: Callable[[], np.ndarray], *, unit: str = "line") -> Qrels:
    """Judgments as :class:`Qrels`, a (qid, docid) judged twice refused: for a qrels file
    and for qrels given in memory alike. ``line_numbers()`` gives each row's line (or
    row, ``unit``) in ``source``, asked for only to word an error. Qrels without a
    judgment, and the reserved topic id ``all``, are refused too."""
    if len(grade) == 0:
        raise TrecFormatError(source, None, "no judgments (the qrels are empty)")
    reserved = np.flatnonzero(np.asarray(pc.equal(qid, RESERVED_TOPIC).fill_null(False), dtype=bool))
    if len(reserved):
        raise TrecFormatError(source, int(line_numbers()[reserved[0]]),
                              f"topic id {RESERVED_TOPIC!r} is reserved (the qid of the means in irmeta's score "
                              f"tables); rename the topic")
    codes = _pair_codes(qid, docid)
    order = np.argsort(codes, kind="stable")
    repeat = np.flatnonzero(np.diff(codes[order]) == 0)
    if len(repeat):
        number = line_numbers()
        first_row, second_row = order[repeat[0]], order[repeat[0] + 1]
        raise TrecFormatError(
            source,
            int(number[second_row]),
            f"topic {qid[second_row].as_py()} document {docid[second_row].as_py()} is judged twice "
            f"(first on {unit} {int(number[first_row])}; subtopic qrels, topic subtopic docid grade, are read "
            f"in the subtopics format)",
        )
    return Qrels(qid=qid, docid=docid, grade=grade, source=str(source))


def _pair_codes(a: pa.ChunkedArray | pa.Array, b: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """One int64 per (a, b) pair, equal exactly when both strings are equal."""
    ca = _codes(a)
    cb = _codes(b)
    return ca.astype(np.int64) * (int(cb.max(initial=0)) + 1) + cb


def _codes(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    enc = values.dictionary_encode()
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    return enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    write_parquet(qrels.to_table(), path)


def load_qrels(path: str | Path) -> Qrels:
    """Qrels written by :func:`write_qrels`."""
    import pyarrow.parquet as pq

    return Qrels.from_table(pq.read_table(path))
