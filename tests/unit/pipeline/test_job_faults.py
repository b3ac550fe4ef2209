"""What the workflow does with paths Snakemake would read as patterns, and how a job that
fails says why, a full disk included (issue 18)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from child_signals import default_disposition
from irmeta.pipeline.collection_config import load_collection
from irmeta.pipeline.collection_paths import check_collection_paths
from irmeta.pipeline.summary import job_errors


def _collection(tmp_path: Path, runs: list[str], **extra) -> Path:
    (tmp_path / "runs").mkdir(exist_ok=True)
    for name in runs:
        (tmp_path / "runs" / name).write_text(f"1 Q0 d1 1 1.0 {name}\n")
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n")
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"name": "c", "qrels": "{data_root}/qrels.txt", "runs": "{data_root}/runs",
                                    **extra}))
    return path


@pytest.mark.parametrize("name", ["{collection}.gz", "{shard}", "a}b", "x{y"])
def test_a_run_file_name_with_braces_is_refused_before_any_job(tmp_path, name):
    # Snakemake fills {collection} in an input function's paths: the run would be another file or none
    path = _collection(tmp_path, ["r1", name])
    with pytest.raises(ValueError) as exc:
        check_collection_paths(load_collection(path, tmp_path))
    message = str(exc.value)
    assert "\n" not in message and name in message and "'runs'" in message and str(path) in message


def test_a_data_root_with_braces_is_refused_for_every_input(tmp_path):
    root = tmp_path / "data{x}"
    root.mkdir()
    path = _collection(root, ["r1", "r2"])
    with pytest.raises(ValueError, match="key 'qrels'"):
        check_collection_paths(load_collection(path, root))


def test_plain_names_pass(tmp_path):
    path = _collection(tmp_path, ["r1", "r2.gz"])
    assert [p.name for p in check_collection_paths(load_collection(path, tmp_path))] == ["r1", "r2.gz"]


_JOB = """
import errno, sys
from types import SimpleNamespace
from irmeta.pipeline.scripts import log_to, run_script

def main(smk):
    log_to(smk.log[0])
    raise OSError(errno.ENOSPC, "No space left on device")

run_script(main, SimpleNamespace(config={{}}, log=[{log!r}], output=["results/c/scores.npz"]))
"""


def _job(log: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(_JOB.format(log=log))], capture_output=True,
                          text=True, timeout=60)


def test_a_job_that_runs_out_of_space_says_so_in_its_log(tmp_path):
    log = tmp_path / "job.log"
    proc = _job(str(log))
    assert proc.returncode == 1 and "Traceback" not in log.read_text()
    assert log.read_text().strip() == (
        "irmeta: error: No space left on device (writing results/c/scores.npz)")
    assert job_errors(tmp_path).startswith("irmeta: error: No space left on device")


def test_when_the_log_itself_is_full_the_reason_goes_to_the_screen():
    # /dev/full takes the open and refuses every write with ENOSPC, as a full disk does
    proc = _job("/dev/full")
    assert proc.returncode == 1
    assert "irmeta: error: No space left on device (writing results/c/scores.npz)" in proc.stderr
    assert "could not be written" in proc.stderr and "Traceback" not in proc.stderr


def test_a_nearly_full_disk_is_named_once_by_the_run(tmp_path, monkeypatch):
    import shutil

    (tmp_path / "logs").mkdir()
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=4096))
    lines = job_errors(tmp_path / "logs").splitlines()
    assert lines == [f"irmeta: error: no space left on the device holding {tmp_path / 'logs'} (4096 bytes free): "
                     f"free some and run again"]


_INTERRUPTED_JOB = """
import os, signal, sys, time
from types import SimpleNamespace
from irmeta.pipeline.scripts import log_to, run_script

def main(smk):
    log_to(smk.log[0])
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, as Snakemake passes it on to its jobs
    time.sleep(30)

run_script(main, SimpleNamespace(config={{}}, log=[{log!r}], output=["results/c/scores.npz"]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("suite", [signal.SIG_DFL, signal.SIG_IGN], ids=["foreground", "background job"])
def test_ctrl_c_in_a_job_is_one_line_and_exit_130(tmp_path, suite):
    """Also where the suite runs as a background job (``nohup make test &``: SIGINT
    ignored, and inherited by the job unless the test restores its default)."""
    log = tmp_path / "job.log"
    previous = signal.signal(signal.SIGINT, suite)
    try:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_INTERRUPTED_JOB.format(log=str(log)))],
                              capture_output=True, text=True, timeout=60,
                              preexec_fn=default_disposition(signal.SIGINT))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert proc.returncode == 130, proc.stderr
    assert log.read_text() == "irmeta: interrupted\n" and proc.stderr == ""
