"""The qrels formats irmeta reads (``--qrels-format``, ``qrels_format``), in one place:
TREC's (``qid iter docid grade``), ndeval's subtopic qrels (``topic subtopic docid grade``,
:mod:`irmeta.campaign.subtopics`) and trec_eval's judgment-group qrels (``qid jg docid
grade``, ``-R qrels_jg``, :mod:`irmeta.campaign.judgment_groups`)."""

from __future__ import annotations

from pathlib import Path

from irmeta.campaign.judgment_groups import read_qrels_jg
from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.campaign.subtopics import read_subtopic_qrels

QRELS_FORMATS = ("trec", "subtopics", "qrels_jg")


def read_qrels_as(path: str | Path, qrels_format: str = "trec") -> Qrels:
    """A qrels file in ``qrels_format`` (:data:`QRELS_FORMATS`)."""
    readers = {"trec": read_qrels, "subtopics": read_subtopic_qrels, "qrels_jg": read_qrels_jg}
    if qrels_format not in readers:
        raise ValueError(f"qrels format {qrels_format!r}: irmeta reads {', '.join(QRELS_FORMATS)}")
    return readers[qrels_format](path)
