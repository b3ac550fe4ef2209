"""``irmeta test-errors``: which test can I trust on my collection (:mod:`irmeta.error_rates`),
on the command line, with the conventions of :mod:`irmeta.cli_args`: a single-valued option
given twice is a usage error, every list option takes a comma-separated list checked when
parsed, ``--scores`` and ``--test`` are repeatable, ``--output`` is checked before any work
and written atomically (``-`` is standard output), every failure is one line with exit
status 2, and progress goes to standard error when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from irmeta.api import DEFAULT_SEED
from irmeta.cli_args import Once, bounded_int, emit, err, flags, input_path, load_plugins, output_path

_HELP = """The error rates of every paired significance test on test collections simulated
from your score matrices (Urbano, Lima and Hanjalic, SIGIR 2019): each run's per-topic
scores get a margin, each pair of runs a copula, and new topics are drawn whose true means
are known. Per topic-set size (--topics), test (--test, default every paired test of the
registry, a --plugin's too), tails (1 or 2) and level (--alpha): type_1 (both runs of a
trial through one run's margin: equal true means, p <= alpha is an error), power (the
second run's margin moved to the first's mean + --delta: significant in the right
direction; by default, as the paper, the margin of one of the 10 runs whose means are
nearest that target, --power-margin first_run the first run's own), type_3 (two-tailed,
significant in the wrong one) and familywise_type_1 (k runs at equal means, each k of
--runs-at-once, any pair significant after each correction); --trials trials each,
common to every test; mc_se is the rate's Monte Carlo standard error.

--scores is a CSV with one column per run and one row per topic, a header of run names
(the layout of the paper's data), or irmeta score --per-topic's output (--measure picks
one of its measures); repeated, the matrices are pooled as the paper pooled collections.
Where the scores lie: --measure-kind continuous, discrete:K ({0, 1/K, ..., 1}: P@10 is
discrete:10) or discrete (the coarsest such grid the scores lie on), or the measure's
name (--measure P@10, or the one irmeta's output names). The paper's protocol drops runs
equal to an earlier one and the bottom 10% by mean first; a run left with a single
distinct score is refused unless --degenerate-runs drop. --format tsv (default) prints
exactly the columns measure, n_topics, test, tails, correction, runs, alpha, delta, rate,
kind, trials, mc_se; markdown and latex the same table. The same inputs and --seed print
the same bytes. The full defaults (3 sizes x 100,000 trials x 19 levels x 10 deltas)
take long: start with --trials 1000.
"""


def _listed(name: str, read: Callable[[str], object]) -> Callable[[str], list]:
    """An argparse type: a comma-separated list, each item read by ``read`` (which raises
    ValueError with what is wrong), none twice."""

    def parse(text: str) -> list:
        items = [part.strip() for part in text.split(",")]
        if not text.strip() or any(not part for part in items):
            raise argparse.ArgumentTypeError(f"{text!r}: give a comma-separated list (e.g. {name})")
        out = []
        for part in items:
            try:
                value = read(part)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(f"{part}: {exc}") from None
            if value in out:
                raise argparse.ArgumentTypeError(f"{part} given twice")
            out.append(value)
        return out

    parse.__name__ = "list"
    return parse


def _integer(low: int) -> Callable[[str], int]:
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError("not an integer") from None
        if value < low:
            raise ValueError(f"must be >= {low}")
        return value

    return read


def _inside(what: str, high: float = 1.0) -> Callable[[str], float]:
    """A number in (0, ``high``): a level in (0, 1); a delta > 0, whose bound, the
    measure's range width, is checked once the scores say the measure (before fitting)."""
    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        if not 0.0 < value < high:  # NaN too
            raise ValueError(f"outside (0, {high:g}): {what}")
        return value

    return read


def add_test_errors_parser(sub: argparse._SubParsersAction) -> None:
    """The ``test-errors`` subcommand."""
    from irmeta.error_rates import FORMATS

    p = sub.add_parser("test-errors", help="which test can I trust: error rates of the paired tests on simulated "
                                           "collections", description=_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scores", required=True, action="append", type=input_path,
                   help="a score matrix (CSV: a column per run, a row per topic; or irmeta score --per-topic's "
                        "output); repeatable, pooled")
    p.add_argument(*flags("--measure"), action=Once,
                   help="the measure: which one of irmeta's scores file, its range and grid (P@10, AP, ...), and its "
                        "name in the table (default: the file's measure, else the files' names)")
    p.add_argument("--measure-kind", action=Once,
                   help="where the scores lie: continuous, discrete:K ({0, 1/K, ..., 1}) or discrete (found from "
                        "the scores); default: the measure's own")
    p.add_argument("--topics", action=Once, type=_listed("25,50,100", _integer(2)), default=None,
                   help="topic-set sizes, comma-separated (default 25,50,100)")
    p.add_argument("--trials", action=Once, type=bounded_int(1), default=None,
                   help="trials per topic-set size and kind (default 100000)")
    p.add_argument("--alpha", action=Once, type=_listed("0.01,0.05", _inside("a significance level")),
                   default=None, help="significance levels, comma-separated (default 0.001 to 0.009 and 0.01 to 0.1)")
    p.add_argument("--delta", action=Once, type=_listed("0.05", _inside("a gain in mean score", math.inf)),
                   default=None,
                   help="true differences of power and type III in the measure's units, each below its range's width, "
                        "comma-separated (default 0.01 to 0.1 by 0.01)")
    p.add_argument("--runs-at-once", action=Once, type=_listed("5,10", _integer(2)), default=None,
                   help="k of the familywise error, comma-separated (default 5,10)")
    p.add_argument("--no-familywise", action="store_true", help="no familywise trials (no --runs-at-once)")
    p.add_argument("--permutations", action=Once, type=bounded_int(1), default=None,
                   help="draws of the randomised tests (default 10000)")
    # --test is checked once the plugins are in: a --plugin may register tests
    p.add_argument("--test", action="append",
                   help="a paired test of the registry or a --plugin's, repeatable (default: every paired test)")
    p.add_argument("--seed", action=Once, type=bounded_int(0), default=DEFAULT_SEED,
                   help=f"seed of the simulation (default {DEFAULT_SEED})")
    p.add_argument("--degenerate-runs", action=Once, choices=["refuse", "drop"], default="refuse",
                   help="a run with a single distinct score (no margin to fit): refuse (default) or drop it, "
                        "saying so")
    p.add_argument("--power-margin", action=Once, choices=list(POWER_MARGINS), default=None,
                   help="the second run of a power trial: nearest_runs (default, the paper's: the margin of one of "
                        "the 10 runs whose means are nearest the target, moved to it) or first_run (the first run's "
                        "own margin moved to its mean + delta)")
    p.add_argument("--plugin", action="append", type=input_path,
                   help="a module or .py file that registers tests (irmeta.register_test) or measures, repeatable")
    p.add_argument(*flags("--format"), action=Once, choices=list(FORMATS), default=FORMATS[0],
                   help=f"{FORMATS[0]} (default), {', '.join(FORMATS[1:])}")
    p.add_argument(*flags("--output"), action=Once, type=output_path,
                   help="write here instead of standard output ('-'; a new or regular file, not an input)")
    p.add_argument("--digits", action=Once, type=bounded_int(0, 17), default=None,
                   help="decimals (default 4 in markdown and latex, full precision in tsv)")
    p.set_defaults(func=_test_errors)


def _test_errors(args: argparse.Namespace) -> int:
    from irmeta.error_rates import error_rate_plan, render, test_errors
    from irmeta.metaeval import test_error_rates as ter

    load_plugins(args.plugin or [])  # before the plan: a plugin may register the --test
    settings = dict(
        n_topics=args.topics or ter.DEFAULT_TOPICS, trials=args.trials or ter.DEFAULT_TRIALS,
        alphas=args.alpha or ter.DEFAULT_ALPHAS, deltas=args.delta or ter.DEFAULT_DELTAS,
        runs_at_once=() if args.no_familywise else (args.runs_at_once or ter.DEFAULT_RUNS_AT_ONCE),
        permutations=args.permutations or ter.DEFAULT_PERMUTATIONS,
        tests=None if not args.test else list(dict.fromkeys(args.test)))
    if args.no_familywise and args.runs_at_once:
        raise ValueError("--no-familywise and --runs-at-once contradict each other: give one")
    try:
        error_rate_plan(**settings)  # refused before any reading
    except ValueError as exc:
        raise ValueError(_flagged(str(exc))) from None
    found = test_errors(args.scores, measure=args.measure, measure_kind=args.measure_kind, seed=args.seed,
                        protocol={"degenerate_runs": args.degenerate_runs,
                                  **({} if args.power_margin is None else {"power_margin": args.power_margin})},
                        hints={"deltas": "--delta", "degenerate_runs": "--degenerate-runs drop"}, **settings)
    dropped = found.models[(found.models["model"] == "dropped") & (found.models["note"] == SINGLE_SCORE)]
    for line in dropped.itertuples():
        err(f"irmeta: {line.collection}: run {line.run} dropped: {line.note} (--degenerate-runs drop)")
    emit(args.output, render(found.rates, args.format, args.digits).encode())
    return 0


#: The choices of SimulationProtocol.power_margin, its default first (a test checks they
#: agree; the parser does not import the simulation).
POWER_MARGINS = ("nearest_runs", "first_run")

#: Why FittedCollection.fit drops a run with one distinct score (degenerate_runs: drop).
SINGLE_SCORE = "a single distinct score"

_FLAGS = {"tests": "--test", "n_topics": "--topics", "alphas": "--alpha", "deltas": "--delta",
          "runs_at_once": "--runs-at-once", "trials": "--trials", "permutations": "--permutations"}


def _flagged(message: str) -> str:
    """A setting's message with its option's name: ``tests: ...`` -> ``--test: ...``."""
    key, sep, rest = message.partition(": ")
    return f"{_FLAGS[key]}: {rest}" if sep and key in _FLAGS else message
