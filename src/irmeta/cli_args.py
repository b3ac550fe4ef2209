"""What ``irmeta``'s subcommands share (:mod:`irmeta.cli`, :mod:`irmeta.cli_compare`,
:mod:`irmeta.cli_agree`, :mod:`irmeta.cli_repro`, :mod:`irmeta.cli_test_errors`): argument types and actions (an option
given twice refused, bounded integers), the path options declared as inputs or outputs
and the one check that no output is an input (:func:`check_paths`), the reading options
declared once (:data:`READING_OPTIONS`), outputs written atomically or, as ``-``, to
standard output, written whole, ``--plugin`` modules loaded, ``--gains`` read, the run names checked before
any scoring, and what reaches the user as one line (:data:`INPUT_ERRORS`). A module of its
own so that the subcommands import it, not each other.
"""

from __future__ import annotations

import argparse
import errno
import fnmatch
import glob
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irmeta.api import DEFAULT_ALPHAS, DEFAULT_MEASURES, Scored
from irmeta.campaign.errors import DuplicateDocumentError, TrecFormatError
from irmeta.campaign.files import resolve_paths, run_name_from_path
from irmeta.campaign.qrels_formats import QRELS_FORMATS
from irmeta.measures.names import MAX_CUTOFF, Measure, parse_measure
from irmeta.measures.typed import typed_spellings
from irmeta.metaeval.stats.own_tests import load_plugins as import_plugins
from irmeta.settings import first_repeat
from irmeta.support.atomic import atomic_path, existing_regular_or_absent
from irmeta.support.formats import check_tsv_names
from irmeta.support.interrupts import raise_if_interrupted
from irmeta.support.progress import shown_by


def err(line: str) -> None:
    """One line to standard error; nothing if it is closed (``2>&-``), where ``print``
    would write to standard output instead, into the scores."""
    if sys.stderr is not None:
        print(line, file=sys.stderr, flush=True)




#: Seconds a step of work runs before its bar shows: a command done sooner prints none.
PROGRESS_DELAY = 1.0


@contextmanager
def terminal_progress() -> Iterator[None]:
    """Within it, the steps of the work (runs read, runs scored, pairs tested:
    :func:`~irmeta.support.progress.progress_steps`) show as bars on standard error when
    it is a terminal, each erased when done; nothing when it is not (a pipe, a file, a
    job's log), so what a script captures holds no bar."""
    stream = sys.stderr
    if stream is None or not stream.isatty():
        yield
        return
    from tqdm import tqdm

    def bar(what: str, total: int, unit: str) -> tqdm:
        return tqdm(total=total, desc=f"irmeta: {what}", unit=unit, file=stream, leave=False, delay=PROGRESS_DELAY,
                    dynamic_ncols=True)

    with shown_by(bar):
        yield


def report_reading(scored: Scored, qrels: str = "the qrels file") -> None:
    """One line per run with topics the qrels lack, or with duplicates dropped."""
    from irmeta.campaign.judge import ignored_topics_warnings

    matrix = scored.matrix
    alone = [run for run, n in zip(matrix.runs, matrix.length.sum(axis=1)) if n == 0]
    # a run alone sharing no topic: the API's warning says it, and that it scores 0
    for line in ignored_topics_warnings(matrix, scored.reading["files"], qrels, skip=alone):
        err(f"irmeta: warning: {line}")
    for run, n in scored.reading["dropped_duplicates"].items():
        err(f"irmeta: warning: {run}: {n} duplicate document(s) dropped (kept the best-ranked copy)")


def worded_for_the_command_line(exc: BaseException, args: argparse.Namespace) -> BaseException:
    """An input error as the command line says it: a duplicate document's way out as its
    flag (``--duplicates first``, not the API's keyword); a file of a folder given to
    ``--runs`` that is no run (a ``README.txt``) named with how to leave it out
    (:func:`leave_out_hint`)."""
    if isinstance(exc, DuplicateDocumentError):
        return exc.with_fix("give --duplicates first")
    if isinstance(exc, TrecFormatError):
        hint = leave_out_hint(exc.path, exc.line, getattr(args, "runs", None) or [])
        if hint:
            return TrecFormatError(exc.path, exc.line, f"{exc.reason}; {hint}")
    return exc


def leave_out_hint(path: str, line: int | None, specs: Sequence[str]) -> str:
    """How to leave ``path`` out of ``--runs`` when a folder in ``specs`` brought it in
    (a file named itself, or matched by a glob, was meant): a glob of the suffix every
    other file of the folder shares (``--runs 'runs/*.gz'``) when this one lacks it, else,
    for a file failing on its first line, to move it out. Empty otherwise: a run that is
    wrong further down is a run."""
    folder = Path(path).parent
    given = [spec for spec in specs if not any(ch in spec for ch in "*?[") and Path(spec).is_dir()
             and _identity(spec) == _identity(folder)]
    if not given:
        return ""
    name = Path(path).name
    others = [p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".") and p.name != name]
    suffixes = {Path(n).suffix for n in others}
    if len(suffixes) == 1 and "" not in suffixes and Path(name).suffix not in suffixes:
        glob_of = str(Path(given[0]) / f"*{next(iter(suffixes))}")
        return f"if {name} is not a run, leave it out with a glob: --runs '{glob_of}'"
    if line in (1, None):
        return f"if {name} is not a run, move it out of {given[0]} or name the runs with a glob"
    return ""


# ------------------------------------------------------------------ path options
#
# Every option that names a file or folder declares its role by its argparse type:
# :func:`input_path` (read), :func:`output_path` (written; ``-`` is standard output) or
# :func:`output_folder` (written into). :func:`check_paths` walks a command's declared
# options, so an input option added later is compared with every output unlisted elsewhere.

#: What ``--output -`` means, as for every Unix tool: standard output.
STDOUT = "-"

#: The short flags of the options the subcommands share, as trec_eval's users type them
#: (``-m map``): declared here once, each declaration taking its flags from :func:`flags`.
SHORT_FLAGS = {"--measure": "-m", "--qrels": "-q", "--runs": "-r", "--output": "-o", "--format": "-f"}


def flags(name: str) -> tuple[str, ...]:
    """An option's flags: its short one (:data:`SHORT_FLAGS`), where it has one, and ``name``."""
    short = SHORT_FLAGS.get(name)
    return (name,) if short is None else (short, name)


def _non_empty(text: str) -> str:
    """Refuse an empty path: it would mean the current folder (read as a folder of runs,
    simulated into), never what was meant."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return text


def input_path(text: str) -> str:
    """An argparse type: a path irmeta reads (a file, or a folder or glob where the option
    takes one). ``-`` is refused: standard input is not read (``./-`` names a file ``-``)."""
    if _non_empty(text) == STDOUT:
        raise argparse.ArgumentTypeError("'-' (standard input) is not read: name a file (./- for a file named '-')")
    return text


def output_path(text: str) -> str:
    """An argparse type: a file irmeta writes (a new or regular file, not an input), or
    ``-``: standard output."""
    return _non_empty(text)


def output_folder(text: str) -> str:
    """An argparse type: a folder irmeta writes into; ``-`` is refused (standard output
    holds no folder)."""
    if _non_empty(text) == STDOUT:
        raise argparse.ArgumentTypeError("'-' is standard output, which cannot hold a folder: name a folder")
    return text


#: The path types and their roles.
PATH_ROLES: dict[Callable[[str], str], str] = {input_path: "input", output_path: "output", output_folder: "output"}


def path_options(parser: argparse.ArgumentParser) -> list[tuple[argparse.Action, str]]:
    """A (sub)command's path options and their roles (``input`` or ``output``), from its declarations."""
    return [(a, PATH_ROLES[a.type]) for a in parser._actions if a.type in PATH_ROLES]  # type: ignore[index]


def command_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of the subcommand ``name``."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def _given(action: argparse.Action, args: argparse.Namespace) -> list[str]:
    value = getattr(args, action.dest, None)
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _flag(action: argparse.Action) -> str:
    return max(action.option_strings, key=len)


def _read_files(spec: str) -> list[Path]:
    """What an input spec may read: the path, the matches of a glob, a folder's files
    (every one, hidden ones too: a superset of what any reader takes from it)."""
    found = [Path(spec)] if os.path.lexists(spec) else []
    if any(ch in spec for ch in "*?["):
        found += [Path(p) for p in glob.glob(spec)]
    for path in list(found):
        if path.is_dir():
            try:
                found += [entry for entry in path.iterdir() if entry.is_file()]
            except OSError:  # unreadable: its reader says so
                continue
    return found


def _would_read(spec: str, folder: tuple[int, int] | None, name: str) -> bool:
    """Whether a file ``name`` in ``folder`` (its identity) is one the input ``spec`` reads
    once it exists: ``spec`` is that folder, or a glob over it that ``name`` matches."""
    if folder is None:
        return False
    if any(ch in spec for ch in "*?["):
        return _identity(Path(spec).parent) == folder and fnmatch.fnmatch(name, Path(spec).name)
    return Path(spec).is_dir() and _identity(spec) == folder


def _identity(path: str | Path) -> tuple[int, int] | None:
    """(device, inode) of the file ``path`` reaches (links followed), None if none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Before any work, every output of the command ``parser`` parsed: an output file
    (``-`` aside) a regular one or none yet (a folder, a symbolic link, a FIFO, a device
    would be destroyed by renaming the output over it) in an existing folder; and no output one of the
    inputs, compared as files (device and inode: another spelling, a symbolic link, a hard
    link are the same file), each input expanded as its reader may expand it (a folder's
    files, a glob's matches), nor a file in a folder an input option reads (the next run
    would read it). An input that does not exist (a plugin named as a module) is no file
    to overwrite."""
    declared = path_options(parser)
    inputs = [(_flag(a), spec) for a, role in declared if role == "input" for spec in _given(a, args)]
    for action, role in declared:
        if role != "output":
            continue
        for target in _given(action, args):
            if action.type is output_path:
                if target == STDOUT:
                    continue
                existing_regular_or_absent(target)
                if not Path(target).parent.is_dir():
                    raise FileNotFoundError(errno.ENOENT, "its directory does not exist", target)
            written, folder = _identity(target), _identity(Path(target).parent)
            for flag, spec in inputs:
                for read in _read_files(spec):
                    if written is not None and _identity(read) == written:
                        raise FileExistsError(errno.EEXIST, f"is one of the inputs ({flag} {read}); give "
                                                            f"{_flag(action)} another path", target)
                if action.type is output_path and _would_read(spec, folder, Path(target).name):
                    raise FileExistsError(errno.EEXIST, f"would be read by {flag} {spec} on the next run, as one "
                                                        f"of the inputs; give {_flag(action)} another path", target)


def emit(output: str | None, text: bytes) -> None:
    """A command's result: to ``output`` (atomically) or, without one or with ``-``, to
    standard output."""
    if output is None or output == STDOUT:
        to_stdout(text)
    else:
        write_output(output, text)


def to_stdout(text: bytes) -> None:
    """Write ``text`` to standard output; a failure (closed, full disk) names standard
    output. A reader gone (``| head``) raises :class:`BrokenPipeError` for :func:`main`."""
    if sys.stdout is None:  # started with it closed (irmeta ... >&-)
        raise OSError(errno.EBADF, "is closed; give --output FILE", "standard output")
    raise_if_interrupted()  # a Ctrl-C some library swallowed: nothing printed
    try:
        if hasattr(sys.stdout, "buffer"):
            # a pipe whose reader closed mid-write takes part of the bytes and BufferedWriter
            # says how many, silently: write the rest, so that the loss surfaces as EPIPE
            view = memoryview(text)
            while view:
                written = sys.stdout.buffer.write(view)
                if not written:
                    raise OSError(errno.EIO, "took no bytes")
                view = view[written:]
        else:  # a text stream (captured, in tests)
            sys.stdout.write(text.decode())
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), "standard output") from None


def write_output(path: str, text: bytes) -> None:
    """Write ``text`` to the user's ``--output`` path atomically; a failure names that
    path (not the temporary one) and leaves nothing behind."""
    target = Path(path)
    try:
        with atomic_path(target) as tmp:
            tmp.write_bytes(text)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write ({exc.strerror or exc})", path) from None




def gains_map(text: str) -> dict[int, float]:
    """``"1:1,2:3"`` -> {1: 1.0, 2: 3.0}; a grade twice (which gain?) or beyond int64 (what
    qrels grades are) refused."""
    try:
        pairs = [(int(g), float(v)) for g, v in (pair.split(":") for pair in text.split(","))]
    except ValueError:
        raise ValueError(f"--gains {text!r}: write grade:gain pairs, e.g. 1:1,2:3") from None
    gains: dict[int, float] = {}
    for grade, gain in pairs:
        if grade in gains:
            raise ValueError(f"--gains {text!r}: grade {grade} given twice")
        if not -2**63 <= grade < 2**63:
            raise ValueError(f"--gains {text!r}: grade {grade} is out of the int64 range of qrels grades")
        gains[grade] = gain
    return gains


def load_plugins(entries: list[str]) -> None:
    """Import each ``--plugin`` (it may register measures and tests); one whose own code
    fails (a syntax error, an exception at import) is one line naming it and where it
    failed, not a traceback through irmeta."""
    for entry in entries:
        try:
            import_plugins([entry], ".", "--plugin")
        except INPUT_ERRORS:
            raise
        except Exception as exc:
            if isinstance(exc, SyntaxError):
                where = f"{exc.filename}:{exc.lineno}: "
            else:
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
                where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
            raise ValueError(f"--plugin {entry}: {where}{type(exc).__name__}: {exc}") from exc


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with where to look), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        # an option by its long name alone (argparse writes "-q/--qrels"), as every other message names it
        message = re.sub(r"\bargument -[A-Za-z]/(--[\w-]+)", r"argument \1", message)
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        """argparse's, but an unknown option points at its subcommand's help (argparse
        leaves it to the top parser: ``irmeta compare --average`` would say ``irmeta --help``)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            commands = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
            chosen = commands[0].choices.get(getattr(parsed, commands[0].dest, None)) if commands else None
            (chosen or self).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


class Once(argparse.Action):
    """Store an option that takes one value, refusing it given twice: argparse would keep
    the last one silently (``--qrels A --qrels B`` would score against B)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in given:
            parser.error(f"{max(self.option_strings, key=len)} given twice")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


def bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low or (high is not None and value > high):
            where = f">= {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"{text} must be {where}")
        return value

    read.__name__ = "integer"
    return read


def finite_non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a finite number >= 0")
    return value




# What reaches the user as one line: bad input (file, line, fault), a path that cannot
# be read or written, a setting out of range (a number beyond 64 bits overflows).
# Anything else is a bug and keeps its traceback.
INPUT_ERRORS = (TrecFormatError, ValueError, KeyError, OSError, OverflowError)


def check_run_file_names(runs: Sequence[str], run_name: str, fmt: str) -> None:
    """Refuse, before any scoring, a run named by its file (``--run-name file``) whose
    name the output format ``fmt`` cannot carry: a tab, a newline in TSV (``tsv``, score's
    ``irmeta``), any white space in ``trec_eval``'s format
    (:func:`~irmeta.support.formats.check_tsv_names`); Markdown and LaTeX escape what they
    write, so they carry any name. A tag (``--run-name tag``) is one whitespace-free token
    of the run file, so only its checks after reading apply. A spec that names nothing is
    left to the scoring to refuse."""
    if run_name != "file" or fmt not in ("tsv", "irmeta", "trec_eval"):
        return
    for spec in runs:
        try:
            found = resolve_paths([spec])
        except OSError:  # missing: the scoring says so, after the settings, in its own order
            continue
        check_tsv_names("run", (run_name_from_path(p) for p in found), trec_eval=fmt == "trec_eval")


def add_report_options(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """``--format``, ``--output``, ``--digits`` and ``--canonical`` as the report
    subcommands (compare, agree, repro) take them."""
    p.add_argument(*flags("--format"), action=Once, choices=list(formats), default=formats[0],
                   help=f"{formats[0]} (default), {', '.join(formats[1:])}")
    p.add_argument(*flags("--output"), action=Once, type=output_path,
                   help="write here instead of standard output ('-'; a new or regular file, not an input)")
    p.add_argument("--digits", action=Once, type=bounded_int(0, 17), default=None,
                   help="decimals (default 4 in markdown and latex, full precision in tsv)")
    p.add_argument("--canonical", action="store_true",
                   help="name measures by irmeta's canonical names (map as AP, P_10 as P@10) in markdown and latex, "
                        "not as typed; tsv always does")


def measures_typed(args: argparse.Namespace) -> dict[str, Measure]:
    """``--measure``'s names (default :data:`~irmeta.api.DEFAULT_MEASURES`), each read once
    here, where it enters, as typed -> :class:`Measure`; none twice however spelled: two
    spellings of one measure are refused naming both as typed. Once the plugins are in (a
    plugin may register a measure)."""
    given = args.measure or list(DEFAULT_MEASURES)
    read = [parse_measure(m) for m in given]
    repeat = first_repeat(read)
    if repeat is not None:
        i, j = repeat
        same = "the same measure" if given[i] == given[j] else f"one measure, {read[i]}"
        raise ValueError(f"--measure {given[j]} and --measure {given[i]} are {same}: give it once")
    return dict(zip(given, read))


def report_spellings(args: argparse.Namespace, measures: Mapping[str, Measure]) -> dict[str, str]:
    """How a report names the measures (``measures``: typed -> read): as typed (canonical ->
    typed, where they differ), or, with ``--canonical``, by irmeta's names; ``--canonical``
    is refused with tsv, which always names them so."""
    if args.canonical and args.format == "tsv":
        raise ValueError("--canonical changes the markdown and latex reports: tsv always names measures by irmeta's "
                         "canonical names")
    return {} if args.canonical else typed_spellings(measures)


def add_measures_options(p: argparse.ArgumentParser) -> None:
    """``irmeta measures``' options: what to list of the measure registry."""
    from irmeta.measures.catalogue import PEERS

    p.add_argument("--search", action=Once, default=None, metavar="TEXT",
                   help="only the families whose name, definition or peers' names hold TEXT (any case)")
    p.add_argument("--peer", action=Once, choices=list(PEERS), default=None,
                   help="only the families this peer names, with its names alone")
    p.add_argument("--plugin", action="append", type=input_path,
                   help="a module or .py file that registers measures, listed with the shipped ones; repeatable")


# ---------------------------------------------------------------- reading options
#
# How runs are read and the measures weighted: ``irmeta score``'s options, declared once;
# every command that scores runs takes them all (:func:`add_reading_options`) and passes
# them all on (:func:`reading_settings`), so an option cannot be accepted and ignored.


@dataclass(frozen=True)
class ReadingOption:
    """One reading option: its flag, the keyword of :func:`irmeta.score` it sets (None:
    ``--plugin``, imported rather than passed), argparse's declaration, and how its value
    becomes the keyword's. ``only_given``: a measure option, passed only when given, so
    that a plugin measure's own default stands."""

    flag: str
    keyword: str | None
    declaration: dict[str, Any]
    value: Callable[[Any], Any] = lambda v: v
    only_given: bool = False


def _alphas(given: list[str] | None) -> Any:
    return given or DEFAULT_ALPHAS


READING_OPTIONS: tuple[ReadingOption, ...] = (
    ReadingOption("--plugin", None, dict(
        action="append", type=input_path,
        help="a module or .py file that registers measures (irmeta.register_measure) or tests, repeatable")),
    ReadingOption("--qrels-format", "qrels_format", dict(
        action=Once, choices=list(QRELS_FORMATS), default="trec",
        help="trec: qid iter docid grade (default); subtopics: ndeval's topic subtopic docid grade, which the "
             "diversity measures (alpha_nDCG, ERR_IA, NRBP, ...) read, the others reading each document's largest "
             "grade; qrels_jg: trec_eval's judgment-group qrels, qid jg docid grade, which the *_avgjg measures "
             "(P_avgjg, map_avgjg, Rprec_mult_avgjg) read, and no other measure")),
    ReadingOption("--threshold", "threshold", dict(
        action=Once, type=bounded_int(0), default=1,
        help="grade at or above which a document is relevant (trec_eval -l)")),
    ReadingOption("--depth", "depth", dict(
        action=Once, type=bounded_int(1, MAX_CUTOFF), default=None,
        help="keep the top N documents of each topic (trec_eval -M)")),
    ReadingOption("--duplicates", "duplicates", dict(
        action=Once, choices=["error", "first"], default="error",
        help="a docid twice for a topic: refuse (trec_eval) or keep the best-ranked copy")),
    ReadingOption("--run-name", "run_name", dict(
        action=Once, choices=["file", "tag"], default="file",
        help="name runs by file name (minus .gz) or by their tag column")),
    ReadingOption("--score-precision", "score_precision", dict(
        action=Once, choices=["double", "float32"], default="double",
        help="order documents on their scores as doubles (default, trec_eval >= 9.0.8) or rounded to single "
             "precision first (older trec_eval, pytrec_eval; ties broken by docid)")),
    ReadingOption("--alpha", "alphas", dict(
        action="append",
        help="rarity weight of the rareness measures, repeatable: a number >= 0 (<= 1 for the *_norm forms) or "
             "1/R (1/N_R per topic); default 0, 0.25, 0.5, 0.75, 1"), value=_alphas),
    ReadingOption("--rarity-depth", "rarity_depth", dict(
        action=Once, type=bounded_int(1, MAX_CUTOFF), default=None,
        help="depth at which S_d (runs retrieving a document) is counted; default: the cutoff")),
    ReadingOption("--gains", "gains", dict(
        action=Once,
        help="grade:gain pairs of the graded measures (nDCG, Q, O, Pmeasure, Pplus), e.g. 1:1,2:3; grades not "
             "named gain 0; default gain = grade"), value=gains_map, only_given=True),
    ReadingOption("--beta", "beta", dict(
        action=Once, type=finite_non_negative, default=None,
        help="Sakai's blended-ratio beta (Q, O, Pmeasure, Pplus; default 1)"), only_given=True),
    ReadingOption("--asl-unretrieved", "asl_unretrieved", dict(
        action=Once, choices=["paper", "plus_one", "depth"], default=None,
        help="ASL of a relevant document not returned: eq. 3 as printed (default), +1, or padded to the depth"),
        only_given=True),
)


def add_reading_options(p: argparse.ArgumentParser) -> None:
    """Every option of :data:`READING_OPTIONS`, as ``irmeta score`` takes them."""
    for option in READING_OPTIONS:
        p.add_argument(option.flag, **option.declaration)


def reading_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`irmeta.score` that :data:`READING_OPTIONS` set, from the
    parsed ``args``: every one, a measure option only when given."""
    settings = {}
    for option in READING_OPTIONS:
        if option.keyword is None:
            continue
        given = getattr(args, option.flag.lstrip("-").replace("-", "_"))
        if option.only_given and given is None:
            continue
        settings[option.keyword] = option.value(given)
    return settings
