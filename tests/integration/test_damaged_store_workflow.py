"""A damaged store in a pipeline's results (issue 40, item 3): the next run stops the job
that reads it with one line naming the file and what to delete, on the screen and in the
job's log, no traceback; once it is deleted, the run after makes it again and the tables
come out byte-identical."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from campaigns import REPO

SNAKEMAKE = Path(sys.executable).parent / "snakemake"
TABLE = "results/demo/tables/reproducibility_degradation.csv"
LOG = "results/logs/tabulate_reproducibility_degradation/demo.log"


def _run(workdir: Path, shared_data: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(SNAKEMAKE), "--directory", str(workdir), "--cores", "2", "--config",
                           f"data_root={shared_data}", "collections=[demo]", "--", TABLE],
                          cwd=workdir, capture_output=True, text=True, timeout=600)


def test_a_damaged_store_stops_the_job_on_one_line_and_is_made_again_once_deleted(tmp_path, shared_data):
    shutil.copy2(REPO / "Snakefile", tmp_path / "Snakefile")
    for folder in ("workflow", "config", "profiles"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    first = _run(tmp_path, shared_data)
    assert first.returncode == 0, first.stdout + first.stderr
    table = (tmp_path / TABLE).read_bytes()

    def damage(store: str, how) -> None:
        path = tmp_path / "results" / "demo" / store
        path.write_bytes(how(path.read_bytes()))
        failed = _run(tmp_path, shared_data)
        screen = failed.stdout + failed.stderr
        line = f"irmeta: error: results/demo/{store} is damaged"
        assert failed.returncode != 0 and line in screen and "Traceback" not in screen, screen
        log = (tmp_path / LOG).read_text()
        last = log.strip().splitlines()[-1]
        assert last.startswith(line) and last.endswith(": delete it and run again") and "Traceback" not in log, log
        path.unlink()  # what the line says to do
        again = _run(tmp_path, shared_data)
        assert again.returncode == 0, again.stdout + again.stderr
        assert (tmp_path / TABLE).read_bytes() == table

    # the case: 1,000 bytes zeroed in the middle of the rankings, read a slice at a time
    damage("ranked.npz", lambda data: data[:len(data) // 2] + bytes(1000) + data[len(data) // 2 + 1000:])
    damage("judged.npz", lambda data: data[:len(data) * 2 // 3])  # cut short
