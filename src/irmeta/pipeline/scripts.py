"""What every workflow script shares: its log, how it is run, its shard of trials."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from irmeta.campaign.errors import TrecFormatError
from irmeta.measures.plugins import load_measure_plugins

log = logging.getLogger("irmeta")


def log_to(path: str | Path) -> logging.Logger:
    """Send standard error (progress, warnings, tracebacks) and logging to a rule's log file."""
    with open(path, "w", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)  # a byte-order mark dropped, and the like, in the log too
    return log


def run_script(main, smk) -> None:
    """Run a workflow script's ``main``; a known input fault ends it with one line in the
    log (file, line and what is wrong) instead of a traceback."""
    from irmeta.pipeline.config import register_imported_measures
    from irmeta.pipeline.download import DownloadError

    try:
        load_measure_plugins(smk.config.get("measure_plugins") or [], Path.cwd())  # as the workflow read them
        register_imported_measures(smk.config.get("imported_measures") or {})
        main(smk)
    except (TrecFormatError, FileNotFoundError, ValueError, DownloadError) as exc:
        log.error("irmeta: error: %s", exc)
        print(f"irmeta: error: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


def progress_logger(stream=None, every: int = 10):
    """A progress callback for :func:`irmeta.campaign.runs.read_runs` that prints every ``every`` files."""

    def report(done: int, total: int, path: Path) -> None:
        if done == total or done % every == 0:
            print(f"[irmeta] read {done}/{total} run files ({path.name})", file=stream or sys.stderr, flush=True)

    return report


def shard_trials(total: int, shards: int, index: int) -> range:
    """Trials of shard ``index`` when ``total`` trials are split into ``shards`` parts."""
    if not 0 <= index < shards:
        raise ValueError(f"shard {index} is not in 0..{shards - 1}")
    bounds = [total * i // shards for i in range(shards + 1)]
    return range(bounds[index], bounds[index + 1])


@dataclass(frozen=True)
class Shard:
    """The trials one job of a randomised experiment runs, and the experiment's seed."""

    trials: range
    seed: int

    @classmethod
    def of(cls, smk) -> Shard:
        """From a sampling rule's ``params.trials`` ([first, last)) and ``params.seed``."""
        first, last = smk.params.trials
        return cls(range(first, last), smk.params.seed)

    def drawn_by(self, offset: int = 0) -> dict:
        """Stored with the shard's output, so the file says which draws made it: its trials
        and the seed they drew from (``experiments.seed`` plus the experiment's ``offset``,
        its module's SEED_OFFSET)."""
        return {"trials": [self.trials.start, self.trials.stop], "seed": self.seed + offset}

    def __str__(self) -> str:
        return f"trials {self.trials.start}..{self.trials.stop - 1}"
