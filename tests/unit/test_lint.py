"""`make lint` is clean: ruff (pyproject.toml's rules) and mypy on the core, run here as
the Makefile runs them, so CI holds the code to them (Snakemake's own lint is
tests/integration/test_workflow.py::test_lint_is_clean)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from campaigns import REPO

BIN = Path(sys.executable).parent


def _lint_commands() -> list[list[str]]:
    recipe = re.search(r"^lint:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.M)
    assert recipe, "the Makefile has a lint target"
    lines = [line.strip().replace("$(BIN)/", f"{BIN}/") for line in recipe.group(1).splitlines()]
    return [line.split() for line in lines if "snakemake" not in line]


@pytest.mark.slow
@pytest.mark.parametrize("command", _lint_commands(), ids=lambda c: Path(c[0]).name)
def test_lint_is_clean(command):
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_test_modules_have_distinct_names():
    # pytest's default (prepend) import mode keys test modules by basename: two
    # tests/**/test_x.py stop the whole suite at collection
    seen: dict[str, Path] = {}
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        assert path.name not in seen, f"{path} and {seen[path.name]} share a module name"
        seen[path.name] = path
