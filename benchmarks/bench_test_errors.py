"""Benchmark: the error-rate simulation's tests (irmeta.metaeval.test_error_rates).

Target (issue 41): one measure at 3 topic-set sizes x 100,000 trials x the five shipped
paired tests (10,000 draws for the randomised ones) in at most 15 minutes on 2 cores,
memory at most 2 GB. Urbano, Lima and Hanjalic's R code for the same study (SIGIR 2019,
1,000,000 draws, one trial at a time) needs, in their words, months of computing.

Prints, for each topic-set size and job (type I; power at each delta, whose trials also
give type III; the familywise error at each k), each test's trials per second over one
chunk of simulated trials (CPU seconds of this process, single-threaded BLAS, the fastest
of ``--repeat`` calls: other processes on a shared machine only slow a call down), then
the projected time of one measure: the type I trials alone (3 sizes x 100,000 trials x 5
tests) and every job of the default settings, on one core and on 2 (two processes, each
half the chunks: shards), and the peak memory of a chunk (traced numpy allocations) and
of the process.

The trials come from a stand-in for the fitted models (irmeta.metaeval.simulation):
AP-like runs with beta margins (means 0.1 to 0.4) and a Gaussian copula (rho 0.6); what a
test costs depends on its p-values (a randomised test stops drawing for a trial once its
p is above the largest alpha), so on trials like a real collection's.

    python benchmarks/bench_test_errors.py [--trials 1000] [--permutations 10000] [--topics 25,50,100]
                                           [--deltas all|0.05] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from functools import partial

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy: one core a process, as a shard runs

import numpy as np  # noqa: E402

from irmeta.metaeval import test_error_rates as ter  # noqa: E402
from irmeta.metaeval.stats.registry import CORRECTIONS, significance_test  # noqa: E402

TARGET_SECONDS, TARGET_MB, CORES = 15 * 60, 2048, 2
SHIPPED = ("paired_t", "wilcoxon", "sign", "randomisation", "paired_bootstrap")


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


def familywise(test, runs: np.ndarray, permutations: int, alphas) -> list[np.ndarray]:
    """Each correction's smallest adjusted p of each family: what a familywise chunk computes."""
    p = ter.family_pvalues(test, runs, permutations, 7, alphas)
    return [c.family_smallest(p) for c in CORRECTIONS.values()]


def cpu_seconds(work, repeat: int = 1) -> tuple[float, object]:
    """The fewest CPU seconds of ``repeat`` calls (other processes on the machine only
    ever slow a call down), and the last call's result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        out = work()
        best = min(best, time.process_time() - start)
    return best, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=1000, help="trials a job measured (one chunk)")
    parser.add_argument("--permutations", type=int, default=ter.DEFAULT_PERMUTATIONS)
    parser.add_argument("--topics", default=",".join(map(str, ter.DEFAULT_TOPICS)))
    parser.add_argument("--deltas", default="all", help="'all' (the default grid) or a list to measure")
    parser.add_argument("--full-trials", type=int, default=ter.DEFAULT_TRIALS, help="trials the projection is for")
    parser.add_argument("--repeat", type=int, default=2, help="calls a measurement, the fastest counted")
    args = parser.parse_args()
    sizes = [int(x) for x in args.topics.split(",")]
    deltas = ter.DEFAULT_DELTAS if args.deltas == "all" else tuple(float(x) for x in args.deltas.split(","))
    settings = ter.ErrorRateSettings(tests=SHIPPED, n_topics=tuple(sizes), trials=args.trials,
                                     permutations=args.permutations, chunk=args.trials)
    source = BetaGaussianSource()
    ceiling = max(settings.alphas)
    tests = [significance_test(name) for name in SHIPPED]
    print(f"error-rate tests: {args.trials} trials a job, {args.permutations} draws, topics {sizes}, "
          f"deltas {list(deltas)}, single-threaded BLAS (CPU seconds; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start)")
    type_1 = dict.fromkeys(SHIPPED, 0.0)
    full = dict.fromkeys(SHIPPED, 0.0)
    peak_chunk = 0.0
    scale = args.full_trials / args.trials
    for n in sizes:
        jobs = [("type I", None, 2)] + [(f"power d={d:g}", d, 2) for d in deltas]
        jobs += [(f"familywise k={k}", None, k) for k in ter.DEFAULT_RUNS_AT_ONCE]
        for label, delta, k in jobs:
            rng = np.random.default_rng([n, k, 0 if delta is None else int(delta * 1000)])
            if k == 2:
                first, second = source.pair_trials(n, args.trials, rng, delta)
            else:
                runs = np.ascontiguousarray(source.group_trials(k, n, args.trials, rng).transpose(0, 2, 1))
            rates = []
            for test in tests:
                tracemalloc.start()
                if k == 2:
                    seconds, _ = cpu_seconds(partial(ter.pair_pvalues, test, second, first, ter.reported_tails(test),
                                                     args.permutations, 7, ceiling), args.repeat)
                else:
                    seconds, _ = cpu_seconds(partial(familywise, test, runs, args.permutations, settings.alphas),
                                             args.repeat)
                peak_chunk = max(peak_chunk, tracemalloc.get_traced_memory()[1] / 2**20)
                tracemalloc.stop()
                rates.append(args.trials / max(seconds, 1e-9))
                full[test.name] += seconds * scale * (len(ter.DEFAULT_DELTAS) / len(deltas) if delta else 1.0)
                if label == "type I":
                    type_1[test.name] += seconds * scale
            print(f"  {n:>3} topics  {label:<17}" + "".join(f" {t.name} {r:>9,.0f}/s" for t, r in zip(tests, rates)))
            sys.stdout.flush()
    print(f"\nprojected, one measure, {len(sizes)} sizes x {args.full_trials:,} trials (CPU seconds, one core):")
    for name in SHIPPED:
        print(f"  {name:<17} type I {type_1[name]:8.1f} s   all jobs {full[name]:8.1f} s")
    one, every = sum(type_1.values()), sum(full.values())
    verdict = "within" if every / CORES <= TARGET_SECONDS else "beyond"
    print(f"  type I alone: {one:.0f} s on one core, {one / CORES / 60:.1f} min on {CORES} cores")
    print(f"  every job (type I, power at {len(ter.DEFAULT_DELTAS)} deltas, familywise k = "
          f"{', '.join(map(str, ter.DEFAULT_RUNS_AT_ONCE))}): {every:.0f} s on one core, {every / CORES / 60:.1f} min "
          f"on {CORES} cores, {verdict} the target of {TARGET_SECONDS // 60} min")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  memory: a chunk's tests peak at {peak_chunk:.0f} MB traced, the process at {rss:.0f} MB resident "
          f"(target {TARGET_MB} MB a process)")
    print(f"  (load average {os.getloadavg()[0]:.1f} at the end: other processes' share of the cores and caches "
          f"slows these figures)")
    print("  the paper's R code (Urbano et al. 2019): months of computing for the same study")
    return 0


if __name__ == "__main__":
    sys.exit(main())
