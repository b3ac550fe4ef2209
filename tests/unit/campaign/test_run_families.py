"""The run families file: one reader, each refusal one line naming the file and the line or run."""

from __future__ import annotations

import pytest

from irmeta.campaign.run_families import families_for_runs, read_run_families


def _write(tmp_path, text: str):
    path = tmp_path / "families.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_families_file_reads_in_order_past_a_bom_and_blank_lines(tmp_path):
    path = _write(tmp_path, "\ufeffrun\tfamily\nr2\tneural\n\nr1\tbm25\n")
    assert read_run_families(path) == {"r2": "neural", "r1": "bm25"}
    assert list(families_for_runs(path, ["r1", "r2"])) == ["r1", "r2"]


@pytest.mark.parametrize(("text", "message"), [
    ("run\tgroup\nr1\tbm25\n", r"families.tsv: line 1: the header must be 'run<TAB>family'"),
    ("run\tfamily\textra\nr1\tbm25\n", r"line 1: the header"),
    ("run\tfamily\nr1\tbm25\nr1\tneural\n", r"families.tsv: line 3: run r1 is listed twice"),
    ("run\tfamily\nr1\n", r"line 2: expected a run and its family"),
    ("", r"empty families file"),
])
def test_a_malformed_file_is_refused_on_one_line(tmp_path, text, message):
    with pytest.raises(ValueError, match=message) as caught:
        read_run_families(_write(tmp_path, text))
    assert "\n" not in str(caught.value)


def test_runs_the_collection_lacks_or_misses_are_refused(tmp_path):
    path = _write(tmp_path, "run\tfamily\nr1\tbm25\nr9\tneural\n")
    with pytest.raises(ValueError, match=r"families.tsv: run r9 is not among the collection's runs"):
        families_for_runs(path, ["r1", "r2"])
    with pytest.raises(ValueError, match=r"families.tsv: run r2 has no family"):
        families_for_runs(_write(tmp_path, "run\tfamily\nr1\tbm25\n"), ["r1", "r2"])
