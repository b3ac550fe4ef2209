"""The documentation site builds with MkDocs in strict mode (every warning an error), as
`make docs` builds it; `.ci/run` runs only `make test`, so this is CI's check of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from campaigns import REPO


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The site as `make docs` builds it, into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_make_docs_builds_strictly():
    makefile = (REPO / "Makefile").read_text()
    assert "\tmkdocs build --strict" in makefile.replace("$(BIN)/", "")


def test_site_builds_without_a_warning(site):
    assert (site / "index.html").is_file() and (site / "PROTOCOL" / "index.html").is_file()
    assert not (site / "incoming").exists(), "docs/incoming/ is placed later, not published"
