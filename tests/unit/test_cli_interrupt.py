"""Ctrl-C on ``irmeta score``, ``compare`` and ``simulate``: SIGINT while working ends the
command with exit status 130 and one line, ``irmeta: interrupted``, no traceback, and no
partial output (every output is written aside and moved in when complete)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from child_signals import default_disposition

# The command, run as the console script runs it, saying when its imports are done:
# Ctrl-C is delivered while it works, not while Python loads numpy.
_LAUNCH = ("import sys; from irmeta.cli import main; print('ready', file=sys.stderr, flush=True); "
           "sys.exit(main(sys.argv[1:]))")


def _interrupted(argv: list[str], cwd: Path, *, wait_for: str = "ready", after: float = 1.0,
                 until: Callable[[], bool] | None = None) -> tuple[int, list[str]]:
    """Exit status and the standard-error lines after ``wait_for`` of ``irmeta argv``,
    interrupted ``after`` seconds once it printed ``wait_for`` (and, given ``until``, once
    that holds: the work is under way)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen([sys.executable, "-c", _LAUNCH, *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_disposition(signal.SIGINT))
    try:
        seen = ""
        while wait_for not in seen:
            seen = proc.stderr.readline()
            assert seen, "the command ended before it was interrupted"
        time.sleep(after)
        deadline = time.monotonic() + 120
        while until is not None and not until() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the command ended before it was interrupted"
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return code, rest.splitlines()


def _writing(out: Path) -> Callable[[], bool]:
    """Whether ``irmeta simulate --out out`` has begun writing its files (in a folder aside
    within ``out``; its standard error, no terminal, says nothing)."""
    return lambda: any(path.is_file() for path in out.rglob("*"))


@pytest.mark.slow
@pytest.mark.parametrize("command", ["score", "compare"])
def test_ctrl_c_while_scoring_trec8_exits_130_in_one_line(shared_data, tmp_path, command):
    trec8 = shared_data / "trec8_adhoc"
    out = tmp_path / "out" / "table.tsv"
    out.parent.mkdir()
    code, lines = _interrupted([command, "--qrels", str(trec8 / "qrels.txt"), "--runs", str(trec8 / "runs"),
                                "--measure", "P_rareness@100", "--output", str(out)], tmp_path)
    assert code == 130 and lines == ["irmeta: interrupted"], lines
    assert list(out.parent.iterdir()) == []  # no partial output, no temporary file


@pytest.mark.slow
def test_ctrl_c_while_simulating_exits_130_and_leaves_no_folder(tmp_path):
    out = tmp_path / "campaign"
    code, lines = _interrupted(["simulate", "--out", str(out), "--runs", "200", "--topics", "2000", "--depth", "500",
                                "--pool-size", "1000", "--threads", "1"], tmp_path,
                               after=0.5, until=_writing(out))
    assert code == 130 and lines == ["irmeta: interrupted"], lines
    assert not out.exists() or list(out.iterdir()) == []


@pytest.mark.slow
def test_ctrl_c_reaches_the_command_when_the_suite_runs_as_a_background_job(tmp_path):
    """Issue 40: ``nohup make test > log 2>&1 &`` runs the suite with SIGINT ignored, which
    its children inherit; the test gives its child SIGINT's default disposition."""
    out = tmp_path / "campaign"
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code, lines = _interrupted(["simulate", "--out", str(out), "--runs", "200", "--topics", "2000", "--depth",
                                    "500", "--pool-size", "1000", "--threads", "1"], tmp_path,
                                   after=0.5, until=_writing(out))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 130 and lines == ["irmeta: interrupted"], lines


# ------------------------------------------ an interrupt a library swallows (issue 40)


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the test, whatever the suite inherited (a background
    job starts with SIGINT ignored, and then no Ctrl-C reaches a command at all)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _swallowing(function):
    """``function`` run after a Ctrl-C that the code on the way catches and drops, as
    pyarrow does when SIGINT lands in its lazy import of pandas."""
    def wrapped(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # the handler runs at the next bytecode; the sleep is cut short by it
        except KeyboardInterrupt:
            pass
        return function(*args, **kwargs)
    return wrapped


@pytest.mark.slow
@pytest.mark.parametrize("to", ["file", "stdout"])
def test_a_swallowed_ctrl_c_still_stops_the_command_before_it_writes(python_sigint, monkeypatch, capsys, tmp_path, to):
    import irmeta.cli as cli
    from campaigns import write_campaign

    write_campaign(tmp_path, {"a": {"1": ["d1", "d2"]}, "b": {"1": ["d2", "d1"]}}, {"1": {"d1": 1, "d2": 0}})
    qrels, runs = tmp_path / "qrels.txt", tmp_path / "runs"
    monkeypatch.setattr(cli, "score", _swallowing(cli.score))
    out = tmp_path / "out"
    out.mkdir()
    target = ["--output", str(out / "table.tsv")] if to == "file" else []
    code = cli.main(["score", "--qrels", str(qrels), "--runs", str(runs), "--measure", "P@5", *target])
    captured = capsys.readouterr()
    assert code == 130 and captured.err == "irmeta: interrupted\n" and captured.out == ""
    assert list(out.iterdir()) == []


def test_the_latch_leaves_an_ignored_sigint_ignored():
    from irmeta.support.interrupts import interrupted, latched

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with latched():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and not interrupted()
    finally:
        signal.signal(signal.SIGINT, previous)
