"""Judgment sets of any origin (a second assessor, a crowd, an LLM prompted as an
assessor), made ready to score every run under them as under the official qrels.

A set may judge documents the reference never judged and leave reference judgments
unjudged. What its holes mean is the set's ``unjudged`` rule:

- ``nonrelevant``: trec_eval's rule, a document absent from the set's qrels is not
  relevant (the set is read as it is);
- ``reference``: a (topic, document) the reference judged and the set did not takes the
  reference's grade (the "fill the pool's holes" use of an LLM judge):
  :func:`filled_from_reference`. The holes so score as the reference scores them; an
  empty set, which would only repeat the reference, is refused where sets are read.

A folder of files holds one set per assessor, named after its file without its extension
(``a1.txt`` gives ``a1``, :func:`assessor_files`); fused sets over a folder's sets
(:func:`fused_qrels`) judge each (topic, document) any of them judged, with, over the
grades of the sets that judged it:

- ``majority``: the median grade rounded down (the lower of two middle grades' mean,
  floor((g_(n/2) + g_(n/2+1)) / 2) for an even count n);
- ``mean``: the mean grade rounded half up, floor(sum / n + 1/2), in integers;
- ``max``: the highest grade (a document any assessor finds relevant is relevant).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.campaign.qrels import Qrels

#: The meanings of a set's unjudged documents (``unjudged:``), the first the default.
UNJUDGED_RULES = ("nonrelevant", "reference")
#: The fused sets a folder of assessors can add (``fuse:``).
FUSIONS = ("majority", "mean", "max")


def check_unjudged(rule: object, key: str = "unjudged") -> str:
    """``rule`` if it is one of :data:`UNJUDGED_RULES`; a one-line ValueError otherwise."""
    if rule not in UNJUDGED_RULES:
        raise ValueError(f"{key}: {rule!r} is no rule for unjudged documents ({', '.join(UNJUDGED_RULES)})")
    return str(rule)


def check_fusions(fusions: object, sets: int, key: str = "fuse") -> list[str]:
    """The fusions listed (each once, each of :data:`FUSIONS`), over ``sets`` sets (at least 2)."""
    if not isinstance(fusions, (list, tuple)):
        raise ValueError(f"{key}: a list of fusions ({', '.join(FUSIONS)}), not {fusions!r}")
    for fusion in fusions:
        if fusion not in FUSIONS:
            raise ValueError(f"{key}: {fusion!r} is no fusion ({', '.join(FUSIONS)})")
    repeated = sorted({f for f in fusions if list(fusions).count(f) > 1})
    if repeated:
        raise ValueError(f"{key}: {repeated[0]!r} listed twice")
    if fusions and sets < 2:
        raise ValueError(f"{key}: a fused set needs a folder of at least two sets, not {sets}")
    return list(fusions)


def assessor_files(folder: str | Path, key: str = "path") -> dict[str, Path]:
    """The files of ``folder`` (hidden files aside), one set each, by name: the file's
    name without its (last) extension, in name order. Two files of one name are refused."""
    folder = Path(folder)
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise ValueError(f"{key}: {folder}: a folder of judgment sets holds no file")
    named: dict[str, Path] = {}
    for path in files:
        if path.stem in named:
            raise ValueError(f"{key}: {folder}: {named[path.stem].name} and {path.name} both name the set "
                             f"{path.stem!r}")
        named[path.stem] = path
    return named


def pair_codes(qrels: list[Qrels]) -> list[np.ndarray]:
    """One integer per (topic, document) of each qrels, equal across them exactly when the
    pair is: dictionary codes of both strings over all the qrels together."""
    qid = pa.chunked_array([q.qid.cast(pa.large_string()) for q in qrels]).combine_chunks().dictionary_encode()
    doc = pa.chunked_array([q.docid.cast(pa.large_string()) for q in qrels]).combine_chunks().dictionary_encode()
    topic_code = qid.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    doc_code = doc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    codes = topic_code * (len(doc.dictionary) + 1) + doc_code
    bounds = np.cumsum([0] + [len(q) for q in qrels])
    return [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _rows(qrels: list[Qrels], rows: np.ndarray, grades: np.ndarray, source: str) -> Qrels:
    """The judgments at ``rows`` of the qrels concatenated, with ``grades``."""
    qid = pa.chunked_array([q.qid.cast(pa.large_string()) for q in qrels]).combine_chunks()
    doc = pa.chunked_array([q.docid.cast(pa.large_string()) for q in qrels]).combine_chunks()
    take = pa.array(rows, pa.int64())
    return Qrels(qid=qid.take(take), docid=doc.take(take), grade=np.asarray(grades, dtype=np.int64), source=source)


def filled_from_reference(reference: Qrels, judgments: Qrels) -> Qrels:
    """``unjudged: reference``: the set's judgments, then every reference judgment of a
    (topic, document) the set did not judge, with the reference's grade."""
    theirs, ours = pair_codes([judgments, reference])
    holes = np.flatnonzero(~np.isin(ours, theirs))
    rows = np.concatenate([np.arange(len(judgments)), len(judgments) + holes])
    grades = np.concatenate([judgments.grade, reference.grade[holes]])
    return _rows([judgments, reference], rows, grades, judgments.source)


def fused_grades(grades: np.ndarray, group: np.ndarray, fusion: str) -> np.ndarray:
    """Per group 0..G-1 (``group`` of each grade), the fused grade (module docstring)."""
    if fusion not in FUSIONS:
        raise ValueError(f"fuse: {fusion!r} is no fusion ({', '.join(FUSIONS)})")
    grades = np.asarray(grades, dtype=np.int64)
    order = np.lexsort((grades, group))
    ordered = grades[order]
    sizes = np.bincount(group)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    if fusion == "max":
        return ordered[start + sizes - 1]
    if fusion == "majority":
        # floor division rounds down for negative grades too (spam, -2)
        return (ordered[start + (sizes - 1) // 2] + ordered[start + sizes // 2]) // 2
    totals = np.add.reduceat(ordered, start)
    return (2 * totals + sizes) // (2 * sizes)  # floor(sum / n + 1/2), exact


def fused_qrels(sets: Mapping[str, Qrels], fusion: str, name: str = "") -> Qrels:
    """The fused set ``fusion`` over ``sets`` (at least two): each (topic, document) any
    set judged, in order of first appearance, with the fused grade of the sets judging it."""
    if len(sets) < 2:
        raise ValueError(f"fuse: a fused set needs at least two sets to fuse, not {len(sets)}")
    listed = list(sets.values())
    codes = np.concatenate(pair_codes(listed))
    unique, first, group = np.unique(codes, return_index=True, return_inverse=True)
    grades = fused_grades(np.concatenate([q.grade for q in listed]), group.ravel(), fusion)
    appearance = np.argsort(first, kind="stable")
    return _rows(listed, first[appearance], grades[appearance], name or f"{fusion} of {', '.join(sets)}")


def shared_topics(reference: Qrels, judgments: Qrels) -> list[str]:
    """The topics both judged, in the reference's order."""
    theirs = set(judgments.topics)
    return [t for t in reference.topics if t in theirs]


def check_shares_topics(reference: Qrels, judgments: Qrels, key: str) -> None:
    """A set that judged none of the reference's topics can be compared on nothing: refused."""
    if not shared_topics(reference, judgments):
        raise ValueError(f"{key}: {judgments.source or 'the set'} judges none of the reference's topics "
                         f"(it judges {', '.join(judgments.topics[:3])}{', ...' if len(judgments.topics) > 3 else ''})")
