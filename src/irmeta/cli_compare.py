"""``irmeta compare``: which of my runs differ (:mod:`irmeta.comparison`), on the command
line. It reads its inputs as ``irmeta score`` does (files, folders, globs, gzip) and keeps
its conventions (:mod:`irmeta.cli_args`): a single-valued option given twice is a usage error,
``--runs`` is repeatable, ``--output`` is checked before any work and written atomically,
every failure is one line with exit status 2.
"""

from __future__ import annotations

import argparse

from irmeta.api import DEFAULT_SEED, score
from irmeta.cli_args import (
    Once,
    add_reading_options,
    add_report_options,
    bounded_int,
    check_run_file_names,
    emit,
    flags,
    input_path,
    load_plugins,
    measures_typed,
    reading_settings,
    report_reading,
    report_spellings,
)
from irmeta.comparison import FORMATS, SMALLEST_LEVEL, compare_plan, compare_scores, compare_tests, render
from irmeta.metaeval.stats.registry import correction_names
from irmeta.support.arrow import lean_memory

_HELP = """Compare runs: per run and measure the mean (every qrels topic, missing ones
score 0) and, against --baseline (or between every pair of runs without one), the
difference, the p-value of --test, the p-value adjusted by --correction over that
measure's comparisons, Cohen's d_z and the paired t interval at 1 - --level.

--format markdown (default) or latex: a row per run, lettered a, b, c..., and per
measure its mean with, as superscripts, the letters of the runs it is significantly
better than (as ranx's report). --format tsv: one row per run and run compared against,
columns run, measure, mean, baseline, difference, p_value, p_adjusted, effect_size_dz,
ci_low, ci_high, significant. tukey_hsd corrects for every pair itself (--correction
none, its default); the randomised tests draw --permutations from --seed, so the same
seed prints the same bytes, and report p = (b + 1) / (B + 1) (randomisation_count and
paired_bootstrap_count: b / B); a warning says when too few draws leave every comparison
short of --level under --correction.
"""


def _level(text: str) -> float:
    """An argparse type: a significance level in [SMALLEST_LEVEL, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not SMALLEST_LEVEL <= value < 1.0:  # also refuses NaN
        why = " (below it the interval's 1 - level/2 rounds to 1)" if 0.0 < value < SMALLEST_LEVEL else ""
        raise argparse.ArgumentTypeError(f"{text} is not a significance level in [{SMALLEST_LEVEL:g}, 1){why}")
    return value


def add_compare_parser(sub: argparse._SubParsersAction) -> None:
    """The ``compare`` subcommand, its options named and checked as ``score``'s."""
    p = sub.add_parser("compare", help="which runs differ: means, paired tests, corrections (Markdown, LaTeX, TSV)",
                       description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(*flags("--qrels"), action=Once, type=input_path, required=True, help="qrels file, plain or .gz")
    p.add_argument(*flags("--runs"), required=True, nargs="+", action="extend", type=input_path,
                   help="run files, directories or globs; repeatable (each adds runs)")
    p.add_argument(*flags("--measure"), action="append",
                   help="measure, repeatable, as irmeta score names them (AP@100, P_rareness(alpha=0.5)@100, "
                        "map, ...); default P@10 and AP")
    p.add_argument("--baseline", action=Once, help="compare every other run with this one (default: every pair)")
    # --test is checked once the plugins are in: a --plugin may register tests
    p.add_argument("--test", action=Once, default="paired_t",
                   help=f"the test: {', '.join(compare_tests())} or a --plugin's (default paired_t)")
    p.add_argument("--correction", action=Once, choices=correction_names(none=True), default=None,
                   help="multiple-comparison correction per measure (default holm; none for tukey_hsd)")
    p.add_argument("--level", action=Once, type=_level, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--permutations", action=Once, type=bounded_int(1), default=1000,
                   help="draws of the randomised tests (randomisation, paired_bootstrap; default 1000)")
    p.add_argument("--seed", action=Once, type=bounded_int(0), default=DEFAULT_SEED,
                   help=f"seed of the randomised tests (default {DEFAULT_SEED})")
    add_report_options(p, FORMATS)
    add_reading_options(p)
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    load_plugins(args.plugin or [])  # before the plan: a plugin may register the --test
    plan = compare_plan(args.test, args.correction, args.level, args.permutations, args.seed)  # before reading
    check_run_file_names(args.runs, args.run_name, args.format)  # a name the format cannot carry, before scoring
    measures = measures_typed(args)
    spellings = report_spellings(args, measures)
    lean_memory()
    scored = score(args.qrels, args.runs, list(measures.values()), average="all", **reading_settings(args))
    report_reading(scored, args.qrels)
    emit(args.output, render(compare_scores(scored.scores, plan, args.baseline), args.format, args.digits,
                             spellings).encode())
    return 0
