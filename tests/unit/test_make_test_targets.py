"""``make test`` is the whole suite, ``make test-fast`` the unit tests but the slow ones
(issue 43, item 5), and the ``slow`` marker is declared in one place, pyproject.toml."""

from __future__ import annotations

import re
import tomllib

from campaigns import REPO


def _recipe(target: str) -> str:
    found = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.M)
    assert found, f"the Makefile has a {target} target"
    return found.group(1)


def test_make_test_runs_every_test_and_test_fast_leaves_the_slow_ones_out():
    full, fast = _recipe("test"), _recipe("test-fast")
    assert full.strip() == "$(BIN)/python -m pytest $(ARGS)"  # every folder, no marker deselected
    assert 'pytest tests/unit -q -m "not slow"' in fast


def test_the_slow_marker_is_declared_once_in_pyproject():
    markers = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert [m for m in markers if m.startswith("slow:")] and len({m.split(":")[0] for m in markers}) == len(markers)
    for conftest in REPO.joinpath("tests").rglob("conftest.py"):
        assert "addinivalue_line" not in conftest.read_text(), conftest
