"""What every workflow script shares: its log, how it is run, its shard of trials."""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from irmeta.campaign.errors import DuplicateDocumentError, TrecFormatError

log = logging.getLogger("irmeta")


# The job's own standard error before log_to sent it to the log: where a fault goes when
# the log itself cannot take it (a full disk), so that the reason is never lost.
_screen: int | None = None
_log_path: str | None = None


def log_to(path: str | Path) -> logging.Logger:
    """Send standard error (progress, warnings, tracebacks) and logging to a rule's log file."""
    global _screen, _log_path
    if _log_path == str(path):  # run_script opened it before the plugins loaded: keep what they said
        return log
    _log_path = str(path)
    with open(path, "w", encoding="utf-8") as stream:
        if _screen is None:
            _screen = os.dup(sys.stderr.fileno())
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)  # a byte-order mark dropped, and the like, in the log too
    return log


def run_script(main, smk) -> None:
    """Run a workflow script's ``main``; a known input fault ends it with one line in the
    log (file, line and what is wrong) instead of a traceback, exit status 1; Ctrl-C with
    ``irmeta: interrupted``, exit status 130."""
    from irmeta.pipeline.config_checks import load_config_plugins, register_imported_measures
    from irmeta.pipeline.download import DownloadError

    system_arrow_memory()
    try:
        if getattr(smk, "log", None):  # a plugin that fails to import says so in the job's log
            log_to(smk.log[0])
        load_config_plugins(smk.config)  # as the workflow read them
        register_imported_measures(smk.config.get("imported_measures") or {})
        started = time.process_time(), time.perf_counter()
        profiled(main, smk)
        logging.getLogger("irmeta").info("peak memory %.0f MB (of its forked processes %.0f MB)", *peak_memory_mb())
        record_job_times(smk, *started)
    except (TrecFormatError, OSError, ValueError, DownloadError) as exc:
        report_failure(error_line(exc, list(getattr(smk, "output", []))))
        sys.exit(1)
    except KeyboardInterrupt:  # Ctrl-C (SIGINT): one line, and the shell's 128 + SIGINT
        report_failure(INTERRUPTED)
        sys.exit(INTERRUPTED_STATUS)
    exit_now()


def system_arrow_memory() -> None:
    """Arrow allocates from the C library's heap, not its default pool (mimalloc), which
    keeps what it frees: reading 10^7 qrels lines left 1.9 GB resident for 0.3 GB held.
    malloc hands large blocks back at once, so a job's peak is what it holds at one time."""
    if "pyarrow" in sys.modules:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
    else:  # read when pyarrow first allocates; importing it here would cost jobs that never do
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def exit_now() -> None:
    """End a job whose outputs are written: logs and standard streams flushed, then exit
    status 0 without the interpreter's teardown (freeing every module and object of
    pandas, matplotlib and scipy costs about 0.2 s of CPU a job, a tenth of a small
    campaign's run)."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


#: A folder to record each job's start and work time in (benchmarks/bench_startup.py sets it).
JOB_TIMES = "IRMETA_JOB_TIMES"
#: The imports a job's start pays most for: each job records which it had loaded by its end.
HEAVY_MODULES = ("pandas", "scipy.stats", "statsmodels", "matplotlib", "pyarrow.parquet")
#: A folder to write each job's cProfile of ``main`` to (``<rule>.<wildcards>.prof``).
PROFILE = "IRMETA_PROFILE"


def job_name(smk) -> str:
    """``<rule>.<wildcard values>``: a job's name in the files a benchmark collects."""
    wildcards = [str(value) for value in getattr(smk, "wildcards", [])]
    return ".".join([str(getattr(smk, "rule", "job")), *wildcards])


def profiled(main, smk) -> None:
    """``main(smk)``; with ``$IRMETA_PROFILE`` set, under cProfile, its statistics written
    there (where a job's work goes, for whoever makes it faster)."""
    folder = os.environ.get(PROFILE)
    if not folder:
        main(smk)
        return
    import cProfile

    profile = cProfile.Profile()
    try:
        profile.runcall(main, smk)
    finally:
        Path(folder).mkdir(parents=True, exist_ok=True)
        profile.dump_stats(Path(folder) / f"{job_name(smk)}.prof")


def peak_memory_mb() -> tuple[float, float]:
    """The job's peak resident memory and its largest forked process's, in MB: the
    kernel's high-water marks, which a sampler (Snakemake's benchmark looks every 30 s)
    can miss. The job's own is Linux's VmHWM, this program's alone: ``ru_maxrss`` keeps
    the largest of the process before ``exec`` too (the Snakemake process that forked
    the job), so it is the fallback elsewhere."""
    import resource

    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB elsewhere
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            own = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError, IndexError):
        pass
    forked = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 2**20
    return own, forked


def record_job_times(smk, start_cpu: float, work_started: float) -> None:
    """With ``$IRMETA_JOB_TIMES`` set, one JSON file there per job: its rule, wildcards,
    the CPU seconds before ``main`` (interpreter, Snakemake's preamble, the script's
    imports, plugins: the start) and those of ``main`` (the work), the work's wall
    seconds, and which of :data:`HEAVY_MODULES` it had loaded by its end (what its work
    used, when the script imports no more than that). Outside a benchmark nothing is
    written."""
    folder = os.environ.get(JOB_TIMES)
    if not folder:
        return
    from irmeta.support.atomic import atomic_write_text

    rule = str(getattr(smk, "rule", "job"))
    wildcards = [str(value) for value in getattr(smk, "wildcards", [])]
    own, forked = peak_memory_mb()
    times = {"rule": rule, "job": ".".join(wildcards), "start_cpu": start_cpu,
             "work_cpu": time.process_time() - start_cpu, "work_wall": time.perf_counter() - work_started,
             "peak_mb": own, "forked_peak_mb": forked, "ended": time.time(), "began": process_began(),
             "loaded": [name for name in HEAVY_MODULES if name in sys.modules]}
    atomic_write_text(Path(folder) / f"{job_name(smk)}.json", json.dumps(times) + "\n")


def process_began() -> float | None:
    """When this process started (seconds since the epoch; Linux's /proc and boot clock,
    None elsewhere): with its end, a run's timeline shows where a core waited."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return time.time() - (since_boot - ticks / os.sysconf("SC_CLK_TCK"))


def run_in_process(step, *, rule: str, wildcards: Sequence[str], log: str | Path) -> None:
    """A job whose work is far smaller than a script's start (an interpreter and its
    imports), run in the Snakemake process by a localrule's ``run:``: ``step()`` writes
    the outputs and returns what the log says. The log is written as a script's; a known
    input fault leaves its one line there and fails the job. Such jobs run one at a time
    (Snakemake runs them in threads, and matplotlib's settings are the process's)."""
    from datetime import datetime

    from irmeta.support.atomic import atomic_write_text

    with _IN_PROCESS:
        started = time.thread_time(), time.perf_counter()
        try:
            message = step()
        except (TrecFormatError, OSError, ValueError) as exc:
            line = error_line(exc)
            atomic_write_text(log, line + "\n")
            raise RuntimeError(line) from None
        stamp = datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        atomic_write_text(log, f"{stamp} INFO irmeta: {message} (in the workflow's process)\n")
        folder = os.environ.get(JOB_TIMES)
        if folder:  # no start to pay: the work is all the job costs
            job = SimpleNamespace(rule=rule, wildcards=list(wildcards))
            times = {"rule": rule, "job": ".".join(map(str, wildcards)), "start_cpu": 0.0,
                     "work_cpu": time.thread_time() - started[0], "work_wall": time.perf_counter() - started[1],
                     "ended": time.time(), "began": time.time() - (time.perf_counter() - started[1])}
            atomic_write_text(Path(folder) / f"{job_name(job)}.json", json.dumps(times) + "\n")


_IN_PROCESS = threading.Lock()


INTERRUPTED = "irmeta: interrupted"
INTERRUPTED_STATUS = 130  # 128 + SIGINT, as a shell reports a process Ctrl-C stopped


def error_line(exc: BaseException, outputs: Sequence[str] = ()) -> str:
    """The one line a failed job leaves: ``irmeta: error: <what>``; an OS error names its
    path and the system's words (``No space left on device``), or, when it has no path
    (a write through a stream), the job's outputs."""
    if isinstance(exc, DuplicateDocumentError):  # its way out as the config says it
        exc = exc.with_fix("set duplicates: first in the collection's config")
    if isinstance(exc, OSError) and exc.strerror:
        if exc.filename is not None:
            return f"irmeta: error: {exc.filename}: {exc.strerror}"
        shown = ", ".join(map(str, outputs[:3])) + (", ..." if len(outputs) > 3 else "")
        return f"irmeta: error: {exc.strerror}" + (f" (writing {shown})" if outputs else "")
    return f"irmeta: error: {' '.join(str(exc).split())}"


def report_failure(line: str) -> None:
    """Write ``line`` to the job's log; when the log cannot take it (a full disk), to the
    job's own standard error instead, which Snakemake shows."""
    try:
        print(line, file=sys.stderr, flush=True)
        return
    except OSError:
        pass
    if _screen is not None:
        try:
            os.write(_screen, (line + " (the job's log could not be written)\n").encode("utf-8", "replace"))
        except OSError:
            pass


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
