"""Every path option of every command, walked from the commands' declarations (issue 40,
items 1 and 8): an output is never one of the command's inputs (the same file by another
spelling, through a symbolic link either way, or a hard link: refused before any work,
one line, exit 2, nothing touched); ``--output -`` is standard output; an input given
``-`` or the path of another of the command's inputs is read or refused in one line, and
no input is ever changed.
"""

from __future__ import annotations

import io
import os
import stat
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irmeta.cli import build_parser, main
from irmeta.cli_args import PATH_ROLES, STDOUT, command_parser, input_path, output_folder, output_path, path_options

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 f 2\n"
RUNS = {"r1": "1 Q0 a 1 3 r1\n1 Q0 b 2 2 r1\n2 Q0 f 1 1 r1\n", "r2": "1 Q0 c 1 3 r2\n2 Q0 a 1 2 r2\n",
        "r3": "1 Q0 b 1 3 r3\n1 Q0 a 2 2 r3\n2 Q0 a 1 1 r3\n", "r4": "1 Q0 c 1 3 r4\n2 Q0 f 1 5 r4\n"}
COMMANDS = ("score", "compare", "agree", "repro", "simulate", "test-errors")
# What each command needs beside its path options to do its work.
EXTRA = {"score": ["--per-topic"], "compare": ["--format", "tsv"], "agree": ["--format", "tsv", "--family-permutations",
         "10"], "repro": ["--format", "tsv"], "simulate": ["--runs", "2", "--topics", "2", "--depth", "2",
                                                           "--pool-size", "4"],
         "test-errors": ["--measure-kind", "continuous", "--topics", "5", "--trials", "6", "--alpha", "0.05", "--delta",
                         "0.05", "--no-familywise", "--permutations", "9", "--test", "paired_t"]}
# Options taking free text that is no path: a new option taking text must be declared a
# path (input_path, output_path, output_folder) or named here.
NOT_PATHS = {"--measure", "--baseline", "--test", "--alpha", "--gains", "--measure-kind"}
# A score matrix of test-errors: a column per run, a row per topic.
MATRIX = "a,b,c,d,e\n" + "".join(",".join(f"{(7 * r + 3 * t) % 10 / 10 + 0.05:g}" for r in range(5)) + "\n"
                                  for t in range(8))


@pytest.fixture()
def campaign(tmp_path) -> Path:
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / name).write_text(text)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "other_qrels.txt").write_text(QRELS)
    (tmp_path / "llm.txt").write_text(QRELS.replace("1 0 a 2", "1 0 a 0"))
    (tmp_path / "families.tsv").write_text("run\tfamily\nr1\tx\nr2\tx\nr3\ty\nr4\ty\n")
    (tmp_path / "plugin.py").write_text("# registers nothing\n")
    (tmp_path / "matrix.csv").write_text(MATRIX)
    (tmp_path / "out").mkdir()
    return tmp_path


def path_values(command: str, root: Path) -> dict[str, list[str]]:
    """Every path option of ``command``, given: the runs as a folder where a command takes many."""
    runs = root / "runs"
    common = {"--qrels": [str(root / "qrels.txt")], "--plugin": [str(root / "plugin.py")],
              "--output": [str(root / "out" / "report.txt")]}
    if command in ("score", "compare"):
        return {**common, "--runs": [str(runs)]}
    if command == "agree":
        return {**common, "--runs": [str(runs)], "--judgments": [str(root / "llm.txt")],
                "--families": [str(root / "families.tsv")]}
    if command == "test-errors":
        return {"--scores": [str(root / "matrix.csv")], "--plugin": common["--plugin"], "--output": common["--output"]}
    if command == "repro":
        roles = ("--original-baseline", "--original-advanced", "--reproduced-baseline", "--reproduced-advanced")
        return {**common, **{role: [str(runs / r)] for role, r in zip(roles, RUNS)},
                "--reproduced-qrels": [str(root / "other_qrels.txt")]}
    return {"--out": [str(root / "out" / "campaign")]}


def argv(command: str, values: dict[str, list[str]]) -> list[str]:
    return [command, *EXTRA[command], *(a for flag, given in values.items() for a in (flag, *given))]


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def one_line(code: int, out: str, err: str, *fragments: str) -> None:
    lines = [line for line in err.splitlines() if not line.startswith(("irmeta: simulate:", "irmeta: warning:"))]
    assert code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("irmeta"), (code, err)
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def snapshot(root: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        key = str(path.relative_to(root))
        found[key] = (("link", os.readlink(path)) if stat.S_ISLNK(mode) else path.read_bytes() if stat.S_ISREG(mode)
                      else "folder")
    return found


def roles(command: str) -> dict[str, str]:
    return {max(a.option_strings, key=len): role for a, role in path_options(command_parser(build_parser(), command))}


def _a_file(spec: str) -> Path:
    path = Path(spec)
    return sorted(path.iterdir())[0] if path.is_dir() else path


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_is_a_declared_path_or_no_path(command):
    """The walk below sees every path option: text options are paths by declaration or
    named as none, and the fixture gives every declared one."""
    for action in command_parser(build_parser(), command)._actions:
        if action.option_strings and action.type is None and action.choices is None and action.nargs != 0:
            assert set(action.option_strings) & NOT_PATHS, f"{command} {action.option_strings}: a path or not?"
    assert set(roles(command)) == set(path_values(command, Path("/x")))
    assert {t.__name__ for t in PATH_ROLES} == {"input_path", "output_path", "output_folder"}


def test_the_case_of_the_issue_agree_families_as_output(campaign):
    """``agree --families fam.tsv --output fam.tsv`` replaced the families file."""
    values = path_values("agree", campaign)
    values["--output"] = values["--families"]
    before = snapshot(campaign)
    one_line(*run_cli(argv("agree", values)), "families.tsv: is one of the inputs (--families ")
    assert snapshot(campaign) == before


SPELLINGS = ("same", "other_spelling", "output_a_symlink_to_it", "input_a_symlink_to_it", "hard_link")


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_is_any_input_is_refused_before_any_work(campaign, command, spelling):
    declared = roles(command)
    outputs = [f for f, r in declared.items() if r == "output"]
    inputs = [f for f, r in declared.items() if r == "input"]
    assert outputs and (inputs or command == "simulate")
    for output in outputs:
        for given in inputs:
            values = path_values(command, campaign)
            target = _a_file(values[given][0])
            if spelling == "same":
                values[output] = [str(target)]
            elif spelling == "other_spelling":
                values[output] = [f"{target.parent}/./../{target.parent.name}/{target.name}"]
            elif spelling == "output_a_symlink_to_it":
                link = campaign / "out" / "link"
                link.unlink(missing_ok=True)
                link.symlink_to(target)
                values[output] = [str(link)]
            elif spelling == "input_a_symlink_to_it":
                link = campaign / "out" / "input_link"
                link.unlink(missing_ok=True)
                link.symlink_to(values[given][0])
                values[given], values[output] = [str(link)], [str(target)]
            else:
                hard = campaign / "out" / "hard"
                hard.unlink(missing_ok=True)
                os.link(target, hard)
                values[output] = [str(hard)]
            before = snapshot(campaign)
            code, out, err = run_cli(argv(command, values))
            what = "is a symbolic link" if spelling == "output_a_symlink_to_it" else "is one of the inputs"
            one_line(code, out, err, f"{values[output][0]}: {what}")
            if spelling != "output_a_symlink_to_it":
                assert f"give {output} another path" in err
            assert snapshot(campaign) == before, (command, output, given)


@pytest.mark.parametrize("glob", [False, True], ids=["folder", "glob"])
@pytest.mark.parametrize("command", ["score", "compare", "agree"])
def test_a_new_output_where_an_input_folder_or_glob_would_read_it_is_refused(campaign, command, glob):
    """Not yet an input, but the next run's: ``--runs runs/ --output runs/scores.tsv``."""
    values = path_values(command, campaign)
    if glob:
        values["--runs"] = [f"{values['--runs'][0]}/r*"]
    values["--output"] = [str(campaign / "runs" / "report.txt")]
    before = snapshot(campaign)
    one_line(*run_cli(argv(command, values)), f"report.txt: would be read by --runs {values['--runs'][0]} on the "
                                              f"next run")
    assert snapshot(campaign) == before
    values["--output"] = [str(campaign / "runs" / "other.tsv")] if glob else values["--output"]
    if glob:  # a name the glob does not match is no input
        assert run_cli(argv(command, values))[0] == 0


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "simulate"])
def test_output_dash_is_standard_output(campaign, command):
    values = path_values(command, campaign)
    del values["--output"]
    code, expected, err = run_cli(argv(command, values))
    assert code == 0 and expected, err
    before = snapshot(campaign)
    values["--output"] = [STDOUT]
    assert run_cli(argv(command, values))[:2] == (0, expected)
    assert snapshot(campaign) == before  # no file named '-'


def test_an_output_folder_is_never_standard_output(campaign):
    one_line(*run_cli(argv("simulate", {"--out": ["-"]})), "'-' is standard output, which cannot hold a folder")
    assert not (Path.cwd() / "-").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_every_input_given_dash_or_another_input_is_read_or_refused_in_one_line(campaign, command):
    declared = roles(command)
    inputs = [f for f, r in declared.items() if r == "input"]
    out = campaign / "out" / "report.txt"
    for given in inputs:
        for other in [STDOUT, *(o for o in inputs if o != given)]:
            values = path_values(command, campaign)
            values[given] = [STDOUT] if other == STDOUT else [str(_a_file(values[other][0]))]
            before = {k: v for k, v in snapshot(campaign).items() if not k.startswith("out")}
            out.unlink(missing_ok=True)
            code, stdout, err = run_cli(argv(command, values))
            if other == STDOUT:
                one_line(code, stdout, err, f"argument {given}: '-' (standard input) is not read")
            elif code != 0:
                one_line(code, stdout, err)
                assert not out.exists()
            assert {k: v for k, v in snapshot(campaign).items() if not k.startswith("out")} == before


def test_the_path_types_refuse_what_they_cannot_mean():
    import argparse

    for kind in (input_path, output_path, output_folder):
        with pytest.raises(argparse.ArgumentTypeError, match="an empty path"):
            kind("")
    assert output_path("-") == "-" and input_path("./-") == "./-"
