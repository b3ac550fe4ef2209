"""``irmeta``: scores for people who just want scores, in the spirit of trec_eval.

    irmeta score --qrels QRELS --runs RUN_OR_DIR... --measure P@100 --measure AP@100
    irmeta simulate --out DIR --seed 42

``score`` prints TSV (run, measure, qid, value); qid ``all`` is the mean over topics,
rareness measures carry their alpha in ir_measures' notation (``P_rareness(alpha=0.5)@100``)
and count rarity over the runs given (S = their number),
averaged as ``--average`` says (``all``: every qrels topic, missing ones score 0, as
trec_eval -c; ``returned``: only the topics the run returned, trec_eval's default).
"""

from __future__ import annotations

import argparse
import io as _stdio
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from . import io
from .metrics import MEASURES, parse_alpha, parse_measure, score_table
from .ranking import judge_runs


def _score(args: argparse.Namespace) -> int:
    measures = [parse_measure(m) for m in (args.measure or ["P@10", "AP"])]
    qrels = io.read_qrels(args.qrels)
    matrix, reading = judge_runs(args.runs, qrels, depth=args.depth, threshold=args.threshold,
                                 duplicates=args.duplicates, run_name=args.run_name)
    for run, topics in sorted(matrix.ignored_topics.items()):
        print(f"irmeta: {run}: {len(topics)} topic(s) not in the qrels ignored: {' '.join(topics)}",
              file=sys.stderr)
    for run, n in reading["dropped_duplicates"].items():
        print(f"irmeta: {run}: {n} duplicate document(s) dropped (kept the best-ranked copy)", file=sys.stderr)
    alphas = [parse_alpha(a) for a in (args.alpha or ["0", "0.25", "0.5", "0.75", "1"])]
    options = {"beta": args.beta, "asl_unretrieved": args.asl_unretrieved}
    if args.gains:
        options["gains"] = _gains(args.gains)
    table = score_table(matrix, measures, averaging=(args.average,), per_topic=args.per_topic,
                        alphas=alphas, rarity_depth=args.rarity_depth, **options)
    # ir_measures' notation for parameters: P_rareness(alpha=0.5)@100
    with_alpha = table["alpha"].notna()
    family = table["measure"].str.replace(r"@.*$", "", regex=True)
    cutoff = table["measure"].str.extract(r"(@\d+)$", expand=False).fillna("")
    table.loc[with_alpha, "measure"] = (family + "(alpha=" + table["alpha"] + ")" + cutoff)[with_alpha]
    table = table[["run", "measure", "qid", "value"]]
    text = _stdio.StringIO()
    float_format = f"%.{args.digits}f" if args.digits is not None else None
    table.to_csv(text, sep="\t", index=False, float_format=float_format, lineterminator="\n")
    if args.output:
        out = Path(args.output)
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(text.getvalue())
        tmp.replace(out)
    else:
        sys.stdout.write(text.getvalue())
    return 0


def _gains(text: str) -> dict[int, float]:
    """``"1:1,2:3"`` -> {1: 1.0, 2: 3.0}."""
    try:
        return {int(g): float(v) for g, v in (pair.split(":") for pair in text.split(","))}
    except ValueError:
        raise ValueError(f"--gains {text!r}: write grade:gain pairs, e.g. 1:1,2:3") from None


def _simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate_campaign

    made = simulate_campaign(args.out, seed=args.seed, n_runs=args.runs, n_topics=args.topics, depth=args.depth)
    print(f"wrote {made['qrels']} and {len(made['runs'])} runs under {Path(args.out) / 'runs'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="irmeta", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"irmeta {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    score = sub.add_parser("score", help="score runs against qrels (TSV: run, measure, qid, value)")
    score.add_argument("--qrels", required=True, help="qrels file (qid iter docid grade), plain or .gz")
    score.add_argument("--runs", required=True, nargs="+", help="run files, directories or globs")
    score.add_argument("--measure", action="append",
                       help=f"measure, repeatable, e.g. P@100, AP@100 (families: {', '.join(sorted(MEASURES))})")
    score.add_argument("--per-topic", action="store_true", help="also print one row per topic")
    score.add_argument("--output", help="write the TSV here instead of standard output")
    score.add_argument("--average", choices=["all", "returned"], default="all",
                       help="mean over every qrels topic (default, trec_eval -c) or over returned topics")
    score.add_argument("--threshold", type=int, default=1, help="grade at or above which a document is relevant")
    score.add_argument("--depth", type=int, default=None, help="keep the top N documents of each topic (trec_eval -M)")
    score.add_argument("--duplicates", choices=["error", "first"], default="error",
                       help="a docid twice for a topic: refuse (trec_eval) or keep the best-ranked copy")
    score.add_argument("--run-name", choices=["file", "tag"], default="file",
                       help="name runs by file name (minus .gz) or by their tag column")
    score.add_argument("--alpha", action="append",
                       help="rarity weight of the rareness measures, repeatable: a number or 1/R "
                            "(1/N_R per topic); default 0, 0.25, 0.5, 0.75, 1")
    score.add_argument("--rarity-depth", type=int, default=None,
                       help="depth at which S_d (runs retrieving a document) is counted; default: the cutoff")
    score.add_argument("--gains", help="grade:gain pairs of the graded measures (nDCG, Q, O, Pmeasure, "
                                        "Pplus), e.g. 1:1,2:3; default gain = grade")
    score.add_argument("--beta", type=float, default=1.0, help="Sakai's blended-ratio beta (Q, O, Pmeasure, Pplus)")
    score.add_argument("--asl-unretrieved", choices=["paper", "plus_one", "depth"], default="paper",
                       help="ASL of a relevant document not returned: eq. 3 as printed, +1, or padded to the depth")
    score.add_argument("--digits", type=int, default=None, help="round values to this many decimals")
    score.set_defaults(func=_score)

    sim = sub.add_parser("simulate", help="write a synthetic campaign (qrels and runs)")
    sim.add_argument("--out", required=True, help="output directory")
    sim.add_argument("--seed", type=int, default=42)
    sim.add_argument("--runs", type=int, default=24, help="number of runs")
    sim.add_argument("--topics", type=int, default=25, help="number of topics")
    sim.add_argument("--depth", type=int, default=100, help="documents per topic in each run")
    sim.set_defaults(func=_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (io.TrecFormatError, FileNotFoundError, ValueError, KeyError) as exc:
        print(f"irmeta: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
