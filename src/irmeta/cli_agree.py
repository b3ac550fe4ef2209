"""``irmeta agree``: can my judgments stand in for the official ones (:mod:`irmeta.agreement`),
on the command line, with ``irmeta compare``'s conventions (:mod:`irmeta.cli_args`): inputs
read as ``irmeta score`` reads them, a single-valued option given twice is a usage error,
``--output`` checked before any work and written atomically, every failure one line with
exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path

from irmeta.api import DEFAULT_ALPHAS, DEFAULT_MEASURES, DEFAULT_SEED
from irmeta.campaign.judgment_sets import UNJUDGED_RULES
from irmeta.cli_args import (
    Once,
    add_reading_options,
    add_report_options,
    bounded_int,
    check_output,
    check_run_file_names,
    gains_map,
    load_plugins,
    path_text,
    report_reading,
    to_stdout,
    write_output,
)
from irmeta.measures.names import MAX_CUTOFF
from irmeta.metaeval.tied_agreement import TAU_ONLY
from irmeta.support.arrow import lean_memory
from irmeta.support.formats import REPORT_FORMATS

_HELP = """Agreement of judgment sets with the official qrels, every run scored under each:
the labels (kappas and Krippendorff's alpha on the documents both judged), per measure
the rankings of the runs (Kendall's tau-b, tau_AP with the qrels' ranking as the
reference, the same best run, the top-5 and top-10 overlap, the run that moves most;
--ties a or b adds the tie-aware variants), and the conclusions of --test (pairs significant
under the qrels only: lost; under the set only: gained; in opposite directions: reversed).

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
    p.add_argument("--qrels", action=Once, type=path_text, required=True, help="the official qrels, plain or .gz")
    p.add_argument("--judgments", required=True, action="append", type=path_text,
                   help="a judgment set's qrels file, or a folder of them (one set each); repeatable")
    p.add_argument("--runs", required=True, nargs="+", action="extend", type=path_text,
                   help="run files, directories or globs; repeatable (each adds runs)")
    p.add_argument("--measure", action="append",
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
    p.add_argument("--families", action=Once, type=path_text,
                   help="a run<TAB>family file (with that header): each family's rank change under each set")
    p.add_argument("--family-permutations", action=Once, type=bounded_int(1), default=10000,
                   help="draws of the families' permutation test (default 10000)")
    p.add_argument("--ties", action="append", choices=list(TAU_ONLY),
                   help="tie-aware rank agreement beside tau-b and tau_AP, repeatable: a (tau_a, tau_ap_a, the qrels' "
                        "ranking as the true one), b (tau_ap_b); runs whose means are equal tie")
    add_report_options(p, REPORT_FORMATS)
    add_reading_options(p, MAX_CUTOFF)
    p.set_defaults(func=_agree)


def _check_output_against_judgments(output: str, judgments: list[str]) -> None:
    """``--output`` may not be one of the judgment files either (check_output knows the
    qrels, runs and plugins)."""
    target = Path(output)
    if not target.exists():
        return
    for spec in judgments:
        path = Path(spec)
        for given in ([p for p in path.iterdir()] if path.is_dir() else [path]):
            try:
                same = os.path.samefile(target, given)
            except OSError:
                continue
            if same:
                raise FileExistsError(errno.EEXIST, f"is one of the inputs ({given}); give --output another path",
                                      output)


def _agree(args: argparse.Namespace) -> int:
    # here, not at the top: the agreement's tables (pandas) would cost every subcommand's start
    from irmeta.agreement import agree_plan, agree_runs, render

    if args.output:
        check_output(args)  # before any work
        _check_output_against_judgments(args.output, args.judgments)
    load_plugins(args.plugin or [])  # before the plan: a plugin may register the --test
    agree_plan(args.test, args.level, args.permutations, args.seed)  # refused before any reading
    check_run_file_names(args.runs, args.run_name)
    lean_memory()
    # only what the user gave: a plugin's own option defaults must stand (as irmeta score)
    options = {"beta": args.beta} if args.beta is not None else {}
    if args.gains is not None:
        options["gains"] = gains_map(args.gains)
    found = agree_runs(args.qrels, args.judgments, args.runs, args.measure or DEFAULT_MEASURES,
                       unjudged=args.unjudged, test=args.test, level=args.level, permutations=args.permutations,
                       seed=args.seed, families=args.families, family_permutations=args.family_permutations,
                       ties=sorted(set(args.ties or [])),
                       depth=args.depth, threshold=args.threshold, average="all",
                       alphas=args.alpha or DEFAULT_ALPHAS, duplicates=args.duplicates, run_name=args.run_name,
                       **options)
    report_reading(found.reference, args.qrels)
    text = render(found, args.format, args.digits).encode()
    if args.output:
        write_output(args.output, text)
    else:
        to_stdout(text)
    return 0
