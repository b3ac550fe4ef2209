"""What the workflow says when it ends: :func:`irmeta.artefacts.summary.run_summary` on
the tables the run wrote (Snakemake's own job listing is left to its log)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from irmeta.artefacts.summary import run_summary, summary_tables
from irmeta.pipeline.collection_config import Collection
from irmeta.pipeline.properties import read_properties
from irmeta.pipeline.stored_scores import read_table


def workflow_summary(collections: Mapping[str, Collection], results: str | Path = "results",
                     skipped: Mapping[str, Mapping[str, str]] | None = None, *, rebuild: str | None = None,
                     report_follows: bool = False) -> str:
    """The summary of a run over ``collections`` (name -> collection), from ``results``;
    ``skipped``: name -> experiment -> why it did not run; ``rebuild``: the command that
    rebuilds the report with this run's options, ``report_follows``: whether the command
    that started the run builds it next (``make run``, ``make reproduce``, ``make
    campaigns``); see :func:`report_status`."""
    results = Path(results)
    tables = {}
    for name, collection in collections.items():
        folder = results / name / "tables"
        tables[name] = (collection.label, {t: read_table(folder / f"{t}.csv") for t in summary_tables()
                                           if (folder / f"{t}.csv").is_file()})
    paper = results / "paper"
    report = results / "report.html"
    described = results / "collection_properties.csv"
    return run_summary(tables, paper=f"{paper}/" if (paper / "published_vs_reproduced.md").is_file() else None,
                       report=report_status(results, rebuild=rebuild or f"snakemake --report {report}",
                                            follows=report_follows),
                       claims=str(results / "claims.md") if (results / "claims.md").is_file() else None,
                       skipped=skipped, properties=read_properties(described) if described.is_file() else None)


#: What a run writes that the report shows: its tables (and their Markdown and LaTeX).
TABLE_SUFFIXES = (".csv", ".md", ".tex")
_NOT_TABLES = {"logs", "benchmarks", "shards", ".snakemake"}


def newest_table(results: str | Path = "results") -> float:
    """The modification time of the newest table under ``results`` (0 when there is none)."""
    times = [p.stat().st_mtime for p in Path(results).rglob("*") if p.suffix in TABLE_SUFFIXES
             and p.is_file() and not _NOT_TABLES & set(p.relative_to(results).parts[:-1])]
    return max(times, default=0.0)


def report_status(results: str | Path = "results", *, rebuild: str, follows: bool = False) -> str:
    """Where the HTML report is, said truthfully: the path when it is at least as new as
    the newest table; else that it is missing or older, and ``rebuild``, the command that
    builds it with this run's options. ``follows``: the command that started the run
    builds the report next, so it is named as coming."""
    report = Path(results) / "report.html"
    if follows:
        return f"{report} (built next, from these tables)"
    if report.is_file() and report.stat().st_mtime >= newest_table(results):
        return str(report)
    state = "is older than this run's tables" if report.is_file() else "is not built yet"
    return f"{report} {state}: run `{rebuild}` to rebuild it"


def rebuild_command(configfiles: Sequence[str | Path], overrides: Mapping[str, object],
                    report: str = "results/report.html") -> str:
    """The ``snakemake --report`` command line that builds the report of a run started
    with ``configfiles`` (``--configfile``) and ``overrides`` (``--config``): the same
    collections and data, so the report shows what ran."""
    import shlex

    def value(v: object) -> str:
        return "[" + ",".join(map(str, v)) + "]" if isinstance(v, (list, tuple)) else str(v)

    import os

    words = ["snakemake", "--report", report]
    for path in configfiles:  # Snakemake makes them absolute: as given when under here
        relative = os.path.relpath(path)
        words += ["--configfile", str(path) if relative.startswith("..") else relative]
    if overrides:
        words.append("--config")
        words += [f"{key}={value(v)}" for key, v in overrides.items()]
    return shlex.join(words)


FULL_DISK_BYTES = 1 << 20  # below this, a job's outputs and logs may not fit


def job_errors(logs: str | Path = "results/logs", since: float = 0.0) -> str:
    """The one-line errors (``irmeta: error: ...``) that jobs wrote to their logs since
    ``since`` (a time stamp), each with its log: what a failed run tells a person, the
    job listing being off the screen."""
    found = []
    if Path(logs).is_dir() and shutil.disk_usage(logs).free < FULL_DISK_BYTES:
        # a job that cannot write leaves an empty log: say why here, once
        found.append(f"irmeta: error: no space left on the device holding {logs} "
                     f"({shutil.disk_usage(logs).free} bytes free): free some and run again")
    for log in sorted(Path(logs).rglob("*.log")):
        if log.stat().st_mtime < since:
            continue
        for line in log.read_text(errors="replace").splitlines():
            at = line.find("irmeta: error: ")
            if at >= 0:
                found.append(f"{line[at:]}  [{log}]")
    return "\n".join(dict.fromkeys(found)) + ("\n" if found else "")


def remove_killed_writes(results: str | Path = "results") -> str:
    """What the workflow says when it starts: the temporaries of writes that a killed job
    never finished (:func:`irmeta.support.atomic.remove_stale_temporaries`) removed from
    ``results``, one line, or nothing when there were none. Run by the Snakefile's
    ``onstart``, before any job of this run, under Snakemake's lock."""
    from irmeta.support.atomic import remove_stale_temporaries

    removed = remove_stale_temporaries(results) if Path(results).is_dir() else []
    if not removed:
        return ""
    shown = ", ".join(str(p) for p in removed[:3]) + (", ..." if len(removed) > 3 else "")
    return f"irmeta: removed {len(removed)} temporary file(s) of writes a killed job left unfinished: {shown}\n"


def cancel_pending_timers() -> int:
    """Cancel the threading.Timer threads still waiting in this process; how many. At the
    end of a successful run they are Snakemake's job-rate limiter's re-evaluations (its
    default of 100 jobs a second starts a one-second timer after each scheduling round):
    with nothing left to schedule, the interpreter would still wait for the last one
    before it exits (0.4-0.9 s of every run's end)."""
    import threading

    pending = [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]
    for timer in pending:
        timer.cancel()
    return len(pending)
