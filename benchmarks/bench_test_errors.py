"""Benchmark: the error-rate simulation (irmeta.metaeval.test_error_rates) on real models.

Target (issue 41): one measure at 3 topic-set sizes x 100,000 trials x the five shipped
paired tests (10,000 draws for the randomised ones) in at most 15 minutes on 2 cores,
memory at most 2 GB, read as the experiment's whole default job set for one measure:
type I, power at the 10 default deltas (whose trials give type III too), and the
familywise error at k = 5 and 10 with the three corrections. Urbano, Lima and Hanjalic's
R code for their study (SIGIR 2019: 1,667,000 type I trials per measure and size and
167,000 per delta, 10^6 draws for the randomised tests, one trial at a time) needs, in
their README's words, months of computing.

Sources: the simulation models fitted to TREC-8 ad hoc (129 runs, 50 topics, the
protocol's drops), scored with irmeta's API from ``--data`` (AP@1000 and P@10), and a
stand-in (beta margins, a Gaussian copula) that needs no data. For each source, topic-set
size and job it times one chunk of ``--trials`` trials as the engine runs it: drawing the
trials once at the largest size (the power trials of every delta at once, on common
random numbers; each familywise group's vine fitted once), then each test's p-values at
each size on the first topics of those trials, as the experiment runs them, in CPU seconds
of this process with single-threaded BLAS (the fastest of ``--repeat`` calls: other
processes on a shared machine only ever slow a call down; memory traced in a call of its
own, as tracing slows numpy's allocations 2-3x), and prints each test's trials per
second. Then, per source, the projected time of one measure at the default settings
(every figure scaled to 100,000 trials), on one core and on 2 (two shards), and the peak
memory of a chunk (traced numpy allocations) and of the process.

``--full MEASURE`` also runs the whole default job set of that TREC-8 measure through the
engine (:func:`~irmeta.metaeval.test_error_rates.error_rate_counts`), in two processes of
half the chunks each (shards), and prints the wall time, the CPU time of each, their
peak resident memory and whether the table is the same as one process gives (it is not
run: too long; the two shards summed are the table).

    python benchmarks/bench_test_errors.py [--data ../shared/data] [--sources trec8,standin]
        [--measures AP@1000,P@10] [--trials 1000] [--permutations 10000] [--topics 25,50,100]
        [--repeat 1] [--models DIR] [--full AP@1000]
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy: one core a process, as a shard runs

import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from irmeta.metaeval import test_error_rates as ter  # noqa: E402
from irmeta.metaeval.stats.registry import CORRECTIONS, significance_test  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS, TARGET_MB, CORES = 15 * 60, 2048, 2
SHIPPED = ("paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap")
SEED = 2019


class BetaGaussianSource:
    """AP-like runs: beta margins of mean m and concentration 3 (sd ~ sqrt(m (1 - m) / 4)),
    a Gaussian copula of correlation ``rho`` between any two runs; power moves B's scores
    up by delta, clipped to [0, 1] (a stand-in for the fitted models)."""

    def __init__(self, runs: int = 40, rho: float = 0.6, seed: int = 0):
        self.means = np.random.default_rng(seed).uniform(0.1, 0.4, runs)
        self.rho = rho

    def _quantile(self, u: np.ndarray, mean: np.ndarray) -> np.ndarray:
        from scipy.special import betaincinv

        return betaincinv(mean * 3.0, (1.0 - mean) * 3.0, u)

    def pair_trials(self, n_topics, n_trials, rng, delta):
        from scipy.special import ndtr

        mean = self.means[rng.integers(0, len(self.means), n_trials)][:, None]
        z = rng.standard_normal((n_trials, n_topics))
        w = self.rho * z + np.sqrt(1 - self.rho**2) * rng.standard_normal((n_trials, n_topics))
        a, b = self._quantile(ndtr(z), mean), self._quantile(ndtr(w), mean)
        return a, (b if delta is None else np.clip(b + delta, 0.0, 1.0))

    def group_trials(self, k, n_topics, n_trials, rng):
        from scipy.special import ndtr

        mean = self.means[rng.integers(0, len(self.means), n_trials)][:, None, None]
        z = np.sqrt(self.rho) * rng.standard_normal((n_trials, n_topics, 1))
        z = z + np.sqrt(1 - self.rho) * rng.standard_normal((n_trials, n_topics, k))
        return self._quantile(ndtr(z), mean)


def trec8_sources(data: Path, measures: list[str], models: Path | None, workers: int) -> dict[str, object]:
    """The pooled models of TREC-8 for each measure: scored with ``irmeta.score``, fitted
    with the default protocol (or read from ``models``, where they are saved)."""
    import irmeta
    from irmeta.metaeval.simulation.margins import support_of_measure
    from irmeta.metaeval.simulation.models import FittedCollection, PooledCollections

    out: dict[str, object] = {}
    scored = None
    for measure in measures:
        path = None if models is None else models / f"trec8_{measure.replace('@', '_at_')}.pkl"
        if path is not None and path.exists():
            fitted = FittedCollection.load(path)
            print(f"TREC-8 {measure}: models read from {path}")
        else:
            if scored is None:
                folder = data / "trec8_adhoc"
                start = time.perf_counter()
                scored = irmeta.score(folder / "qrels.txt", folder / "runs", measures, depth=1000).scores
                print(f"TREC-8: {len(scored.runs)} runs x {len(scored.topics)} topics scored with irmeta.score "
                      f"in {time.perf_counter() - start:.0f} s wall")
            values = scored.per_topic[list(scored.measures).index(measure)]
            start, cpu = time.perf_counter(), _cpu_with_children()
            fitted = FittedCollection.fit(values, scored.runs, support_of_measure(measure, values), seed=SEED,
                                          name="trec8", workers=workers)
            print(f"TREC-8 {measure}: {len(fitted)} runs kept, {len(fitted.copulas):,} pair copulas fitted in "
                  f"{time.perf_counter() - start:.0f} s wall, {_cpu_with_children() - cpu:.0f} s CPU ({workers} "
                  "processes)")
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                fitted.save(path)
        out[f"TREC-8 {measure}"] = PooledCollections([fitted])
    return out


def _cpu_with_children() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def cpu_seconds(work, repeat: int = 1) -> tuple[float, object]:
    """The fewest CPU seconds of ``repeat`` calls, and the last call's result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = work()
        best = min(best, time.process_time() - start)
    return best, out


def prepare(source, deltas) -> None:
    """What the fitted models build on first use, once per run of the experiment."""
    for collection in source.collections:
        for copula in collection.copulas:
            copula.transform(np.full((1, 2), 0.5))
    for delta in deltas:
        source._power_models(delta)


def familywise(test, runs: np.ndarray, permutations: int, alphas) -> list[np.ndarray]:
    """Each correction's smallest adjusted p of each family: what a familywise chunk computes."""
    p = ter.family_pvalues(test, runs, permutations, 7, alphas)
    return [c.family_smallest(p) for c in CORRECTIONS.values()]


def bench_source(label: str, source, args, sizes: list[int]) -> dict[str, float]:
    """Time one chunk of every job of the default settings; return the projected CPU
    seconds of one measure by part ("trials" and each test)."""
    settings = ter.ErrorRateSettings(tests=SHIPPED, n_topics=tuple(sizes), trials=args.trials,
                                     permutations=args.permutations, chunk=args.trials)
    tests = [significance_test(name) for name in SHIPPED]
    ceiling = max(settings.alphas)
    scale = args.full_trials / args.trials
    projected = dict.fromkeys(("trials", *SHIPPED, "type I"), 0.0)
    peak_chunk = 0.0
    by_job: dict[ter.Job, float] = {}  # projected CPU seconds of each job at the full trials
    print(f"\n{label}: {args.trials} trials a job, {args.permutations} draws, deltas {list(settings.deltas)}")
    if hasattr(source, "collections"):  # the fitted models' one-time work, before the steady rates
        setup, _ = cpu_seconds(partial(prepare, source, settings.deltas))
        projected["trials"] += setup
        print(f"  setup (each pair copula's pyvinecopulib object, each baseline's margin moved to each delta): "
              f"{setup:.1f} s, once")
    for job in ter.jobs(settings):
        chunk = ter.Chunk(job, 0, args.trials)
        rng, draws = ter.chunk_streams(SEED, label, chunk)
        n = job.n_topics
        if job.kind == "familywise_type_1":
            extra = {"groups": ter.group_stream(SEED, label, chunk)} if ter._takes(source.group_trials, "groups") \
                else {}
            generating, grouped = cpu_seconds(partial(source.group_trials, job.runs, n, args.trials, rng, **extra))
            runs = np.ascontiguousarray(grouped.transpose(0, 2, 1))
            pairs = None
            name = f"familywise k={job.runs}"
        else:
            if job.kind == "type_1":
                generating, pair = cpu_seconds(partial(source.pair_trials, n, args.trials, rng, None))
                pairs = [(None, pair)]
                name = "type I"
            else:
                generating, pairs = cpu_seconds(
                    partial(ter._power_trials, source, n, args.trials, rng, job.deltas(settings)))
                name = f"power, {len(settings.deltas)} deltas"
        projected["trials"] += generating * scale
        by_job[job] = by_job.get(job, 0.0) + generating * scale
        print(f"  {'':>3}  {name:<20} drawn at {n} topics: {args.trials / max(generating, 1e-9):>9,.0f} trials/s")
        for topics in job.topic_sizes:  # each size counted on the first topics of the same trials
            rates = []
            for test in tests:
                if pairs is None:
                    fewer = np.ascontiguousarray(runs[:, :, :topics])
                    calls = [partial(familywise, test, fewer, args.permutations, settings.alphas)]
                else:
                    calls = [partial(ter.pair_pvalues, test, second[:, :topics], first[:, :topics],
                                     ter.reported_tails(test), args.permutations, draws, ceiling)
                             for _, (first, second) in pairs]
                seconds = sum(cpu_seconds(call, args.repeat)[0] for call in calls)
                if topics == job.topic_sizes[-1]:  # memory apart: tracing slows numpy's allocations 2-3x
                    tracemalloc.start()
                    calls[-1]()
                    peak_chunk = max(peak_chunk, tracemalloc.get_traced_memory()[1] / 2**20)
                    tracemalloc.stop()
                rates.append(len(pairs or [None]) * args.trials / max(seconds, 1e-9))
                projected[test.name] += seconds * scale
                by_job[job] += seconds * scale
                if job.kind == "type_1":
                    projected["type I"] += seconds * scale
            print(f"  {topics:>3} topics  {name:<18}"
                  + "".join(f"  {t.name} {r:>8,.0f}/s" for t, r in zip(tests, rates)))
            sys.stdout.flush()
    total = sum(projected[k] for k in ("trials", *SHIPPED))
    print(f"  projected, one measure, {len(sizes)} sizes x {args.full_trials:,} trials (CPU seconds on one core): "
          + ", ".join(f"{k} {projected[k]:.0f}" for k in ("trials", *SHIPPED)))
    verdict = "within" if total / CORES <= TARGET_SECONDS else "beyond"
    print(f"  the type I tests alone: {projected['type I'] / CORES / 60:.1f} min on {CORES} cores; every job: "
          f"{total:.0f} s on one core, {total / CORES / 60:.1f} min on {CORES} cores, {verdict} the target of "
          f"{TARGET_SECONDS // 60} min")
    print(f"  memory: a chunk's tests peak at {peak_chunk:.0f} MB traced")
    print_shard_balance(by_job, args.full_trials, sizes)
    return projected


def print_shard_balance(by_job: dict, full_trials: int, sizes: list[int], shards: int = CORES) -> None:
    """Each shard's projected CPU seconds at the default settings, its chunks as
    :func:`~irmeta.metaeval.test_error_rates.shard_chunks` deals them (every shards-th
    chunk) beside contiguous ranges of the chunk plan (the split before): the run's wall
    time on ``shards`` cores is its dearest shard's."""
    settings = ter.ErrorRateSettings(tests=SHIPPED, n_topics=tuple(sizes), trials=full_trials)
    plan = ter.chunk_plan(settings)
    per_chunk = {job: seconds / sum(1 for c in plan if c.job == job) for job, seconds in by_job.items()}
    cost = [per_chunk.get(chunk.job, 0.0) for chunk in plan]
    dealt = [sum(cost[i] for i in ter.shard_chunks(settings, s, shards)) for s in range(shards)]
    ranges = [sum(cost[len(plan) * s // shards:len(plan) * (s + 1) // shards]) for s in range(shards)]
    print(f"  {shards} shards, projected CPU a shard: every {shards}th chunk (shard_chunks) "
          f"{' / '.join(f'{x:.0f}' for x in dealt)} s, contiguous ranges {' / '.join(f'{x:.0f}' for x in ranges)} s: "
          f"{max(dealt) / 60:.1f} against {max(ranges) / 60:.1f} min wall")


def _shard(source, measure: str, settings, shard: int, shards: int, queue) -> None:
    start = time.process_time()
    counts = ter.error_rate_counts(source, measure, settings, SEED, ter.shard_chunks(settings, shard, shards))
    queue.put((shard, counts, time.process_time() - start,
               resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def full_run(label: str, source, shards: int = CORES) -> None:
    """The whole default job set of one measure, in ``shards`` processes."""
    settings = ter.ErrorRateSettings(tests=SHIPPED)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    start = time.perf_counter()
    workers = [context.Process(target=_shard, args=(source, label, settings, s, shards, queue)) for s in range(shards)]
    for worker in workers:
        worker.start()
    results = sorted(queue.get() for _ in workers)
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - start
    table = ter.error_rate_table([r[1] for r in results], settings.trials)
    cpu = [r[2] for r in results]
    print(f"\nfull default run of {label}: {len(ter.chunk_plan(settings))} chunks in {shards} shards, "
          f"{wall / 60:.1f} min wall, CPU {' + '.join(f'{c / 60:.1f}' for c in cpu)} min "
          f"({sum(cpu) / shards / 60:.1f} min on {shards} cores), peak resident "
          f"{' / '.join(f'{r[3]:.0f}' for r in results)} MB, {len(table):,} rates")
    at = table[(table["kind"] == "type_1") & (table["tails"] == 2) & (table["alpha"] == 0.05)]
    print("  type I at alpha 0.05, two-tailed: " + "; ".join(
        f"{row.n_topics} topics {row.test} {row.rate:.4f}" for row in at.itertuples()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--sources", default="trec8,standin", help="trec8 and/or standin")
    parser.add_argument("--measures", default="AP@1000,P@10")
    parser.add_argument("--trials", type=int, default=1000, help="trials a job measured (one chunk)")
    parser.add_argument("--permutations", type=int, default=ter.DEFAULT_PERMUTATIONS)
    parser.add_argument("--topics", default=",".join(map(str, ter.DEFAULT_TOPICS)))
    parser.add_argument("--full-trials", type=int, default=ter.DEFAULT_TRIALS, help="trials the projection is for")
    parser.add_argument("--repeat", type=int, default=1, help="calls a measurement, the fastest counted")
    parser.add_argument("--models", default=None, help="folder to save the fitted models in and read them from")
    parser.add_argument("--workers", type=int, default=CORES, help="processes fitting the pair copulas")
    parser.add_argument("--full", default=None, help="a TREC-8 measure to run the whole default job set of")
    args = parser.parse_args()
    sizes = [int(x) for x in args.topics.split(",")]
    wanted = [s.strip() for s in args.sources.split(",") if s.strip()]
    measures = [m for m in args.measures.split(",") if m]
    print(f"error-rate simulation: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start; "
          "CPU seconds, single-threaded BLAS")
    sources: dict[str, object] = {}
    if "trec8" in wanted:
        sources.update(trec8_sources(Path(args.data), sorted(set(measures) | ({args.full} - {None})),
                                     None if args.models is None else Path(args.models), args.workers))
    if "standin" in wanted:
        sources["stand-in (beta margins, Gaussian copula)"] = BetaGaussianSource()
    for label, source in sources.items():
        if label.startswith("TREC-8 ") and label.removeprefix("TREC-8 ") not in measures:
            continue
        bench_source(label, source, args, sizes)
    print(f"\nprocess: peak resident {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB "
          f"(target {TARGET_MB} MB a process); load average {os.getloadavg()[0]:.1f} at the end (other processes' "
          "share of the cores and caches slows these figures)")
    print("Urbano, Lima and Hanjalic's R code (SIGIR 2019), the same study: months of computing (their README)")
    if args.full:
        full_run(f"TREC-8 {args.full}", sources[f"TREC-8 {args.full}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
