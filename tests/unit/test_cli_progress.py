"""Progress on a terminal, silence elsewhere (issue 43, item 4): with standard error a
terminal (a pseudo-terminal here) ``irmeta score`` and ``compare`` show the runs read, the
runs scored and the pairs tested as bars; with it a pipe they print nothing there; and
standard output is the same bytes either way."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios

import pytest

QRELS = "".join(f"{q} 0 d{i} {int(i % 3 == 0)}\n" for q in (1, 2, 3) for i in range(20))


def _run(q: int, seed: int) -> str:
    docs = sorted(range(20), key=lambda i: (i * seed) % 7)
    return "".join(f"{q} Q0 d{d} {r + 1} {20 - r} run{seed}\n" for r, d in enumerate(docs))


@pytest.fixture
def campaign(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for seed in (1, 2, 3, 5):
        (runs / f"run{seed}").write_text("".join(_run(q, seed) for q in (1, 2, 3)))
    return tmp_path


def _irmeta(argv: list[str], *, terminal: bool) -> tuple[int, bytes, str]:
    """``irmeta argv`` in a child, its bars shown at once (no delay); standard error a
    pseudo-terminal or a pipe. Returns the status, standard output and standard error."""
    code = ("import sys, irmeta.cli_args as a, irmeta.cli as c; a.PROGRESS_DELAY = 0; "
            f"sys.exit(c.main({argv!r}))")
    if not terminal:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
        return done.returncode, done.stdout, done.stderr.decode()
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal's size
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=follower,
                             stdin=subprocess.DEVNULL)
    os.close(follower)
    seen = b""
    while True:  # read the terminal until the child closes it
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child is gone
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    out = child.stdout.read()
    return child.wait(timeout=120), out, seen.decode(errors="replace")


def test_score_shows_runs_read_and_scored_on_a_terminal_only(campaign):
    argv = ["score", "-q", str(campaign / "qrels.txt"), "-r", str(campaign / "runs"), "-m", "P@5", "-m", "AP"]
    code, shown_out, screen = _irmeta(argv, terminal=True)
    assert code == 0, screen
    assert "irmeta: runs read" in screen and "/4 [" in screen  # 4 runs
    assert "irmeta: runs scored" in screen and "/8 [" in screen  # 4 runs, 2 measures
    code, piped_out, piped_err = _irmeta(argv, terminal=False)
    assert code == 0 and piped_err == ""  # no bar, no line, in a pipe
    assert shown_out == piped_out and piped_out.startswith(b"run\tmeasure\tqid\tvalue\n")


def test_compare_shows_the_pairs_tested(campaign):
    argv = ["compare", "-q", str(campaign / "qrels.txt"), "-r", str(campaign / "runs"), "-m", "AP", "-f", "tsv"]
    code, shown_out, screen = _irmeta(argv, terminal=True)
    assert code == 0 and "irmeta: pairs tested" in screen and "/6 [" in screen, screen
    code, piped_out, piped_err = _irmeta(argv, terminal=False)
    assert code == 0 and piped_err == "" and shown_out == piped_out
