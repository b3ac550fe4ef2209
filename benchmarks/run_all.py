"""Run every benchmark in this folder and print their figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Run by their own make target: bench_peers needs the bench extra (ranx) and half an hour.
OWN_TARGET = {"bench_peers.py"}


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        if script.name in OWN_TARGET:
            continue
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script)]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"missed their targets: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
