"""A job killed while irmeta wrote leaves a temporary beside its target; the next run
removes irmeta's own temporaries under results/, and nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import irmeta
from irmeta.support.atomic import atomic_path, is_atomic_temporary, remove_stale_temporaries

_KILLED_WRITER = """
import os, signal, sys
from irmeta.support.atomic import atomic_path
with atomic_path(sys.argv[1]) as tmp:
    tmp.write_bytes(b"partial")
    print(tmp, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_mid_write(target: Path) -> Path:
    """What a writer killed mid-write leaves: atomic_path's temporary, never renamed."""
    proc = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(target)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(irmeta.__file__).parents[1])})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    tmp = Path(proc.stdout.strip())
    assert tmp.read_bytes() == b"partial" and tmp.parent == target.parent and not target.exists()
    return tmp


def test_the_writers_temporaries_are_recognised(tmp_path):
    left = _killed_mid_write(tmp_path / "tables" / "stability.csv")
    assert is_atomic_temporary(left.name)
    fd, name = tempfile.mkstemp(dir=tmp_path, prefix=".scores.npz.", suffix=".tmp")
    os.close(fd)
    assert is_atomic_temporary(Path(name).name)
    for other in ("stability.csv", ".stability.csv", "x.tmp", ".x.tmp", ".x.abc.tmp", ".x.abcdefgh.tmp.gz",
                  ".x.ABCDEFGH.tmp", "a.x.abcdefgh.tmp"):
        assert not is_atomic_temporary(other), other


def test_only_irmetas_temporaries_are_removed(tmp_path):
    results = tmp_path / "results"
    left = [_killed_mid_write(results / "demo" / "tables" / "stability.csv"),
            _killed_mid_write(results / "demo" / "scores.npz"),
            _killed_mid_write(results / "claims.csv")]
    kept = [results / "demo" / "tables" / "kendall_tau.csv", results / "demo" / ".hidden",
            results / "demo" / "notes.tmp", results / "demo" / ".x.abc.tmp"]
    for path in kept:
        path.write_text("keep")
    folder = results / "demo" / ".y.abcdefgh.tmp"  # a folder named like one: not a file, kept
    folder.mkdir()
    outside = tmp_path / ".z.abcdefgh.tmp"
    outside.write_text("outside results")
    link = results / ".w.abcdefgh.tmp"
    link.symlink_to(outside)

    assert remove_stale_temporaries(results) == sorted(left)
    assert not any(p.exists() for p in left)
    assert all(p.read_text() == "keep" for p in kept)
    assert folder.is_dir() and outside.read_text() == "outside results" and link.is_symlink()
    assert remove_stale_temporaries(results) == []
    assert remove_stale_temporaries(tmp_path / "absent") == []


def test_a_write_after_the_cleanup_succeeds(tmp_path):
    target = tmp_path / "results" / "t.csv"
    _killed_mid_write(target)
    remove_stale_temporaries(tmp_path / "results")
    with atomic_path(target) as tmp:
        tmp.write_text("whole")
    assert target.read_text() == "whole" and os.listdir(target.parent) == ["t.csv"]
