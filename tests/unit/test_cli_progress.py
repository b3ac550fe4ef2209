"""Progress on a terminal, silence elsewhere (issue 43, item 4): with standard error a
terminal (a pseudo-terminal here) ``irmeta score`` and ``compare`` show the runs read, the
runs scored and the pairs tested as bars, and every command that loops over runs, topics
or trials shows its bar; with standard error a pipe no command prints anything there (no
bar, no progress line); and standard output is the same bytes either way."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

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


@pytest.mark.slow
def test_score_shows_runs_read_and_scored_on_a_terminal_only(campaign):
    argv = ["score", "-q", str(campaign / "qrels.txt"), "-r", str(campaign / "runs"), "-m", "P@5", "-m", "AP"]
    code, shown_out, screen = _irmeta(argv, terminal=True)
    assert code == 0, screen
    assert "irmeta: runs read" in screen and "/4 [" in screen  # 4 runs
    assert "irmeta: runs scored" in screen and "/8 [" in screen  # 4 runs, 2 measures
    code, piped_out, piped_err = _irmeta(argv, terminal=False)
    assert code == 0 and piped_err == ""  # no bar, no line, in a pipe
    assert shown_out == piped_out and piped_out.startswith(b"run\tmeasure\tqid\tvalue\n")


@pytest.mark.slow
def test_compare_shows_the_pairs_tested(campaign):
    argv = ["compare", "-q", str(campaign / "qrels.txt"), "-r", str(campaign / "runs"), "-m", "AP", "-f", "tsv"]
    code, shown_out, screen = _irmeta(argv, terminal=True)
    assert code == 0 and "irmeta: pairs tested" in screen and "/6 [" in screen, screen
    code, piped_out, piped_err = _irmeta(argv, terminal=False)
    assert code == 0 and piped_err == "" and shown_out == piped_out


# A score matrix of test-errors: a column per run, a row per topic.
MATRIX = "a,b,c,d,e\n" + "".join(",".join(f"{(7 * r + 3 * t) % 10 / 10 + 0.05:g}" for r in range(5)) + "\n"
                                  for t in range(8))


def _every_command(root: Path) -> dict[str, tuple[list[str], str]]:
    """Every subcommand on small inputs under ``root``, and the bar it shows on a terminal
    (empty: it has no loop long enough to show one)."""
    (root / "llm.txt").write_text(QRELS.replace("1 0 d0 1", "1 0 d0 0"))
    (root / "families.tsv").write_text("run\tfamily\nrun1\tx\nrun2\tx\nrun3\ty\nrun5\ty\n")
    (root / "matrix.csv").write_text(MATRIX)
    qrels, runs = str(root / "qrels.txt"), root / "runs"
    return {
        "score": (["score", "-q", qrels, "-r", str(runs), "-m", "P@5"], "irmeta: runs scored"),
        "compare": (["compare", "-q", qrels, "-r", str(runs), "-m", "AP", "-f", "tsv"], "irmeta: pairs tested"),
        "agree": (["agree", "-q", qrels, "--judgments", str(root / "llm.txt"), "-r", str(runs), "-m", "P@5",
                   "--families", str(root / "families.tsv"), "--family-permutations", "10", "-f", "tsv"],
                  "irmeta: runs read"),
        "repro": (["repro", "-q", qrels, "--original-baseline", str(runs / "run1"), "--original-advanced",
                   str(runs / "run2"), "--reproduced-baseline", str(runs / "run3"), "--reproduced-advanced",
                   str(runs / "run5"), "-m", "AP", "-f", "tsv"], "irmeta: runs scored"),
        "simulate": (["simulate", "--out", str(root / "simulated"), "--runs", "3", "--topics", "4", "--depth", "5",
                      "--pool-size", "10"], "irmeta: topics simulated"),
        "test-errors": (["test-errors", "--scores", str(root / "matrix.csv"), "--measure-kind", "continuous",
                         "--topics", "5", "--trials", "6", "--alpha", "0.05", "--delta", "0.05", "--no-familywise",
                         "--permutations", "9", "--test", "paired_t", "-f", "tsv"], "irmeta: trials tested"),
        "measures": (["measures", "--search", "precision"], ""),
    }


COMMANDS = ("score", "compare", "agree", "repro", "simulate", "test-errors", "measures")


def test_every_command_is_tried_here(tmp_path):
    from irmeta.cli import build_parser

    sub = next(action for action in build_parser()._actions if action.dest == "command")
    assert set(sub.choices) == set(COMMANDS) == set(_every_command(tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_silent_off_a_terminal_and_shows_its_bar_on_one(campaign, command):
    argv, bar = _every_command(campaign)[command]
    code, piped_out, piped_err = _irmeta(argv, terminal=False)
    assert code == 0, piped_err
    assert piped_err == ""  # nothing there: no bar, no "simulate: topics 4/4" line, no logged progress
    if command == "simulate":  # into a second folder, to compare the two campaigns
        argv = [a if not a.endswith("simulated") else a + "-2" for a in argv]
    code, shown_out, screen = _irmeta(argv, terminal=True)
    assert code == 0, screen
    if bar:
        assert bar in screen, screen
    else:
        assert screen == ""
    if command == "simulate":  # the same campaign, byte for byte, in the folder its line names
        assert shown_out.replace(b"simulated-2", b"simulated") == piped_out
        first, second = campaign / "simulated", campaign / "simulated-2"
        files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
        assert files and all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    else:
        assert shown_out == piped_out
