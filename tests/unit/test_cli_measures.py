"""``irmeta measures`` (issue 43, item 3), ``--help`` and docs/names.md say the same, because
all three are written from one registry (the families and their PEER_NAMES)."""

from __future__ import annotations

import importlib.util
import io
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest

import irmeta.measures  # noqa: F401  (registers every family)
from campaigns import REPO
from irmeta.cli import build_parser, main
from irmeta.measures.catalogue import NAMES_TABLE_MARKER, PEERS, names_rows, names_table, parameters
from irmeta.measures.registry import MEASURES, PEER_NAMES


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _blocks(out: str) -> dict[str, str]:
    """{family: its block} of ``irmeta measures``' output."""
    return {block.split(":", 1)[0]: block for block in out.strip().split("\n\n")}


def _hook():
    spec = importlib.util.spec_from_file_location("docs_reference_hook", REPO / "docs" / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_family_its_parameters_and_its_peers_names_are_listed():
    code, out, err = run_cli("measures")
    assert code == 0 and not err
    blocks = _blocks(out)
    assert set(blocks) == set(MEASURES)
    for family, definition in MEASURES.items():
        assert definition.description in blocks[family]
        for option, _ in parameters(definition):
            assert f"{option}=" in blocks[family], (family, option)
    for entry in PEER_NAMES:
        assert f"  {entry.peer} " in blocks[entry.family], entry.name


def test_defaults_are_the_families_own():
    _, out, _ = run_cli("measures", "--search", "rank-biased")
    defaults = "p=0.8, gains=none, gain_scale=threshold, min_grade=1, gains_rest=zero, judged_only=false"
    assert defaults in _blocks(out)["RBP"]


@pytest.mark.parametrize("peer", PEERS)
def test_a_peer_lists_the_families_it_names_with_its_names_alone(peer):
    _, out, _ = run_cli("measures", "--peer", peer)
    blocks = _blocks(out)
    assert blocks.keys() == {e.family for e in PEER_NAMES if e.peer == peer}
    for block in blocks.values():
        named = [line.split()[0] for line in block.splitlines()[2:]]
        assert named and set(named) == {peer}


def test_search_finds_by_family_definition_or_peer_name():
    _, out, _ = run_cli("measures", "--search", "num_rel_ret")  # a trec_eval name
    assert set(_blocks(out)) == {"NumRelRet"}
    _, out, _ = run_cli("measures", "--search", "RBP", "--peer", "ranx")
    assert set(_blocks(out)) == {"RBP"} and "rbp.NN" in out and "trec_eval" not in out
    code, out, _ = run_cli("measures", "--search", "no such measure")
    assert code == 0 and out == "no measure family matches 'no such measure'\n"


def test_help_and_the_peer_choices_come_from_the_registry():
    parser = build_parser()
    help_text = parser.format_help()
    assert "measures" in help_text and "list every measure family" in help_text
    sub = next(a for a in parser._subparsers._group_actions if a.dest == "command").choices["measures"]
    peer = next(a for a in sub._actions if a.dest == "peer")
    assert tuple(peer.choices) == PEERS and {e.peer for e in PEER_NAMES} == set(PEERS)
    assert all(a.help for a in sub._actions)


def test_the_names_page_is_the_table_the_parser_reads():
    committed = (REPO / "docs" / "names.md").read_text()
    assert committed.count(NAMES_TABLE_MARKER) == 1
    assert "| you type |" not in committed  # no hand-written table beside the generated one
    built = _hook().names_page(committed)
    assert built == committed.replace(NAMES_TABLE_MARKER, names_table().rstrip("\n"))
    rows = re.findall(r"^\| (\w+) \| (.+?) \| ", names_table(), re.M)[1:]
    assert len(rows) == len(PEER_NAMES) == len(names_rows())
    _, out, _ = run_cli("measures")
    for peer, typed in rows:  # every name on the page is in irmeta measures, under its peer
        for spelling in re.findall(r"`([^`]+)`", typed):
            assert re.search(rf"^  {peer} .*{re.escape(spelling)}", out, re.M), (peer, spelling)


def test_an_unknown_measure_suggests_from_the_peers_names(shared_data):
    root = shared_data / "trec8_adhoc"
    code, _, err = run_cli("score", "--qrels", str(root / "qrels.txt"), "--runs", str(root / "runs" / "INQ601.gz"),
                           "--measure", "num_rett")
    assert code == 2
    assert err.strip() == "irmeta: error: unknown measure 'num_rett'; the closest known: NumRet, NumRel, NumRelRet"
