"""``irmeta agree``: can my judgments stand in for the official ones (:mod:`irmeta.agreement`),
on the command line, with ``irmeta compare``'s conventions (:mod:`irmeta.cli_args`): inputs
read as ``irmeta score`` reads them, a single-valued option given twice is a usage error,
``--output`` checked before any work and written atomically, every failure one line with
exit status 2.
"""

from __future__ import annotations

import argparse
from functools import partial

from irmeta.api import DEFAULT_SEED
from irmeta.campaign.judgment_sets import UNJUDGED_RULES
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
from irmeta.metaeval.tied_agreement import TAU_ONLY
from irmeta.support.arrow import lean_memory
from irmeta.support.formats import REPORT_FORMATS

_HELP = """Agreement of judgment sets with the official qrels, every run scored under each:
the labels (kappas and Krippendorff's alpha on the documents both judged), per measure
the rankings of the runs (Kendall's tau-b, tau_AP with the qrels' ranking as the
reference, the same best run, the top-5 and top-10 overlap, the run that moves most;
--ties a or b adds the tie-aware variants), and the conclusions of --test (pairs significant
under the qrels only: lost; under the set only: gained; in opposite directions: reversed).
Without --runs, the labels alone (a judge's labels before any run is scored); an option of
the runs' scores given then is refused.

--judgments is a file (a set named after it without its extension) or a folder (one set
per file), repeatable. --unjudged reference: documents a set did not judge take the
qrels' grade. --families FILE (a 'run<TAB>family' file with that header, every run once)
adds a table of each family's mean rank change and its permutation p. --format markdown
(default), latex or tsv (a block per table, each a '# ' caption line, a header and its rows).
"""


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 1e-15 <= value < 1.0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"{text} is not a significance level in [1e-15, 1)")
    return value


def add_agree_parser(sub: argparse._SubParsersAction) -> None:
    """The ``agree`` subcommand, its options named and checked as ``compare``'s."""
    p = sub.add_parser("agree", help="do other judgments agree with the qrels: labels, rankings, conclusions",
                       description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(*flags("--qrels"), action=Once, type=input_path, required=True,
                   help="the official qrels, plain or .gz")
    p.add_argument("--judgments", required=True, action="append", type=input_path,
                   help="a judgment set's qrels file, or a folder of them (one set each); repeatable")
    p.add_argument(*flags("--runs"), nargs="+", action="extend", type=input_path,
                   help="run files, directories or globs; repeatable (each adds runs); without them, the label "
                        "agreement alone")
    p.add_argument(*flags("--measure"), action="append",
                   help="measure, repeatable, as irmeta score names them; default P@10 and AP")
    p.add_argument("--unjudged", action=Once, choices=list(UNJUDGED_RULES), default="nonrelevant",
                   help="what a document a set did not judge is: nonrelevant (default) or the qrels' grade")
    # --test is checked once the plugins are in: a --plugin may register tests
    p.add_argument("--test", action=Once, default="paired_t+holm",
                   help="paired test, +correction, of the conclusions (default paired_t+holm)")
    p.add_argument("--level", action=Once, type=_level, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--permutations", action=Once, type=bounded_int(1), default=1000,
                   help="draws of the randomised tests (default 1000)")
    p.add_argument("--seed", action=Once, type=bounded_int(0), default=DEFAULT_SEED,
                   help=f"seed of the randomised tests (default {DEFAULT_SEED})")
    p.add_argument("--families", action=Once, type=input_path,
                   help="a run<TAB>family file (with that header): each family's rank change under each set")
    p.add_argument("--family-permutations", action=Once, type=bounded_int(1), default=10000,
                   help="draws of the families' permutation test (default 10000)")
    p.add_argument("--ties", action="append", choices=list(TAU_ONLY),
                   help="tie-aware rank agreement beside tau-b and tau_AP, repeatable: a (tau_a, tau_ap_a, the qrels' "
                        "ranking as the true one), b (tau_ap_b); runs whose means are equal tie")
    add_report_options(p, REPORT_FORMATS)
    add_reading_options(p)
    run_only = {a.dest: (max(a.option_strings, key=len), a.default) for a in p._actions
                if a.option_strings and a.dest not in _LABEL_OPTIONS}
    p.set_defaults(func=partial(_agree, run_only=run_only))


#: What the labels alone read (no --runs); every other option applies to the runs.
_LABEL_OPTIONS = ("help", "qrels", "judgments", "runs", "threshold", "plugin", "format", "output", "digits")


def _refuse_run_options(args: argparse.Namespace, run_only: dict[str, tuple[str, object]]) -> None:
    """Without --runs only the labels are compared: an option of the runs' scores or
    conclusions given (other than its default) would change nothing, so it is refused."""
    given = [flag for dest, (flag, default) in run_only.items() if getattr(args, dest) != default]
    if given:
        raise ValueError(f"{', '.join(given)} apply to the runs' scores, and no --runs were given: without runs "
                         f"agree compares the labels alone (--threshold is theirs)")


def _agree(args: argparse.Namespace, run_only: dict[str, tuple[str, object]]) -> int:
    # here, not at the top: the agreement's tables (pandas) would cost every subcommand's start
    from irmeta.agreement import agree_plan, agree_runs, render

    load_plugins(args.plugin or [])  # before the plan: a plugin may register the --test
    agree_plan(args.test, args.level, args.permutations, args.seed)  # refused before any reading
    spellings: dict[str, str] = {}
    if not args.runs:  # the labels alone
        _refuse_run_options(args, run_only)
        found = agree_runs(args.qrels, args.judgments, threshold=args.threshold)
    else:
        check_run_file_names(args.runs, args.run_name, args.format)
        measures = measures_typed(args)
        spellings = report_spellings(args, measures)
        lean_memory()
        found = agree_runs(args.qrels, args.judgments, args.runs, list(measures.values()),
                           unjudged=args.unjudged, test=args.test, level=args.level,
                           permutations=args.permutations, seed=args.seed, families=args.families,
                           family_permutations=args.family_permutations, ties=sorted(set(args.ties or [])),
                           average="all", **reading_settings(args))
        report_reading(found.reference, args.qrels)
    emit(args.output, render(found, args.format, args.digits, spellings).encode())
    return 0
