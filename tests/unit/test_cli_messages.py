"""The small messages of issue 43, item 6: the duplicates warning carries ``warning:``; a
duplicate document's way out is worded where the setting is given (``--duplicates first``
on the command line, ``duplicates: first`` in a config, ``duplicates="first"`` in Python);
a file of a runs folder that is no run is named with how to leave it out."""

from __future__ import annotations

import gzip
import pickle

import pytest

import irmeta
from irmeta.campaign.errors import DuplicateDocumentError
from irmeta.cli import main
from irmeta.pipeline.scripts import error_line

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n"
RUN = "1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 c 3 1.0 r\n"
TWICE = RUN + "1 Q0 a 4 0.5 r\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("a.gz", "b.gz"):
        with gzip.open(runs / name, "wt") as f:
            f.write(RUN)
    (tmp_path / "twice.txt").write_text(TWICE)
    return tmp_path


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_duplicates_warning_says_warning(files, capsys):
    code, _, err = _cli(capsys, "score", "-q", str(files / "qrels.txt"), "-r", str(files / "twice.txt"),
                        "--duplicates", "first")
    assert code == 0
    assert err == "irmeta: warning: twice.txt: 1 duplicate document(s) dropped (kept the best-ranked copy)\n"


def test_a_duplicate_document_names_the_flag_on_the_command_line(files, capsys):
    code, out, err = _cli(capsys, "score", "-q", str(files / "qrels.txt"), "-r", str(files / "twice.txt"))
    assert code == 2 and out == ""
    assert err == (f"irmeta: error: {files / 'twice.txt'}:4: document a appears twice for topic 1 (also on line 1); "
                   f"trec_eval refuses this: give --duplicates first to keep the best-ranked copy\n")


def test_a_duplicate_document_names_the_keyword_in_python_and_the_key_in_a_config(files):
    with pytest.raises(DuplicateDocumentError, match=r'pass duplicates="first" to keep the best-ranked copy') as got:
        irmeta.evaluate(str(files / "qrels.txt"), str(files / "twice.txt"), ["P@2"])
    line = error_line(got.value)
    assert line.startswith(f"irmeta: error: {files / 'twice.txt'}:4: document a appears twice")
    assert line.endswith("set duplicates: first in the collection's config to keep the best-ranked copy")
    again = pickle.loads(pickle.dumps(got.value))  # whole across a process boundary
    assert str(again) == str(got.value) and again.line == 4


def test_a_file_of_a_runs_folder_that_is_no_run_is_named_with_a_glob_leaving_it_out(files, capsys):
    (files / "runs" / "README.txt").write_text("The runs of the track.\n")
    qrels = str(files / "qrels.txt")
    code, out, err = _cli(capsys, "score", "-q", qrels, "-r", str(files / "runs"))
    assert code == 2 and out == ""
    assert err.startswith(f"irmeta: error: {files / 'runs' / 'README.txt'}:1: ")
    assert err.endswith(f"; if README.txt is not a run, leave it out with a glob: --runs '{files / 'runs'}/*.gz'\n")
    code, out, _ = _cli(capsys, "score", "-q", qrels, "-r", f"{files / 'runs'}/*.gz", "-m", "P@2")  # as the hint says
    assert code == 0 and out.count("\tall\t") == 2
    # named itself, the file was meant: no hint
    code, _, err = _cli(capsys, "score", "-q", qrels, "-r", str(files / "runs" / "README.txt"))
    assert code == 2 and "leave it out" not in err


def test_a_run_wrong_further_down_gets_no_hint(files, capsys):
    (files / "runs" / "a.gz").write_bytes(gzip.compress((RUN + "1 Q0 d 4\n").encode()))
    code, _, err = _cli(capsys, "score", "-q", str(files / "qrels.txt"), "-r", str(files / "runs"))
    assert code == 2 and ":4: " in err and "not a run" not in err
