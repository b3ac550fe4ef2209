"""Run families: the kind of system each run is (``bm25``, ``neural``, ``llm_reranker``),
the unit of the family-bias analysis (:mod:`irmeta.metaeval.family_bias`).

A families file is tab-separated with exactly the header ``run<TAB>family`` and one
line per run. A run listed twice, a line without a family, or another header is a
ValueError naming the file and the line; a run the collection lacks, or a run of the
collection the file does not name, one naming the file and the run
(:func:`irmeta.campaign.runs.check_same_runs`): a family read from the wrong file would
be a bias measured on the wrong systems. Blank lines are skipped and a UTF-8 byte order
mark is read past. :func:`families_for_runs` is the one reader the pipeline uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from irmeta.campaign.runs import check_same_runs

HEADER = ("run", "family")


def read_run_families(path: str | Path) -> dict[str, str]:
    """Run name -> family, in file order (module docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    lines = [(number, line.rstrip("\r\n")) for number, line in enumerate(text.splitlines(), start=1)
             if line.strip()]
    if not lines:
        raise ValueError(f"{path}: empty families file (expected the header 'run<TAB>family')")
    number, first = lines[0]
    if tuple(f.strip().lower() for f in first.split("\t")) != HEADER:
        raise ValueError(f"{path}: line {number}: the header must be 'run<TAB>family', got {first!r}")
    families: dict[str, str] = {}
    for number, line in lines[1:]:
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise ValueError(f"{path}: line {number}: expected a run and its family, got {line!r}")
        if fields[0] in families:
            raise ValueError(f"{path}: line {number}: run {fields[0]} is listed twice")
        families[fields[0]] = fields[1]
    return families


def families_for_runs(path: str | Path, runs: Sequence[str]) -> dict[str, str]:
    """Run -> family of each of ``runs`` (in their order), from the families file ``path``,
    which must name exactly ``runs`` (module docstring)."""
    families = read_run_families(path)
    check_same_runs(families, runs, path, "family")
    return {run: families[run] for run in runs}
