"""The screen and the log of a run (profiles/default, `logger: [irmeta]`): the screen shows
progress and irmeta's summary, Snakemake's log file under .snakemake/log/ keeps the full
job listing, and `--quiet host` puts the listing on the screen too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from snakemake_interface_logger_plugins.registry import LoggerPluginRegistry
from test_workflow import _copy_workflow, _ok, _snakemake

pytestmark = pytest.mark.integration

# The head of one job's entry in Snakemake's listing ("localrule score_runs:"), then its
# indented lines ("    input: ...").
JOB = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):\n((?:    .*\n)*)", re.M)


def _job_stats(text: str) -> dict[str, int]:
    """Snakemake's "Job stats" table: rule -> number of jobs (with "total")."""
    table = text[text.index("Job stats:"):].split("\n\n")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def _listing(text: str) -> dict[str, list[dict[str, str]]]:
    """rule -> its jobs' entries in a job listing, each as {item: value}."""
    jobs: dict[str, list[dict[str, str]]] = {}
    for match in JOB.finditer(text):
        items = dict(line.strip().split(": ", 1) for line in match.group(2).splitlines())
        jobs.setdefault(match.group(1), []).append(items)
    return jobs


def _log(workdir: Path) -> Path:
    logs = list((workdir / ".snakemake" / "log").glob("*.snakemake.log"))
    assert len(logs) == 1, logs
    return logs[0]


@pytest.fixture(scope="module")
def quiet(tmp_path_factory, shared_data):
    """The demo run as `make run` does it: the default profile, nothing asked for."""
    # docs: install.md: make run
    # docs: README.md: make run
    workdir = _copy_workflow(tmp_path_factory.mktemp("quiet"))
    return workdir, _ok(_snakemake(workdir, "--cores", "2", "--config", f"data_root={shared_data}"))


def test_the_plugin_is_installed_under_the_name_the_profile_uses():
    assert LoggerPluginRegistry().is_installed("irmeta")


def test_the_screen_shows_progress_and_the_summary_not_the_listing(quiet):
    workdir, proc = quiet
    stats = _job_stats(proc.stderr)
    total = stats["total"]
    assert not _listing(proc.stdout + proc.stderr), "the job listing is on the screen"
    for item in ("input:", "output:", "wildcards:", "reason:", "Host:"):
        assert item not in proc.stdout + proc.stderr, item
    assert f"{total} of {total} steps (100%) done" in proc.stderr
    # a handful of lines per job (select, execute, time, finished, progress), no more
    assert len(proc.stderr.splitlines()) < 6 * total + 60, proc.stderr
    # What the workflow prints at the end is irmeta's summary; Snakemake then names its log.
    assert proc.stdout.startswith("irmeta: done, 1 collection: Demo (demo)\n"), proc.stdout
    assert "significant pairs at 95%" in proc.stdout
    last = proc.stderr.rstrip().splitlines()[-2:]
    assert last[0] == f"Complete log(s): {_log(workdir)}" and last[1].startswith("Elapsed time"), last


def test_the_log_file_keeps_every_job_in_full(quiet):
    workdir, proc = quiet
    text = _log(workdir).read_text()
    stats = _job_stats(proc.stderr)
    listing = _listing(text)
    assert {rule: len(jobs) for rule, jobs in listing.items()} == {r: n for r, n in stats.items() if r != "total"}
    for rule, jobs in listing.items():
        for job in jobs:
            assert {"jobid", "reason"} <= set(job) and ({"input", "output"} & set(job)), (rule, job)
            assert rule == "all" or {"output", "log"} <= set(job), (rule, job)
    [score] = listing["score_runs"]
    assert score["input"] == "results/demo/judged.npz"
    assert score["output"] == "results/demo/scores.parquet, results/demo/scores.npz"
    assert score["wildcards"] == "collection=demo" and score["reason"].startswith("Missing output files")
    assert f"{stats['total']} of {stats['total']} steps (100%) done" in text


def test_quiet_host_puts_the_listing_on_the_screen(tmp_path, shared_data):
    """On request (`make run ARGS="--quiet host"`) the listing is on the screen, and in the log."""
    workdir = _copy_workflow(tmp_path)
    proc = _ok(_snakemake(workdir, "results/demo/scores.parquet", "--cores", "2",
                          "--config", f"data_root={shared_data}", "--quiet", "host"))
    expected = {"simulate_campaign": 1, "ingest_collection": 1, "score_runs": 1}
    for text in (proc.stderr, _log(workdir).read_text()):
        listing = _listing(text)
        assert {rule: len(jobs) for rule, jobs in listing.items()} == expected, text
        assert listing["score_runs"][0]["input"] == "results/demo/judged.npz"
        assert "reason" in listing["score_runs"][0]
    assert "Host:" not in proc.stdout + proc.stderr
