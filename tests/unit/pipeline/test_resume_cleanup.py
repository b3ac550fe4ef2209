"""The workflow removes the temporaries a killed job left under results/ when it starts
again (the Snakefile's onstart), and says so on one line."""

from __future__ import annotations

import re
import textwrap

from campaigns import REPO
from irmeta.pipeline.summary import remove_killed_writes


def _leave(path, text="partial"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_remove_killed_writes_says_what_it_removed(tmp_path):
    results = tmp_path / "results"
    left = _leave(results / "demo" / "tables" / ".stability.csv.k2_8a0zq.tmp")
    kept = _leave(results / "demo" / "tables" / "stability.csv", "whole")
    message = remove_killed_writes(results)
    assert message.startswith("irmeta: removed 1 temporary file(s)") and str(left) in message
    assert message.count("\n") == 1 and not left.exists() and kept.read_text() == "whole"
    assert remove_killed_writes(results) == "" and remove_killed_writes(tmp_path / "absent") == ""


def _onstart_handler() -> str:
    """The body of the Snakefile's onstart handler, as Python."""
    text = (REPO / "Snakefile").read_text()
    match = re.search(r"^onstart:\n((?:    .*\n|\n)+)", text, re.MULTILINE)
    assert match, "the Snakefile has no onstart handler"
    return textwrap.dedent(match.group(1))


def test_the_snakefile_removes_them_when_it_starts(tmp_path, monkeypatch, capsys):
    left = _leave(tmp_path / "results" / "demo" / ".scores.npz.abcd_123.tmp")
    other = _leave(tmp_path / "results" / "demo" / "notes.tmp", "kept")
    monkeypatch.chdir(tmp_path)  # the workflow's working directory
    exec(compile(_onstart_handler(), "Snakefile:onstart", "exec"), {})
    assert not left.exists() and other.read_text() == "kept"
    assert "irmeta: removed 1 temporary file(s)" in capsys.readouterr().out
