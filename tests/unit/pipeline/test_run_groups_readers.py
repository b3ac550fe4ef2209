"""A collection's groups file is read by one reader with one set of checks: its
properties (describe_collection) and its reusability (assess_reusability) accept and
refuse the same files, with the same one-line message."""

from __future__ import annotations

import pytest

from irmeta.campaign.properties import groups_of_runs
from irmeta.pipeline.reusability import reusability_units

RUNS = ["r1", "r2", "r3"]

FILES = {
    "plain": b"run\tgroup\nr1\tg1\nr2\tg1\nr3\tg2\n",
    "participant column": b"run\ttask\tparticipant\nr1\tadhoc\tg1\nr2\tadhoc\tg1\nr3\tadhoc\tg2\n",
    "byte order mark": b"\xef\xbb\xbfrun\tgroup\nr1\tg1\nr2\tg1\nr3\tg2\n",
    "blank lines and CRLF": b"run\tgroup\r\n\r\nr1\tg1\r\nr2\tg1\r\n\r\nr3\tg2\r\n\r\n",
    "extra run": b"run\tgroup\nr1\tg1\nr2\tg1\nr3\tg2\nr9\tg3\n",
    "missing run": b"run\tgroup\nr1\tg1\nr2\tg1\n",
    "duplicate run": b"run\tgroup\nr1\tg1\nr2\tg1\nr3\tg2\nr1\tg2\n",
    "empty group": b"run\tgroup\nr1\tg1\nr2\t\nr3\tg2\n",
    "no header": b"r1\tg1\nr2\tg1\nr3\tg2\n",
    "empty file": b"\n\n",
    "not UTF-8": b"run\tgroup\nr1\tg\xff\nr2\tg1\nr3\tg2\n",
}

ACCEPTED = {"plain", "participant column", "byte order mark", "blank lines and CRLF"}

REFUSAL = {"extra run": "run r9 is not among the collection's runs", "missing run": "run r3 has no group",
           "duplicate run": "line 5: run r1 is listed twice", "empty group": "line 3: expected a run and its group",
           "no header": "line 1: the header must start with 'run'", "empty file": "empty groups file",
           "not UTF-8": "not UTF-8 text"}


def _outcome(read, path):
    try:
        return "accepted", read(path)
    except ValueError as exc:
        return "refused", str(exc)


@pytest.mark.parametrize("name", sorted(FILES))
def test_properties_and_reusability_read_a_groups_file_alike(tmp_path, name):
    path = tmp_path / "groups.tsv"
    path.write_bytes(FILES[name])
    properties = _outcome(lambda p: groups_of_runs(p, RUNS), path)
    reusability = _outcome(lambda p: reusability_units(p, RUNS, "group"), path)
    assert properties[0] == reusability[0] == ("accepted" if name in ACCEPTED else "refused")
    if name in ACCEPTED:
        groups, units = properties[1], reusability[1]
        assert groups == {"r1": "g1", "r2": "g1", "r3": "g2"}
        assert units.names == ["g1", "g2"] and units.of_run.tolist() == [0, 0, 1]
    else:
        assert properties[1] == reusability[1]  # the same message, from the same check
        assert properties[1].startswith(f"{path}: ") and "\n" not in properties[1]
        assert REFUSAL[name] in properties[1]


def test_without_groups_or_by_run_each_run_is_its_unit(tmp_path):
    assert reusability_units(None, RUNS).names == RUNS
    path = tmp_path / "groups.tsv"
    path.write_bytes(FILES["missing run"])  # not read when the unit is the run
    assert reusability_units(path, RUNS, "run").kind == "run"
