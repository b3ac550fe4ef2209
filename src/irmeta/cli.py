"""``irmeta``: scores for people who just want scores, in the spirit of trec_eval.

    irmeta score --qrels QRELS --runs RUN_OR_DIR... --measure P@100 --measure AP@100
    irmeta compare --qrels QRELS --runs RUN_OR_DIR... --measure AP@100 --test paired_t
    irmeta test-errors --scores MATRIX.csv --measure-kind continuous --trials 1000
    irmeta simulate --out DIR --seed 42
    irmeta measures --search rbp --peer ranx

``score`` prints TSV (run, measure, qid, value), or with ``--format trec_eval`` what
``trec_eval [-q]`` prints (per run ``measure qid value``, then ``runid all <run>`` and the
means); qid ``all`` is the mean over topics,
rareness measures carry their alpha in ir_measures' notation (``P_rareness(alpha=0.5)@100``)
and count rarity over the runs given (S = their number),
averaged as ``--average`` says (``all``: every qrels topic, missing ones score 0, as
trec_eval -c; ``returned``: only the topics the run returned, trec_eval's default;
``geometric``: exp(mean(log(max(score, 1e-5)))) over every qrels topic, trec_eval's gm_map
rule, its mean rows named ``gm_<measure>`` as trec_eval names ``gm_map``).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from irmeta import __version__
from irmeta.api import DEFAULT_MEASURES, score
from irmeta.campaign.errors import TrecFormatWarning
from irmeta.cli_agree import add_agree_parser
from irmeta.cli_args import (
    INPUT_ERRORS,
    Once,
    Parser,
    add_measures_options,
    add_reading_options,
    bounded_int,
    check_paths,
    check_run_file_names,
    command_parser,
    emit,
    err,
    flags,
    input_path,
    load_plugins,
    output_folder,
    output_path,
    reading_settings,
    report_reading,
    terminal_progress,
    worded_for_the_command_line,
)
from irmeta.cli_compare import add_compare_parser
from irmeta.cli_repro import add_repro_parser
from irmeta.cli_test_errors import add_test_errors_parser
from irmeta.comparison import TooFewDrawsWarning
from irmeta.measures.averaging import AVERAGING_NAMES, Scores
from irmeta.measures.counts import SUMMED
from irmeta.measures.names import trec_eval_name
from irmeta.measures.registry import MEASURES
from irmeta.support.arrow import joined_bytes, lean_memory
from irmeta.support.formats import check_tsv_names, refuse_non_finite_scores
from irmeta.support.interrupts import latched, raise_if_interrupted


def _score(args: argparse.Namespace) -> int:
    check_run_file_names(args.runs, args.run_name, args.format)
    lean_memory()
    load_plugins(args.plugin or [])
    scored = score(args.qrels, args.runs, args.measure or DEFAULT_MEASURES, average=args.average,
                   **reading_settings(args))
    report_reading(scored, args.qrels)
    if args.format == "trec_eval":
        digits = 4 if args.digits is None else args.digits  # trec_eval prints 4 decimals
        returned = scored.matrix.returned if args.average == "returned" else None  # as trec_eval -q without -c
        # trec_eval -c sums num_rel as the qrels' judgments graded > 0, whatever -l (m_num_rel.c)
        judged_relevant = int((scored.matrix.qrels_grade > 0).sum()) if args.average == "all" else None
        text = scores_trec_eval(scored.scores, per_topic=args.per_topic, digits=digits, returned=returned,
                                num_rel_all=judged_relevant)
    else:
        text = scores_tsv(scored.scores, per_topic=args.per_topic, digits=args.digits)
    emit(args.output, text)
    return 0


def scores_tsv(scores: Scores, *, per_topic: bool, digits: int | None) -> bytes:
    """TSV ``run, measure, qid, value``: per measure (and alpha, in ir_measures' notation
    ``P_rareness(alpha=0.5)@100``) the per-topic rows when asked, then the means (qid
    ``all``); values at full precision (shortest round trip) or ``digits`` decimals.
    Built column-wise, not line by line. A name TSV cannot carry and a value that is not
    finite are refused (:func:`check_scores_writable`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    check_scores_writable(scores, per_topic=per_topic)
    n_runs, n_topics = len(scores.runs), len(scores.topics)
    runs, qids = pa.array(scores.runs, pa.string()), pa.array(scores.topics + ["all"], pa.string())
    if per_topic:
        run_rows = np.repeat(np.arange(n_runs), n_topics)
        qid_rows = np.tile(np.arange(n_topics), n_runs)
    chunks = [b"run\tmeasure\tqid\tvalue\n"]
    for i, measure in enumerate(scores.labelled()):
        label = str(measure)
        parts = [(run_rows, qid_rows, scores.per_topic[i].reshape(-1), label)] if per_topic else []
        parts += [(np.arange(n_runs), np.full(n_runs, n_topics), means[i], _mean_label(label, name))
                  for name, means in scores.means.items()]
        for run_index, qid_index, values, shown in parts:
            text = (pc.cast(pa.array(values), pa.string()) if digits is None
                    else pa.array([f"{v:.{digits}f}" for v in values.tolist()], pa.string()))
            lines = pc.binary_join_element_wise(runs.take(pa.array(run_index)), shown,
                                                qids.take(pa.array(qid_index)),
                                                pc.binary_join_element_wise(text, "\n", ""), "\t")
            chunks.append(joined_bytes(lines))
    return b"".join(chunks)


def check_scores_writable(scores: Scores, *, per_topic: bool, trec_eval: bool = False) -> None:
    """What a scores output must hold to be read back (:mod:`irmeta.measures.score_files`):
    run, measure and topic names a TSV field can carry (no tab, newline, carriage return;
    in ``trec_eval``'s format no whitespace in a run's name either), and finite values
    only: NaN or infinity is a bug upstream, refused naming the measure, run and topic
    (:mod:`irmeta.support.formats`)."""
    check_tsv_names("run", scores.runs, trec_eval=trec_eval)
    labelled = scores.labelled()
    labels = [str(m) for m in labelled]
    check_tsv_names("measure", [trec_eval_name(m) for m in labelled] if trec_eval else labels, trec_eval=trec_eval)
    check_tsv_names("topic", scores.topics, trec_eval=trec_eval)
    refuse_non_finite_scores(scores.per_topic if per_topic else None, scores.means, scores.runs, scores.topics,
                             labels)


def scores_trec_eval(scores: Scores, *, per_topic: bool, digits: int = 4, returned: np.ndarray | None = None,
                     num_rel_all: int | None = None) -> bytes:
    """What ``trec_eval [-q]`` prints: per run, with ``per_topic`` its lines ``measure qid
    value`` topic by topic, then ``runid all <run>`` and its means (qid ``all``); names in
    trec_eval's spelling where it has one (:func:`~irmeta.measures.names.trec_eval_name`),
    padded as trec_eval pads them, values at ``digits`` decimals. ``returned`` (runs,
    topics): the topics each run returned, whose lines alone are printed, as ``trec_eval
    -q`` without ``-c`` prints them (None: every qrels topic, as with ``-c``). The counts
    (num_q, num_ret, num_rel, num_rel_ret: :data:`~irmeta.measures.counts.SUMMED`) print as
    trec_eval prints them: integers, the ``all`` line their sum over the topics averaged
    (num_q's their number) where every other measure's is the mean, and num_q has no
    per-topic line; ``num_rel_all``: num_rel's ``all`` line as trec_eval -c prints it (the
    qrels' judgments graded > 0, whatever the threshold). Built column-wise: every line in
    one array, put in trec_eval's order by one permutation."""
    import pyarrow as pa
    import pyarrow.compute as pc

    check_scores_writable(scores, per_topic=per_topic, trec_eval=True)
    n_runs, n_topics, n_blocks = len(scores.runs), len(scores.topics), len(scores.measures)
    printed = [trec_eval_name(m) for m in scores.labelled()]
    names = [name.ljust(22) for name in printed]
    averaging, means = next(iter(scores.means.items()), ("", np.zeros((n_blocks, n_runs))))
    mean_names = [_mean_label(name, averaging).ljust(22) for name in printed]
    # per-topic lines run-major, topic, then measure (trec_eval's -q order); then per run
    # its runid line and one mean line per measure
    topic_rows = np.tile(np.repeat(np.arange(n_topics), n_blocks), n_runs) if per_topic else np.zeros(0, int)
    counted = np.array([m.family in SUMMED for m in scores.parsed], dtype=bool)
    averaged = (np.full(n_runs, n_topics) if returned is None else np.asarray(returned, bool).sum(axis=1))
    summary = np.where(counted[:, None], means * averaged[None, :], means)  # trec_eval sums the counts
    if num_rel_all is not None:
        summary[np.array([m.family == "NumRel" for m in scores.parsed], dtype=bool)] = num_rel_all
    per_topic_values = scores.per_topic.transpose(1, 2, 0).reshape(-1) if per_topic else np.zeros(0)
    lines = pa.concat_arrays([
        _tab_joined(pa.array(names * (n_runs * n_topics if per_topic else 0), pa.string()),
                   pa.array(scores.topics, pa.string()).take(pa.array(topic_rows)),
                   _fixed_or_whole(per_topic_values, np.tile(counted, n_runs * n_topics if per_topic else 0),
                                   digits)),
        _tab_joined(pa.array(["runid".ljust(22)] * n_runs, pa.string()), pa.array(["all"] * n_runs, pa.string()),
                   pa.array(scores.runs, pa.string())),
        _tab_joined(pa.array(mean_names * n_runs, pa.string()), pa.array(["all"] * (n_runs * n_blocks), pa.string()),
                   _fixed_or_whole(summary.T.reshape(-1), np.tile(counted, n_runs), digits)),
    ])
    per_run = n_topics * n_blocks if per_topic else 0
    first_runid, first_mean = n_runs * per_run, n_runs * per_run + n_runs
    run = np.arange(n_runs)[:, None]
    order = np.concatenate([run * per_run + np.arange(per_run), first_runid + run,
                            first_mean + run * n_blocks + np.arange(n_blocks)], axis=1)
    shown = np.ones(order.shape, bool)
    if returned is not None and per_topic:  # a topic the run did not return has no line
        shown[:, :per_run] = np.repeat(np.asarray(returned, bool), n_blocks, axis=1)
    if per_topic:  # num_q has no per-topic line in trec_eval -q
        no_line = np.array([m.family == "NumQ" for m in scores.parsed], dtype=bool)
        shown[:, :per_run] &= ~np.tile(no_line, n_topics)[None, :]
    order = order[shown]
    order = order.reshape(-1)
    return joined_bytes(pc.binary_join_element_wise(lines.take(pa.array(order)), "\n", ""))


def _mean_label(label: str, averaging: str) -> str:
    """A mean row's measure name: the geometric mean's is ``gm_<name>``, as trec_eval names
    ``gm_map`` (so that reading the output back never takes it for an arithmetic mean)."""
    return f"gm_{label}" if averaging == AVERAGING_NAMES["geometric"] else label


def _tab_joined(name, qid, value):
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(name, qid, value, "\t")


def _fixed_or_whole(values: np.ndarray, whole: np.ndarray, digits: int):
    """``values`` at ``digits`` decimals, those flagged ``whole`` as integers (printf's %ld)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not whole.any():
        return _fixed(values, digits)
    integers = pc.cast(pa.array(np.rint(values).astype(np.int64)), pa.string())
    return pc.if_else(pa.array(whole), integers, _fixed(values, digits))


def _fixed(values: np.ndarray, digits: int):
    """Values at ``digits`` decimals, as printf's %.Nf writes them."""
    import pyarrow as pa

    return pa.array(list(map(f"{{:.{digits}f}}".format, values.tolist())), pa.string())


def _simulate(args: argparse.Namespace) -> int:
    from irmeta.simulate import simulate_campaign

    if args.pool_size < args.depth:  # named as the options are (simulate_campaign names its keywords)
        raise ValueError(f"--pool-size {args.pool_size} cannot fill --depth {args.depth}: each run ranks --depth "
                         f"distinct documents per topic out of --pool-size candidates")
    made = simulate_campaign(args.out, seed=args.seed, n_runs=args.runs, n_topics=args.topics, depth=args.depth,
                             pool_size=args.pool_size, threads=args.threads)
    print(f"wrote {made['qrels']} and {len(made['runs'])} runs under {Path(args.out) / 'runs'}")
    return 0


def _measures(args: argparse.Namespace) -> int:
    from irmeta.measures.catalogue import listing

    load_plugins(args.plugin or [])
    sys.stdout.write(listing(args.search, args.peer))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="irmeta", description=_DESCRIPTION, epilog=_EXAMPLES,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"irmeta {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    score = sub.add_parser("score", help="score runs against qrels (TSV: run, measure, qid, value)",
                           description=_SCORE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    score.add_argument(*flags("--qrels"), action=Once, type=input_path, required=True,
                       help="qrels file (qid iter docid grade), plain or .gz")
    score.add_argument(*flags("--runs"), required=True, nargs="+", action="extend", type=input_path,
                       help="run files, directories or globs; repeatable (each adds runs)")
    score.add_argument(*flags("--measure"), action="append",
                       help=f"measure, repeatable, e.g. P@100, AP@100, nDCG(gains={{1:1,2:3}})@10, or trec_eval's "
                            f"names (P_100, map, ndcg, bpref, ...); families: {', '.join(sorted(MEASURES))}")
    score.add_argument("--per-topic", action="store_true", help="also print one row per topic")
    score.add_argument(*flags("--output"), action=Once, type=output_path,
                       help="write the TSV here instead of standard output ('-'; a new or regular file, not an "
                            "input)")
    score.add_argument(*flags("--format"), action=Once, choices=["irmeta", "trec_eval"], default="irmeta",
                       help="irmeta's TSV (run, measure, qid, value; default) or trec_eval's output (measure "
                            "qid value per run, its runid line, trec_eval's names where it has them, "
                            "4 decimals unless --digits); irmeta.measures.score_files reads both back")
    score.add_argument("--average", action=Once, choices=["all", "returned", "geometric"], default="all",
                       help="mean over every qrels topic (default, trec_eval -c), over returned topics, or the "
                            "geometric mean over every qrels topic (trec_eval's gm_map rule: scores below 1e-5 "
                            "count as 1e-5; mean rows named gm_<measure>)")
    add_reading_options(score)
    score.add_argument("--digits", action=Once, type=bounded_int(0, 17), default=None,
                       help="round values to this many decimals (0 to 17)")
    score.set_defaults(func=_score)

    add_compare_parser(sub)
    add_repro_parser(sub)
    add_agree_parser(sub)
    add_test_errors_parser(sub)

    measures = sub.add_parser("measures", help="list every measure family, its parameters and its peers' names",
                              description=_MEASURES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_measures_options(measures)
    measures.set_defaults(func=_measures)

    sim = sub.add_parser("simulate", help="write a synthetic campaign (qrels and runs)")
    sim.add_argument("--out", action=Once, type=output_folder, required=True,
                     help="output folder: new, empty, or one irmeta simulate made (it replaces only its own files)")
    sim.add_argument("--seed", action=Once, type=bounded_int(0), default=42,
                     help="seed of the draws: the same seed writes the same files (default 42)")
    sim.add_argument("--runs", action=Once, type=bounded_int(2, 100_000), default=24, help="number of runs")
    sim.add_argument("--topics", action=Once, type=bounded_int(1, 1_000_000), default=25, help="number of topics")
    sim.add_argument("--depth", action=Once, type=bounded_int(1, 100_000), default=100,
                     help="documents per topic in each run")
    sim.add_argument("--pool-size", action=Once, type=bounded_int(1, 32767), default=400,
                     help="candidate documents per topic (runs retrieve from them)")
    sim.add_argument("--threads", action=Once, type=bounded_int(1, 256), default=2,
                     help="threads drawing topics and writing runs")
    sim.set_defaults(func=_simulate)
    return parser


# What `irmeta --help` says, in plain text (the module's docstring is for the API pages).
_DESCRIPTION = """Scores of retrieval runs against qrels, with trec_eval's numbers, and the
meta-evaluation around them: which runs differ, whether other judgments agree with the
qrels, whether a reproduction reproduced. Runs and qrels are TREC files, plain or
gzipped; --runs takes files, folders and globs. Each subcommand's --help says more.
"""

_EXAMPLES = """examples:
  irmeta score -q qrels.txt -r runs/ -m P@100 -m AP@100
      TSV: run, measure, qid, value; the mean over topics as qid 'all'
  irmeta score -q qrels.txt -r run.gz -m map -m P_10 -f trec_eval --per-topic
      what trec_eval -q -c -m map -m P.10 prints
  irmeta compare -q qrels.txt -r runs/ -m AP@100 --test paired_t
      means, paired tests and corrected p-values, as a Markdown table
  irmeta agree -q qrels.txt --judgments mine.txt -r runs/
      agreement of other judgments with the qrels: labels, rankings, conclusions
  irmeta repro -q qrels.txt --original-baseline b.gz --original-advanced a.gz
               --reproduced-baseline b2.gz --reproduced-advanced a2.gz
      Breuer et al.'s reproducibility measures: KTU, RBO, RMSE, ER, Delta RI, p
  irmeta simulate --out campaign/ --seed 42
      a synthetic campaign (qrels and runs) to try the others on
"""


_SCORE_HELP = """Score runs against qrels, as trec_eval does: trec_eval's names (P_10, map,
map_cut_100, ndcg, ndcg_cut_10, recip_rank, recall_100, Rprec, bpref, set_P,
set_recall, set_F, success_10) give trec_eval's values for the same flags (--depth is
-M, --threshold is -l, --average all is -c). irmeta's own names go further: @k on a
measure trec_eval has no cutoff for cuts the run at k first (AP@k is map at -M k);
nDCG@k is ndcg_cut_k (its ideal list cut at k); P without @k divides by --depth. A
gain map (--gains) gives grades it does not name gain 0. Rareness measures count
rarity over the runs given, so they alone depend on which runs are scored together.

Parameters may be written in a measure's name, as ir_measures does; they win over
--gains, --beta, --asl-unretrieved and --alpha, so one call can score a measure under
several settings: --measure 'nDCG(gains={1:1,2:3})@10' --measure nDCG@10
--measure 'Q(beta=0.5)@100' --measure 'ASL(asl_unretrieved=depth)'
--measure 'P_rareness(alpha=0.5)@100'.
"""


_MEASURES_HELP = """List every measure family irmeta computes: its definition, whether higher is
better, the parameters a name takes (family(key=value)@k) and their defaults, and the
names trec_eval, ir_measures and ranx give it, each with irmeta's reading of it and
what differs (or why irmeta refuses it). The same registry docs/names.md is written
from; --measure takes any name listed here.
"""


_INTERRUPTED_STATUS = 130  # 128 + SIGINT, what a shell reports for a process Ctrl-C stopped


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    if isinstance(exc, OverflowError):
        return f"a number is too large for 64 bits ({exc})"
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


def _reader_gone() -> int:
    """Standard output's reader has gone (``irmeta score ... | head``): quiet, as Unix
    tools are, with the status a shell reports for SIGPIPE (128 + 13). Standard output
    is pointed at /dev/null, as Python's documentation recommends, so that its flush at
    exit cannot fail again with a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # not a file (captured, in tests): nothing to flush
        pass
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C before any work: nothing written, the same one line
        err("irmeta: interrupted")
        return _INTERRUPTED_STATUS
    error = ""
    with warnings.catch_warnings(record=True) as caught, latched():
        warnings.simplefilter("always", TrecFormatWarning)
        warnings.simplefilter("always", TooFewDrawsWarning)
        try:
            check_paths(command_parser(parser, args.command), args)  # before any work, every command
            with terminal_progress():  # bars on a terminal's standard error, nothing elsewhere
                code = args.func(args)
            raise_if_interrupted()  # swallowed by a library on the way: still an interrupt
            if sys.stdout is not None:
                sys.stdout.flush()  # a reader gone shows here, not in Python's flush at exit
        except BrokenPipeError:
            code = _reader_gone()
        except MemoryError as exc:  # what no machine can hold: one line, not a traceback
            code, error = 2, f"out of memory{f' ({exc})' if str(exc) else ''}"
        except INPUT_ERRORS as exc:
            code, error = 2, _message(worded_for_the_command_line(exc, args))
        except KeyboardInterrupt:  # Ctrl-C: outputs are atomic, so nothing partial is left
            code = _INTERRUPTED_STATUS
        for warning in caught:
            err(f"irmeta: warning: {warning.message}")
    if code == 2:
        err(f"irmeta: error: {' '.join(error.split())}")
    elif code == _INTERRUPTED_STATUS:
        err("irmeta: interrupted")
    return code


if __name__ == "__main__":
    sys.exit(main())
