"""The Snakemake workflow run in a temporary copy (Snakefile, workflow/, config/, profiles/),
by the snakemake next to this interpreter (so the workflow's scripts import the irmeta
installed in the same environment). Shared by the tests that run the pipeline and by the
session's runs of the demo and of TREC-8's paper config (tests/conftest.py), which every
test reading their outputs reuses, so the suite runs each once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from campaigns import REPO

SNAKEMAKE = Path(sys.executable).parent / "snakemake"

#: The variable that makes every figure write its facts beside it (irmeta.artefacts.figures.style).
FIGURE_FACTS = "IRMETA_FIGURE_FACTS"


def copy_workflow(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "Snakefile", dest / "Snakefile")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("workflow", "config", "profiles"):
        shutil.copytree(REPO / folder, dest / folder, ignore=ignore)
    return dest


def snakemake(workdir: Path, *args: str, timeout: float = 300, env: dict[str, str] | None = None,
              ) -> subprocess.CompletedProcess:
    cmd = [str(SNAKEMAKE), "--directory", str(workdir), "--snakefile", str(workdir / "Snakefile"), *args]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def run_demo(workdir: Path, data: Path) -> Path:
    """The default config (the demo) run in ``workdir``, every figure with its facts; what
    a person saw on the terminal in ``screen.txt``."""
    copy_workflow(workdir)
    proc = ok(snakemake(workdir, "--cores", "2", "--config", f"data_root={data}", timeout=900,
                        env={FIGURE_FACTS: "1"}))
    (workdir / "screen.txt").write_text(proc.stdout + proc.stderr)
    return workdir


def run_paper(workdir: Path, data: Path) -> Path:
    """config/paper.yaml on the collections whose data is at ``data`` (TREC-8 here), every
    figure with its facts."""
    copy_workflow(workdir)
    ok(snakemake(workdir, "--cores", "2", "--configfile", "config/paper.yaml", "--config", f"data_root={data}",
                 timeout=900, env={FIGURE_FACTS: "1"}))
    return workdir
