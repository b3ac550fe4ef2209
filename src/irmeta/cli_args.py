"""What ``irmeta``'s subcommands share (:mod:`irmeta.cli`, :mod:`irmeta.cli_compare`):
argument types and actions (an option given twice refused, bounded integers, non-empty
paths), ``--output`` checked before any work and written atomically, standard output
written whole, ``--plugin`` modules loaded, ``--gains`` read, the run names checked before
any scoring, and what reaches the user as one line (:data:`INPUT_ERRORS`). A module of its
own so that the subcommands import it, not each other.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from irmeta.api import Scored
from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.files import resolve_paths, run_name_from_path
from irmeta.metaeval.stats.own_tests import load_plugins as import_plugins
from irmeta.support.atomic import atomic_path, existing_regular_or_absent
from irmeta.support.formats import check_tsv_names


def err(line: str) -> None:
    """One line to standard error; nothing if it is closed (``2>&-``), where ``print``
    would write to standard output instead, into the scores."""
    if sys.stderr is not None:
        print(line, file=sys.stderr, flush=True)




def report_reading(scored: Scored, qrels: str = "the qrels file") -> None:
    """One line per run with topics the qrels lack, or with duplicates dropped."""
    from irmeta.campaign.judge import ignored_topics_warnings

    matrix = scored.matrix
    alone = [run for run, n in zip(matrix.runs, matrix.length.sum(axis=1)) if n == 0]
    # a run alone sharing no topic: the API's warning says it, and that it scores 0
    for line in ignored_topics_warnings(matrix, scored.reading["files"], qrels, skip=alone):
        err(f"irmeta: warning: {line}")
    for run, n in scored.reading["dropped_duplicates"].items():
        err(f"irmeta: {run}: {n} duplicate document(s) dropped (kept the best-ranked copy)")


def check_output(args: argparse.Namespace) -> None:
    """Refuse an ``--output`` that is not a regular file (a folder, a symbolic link, a FIFO,
    a device: renaming the scores over it would destroy it), whose folder is missing, or
    that is one of the inputs (the qrels, a run once folders and globs are resolved, a
    plugin file), compared as files (``os.path.samefile``), not as spellings."""
    target = Path(args.output)
    existing_regular_or_absent(target)
    if not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, "its directory does not exist", args.output)
    if not target.exists():
        return  # every input exists, so a new file is none of them
    inputs = [Path(args.qrels), *resolve_paths(args.runs), *map(Path, args.plugin or [])]
    for given in inputs:
        try:
            same = os.path.samefile(target, given)
        except OSError:  # a plugin named as a module, say: not a file, so not this one
            continue
        if same:
            raise FileExistsError(errno.EEXIST, f"is one of the inputs ({given}); give --output another path",
                                  args.output)


def to_stdout(text: bytes) -> None:
    """Write ``text`` to standard output; a failure (closed, full disk) names standard
    output. A reader gone (``| head``) raises :class:`BrokenPipeError` for :func:`main`."""
    if sys.stdout is None:  # started with it closed (irmeta ... >&-)
        raise OSError(errno.EBADF, "is closed; give --output FILE", "standard output")
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


def path_text(text: str) -> str:
    """An argparse type: a non-empty path. "" would mean the current folder (read as a
    folder of runs, simulated into) or, for --output, standard output: never meant."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return text


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


def check_run_file_names(runs: Sequence[str], run_name: str, *, trec_eval: bool = False) -> None:
    """Refuse, before any scoring, a run named by its file (``--run-name file``) whose
    name the output cannot carry (a tab, a newline: :func:`~irmeta.support.formats.check_tsv_names`).
    A tag (``--run-name tag``) is one whitespace-free token of the run file, so only its
    checks after reading apply. A spec that names nothing is left to the scoring to refuse."""
    if run_name != "file":
        return
    for spec in runs:
        try:
            found = resolve_paths([spec])
        except OSError:  # missing: the scoring says so, after the settings, in its own order
            continue
        check_tsv_names("run", (run_name_from_path(p) for p in found), trec_eval=trec_eval)


def add_report_options(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """``--format``, ``--output`` and ``--digits`` as the report subcommands (compare,
    repro) take them."""
    p.add_argument("--format", action=Once, choices=list(formats), default=formats[0],
                   help=f"{formats[0]} (default), {', '.join(formats[1:])}")
    p.add_argument("--output", action=Once, type=path_text,
                   help="write here instead of standard output (a new or regular file, not an input)")
    p.add_argument("--digits", action=Once, type=bounded_int(0, 17), default=None,
                   help="decimals (default 4 in markdown and latex, full precision in tsv)")


def add_score_precision(p: argparse.ArgumentParser) -> None:
    """``--score-precision``: the scores documents are ordered on (every subcommand that reads runs)."""
    p.add_argument("--score-precision", action=Once, choices=["double", "float32"], default="double",
                   help="order documents on their scores as doubles (default, trec_eval >= 9.0.8) or rounded to "
                        "single precision first (older trec_eval, pytrec_eval; ties broken by docid)")


def add_reading_options(p: argparse.ArgumentParser, max_cutoff: int) -> None:
    """How runs are read and the measures weighted, as ``irmeta score`` names them:
    ``--plugin``, ``--threshold``, ``--depth``, ``--duplicates``, ``--run-name``,
    ``--score-precision``, ``--alpha``, ``--gains``, ``--beta``."""
    p.add_argument("--plugin", action="append", type=path_text,
                   help="a module or .py file that registers measures or tests")
    p.add_argument("--threshold", action=Once, type=bounded_int(0), default=1,
                   help="grade at or above which a document is relevant (trec_eval -l)")
    p.add_argument("--depth", action=Once, type=bounded_int(1, max_cutoff), default=None,
                   help="keep the top N documents (-M)")
    p.add_argument("--duplicates", action=Once, choices=["error", "first"], default="error",
                   help="a docid twice for a topic: refuse or keep the best-ranked copy")
    p.add_argument("--run-name", action=Once, choices=["file", "tag"], default="file",
                   help="name runs by file name (minus .gz) or by their tag column")
    add_score_precision(p)
    p.add_argument("--alpha", action="append", help="rarity weight of the rareness measures, repeatable")
    p.add_argument("--gains", action=Once, help="grade:gain pairs of the graded measures, e.g. 1:1,2:3")
    p.add_argument("--beta", action=Once, type=finite_non_negative, default=None, help="Sakai's beta (default 1)")
