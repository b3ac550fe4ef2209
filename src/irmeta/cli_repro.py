"""``irmeta repro``: did my reproduction reproduce (:mod:`irmeta.reproduction`), on the
command line, with ``irmeta compare``'s conventions (:mod:`irmeta.cli_args`): a
single-valued option given twice is a usage error, ``--output`` is checked before any
work and written atomically, every failure is one line with exit status 2.
"""

from __future__ import annotations

import argparse

from irmeta.cli_args import (
    Once,
    add_reading_options,
    add_report_options,
    bounded_int,
    emit,
    flags,
    input_path,
    load_plugins,
    measures_typed,
    reading_settings,
    report_spellings,
)
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.tied_agreement import TIED_VARIANTS
from irmeta.support.formats import REPORT_FORMATS

_HELP = """Reproducibility measures of Breuer et al. (SIGIR 2020) for an original baseline
and advanced run and their reproductions: per measure, Kendall's tau Union and RBO of the
rankings (the paper's forms and repro_eval's), RMSE and nRMSE of the per-topic scores,
Effect Ratio, Delta RI, and the p-value of the t-test between original and reproduced
scores (paired; unpaired with --reproduced-qrels, the reproductions having run on another
collection, where the document-order and score columns are empty).

--format markdown (default) or latex: two tables, the rankings (KTU and RBO of each run
pair, original and reproduced named) and the scores (RMSE, nRMSE, ER, Delta RI and the
p-values, one row per measure, named as typed; --canonical for irmeta's names).
--format tsv: one row per measure, columns setting, baseline, advanced, measure, alpha,
ktu_*, rbo_*, rmse_*, nrmse_*, er, delta_ri, p_value_* (baseline and advanced), then
ktu_repro_eval_* and rbo_repro_eval_*; full precision, an undefined value empty.

--ties a, b or w (repeatable) adds the tie-aware document order, the runs' equal scores
tied (ktu and rbo break them by document id): a, ktu_a (tau-a, the original the truth)
and rbo_a (Corsi and Urbano's RBO^a); b, ktu_b (tau-b with the score ties) and rbo_b; w,
rbo_w; after the columns above, for the baseline and the advanced pair.
"""


def _rbo_p(text: str) -> float:
    from irmeta.reproduction import order_settings  # as _repro

    try:
        return order_settings(rbo_p=float(text)).rbo_p
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a persistence in (0, 1)") from None


def add_repro_parser(sub: argparse._SubParsersAction) -> None:
    """The ``repro`` subcommand."""
    p = sub.add_parser("repro", help="did a reproduction reproduce: KTU, RBO, RMSE, ER, Delta RI, t-tests",
                       description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(*flags("--qrels"), action=Once, type=input_path, required=True,
                   help="the original's qrels, plain or .gz")
    for role in ("original-baseline", "original-advanced", "reproduced-baseline", "reproduced-advanced"):
        p.add_argument(f"--{role}", action=Once, type=input_path, required=True, help=f"the {role.replace('-', ' ')} "
                       "run file")
    p.add_argument("--reproduced-qrels", action=Once, type=input_path,
                   help="the reproductions' qrels when they ran on another collection")
    p.add_argument(*flags("--measure"), action="append", help="measure, repeatable, as irmeta score names them; "
                   "default P@10 and AP")
    p.add_argument("--ktu-cutoff", action=Once, type=bounded_int(1), default=rm.KTU_CUTOFF,
                   help=f"documents per ranking KTU compares (default {rm.KTU_CUTOFF})")
    p.add_argument("--rbo-p", action=Once, type=_rbo_p, default=rm.RBO_P,
                   help=f"RBO's persistence (default {rm.RBO_P})")
    p.add_argument("--rbo-depth", action=Once, type=bounded_int(1), default=rm.RBO_DEPTH,
                   help=f"RBO's depth (default {rm.RBO_DEPTH})")
    p.add_argument("--ties", action="append", choices=list(TIED_VARIANTS),
                   help="add the tie-aware KTU and RBO, equal scores tied: a (ktu_a, rbo_a), b (ktu_b, rbo_b), "
                   "w (rbo_w); repeatable")
    add_report_options(p, REPORT_FORMATS)
    add_reading_options(p)
    p.set_defaults(func=_repro)


def _repro(args: argparse.Namespace) -> int:
    # here, not at the top: the reproduction's tables (pandas) would cost every subcommand's start
    from irmeta.reproduction import order_settings, render, reproduce

    load_plugins(args.plugin or [])
    order = order_settings(args.ktu_cutoff, args.rbo_p, args.rbo_depth, sorted(set(args.ties or [])))
    measures = measures_typed(args)
    spellings = report_spellings(args, measures)
    result = reproduce(args.qrels, [args.original_baseline, args.original_advanced, args.reproduced_baseline,
                                    args.reproduced_advanced], list(measures.values()),
                       reproduced_qrels=args.reproduced_qrels, order=order, **reading_settings(args))
    emit(args.output, render(result, args.format, args.digits, spellings).encode())
    return 0
