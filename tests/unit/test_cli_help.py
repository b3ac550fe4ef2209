"""What ``irmeta --help`` and each subcommand's help say (issue 43, item 3): plain text (no
reStructuredText from the docstrings), every subcommand and every option described, the
short flags trec_eval's users type on the shared options (declared once, in
``irmeta.cli_args.SHORT_FLAGS``), the examples of the help runnable as written; and
``dir(irmeta)`` listing the lazily loaded API."""

from __future__ import annotations

import argparse
import re
import shlex
import types

import pytest

import irmeta
from irmeta.cli import _EXAMPLES, build_parser
from irmeta.cli_args import SHORT_FLAGS

RST = re.compile(r"``|:(?:func|mod|class|data|meth|attr):`")


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _help(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(argv)
    assert done.value.code == 0
    return capsys.readouterr().out


def test_top_help_is_plain_text_and_names_every_subcommand(capsys):
    text = _help(["--help"], capsys)
    assert not RST.search(text), RST.search(text)
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    described = {choice.dest: choice.help for choice in sub._choices_actions}
    assert set(described) == set(_commands()) and all(described.values()), described
    for name, line in described.items():
        assert re.search(rf"^\s+{name}\s+{re.escape(line.split()[0])}", text, re.M), name


@pytest.mark.parametrize("command", sorted(_commands()))
def test_each_subcommands_help_is_plain_text_and_every_option_has_help(command, capsys):
    text = _help([command, "--help"], capsys)
    assert not RST.search(text), (command, RST.search(text))
    for action in _commands()[command]._actions:
        assert action.help and action.help != argparse.SUPPRESS, (command, action.option_strings)


@pytest.mark.parametrize("command", sorted(_commands()))
def test_the_shared_options_take_their_short_flags_and_no_other_does(command):
    for action in _commands()[command]._actions:
        long = [f for f in action.option_strings if f.startswith("--")]
        short = [f for f in action.option_strings if not f.startswith("--")]
        if action.dest == "help":
            continue
        # simulate's --runs is a count, not run files: the short flag is the run files'
        files = command != "simulate" or long != ["--runs"]
        expected = [SHORT_FLAGS[f] for f in long if f in SHORT_FLAGS and files]
        assert short == expected, (command, action.option_strings)


def test_short_flags_parse_as_their_long_options():
    parser = build_parser()
    short = parser.parse_args(["compare", "-q", "q.txt", "-r", "a", "b", "-m", "map", "-m", "P_10", "-f", "tsv",
                               "-o", "out.tsv"])
    long = parser.parse_args(["compare", "--qrels", "q.txt", "--runs", "a", "b", "--measure", "map", "--measure",
                              "P_10", "--format", "tsv", "--output", "out.tsv"])
    assert vars(short) == vars(long)


def test_the_examples_of_the_help_parse():
    lines = [line.strip() for line in _EXAMPLES.splitlines()[1:]]
    commands, current = [], ""
    for line in lines:  # a command, its continuation lines, then what it does
        if line.startswith("irmeta "):
            current = line
            commands.append(current)
        elif line.startswith("--") and commands:
            commands[-1] += " " + line
    assert {shlex.split(c)[1] for c in commands} <= set(_commands()) and len(commands) >= 5
    for command in commands:
        build_parser().parse_args(shlex.split(command)[1:])


def test_dir_lists_the_lazy_api():
    listed = dir(irmeta)
    assert {"evaluate", "score", "compare", "agree", "repro", "register_measure", "register_test"} <= set(listed)
    for name in listed:
        if not name.startswith("_") and not isinstance(getattr(irmeta, name), types.ModuleType):
            assert callable(getattr(irmeta, name)), name
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        irmeta.nope  # noqa: B018
