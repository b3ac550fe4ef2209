"""Every command on every page of the documentation site runs, here or in a test that
names the page (a ``# docs: <page>: <command>`` comment), and every Python example runs
as written (doctest over the pages).

The cheap commands (``irmeta score``, ``compare``, ``repro``, ``simulate``) run here, as
written, in a folder laid out as the pages assume: ``qrels.txt`` (TREC-8's), ``runs/``
(five TREC-8 runs, one of them named ``bm25``), ``run1.gz``, ``run2.gz``, the plugin files
the pages show, and the reproduced runs of the reproducibility page (CL99SD reproduced by
CL99SDopt1, CL99XT by CL99XTopt, as the page's table is computed)."""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from campaigns import REPO
from docs_pages import claims, page_block, page_commands, page_files, page_name, pages

RUNS = {"INQ601": "INQ601", "ok8alx": "ok8alx", "CL99XT": "CL99XT", "Dm8Nbn": "Dm8Nbn", "bm25": "CL99SD"}
REPRODUCTIONS = {"b.txt": "CL99SD", "a.txt": "CL99XT", "b2.txt": "CL99SDopt1", "a2.txt": "CL99XTopt"}

# docs: install.md: make test
# docs: README.md: make test
# (.ci/run runs it: the suite this file belongs to.)


def _run_here(command: str) -> bool:
    return command.startswith("irmeta ")


@pytest.fixture(scope="module")
def folder(tmp_path_factory, shared_data) -> Path:
    root = tmp_path_factory.mktemp("docs_commands")
    trec8 = shared_data / "trec8_adhoc"
    (root / "qrels.txt").symlink_to(trec8 / "qrels.txt")
    (root / "q2.txt").symlink_to(trec8 / "qrels.txt")
    (root / "runs").mkdir()
    for name, source in RUNS.items():
        (root / "runs" / f"{name}.gz").symlink_to(trec8 / "runs" / f"{source}.gz")
    (root / "run1.gz").symlink_to(trec8 / "runs" / "INQ601.gz")
    (root / "run2.gz").symlink_to(trec8 / "runs" / "ok8alx.gz")
    for name, source in REPRODUCTIONS.items():
        (root / name).symlink_to(trec8 / "runs" / f"{source}.gz")
    # judgments.md's sets: TREC-8's qrels with every seventh grade flipped (llm.txt) and
    # three assessors flipping every fifth, sixth and seventh (assessors/a1..a3.txt)
    lines = (trec8 / "qrels.txt").read_text().splitlines()
    (root / "llm.txt").write_text(_flipped(lines, 7))
    (root / "assessors").mkdir()
    for k, every in enumerate((5, 6, 7), start=1):
        (root / "assessors" / f"a{k}.txt").write_text(_flipped(lines, every, offset=k))
    # and its families file: a kind of system per run of runs/
    families = {"INQ601": "inquery", "ok8alx": "okapi", "CL99XT": "clarit", "Dm8Nbn": "okapi", "bm25": "clarit"}
    (root / "families.tsv").write_text("run\tfamily\n" + "".join(f"{r}\t{f}\n" for r, f in families.items()))
    (root / "my_measures.py").write_text(page_block("own-measure.md", "# my_measures.py"))
    (root / "my_tests.py").write_text(page_block("own-test.md", "# my_tests.py"))
    return root


def _flipped(lines: list[str], every: int, offset: int = 0) -> str:
    """Qrels lines with the grade of every ``every``-th line (from ``offset``) flipped between 0 and 1."""
    out = []
    for i, line in enumerate(lines):
        qid, it, doc, grade = line.split()
        if i % every == offset % every:
            grade = "0" if int(grade) > 0 else "1"
        out.append(f"{qid} {it} {doc} {grade}\n")
    return "".join(out)


def test_the_pages_have_commands():
    assert len(page_commands()) >= 20 and len(pages()) >= 15


def test_every_command_runs_here_or_in_a_test_that_names_its_page():
    claimed = claims()
    unclaimed = [(page, c) for page, c in page_commands() if not _run_here(c) and (page, c) not in claimed]
    assert not unclaimed, "commands no test runs (add '# docs: <page>: <command>' where one does):\n" + "\n".join(
        f"  {page}: {c}" for page, c in unclaimed)


def test_every_file_a_page_shows_is_read_by_a_test():
    unclaimed = [(page, f) for page, f in page_files() if (page, f) not in claims()]
    assert not unclaimed, unclaimed


def test_claims_name_commands_the_pages_have():
    """A claim of a command the pages no longer show is stale."""
    shown = set(page_commands()) | set(page_files())
    stale = sorted(c for c in claims() if c not in shown)
    assert not stale, stale


@pytest.mark.slow
@pytest.mark.parametrize("page,command", [pc for pc in page_commands() if _run_here(pc[1])],
                         ids=lambda v: v[:60])
def test_irmeta_commands_run_as_written(folder, page, command):
    bin_dir = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    if command.startswith("irmeta simulate"):
        shutil.rmtree(folder / "demo-campaign", ignore_errors=True)
    done = subprocess.run(command, shell=True, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{page}: {command}\n{done.stderr[-2000:]}"
    assert "error" not in done.stderr, done.stderr
    wrote = folder / "scores.tsv" if "--output scores.tsv" in command else None
    assert done.stdout.strip() or (wrote and wrote.stat().st_size) or (folder / "demo-campaign" / "runs").is_dir()


def test_the_readme_links_every_page_and_only_pages_that_exist():
    readme = (REPO / "README.md").read_text()
    links = set(re.findall(r"\]\((docs/[^)#]+)\)", readme))
    assert all((REPO / link).is_file() for link in links), sorted(link for link in links if not (REPO / link).is_file())
    assert {f"docs/{page_name(p)}" for p in pages()} - {"docs/index.md"} <= links, "a page the README does not link"
    assert len(readme.splitlines()) <= 250


@pytest.mark.slow
def test_python_examples_run_as_written():
    tried_total = 0
    for page in pages():
        if ">>> " not in page.read_text():
            continue
        failures, tried = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
        assert failures == 0, page
        tried_total += tried
    assert tried_total >= 15
