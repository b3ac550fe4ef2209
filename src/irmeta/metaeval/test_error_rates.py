"""Which test can I trust: the error rates of every paired significance test on simulated
test collections (Urbano, Lima and Hanjalic, "Statistical significance testing in IR:
an empirical analysis of type I, type II and type III errors", SIGIR 2019).

A trial is n simulated topics of a randomly drawn run pair (or of k runs), from a
:class:`TrialSource` (the fitted margins and copulas of :mod:`irmeta.metaeval.simulation`).
Every test of the registry, the user's own included, gets the same trials (common random
numbers), d = x_B - x_A, and its p-values for a whole chunk of trials at once
(:mod:`.stats.batched_tests`, or the test's function on each trial's matrix when it has
no batched form). Then, at each alpha of the grid:

- ``type_1``: both runs' true means equal (``delta`` None): p <= alpha is an error
  (either direction two-tailed; one-tailed, the test's "B better" conclusion);
- ``power``: run B truly better by delta: p <= alpha in the right direction (one-tailed:
  p <= alpha; two-tailed: p <= alpha and mean(d) > 0, the paper's direction for every
  test, its ``d`` the mean difference);
- ``type_3``: the same trials, p <= alpha two-tailed with mean(d) < 0 (a one-tailed test
  only ever concludes "B better", right whenever it is significant: no type III rows).
  The paper's published two-tailed power (its ``type_2`` tables, the share of p <= alpha)
  counts both: it is ``power`` + ``type_3`` here;
- ``familywise_type_1``: k runs at equal true means, simulated jointly; a family errs if
  any of its k(k - 1)/2 pairs is significant after the correction at alpha, i.e. its
  smallest adjusted p (:meth:`.stats.registry.Correction.family_smallest`) <= alpha;
  two-tailed.

Each rate r of N trials has the Monte Carlo standard error sqrt(r (1 - r) / N), the
binomial sampling error of the trials. The randomised tests share one matrix of B draws
among the trials of a chunk (the registry shares them among the pairs of a matrix), so
their p-values' resampling errors are correlated within a chunk: beyond the trials'
error, a rate carries that of the p-values near alpha, at most about f sqrt(alpha (1 -
alpha) / B) / sqrt(chunks) for a p-value density f near alpha (1 under the null: 3.1e-4
at alpha 0.05, B = 10,000 and 50 chunks, beside mc_se 6.9e-4 for 100,000 trials), not in
``mc_se``; with a draw matrix per trial it would shrink as 1 / sqrt(trials) but cost a
product per trial instead of one per chunk.

A randomised test draws for a trial only until what the table asks of it is known (its
p above the largest alpha; a family's decisions at every alpha, :func:`family_settle`),
which changes no count: 2 to 3 times fewer draws than B a trial under the null.

Trials run in chunks of a fixed size, each with its own generators, spawned from the
seed, the measure, the job (type I, power, k runs) and the chunk's index
(:func:`chunk_streams`), so memory stays bounded and any split of the chunks into shards
(:func:`shard_chunks`) gives the same counts: :func:`error_rate_counts` counts a set of
chunks, :func:`error_rate_table` sums shards into the table. Common random numbers where
they cost nothing and sharpen comparisons:

- across topic-set sizes: a job's trials have as many topics as the largest size, and
  each smaller size is counted on the first topics of the same trials, so the trials
  are drawn once (the simulation's dearest part: a 10-run vine's draws) and the rates'
  change with the number of topics carries no trial-to-trial noise. The fitted models
  draw topic by topic, so a size's rates do not depend on the other sizes asked;
- across deltas: the power trials of every delta are one job, the same pairs and copula
  draws moved by each delta (a source's ``pair_trials_by_delta``), so the power curve of
  a test is smooth in delta;
- across tests: every test gets the same trials and the randomised tests the same draws.

Each rate still comes from ``trials`` independent trials (its ``mc_se``); only rates of
one job, at different sizes or deltas, are correlated.
"""

from __future__ import annotations

import hashlib
import inspect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd

from irmeta.metaeval.stats.batched_tests import Settle, checked_differences
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.paired_tests import run_test
from irmeta.metaeval.stats.registry import (
    CORRECTIONS,
    NO_CORRECTION,
    SignificanceTest,
    name_order,
    registered_tests,
    resolve,
    significance_test,
)
from irmeta.support.progress import Progress, progress_steps

#: Added to ``experiments.seed``: chunk c of a job draws its trials and the randomised
#: tests' draws from streams spawned from ``SeedSequence(seed + SEED_OFFSET)`` keyed by
#: the measure, topic-set size, job and c (:func:`chunk_streams`), streams no other
#: experiment of the same seed draws from. Part of the published numbers.
SEED_OFFSET = 9

#: The columns of ``test_error_rates.csv``, in order.
COLUMNS = ("measure", "n_topics", "test", "tails", "correction", "runs", "alpha", "delta", "rate", "kind", "trials",
           "mc_se")
#: What identifies a rate: :data:`COLUMNS` but the numbers.
KEY_COLUMNS = ("measure", "n_topics", "test", "tails", "correction", "runs", "alpha", "delta", "kind")
#: A shard's counts (:func:`error_rate_counts`): the key, the trials that erred and all trials.
COUNT_COLUMNS = (*KEY_COLUMNS, "errors", "trials")
#: The kinds of error, in their order in the table.
KINDS = ("type_1", "power", "type_3", "familywise_type_1")

DEFAULT_ALPHAS = tuple(round(0.001 * i, 3) for i in range(1, 10)) + tuple(round(0.01 * i, 2) for i in range(1, 11))
DEFAULT_DELTAS = tuple(round(0.01 * i, 2) for i in range(1, 11))
DEFAULT_TOPICS = (25, 50, 100)
DEFAULT_TRIALS = 100_000
DEFAULT_RUNS_AT_ONCE = (5, 10)
DEFAULT_PERMUTATIONS = 10_000
#: Trials a chunk: its draws and p-values stay within a few hundred MB at 10 runs at
#: once and 100 topics.
DEFAULT_CHUNK = 2_000

JobKind = Literal["type_1", "power", "familywise_type_1"]


class TrialSource(Protocol):
    """Simulated scores of one measure (:mod:`irmeta.metaeval.simulation.trials`)."""

    def pair_trials(self, n_topics: int, n_trials: int, rng: np.random.Generator,
                    delta: float | None) -> tuple[np.ndarray, np.ndarray]:
        """(n_trials, n_topics) scores of runs A and B, each trial from a randomly drawn
        pair; delta None: both through the first run's margin (equal true means); else B
        through the first run's margin moved to mean + delta (B truly better by delta)."""
        ...

    def group_trials(self, k: int, n_topics: int, n_trials: int, rng: np.random.Generator) -> np.ndarray:
        """(n_trials, n_topics, k): k runs with equal true means, simulated jointly."""
        ...


@dataclass(frozen=True)
class ErrorRateSettings:
    """What the simulation runs, each a named setting: ``tests`` (None: every paired test
    of the registry when the counts are made, users' included), ``n_topics`` (topic-set
    sizes), ``trials`` per measure, size and job, ``alphas``, ``deltas`` (power and type
    III), ``runs_at_once`` (k of the familywise error; empty: none), ``permutations`` (the
    randomised tests' draws B) and ``chunk`` (trials a chunk). Checked on construction,
    one line naming the setting."""

    tests: tuple[str, ...] | None = None
    n_topics: tuple[int, ...] = DEFAULT_TOPICS
    trials: int = DEFAULT_TRIALS
    alphas: tuple[float, ...] = DEFAULT_ALPHAS
    deltas: tuple[float, ...] = DEFAULT_DELTAS
    runs_at_once: tuple[int, ...] = DEFAULT_RUNS_AT_ONCE
    permutations: int = DEFAULT_PERMUTATIONS
    chunk: int = DEFAULT_CHUNK

    def __post_init__(self) -> None:
        def integers(key: str, values: Iterable[object], low: int) -> tuple[int, ...]:
            out = []
            for value in values:
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
                    raise ValueError(f"{key}: {value!r} is not an integer >= {low}")
                out.append(int(value))
            return tuple(dict.fromkeys(out))

        def numbers(key: str, values: Iterable[object], inside: str, high: float = 1.0) -> tuple[float, ...]:
            out = []
            for value in values:
                number = float(value) if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
                    value, (bool, np.bool_)) else math.nan
                if not (0 < number < high):
                    raise ValueError(f"{key}: {value!r} is outside {inside}")
                out.append(number)
            return tuple(dict.fromkeys(out))

        object.__setattr__(self, "n_topics", integers("n_topics", self.n_topics, 2))
        object.__setattr__(self, "runs_at_once", integers("runs_at_once", self.runs_at_once, 2))
        for key in ("trials", "permutations", "chunk"):
            object.__setattr__(self, key, integers(key, [getattr(self, key)], 1)[0])
        object.__setattr__(self, "alphas", tuple(sorted(numbers("alphas", self.alphas, "(0, 1)"))))
        # a gain in mean score: its bound, the measure's range width, is checked where the
        # measure is known (irmeta.metaeval.simulation.reach.delta_fault)
        object.__setattr__(self, "deltas", numbers("deltas", self.deltas, "(0, inf): a gain in mean score",
                                                   high=math.inf))
        if not self.n_topics:
            raise ValueError("n_topics: no topic-set size")
        if not self.alphas:
            raise ValueError("alphas: no significance level")
        if self.tests is not None:
            names = tuple(dict.fromkeys(str(t) for t in self.tests))
            for name in names:
                if not significance_test(name).paired:
                    raise ValueError(f"tests: {name} is not a paired test: it decides every pair from all runs at once")
            if not names:
                raise ValueError("tests: no test")
            object.__setattr__(self, "tests", names)

    def test_names(self) -> tuple[str, ...]:
        """The tests, in the order given, or every paired test of the registry now."""
        return self.tests if self.tests is not None else tuple(registered_tests(kind="paired"))


@dataclass(frozen=True)
class Job:
    """Trials of one kind: ``type_1`` (2 runs, equal true means), ``power`` (2 runs, B
    better by each delta of the settings, on common random numbers, or by ``delta`` alone
    when given; its trials count type III too) or ``familywise_type_1`` (``runs`` runs at
    equal true means). Its trials have ``n_topics`` topics; ``sizes`` (none: ``n_topics``
    alone) are the topic-set sizes it counts, each from the first that many topics of
    every trial."""

    n_topics: int
    kind: JobKind
    delta: float | None = None
    runs: int = 2
    sizes: tuple[int, ...] = ()

    @property
    def topic_sizes(self) -> tuple[int, ...]:
        """The sizes counted, ascending."""
        return self.sizes or (self.n_topics,)

    def key(self) -> tuple[int, int, int]:
        """The job's part of a chunk's spawn key: the size (0 for a job of several sizes:
        its streams are the same whatever the sizes), the kind and its parameter (delta's
        IEEE bits, or k)."""
        size = 0 if self.sizes else self.n_topics
        if self.kind == "type_1":
            return size, 0, 0
        if self.kind == "power":
            return size, 1, 0 if self.delta is None else int(np.float64(self.delta).view(np.uint64))
        return size, 2, self.runs

    def deltas(self, settings: ErrorRateSettings) -> tuple[float, ...]:
        """The effect sizes a power job's trials are moved by: its own, else the settings'."""
        return (float(self.delta),) if self.delta is not None else settings.deltas


@dataclass(frozen=True)
class Chunk:
    """Chunk ``index`` of a job: its ``trials`` (the chunk size, the last one the rest)."""

    job: Job
    index: int
    trials: int


def jobs(settings: ErrorRateSettings) -> list[Job]:
    """Every job, in order: type I, power (every delta at once, when there are deltas),
    then the familywise error at each k; each for every topic-set size at once, its
    trials of the largest size and each smaller size counted on their first topics."""
    sizes = tuple(sorted(settings.n_topics))
    out = [Job(sizes[-1], "type_1", sizes=sizes)]
    if settings.deltas:
        out.append(Job(sizes[-1], "power", sizes=sizes))
    out += [Job(sizes[-1], "familywise_type_1", runs=k, sizes=sizes) for k in settings.runs_at_once]
    return out


def chunk_plan(settings: ErrorRateSettings) -> list[Chunk]:
    """Every chunk of every job, in :func:`jobs` order: a shard is every shards-th of it."""
    out = []
    for job in jobs(settings):
        for index, start in enumerate(range(0, settings.trials, settings.chunk)):
            out.append(Chunk(job, index, min(settings.chunk, settings.trials - start)))
    return out


def shard_chunks(settings: ErrorRateSettings, shard: int, shards: int) -> range:
    """The chunks of shard ``shard`` of ``shards`` (0-based): every ``shards``-th chunk of
    :func:`chunk_plan` from the ``shard``-th, so each shard gets its share of every job
    (a familywise chunk, its vine's draws, costs several times a type I chunk: contiguous
    ranges left the last shards the dearest jobs alone). The counts, and so the table, do
    not depend on the split."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not one of 0..{shards - 1}")
    return range(shard, len(chunk_plan(settings)), shards)


def _text_key(text: str) -> int:
    """A stable integer of a name (a spawn key's word): its SHA-256's first 8 bytes."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def chunk_streams(seed: int, measure: str, chunk: Chunk) -> tuple[np.random.Generator, int]:
    """(the trials' generator, the randomised tests' seed) of one chunk: both spawned from
    ``SeedSequence(seed, spawn_key=(measure, size, kind, parameter, chunk, purpose))``,
    whatever shard runs the chunk; a randomised test draws from ``PCG64(draw seed + its
    seed_offset)``, the registry's convention, so the shipped ones share their draws."""
    key = (_text_key(measure), *chunk.job.key(), chunk.index)
    trials = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(*key, 0))))
    # 31 bits: plus a test's seed_offset (< 2^31) it stays a seed any generator takes, a
    # user's test's numpy.random.seed included
    draws = int(np.random.SeedSequence(seed, spawn_key=(*key, 1)).generate_state(1, np.uint32)[0] >> 1)
    return trials, draws


def group_stream(seed: int, measure: str, chunk: Chunk) -> np.random.Generator:
    """The generator a familywise chunk draws its groups of runs from: spawned from
    ``SeedSequence(seed, spawn_key=(measure, 0, 2, k, chunk, 2))``, the topic-set size
    left out (0 is no size), so chunk c draws the same groups whatever the sizes (and a
    job of one size the same groups as any other)."""
    key = (_text_key(measure), 0, 2, chunk.job.runs, chunk.index, 2)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


# ------------------------------------------------------------------ p-values of a chunk


def reported_tails(test: SignificanceTest) -> tuple[int, ...]:
    """The tails the simulation reports for a test: its batched form's (2 always among
    them: the registry's function is two-tailed), else 2 alone."""
    if test.batched is None:
        return (2,)
    tails = tuple(dict.fromkeys(int(t) for t in test.tails))
    if 2 not in tails or set(tails) - {1, 2}:
        raise ValueError(f"test {test.name}: tails {test.tails!r}, not 2 or 1 and 2")
    return tails


def _checked_pvalues(test: SignificanceTest, p: object, shape: tuple[int, ...]) -> np.ndarray:
    out = np.asarray(p, dtype=np.float64)
    if out.shape != shape or np.isnan(out).any() or (out < 0).any() or (out > 1).any():
        raise ValueError(f"test {test.name}: its batched form gave {getattr(out, 'shape', '?')} p-values, not "
                         f"{shape} in [0, 1]")
    return out


def pair_pvalues(test: SignificanceTest, first: np.ndarray, second: np.ndarray, tails: Sequence[int],
                 permutations: int, seed: int, ceiling: float = 1.0) -> np.ndarray:
    """(len(tails), trials) p-values of ``test`` comparing the rows of ``first`` with those
    of ``second`` (d = first - second; one tail: ``first`` better): its batched form on
    the differences, else its function on each trial's matrix ``[first; second]`` (two
    tails only). A randomised test draws from ``seed`` plus its ``seed_offset``; p-values
    above ``ceiling`` may be known only to be above it (:mod:`.stats.batched_tests`)."""
    tails = tuple(tails)
    if test.batched is not None:
        return batched_pvalues(test, first - second, tails, permutations, seed, ceiling)
    if tails != (2,):
        raise ValueError(f"test {test.name} has no batched form: two tails only")
    return np.array([[run_test(test.name, np.vstack([x, y]), permutations, seed).p_value[0]
                      for x, y in zip(first, second)]], dtype=np.float64).reshape(1, len(first))


def _takes(function: Callable[..., Any], *names: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return all(name in parameters for name in names)


def batched_pvalues(test: SignificanceTest, d: np.ndarray, tails: Sequence[int], permutations: int, seed: int,
                    ceiling: float = 1.0, settled: Settle | None = None, group: int = 1) -> np.ndarray:
    """(len(tails), trials) p-values of the (trials, topics) differences ``d`` by the
    test's batched form (:attr:`.stats.registry.SignificanceTest.batched`), checked;
    ``settled`` and ``group`` go to a randomised form that takes them
    (:mod:`.stats.batched_tests`), and are ignored by one that does not."""
    d, tails = checked_differences(d), tuple(tails)
    function = resolve(test.batched)
    if test.randomised:
        extra = {"settled": settled, "group": group} if settled is not None and _takes(function, "settled",
                                                                                      "group") else {}
        p = function(d, tails, permutations, seed + test.seed_offset, ceiling=ceiling, **extra)
    else:
        p = function(d, tails)
    return _checked_pvalues(test, p, (len(tails), len(d)))


def family_settle(alphas: Sequence[float]) -> Settle:
    """Which families need no more draws: for every correction, no alpha of the grid lies
    in [f(lower), f(upper)), f its smallest adjusted p-value
    (:meth:`.stats.registry.Correction.family_smallest`) and lower, upper the bounds of
    the family's two-tailed p-values. Each f is nondecreasing in every p-value (Holm,
    Benjamini-Hochberg, Bonferroni), so f of the true p-values lies between the two and
    f(lower) <= alpha exactly when f(p) <= alpha, at every alpha."""
    grid = np.sort(np.asarray(alphas, dtype=np.float64))
    # each distinct function once (Holm's and Bonferroni's smallest adjusted p are one)
    functions = list({c.smallest or c.name: resolve(c.smallest) if c.smallest else c.family_smallest
                      for c in CORRECTIONS.values()}.values())

    def settled(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        groups = lower.shape[1]
        done = np.ones(groups, dtype=bool)
        both = np.concatenate([lower[0], upper[0]])
        for function in functions:
            rank = np.searchsorted(grid, function(both), side="left")
            done &= rank[:groups] == rank[groups:]
        return done

    return settled


def family_pvalues(test: SignificanceTest, runs: np.ndarray, permutations: int, seed: int,
                   alphas: Sequence[float] | None = None) -> np.ndarray:
    """(trials, pairs) two-tailed p-values of every pair of the (trials, k, topics)
    ``runs``, pairs in ``run_pairs`` order; as :func:`pair_pvalues`, without a batched
    form from the function on each trial's (k, topics) matrix. ``alphas``: all that is
    asked of them is whether each correction's smallest adjusted p is <= each alpha, so a
    randomised test stops drawing for a family once its p-values' bounds decide that
    (:func:`family_settle`) or for a pair once its p is above the largest alpha, and
    returns the p of the draws counted so far (which decide the same)."""
    n_trials, k, n = runs.shape
    a, b = run_pairs(k)
    if test.batched is None:
        return np.array([run_test(test.name, trial, permutations, seed).p_value for trial in runs],
                        dtype=np.float64).reshape(n_trials, len(a))
    d = (runs[:, a, :] - runs[:, b, :]).reshape(-1, n)
    if alphas is None:
        return batched_pvalues(test, d, (2,), permutations, seed)[0].reshape(n_trials, len(a))
    p = batched_pvalues(test, d, (2,), permutations, seed, float(max(alphas)), family_settle(alphas), len(a))
    return p[0].reshape(n_trials, len(a))


# ------------------------------------------------------------------ counts of a job


def _at_most(p: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """How many of ``p`` are <= each alpha (sorted ascending)."""
    return np.searchsorted(np.sort(p), alphas, side="right").astype(np.int64)


def job_keys(job: Job, tests: Sequence[SignificanceTest], settings: ErrorRateSettings) -> list[tuple]:
    """The rows a job counts, in the order :func:`_chunk_errors` fills them: each a
    (n_topics, test, tails, correction, runs, alpha, delta, kind); size by size, a power
    job's delta by delta."""
    rows = []
    for n in job.topic_sizes:
        if job.kind == "familywise_type_1":
            for test in tests:
                rows += [(n, test.name, 2, c, job.runs, alpha, math.nan, job.kind) for c in CORRECTIONS
                         for alpha in settings.alphas]
            continue
        for delta in (job.deltas(settings) if job.kind == "power" else (math.nan,)):
            for test in tests:
                rows += [(n, test.name, tail, NO_CORRECTION, 2, alpha, delta, job.kind)
                         for tail in reported_tails(test) for alpha in settings.alphas]
            if job.kind == "power":
                for test in tests:
                    rows += [(n, test.name, 2, NO_CORRECTION, 2, alpha, delta, "type_3") for alpha in settings.alphas]
    return rows


def _checked_trials(measure: str, chunk: Chunk, values: object, shape: tuple[int, ...]) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64)
    if out.shape != shape or not np.isfinite(out).all():
        raise ValueError(f"{measure}: the simulation gave scores of shape {out.shape} (finite: "
                         f"{bool(np.isfinite(out).all())}), not finite {shape}, for {chunk.job.kind} at "
                         f"{chunk.job.n_topics} topics")
    return out


def _chunk_errors(source: TrialSource, measure: str, chunk: Chunk, tests: Sequence[SignificanceTest],
                  settings: ErrorRateSettings, seed: int) -> np.ndarray:
    """The errors of one chunk's trials, one count per :func:`job_keys` row."""
    job, n, size = chunk.job, chunk.job.n_topics, chunk.trials
    rng, draws = chunk_streams(seed, measure, chunk)
    alphas = np.asarray(settings.alphas)
    ceiling = float(alphas.max())
    out: list[np.ndarray] = []
    if job.kind == "familywise_type_1":
        extra = {"groups": group_stream(seed, measure, chunk)} if _takes(source.group_trials, "groups") else {}
        grouped = source.group_trials(job.runs, n, size, rng, **extra)
        every = _checked_trials(measure, chunk, grouped, (size, n, job.runs))
        for topics in job.topic_sizes:
            runs = np.ascontiguousarray(every[:, :topics].transpose(0, 2, 1))
            for test in tests:
                p = family_pvalues(test, runs, settings.permutations, draws, settings.alphas)
                out += [_at_most(c.family_smallest(p), alphas) for c in CORRECTIONS.values()]
        return np.concatenate(out)
    trials = [(None, source.pair_trials(n, size, rng, None))] if job.kind == "type_1" else \
        _power_trials(source, n, size, rng, job.deltas(settings))
    trials = [(delta, [_checked_trials(measure, chunk, x, (size, n)) for x in pair]) for delta, pair in trials]
    for topics in job.topic_sizes:
        for _, (first, second) in trials:
            first_run, second_run = first[:, :topics], second[:, :topics]
            # d = B - A: one tail is "B better", the right direction when B is better by delta
            gain = (second_run - first_run).sum(axis=1)
            better, worse = gain > 0, gain < 0
            type_3 = []
            for test in tests:
                tails = reported_tails(test)
                p = pair_pvalues(test, second_run, first_run, tails, settings.permutations, draws, ceiling)
                for tail, row in zip(tails, p):
                    out.append(_at_most(row if job.kind == "type_1" or tail == 1 else row[better], alphas))
                type_3.append(_at_most(p[tails.index(2)][worse], alphas))
            if job.kind == "power":
                out += type_3
    return np.concatenate(out)


def _power_trials(source: TrialSource, n_topics: int, n_trials: int, rng: np.random.Generator,
                  deltas: Sequence[float]) -> list[tuple[float, tuple[np.ndarray, np.ndarray]]]:
    """Each delta's (A, B) power trials on common random numbers: the source's
    ``pair_trials_by_delta`` when it offers them (``common_deltas``), else its
    ``pair_trials`` from a copy of the same Generator state for each delta."""
    if getattr(source, "common_deltas", False):
        first, seconds = source.pair_trials_by_delta(n_topics, n_trials, rng, deltas)  # type: ignore[attr-defined]
        return [(d, (first, seconds[d])) for d in deltas]
    state = rng.bit_generator.state
    out = []
    for delta in deltas:
        copy = np.random.Generator(type(rng.bit_generator)())
        copy.bit_generator.state = state
        out.append((delta, source.pair_trials(n_topics, n_trials, copy, delta)))
    return out


def error_rate_counts(source: TrialSource, measure: str, settings: ErrorRateSettings, seed: int,
                      chunks: range | None = None) -> pd.DataFrame:
    """A shard: the errors and trials of the chunks ``chunks`` (positions in
    :func:`chunk_plan`; None: all), :data:`COUNT_COLUMNS`, one row per rate of each job
    the shard touches, summed over its chunks. ``seed``: the stream's (``experiments.seed``
    + :data:`SEED_OFFSET`); ``measure`` names the source's measure (and keys its streams)."""
    plan = chunk_plan(settings)
    selected = [plan[i] for i in (range(len(plan)) if chunks is None else chunks)]
    if int(seed) < 0:
        raise ValueError(f"seed: {seed} is negative")
    tests = [significance_test(name) for name in settings.test_names()]
    counts: dict[Job, tuple[np.ndarray, list[int]]] = {}
    progress = Progress(len(selected), f"test error rates, {measure}, {len(selected)} chunks")
    with progress_steps(f"trials tested ({measure})", sum(chunk.trials for chunk in selected), "trial") as step:
        for chunk in selected:
            errors = _chunk_errors(source, measure, chunk, tests, settings, int(seed))
            if chunk.job in counts:
                counts[chunk.job][0][:] += errors
                counts[chunk.job][1][0] += chunk.trials
            else:
                counts[chunk.job] = (errors.copy(), [chunk.trials])
            progress.advance()
            step(chunk.trials)
    frames = []
    for job, (errors, trials) in counts.items():
        keys = job_keys(job, tests, settings)
        frame = pd.DataFrame(keys, columns=["n_topics", "test", "tails", "correction", "runs", "alpha", "delta",
                                            "kind"])
        frame.insert(0, "measure", measure)
        frame["errors"], frame["trials"] = errors, trials[0]
        frames.append(frame[list(COUNT_COLUMNS)])
    if not frames:
        return _empty(COUNT_COLUMNS)
    return pd.concat(frames, ignore_index=True)


_DTYPES = {"measure": object, "n_topics": np.int64, "test": object, "tails": np.int64, "correction": object,
           "runs": np.int64, "alpha": np.float64, "delta": np.float64, "rate": np.float64, "kind": object,
           "trials": np.int64, "mc_se": np.float64, "errors": np.int64}


def _empty(columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=_DTYPES[c]) for c in columns})


def error_rate_table(shards: Iterable[pd.DataFrame], trials: int | None = None) -> pd.DataFrame:
    """``test_error_rates.csv``: the shards' counts summed, rate = errors / trials and
    mc_se = sqrt(rate (1 - rate) / trials), :data:`COLUMNS`, sorted by measure, size, kind
    (:data:`KINDS`), test (the registry's order), tails, correction, runs, delta and alpha.
    Integer sums: any split of the chunks gives the same bytes. ``trials``: each rate's
    expected trials, a missing shard a one-line ValueError."""
    counts = pd.concat([s[list(COUNT_COLUMNS)] for s in shards], ignore_index=True)
    if counts.empty:
        return _empty(COLUMNS)
    summed = counts.groupby(list(KEY_COLUMNS), dropna=False, sort=False)[["errors", "trials"]].sum().reset_index()
    if trials is not None and (summed["trials"] != int(trials)).any():
        short = summed.loc[summed["trials"] != int(trials)].iloc[0]
        raise ValueError(f"{short['measure']}, {short['n_topics']} topics, {short['kind']}: "
                         f"{short['trials']} trials, not {int(trials)}: a shard is missing or repeated")
    rate = summed["errors"].to_numpy(np.float64) / summed["trials"].to_numpy(np.float64)
    summed["rate"] = rate
    summed["mc_se"] = np.sqrt(rate * (1.0 - rate) / summed["trials"].to_numpy(np.float64))
    corrections = [NO_CORRECTION, *CORRECTIONS]
    order = pd.DataFrame({
        "measure": summed["measure"].astype(str),
        "n_topics": summed["n_topics"],
        "kind": [KINDS.index(k) if k in KINDS else len(KINDS) for k in summed["kind"]],
        "test": summed["test"].map({t: i for i, t in enumerate(sorted(set(summed["test"]), key=name_order))}),
        "tails": summed["tails"],
        "correction": [corrections.index(c) if c in corrections else len(corrections) for c in summed["correction"]],
        "runs": summed["runs"],
        "delta": summed["delta"].fillna(-1.0),
        "alpha": summed["alpha"],
    })
    ranked = order.sort_values(list(order.columns), kind="stable").index
    table = summed.loc[ranked].reset_index(drop=True)[list(COLUMNS)]
    return table.astype({c: _DTYPES[c] for c in COLUMNS})


def error_rates(source: TrialSource, measure: str, settings: ErrorRateSettings, seed: int) -> pd.DataFrame:
    """Every chunk in one process: :func:`error_rate_table` of :func:`error_rate_counts`."""
    return error_rate_table([error_rate_counts(source, measure, settings, seed)], settings.trials)
