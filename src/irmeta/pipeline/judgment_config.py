"""A collection's ``alternative_qrels`` as the workflow scores them: each entry a file or
a folder of assessor files, with its ``unjudged`` rule and its fused sets
(:mod:`irmeta.campaign.judgment_sets`), expanded into the judgment sets compared with the
reference, each checked before any job runs.

Two forms, both kept: ``name: path`` (a file read with trec_eval's rule, today's form; a
folder gives one set per file) and ``name: {path: ..., unjudged: nonrelevant|reference,
fuse: [majority, mean, max]}``. A file's set is named ``name``; a folder's sets are named
after their files (``a1.txt`` gives ``a1``) and its fused sets ``<name>_<fusion>``.
A set read as it is (``unjudged: nonrelevant``, one file) is scored from its own file;
any other is written first (rule ``prepare_judgments``) as a qrels file
``results/<collection>/judgments/<set>/qrels.txt``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irmeta.campaign.judgment_sets import (
    UNJUDGED_RULES,
    assessor_files,
    check_fusions,
    check_shares_topics,
    check_unjudged,
    filled_from_reference,
    fused_qrels,
)
from irmeta.campaign.qrels import Qrels, read_qrels


@dataclass(frozen=True)
class JudgmentSpec:
    """One entry of ``alternative_qrels``: a file or folder, its holes' rule, its fusions."""

    path: Path
    unjudged: str = UNJUDGED_RULES[0]
    fuse: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgmentSet:
    """One judgment set to score: the files it comes from (one, or a folder's for a fused
    set), its ``fusion`` (None: the file as it is), its ``unjudged`` rule, and ``key``,
    the config key it comes from (for messages)."""

    name: str
    files: tuple[Path, ...]
    unjudged: str
    fusion: str | None
    key: str
    folder: str = ""  #: the config entry of the folder it is a file of ("" for none)

    @property
    def read_as_is(self) -> bool:
        """Scored from its own file, as today: no fusion, holes non-relevant."""
        return self.fusion is None and self.unjudged == UNJUDGED_RULES[0]


def judgment_spec(name: str, given: Any, resolve: Callable[[str, str], str]) -> JudgmentSpec:
    """The entry ``alternative_qrels.<name>`` (schema-checked): a path or a mapping;
    ``resolve(text, key)`` resolves a path as the collection's other paths."""
    key = f"alternative_qrels.{name}"
    if isinstance(given, str):
        return JudgmentSpec(Path(resolve(given, key)))
    return JudgmentSpec(Path(resolve(given["path"], f"{key}.path")),
                        check_unjudged(given.get("unjudged", UNJUDGED_RULES[0]), f"{key}.unjudged"),
                        tuple(given.get("fuse", ())))


def judgment_sets(specs: Mapping[str, JudgmentSpec]) -> dict[str, JudgmentSet]:
    """Every set the entries give, by name, in the entries' order (a folder's files in
    name order, then its fused sets); a ValueError naming the key for a fused set over
    fewer than two sets, or two sets of one name."""
    out: dict[str, JudgmentSet] = {}

    def add(found: JudgmentSet) -> None:
        if found.name in out:
            raise ValueError(f"key '{found.key}': the set {found.name!r} is named twice "
                             f"(also by '{out[found.name].key}'); rename one")
        out[found.name] = found

    for name, spec in specs.items():
        key = f"alternative_qrels.{name}"
        members = assessor_files(spec.path, f"key '{key}'") if spec.path.is_dir() else {name: spec.path}
        fusions = check_fusions(list(spec.fuse), len(members) if spec.path.is_dir() else 1, f"key '{key}.fuse'")
        folder = name if spec.path.is_dir() else ""
        for member, path in members.items():
            add(JudgmentSet(member, (path,), spec.unjudged, None, key, folder))
        for fusion in fusions:
            add(JudgmentSet(f"{name}_{fusion}", tuple(members.values()), spec.unjudged, fusion, key))
    return out


def assessor_folders(sets: Mapping[str, JudgmentSet]) -> dict[str, list[str]]:
    """Each entry that is a folder: the names of its files' sets (not the fused ones)."""
    folders: dict[str, list[str]] = {}
    for name, judgment_set in sets.items():
        if judgment_set.folder and judgment_set.fusion is None:
            folders.setdefault(judgment_set.folder, []).append(name)
    return folders


def own_labels(judgment_set: JudgmentSet) -> Qrels:
    """The labels ``judgment_set``'s assessors gave: its file, or its files fused, without
    the reference's grades an ``unjudged: reference`` set is scored with (label agreement
    compares these, or the copied grades would agree with themselves)."""
    if judgment_set.fusion is None:
        return read_qrels(judgment_set.files[0])
    return fused_qrels({str(p): read_qrels(p) for p in judgment_set.files}, judgment_set.fusion,
                       name=judgment_set.name)


def set_qrels(judgment_set: JudgmentSet, reference: Qrels | None) -> Qrels:
    """The judgments of ``judgment_set`` as scored: :func:`own_labels`, holes filled from
    ``reference`` under ``unjudged: reference``."""
    qrels = own_labels(judgment_set)
    if judgment_set.unjudged == "reference":
        if reference is None:
            raise ValueError(f"key '{judgment_set.key}.unjudged': 'reference' needs the collection's qrels")
        qrels = filled_from_reference(reference, qrels)
    return qrels


def check_judgment_files(sets: Mapping[str, JudgmentSet], reference: Qrels) -> None:
    """Every set's files read (a grade that is no integer, a pair judged twice: refused
    with the file and line) and sharing a topic with the reference: before any job."""
    for judgment_set in sets.values():
        for path in judgment_set.files:
            check_shares_topics(reference, read_qrels(path), f"key '{judgment_set.key}'")


def write_trec_qrels(qrels: Qrels, path: str | Path) -> None:
    """``qrels`` as a TREC qrels file (``qid 0 docid grade``), atomically."""
    from irmeta.support.atomic import atomic_write_text

    lines = (f"{q} 0 {d} {int(g)}\n" for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade))
    atomic_write_text(path, "".join(lines))


def collection_judgment_sets(specs: Mapping[str, JudgmentSpec], reference: Path | None, source: str,
                             generated: list[str] = ()) -> dict[str, JudgmentSet]:  # type: ignore[assignment]
    """A collection's judgment sets (:func:`judgment_sets`), every name left free for the
    results (not the reference's, not a generated set's) and every file checked against
    the reference qrels when it is there: a one-line ValueError naming ``source`` and the key."""
    from irmeta.metaeval.generated_set_names import check_alternative_name, check_set_names

    try:
        sets = judgment_sets(specs)
        for judgment_set in sets.values():
            try:
                check_alternative_name(judgment_set.name)
            except ValueError as exc:
                raise ValueError(f"key '{judgment_set.key}': {exc}") from None
        check_set_names(sets, generated, "alternative_qrels")
        if reference is not None and reference.is_file():
            check_judgment_files(sets, read_qrels(reference))
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    return sets
