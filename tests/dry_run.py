"""The files a Snakemake dry run would write, with the rule that writes each: what the
manifest tests compare (every job forced, so existing results do not hide any)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SNAKEMAKE = Path(sys.executable).with_name("snakemake")
_RULE = re.compile(r"^(?:local)?rule (\w+):$")
_OUTPUT = re.compile(r"^    output: (.*)$")


def dry_run_outputs(workdir: Path, *args: str, src: Path | None = None) -> dict[str, str]:
    """Output file -> rule of every job of ``snakemake -n --forceall`` in ``workdir``
    (``src``: the irmeta sources on the path, default ``workdir / "src"``)."""
    env = dict(os.environ, PYTHONPATH=str(src or workdir / "src"))
    done = subprocess.run([str(SNAKEMAKE), "-n", "--forceall", "--quiet", "host", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"dry run failed in {workdir}: {done.stderr[-2000:]}")
    outputs: dict[str, str] = {}
    rule = ""
    for line in done.stdout.splitlines():
        if match := _RULE.match(line):
            rule = match.group(1)
        elif match := _OUTPUT.match(line):
            outputs.update((path, rule) for path in match.group(1).split(", "))
    if not outputs:
        raise AssertionError(f"dry run in {workdir} listed no job: {done.stdout[-2000:]}")
    return outputs
