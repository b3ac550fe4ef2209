"""Nothing lost, nothing silently wrong (issue 18): the command line never deletes or
overwrites what it did not create, and every failure is one line.

Each test snapshots the folder it works in (every entry, hidden ones too, links as
links) and checks that a refusal leaves it byte-identical with nothing new in it.
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import pathlib
import stat
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import irmeta.cli
import irmeta.simulate
from campaigns import write
from irmeta.cli import main
from irmeta.simulate import MARKER, simulate_campaign
from irmeta.support.atomic import NotRegularFileError, atomic_write_bytes, existing_regular_or_absent

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
RUN_A = "1 Q0 a 1 2.5 A\n1 Q0 x 2 1.5 A\n2 Q0 c 1 9 A\n"
RUN_B = "1 Q0 b 1 2.5 B\n2 Q0 c 1 9 B\n"


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``irmeta argv``, in-process."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def one_line_error(code: int, err: str, *fragments: str) -> str:
    assert code == 2, err
    lines = [line for line in err.splitlines() if not line.startswith("irmeta: simulate: ")]  # progress
    assert len(lines) == 1 and lines[0].startswith("irmeta") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def snapshot(root: Path) -> dict[str, object]:
    """Every entry under ``root``: a file's bytes, a link's target, a folder, a FIFO."""
    found: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        key = str(path.relative_to(root))
        if stat.S_ISLNK(mode):
            found[key] = ("link", os.readlink(path))
        elif stat.S_ISREG(mode):
            found[key] = path.read_bytes()
        else:
            found[key] = ("dir" if stat.S_ISDIR(mode) else "other", stat.S_IFMT(mode))
    return found


@pytest.fixture()
def campaign(tmp_path):
    """qrels, a folder of two runs (one gzipped) and a plugin file."""
    qrels = write(tmp_path / "qrels.txt", QRELS)
    write(tmp_path / "runs" / "A", RUN_A)
    (tmp_path / "runs" / "B.gz").write_bytes(gzip.compress(RUN_B.encode(), mtime=0))
    plugin = write(tmp_path / "plugin.py", "# registers nothing\n")
    return qrels, tmp_path / "runs", plugin


# ------------------------------------------------- 1. simulate writes only its own folder


def test_simulate_refuses_a_users_campaign_folder(tmp_path):
    folder = tmp_path / "mine"
    write(folder / "qrels.txt", "1 0 d 1\n")
    (folder / "runs").mkdir()
    (folder / "runs" / "best.gz").write_bytes(gzip.compress(b"1 Q0 d 1 1 best\n"))
    write(folder / "runs" / "other.txt", "1 Q0 d 1 1 other\n")
    before = snapshot(tmp_path)
    code, out, err = run_cli("simulate", "--out", str(folder), "--runs", "3", "--topics", "2", "--depth", "5")
    one_line_error(code, err, f"{folder}:", "not empty and not made by irmeta simulate")
    assert out == "" and snapshot(tmp_path) == before


@pytest.mark.parametrize("prepare", ["new", "empty", "empty_runs"])
def test_simulate_into_a_new_or_empty_folder(tmp_path, prepare):
    folder = tmp_path / "c"
    if prepare != "new":
        (folder / "runs").mkdir(parents=True) if prepare == "empty_runs" else folder.mkdir()
    code, out, err = run_cli("simulate", "--out", str(folder), "--runs", "3", "--topics", "2", "--depth", "5")
    assert code == 0, err
    marker = json.loads((folder / MARKER).read_text())
    written = {k for k, v in snapshot(folder).items() if isinstance(v, bytes)} - {MARKER}
    assert set(marker["files"]) == written and len(written) == 2 + 3
    assert marker["made_by"].startswith("irmeta ") and marker["options"]["n_runs"] == 3


def test_resimulating_replaces_only_its_own_files(tmp_path):
    folder = tmp_path / "c"
    simulate_campaign(folder, seed=1, n_runs=8, n_topics=2, depth=5)
    notes = write(folder / "notes.txt", "mine\n")
    hidden = write(folder / "runs" / ".keep", "")
    first = json.loads((folder / MARKER).read_text())["files"]
    made = simulate_campaign(folder, seed=2, n_runs=3, n_topics=2, depth=5)
    runs = sorted(p.name for p in (folder / "runs").iterdir() if not p.name.startswith("."))
    assert runs == sorted(p.name for p in made["runs"])  # its earlier runs gone, as it wrote them
    assert len(first) == 2 + 8 and notes.read_text() == "mine\n" and hidden.exists()
    assert sorted(json.loads((folder / MARKER).read_text())["files"]) == sorted(
        ["qrels.txt", "run_groups.tsv", *(f"runs/{n}" for n in runs)])
    assert not [p for p in folder.rglob("*.tmp")]


def test_resimulating_after_snakemake_removed_the_outputs(tmp_path):
    """Snakemake deletes a rule's declared outputs (qrels, runs/, groups) before rerunning
    it; the marker it does not know about stays and the folder is still ours."""
    folder = tmp_path / "results" / "demo" / "campaign"
    first = simulate_campaign(folder, seed=3, n_runs=4, n_topics=2, depth=5)
    before = snapshot(folder)
    for path in first["runs"]:
        path.unlink()
    (folder / "runs").rmdir()
    (folder / "qrels.txt").unlink()
    (folder / "run_groups.tsv").unlink()
    simulate_campaign(folder, seed=3, n_runs=4, n_topics=2, depth=5)
    assert snapshot(folder) == before


@pytest.mark.parametrize("spoil, fragment", [
    ("foreign_run", "did not write (zz.gz)"), ("forged_marker", "marker is not one irmeta simulate wrote"),
    ("junk_marker", "marker is not one"), ("linked_qrels", "is a symbolic link"),
    ("marker_fifo", "named pipe"), ("runs_is_a_link", "symbolic link"),
])
def test_simulate_refuses_a_folder_it_no_longer_owns(tmp_path, spoil, fragment):
    folder = tmp_path / "c"
    simulate_campaign(folder, seed=1, n_runs=3, n_topics=2, depth=5)
    victim = write(tmp_path / "victim.txt", "precious\n")
    marker = folder / MARKER
    if spoil == "foreign_run":
        write(folder / "runs" / "zz.gz", "1 Q0 d 1 1 zz\n")
    elif spoil == "forged_marker":  # a marker naming files outside the folder is not trusted
        marker.write_text(json.dumps({"files": ["qrels.txt", "../victim.txt"]}))
    elif spoil == "junk_marker":
        marker.write_text("not json")
    elif spoil == "linked_qrels":
        (folder / "qrels.txt").unlink()
        (folder / "qrels.txt").symlink_to(victim)
    elif spoil == "marker_fifo":  # reading it would hang
        marker.unlink()
        os.mkfifo(marker)
    else:
        (folder / "runs").rename(tmp_path / "elsewhere")
        (folder / "runs").symlink_to(tmp_path / "elsewhere")
    before = snapshot(tmp_path)
    code, _, err = run_cli("simulate", "--out", str(folder), "--seed", "2", "--runs", "4", "--topics", "2")
    one_line_error(code, err, fragment)
    assert snapshot(tmp_path) == before


def test_a_failed_simulation_leaves_nothing_behind(tmp_path, monkeypatch):
    ours = tmp_path / "ours"
    simulate_campaign(ours, seed=1, n_runs=3, n_topics=2, depth=5)
    before = snapshot(tmp_path)

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(irmeta.simulate, "_write_runs", full_disk)
    new = tmp_path / "new" / "deeper"
    code, _, err = run_cli("simulate", "--out", str(new), "--runs", "3", "--topics", "2")
    one_line_error(code, err, f"{new}:", "No space left on device")
    assert snapshot(tmp_path) == before  # not even new/ or an empty runs/
    code, _, err = run_cli("simulate", "--out", str(ours), "--seed", "9", "--runs", "5")
    one_line_error(code, err, f"{ours}:", "No space left on device")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("sizes", [["--runs", "100000", "--topics", "1000000", "--depth", "400"],
                                   ["--runs", "100000", "--topics", "1000000", "--pool-size", "32767"]])
def test_simulate_refuses_what_no_machine_holds_before_allocating(tmp_path, sizes):
    target = tmp_path / "huge"
    code, _, err = run_cli("simulate", "--out", str(target), *sizes)
    line = one_line_error(code, err, str(target), "memory", "TB", "fewer runs")
    assert "100000 runs x 1000000 topics" in line
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------ 2. --output is never an input


@pytest.mark.parametrize("which", ["run_in_folder", "run_by_glob", "gz_run_other_spelling", "qrels", "plugin",
                                   "hard_link"])
def test_output_that_is_an_input_is_refused_before_scoring(campaign, tmp_path, monkeypatch, which):
    qrels, runs, plugin = campaign
    runs_arg, output = str(runs), str(runs / "A")
    if which == "run_by_glob":
        runs_arg = str(runs / "*")
    elif which == "gz_run_other_spelling":
        output = f"{tmp_path}/./runs/../runs/B.gz"
    elif which == "qrels":
        output = str(qrels)
    elif which == "plugin":
        output = str(plugin)
    elif which == "hard_link":
        os.link(runs / "A", tmp_path / "alias")
        output = str(tmp_path / "alias")
    monkeypatch.setattr(irmeta.cli, "score", lambda *a, **k: pytest.fail("scored before refusing"))
    before = snapshot(tmp_path)
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", runs_arg, "--plugin", str(plugin),
                             "--output", output)
    one_line_error(code, err, f"{output}:", "is one of the inputs")
    assert out == "" and snapshot(tmp_path) == before


def test_output_beside_the_inputs_is_written(campaign, tmp_path):
    qrels, runs, _ = campaign
    target = write(tmp_path / "scores.tsv", "old scores\n")
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", str(runs), "--output", str(target))
    assert code == 0 and out == "" and err == ""
    assert target.read_text().startswith("run\tmeasure\tqid\tvalue\nA\t")


# ------------------------------------- 3. --output replaces only a regular file or nothing


@pytest.mark.parametrize("kind, fragment", [("symlink", "is a symbolic link"), ("dangling", "is a symbolic link"),
                                            ("fifo", "is a named pipe (FIFO)"), ("directory", "is a directory")])
def test_output_that_is_not_a_regular_file_is_refused(campaign, tmp_path, kind, fragment):
    qrels, runs, _ = campaign
    target = tmp_path / "out"
    pointee = write(tmp_path / "pointee.tsv", "kept\n")
    if kind == "symlink":
        target.symlink_to(pointee)
    elif kind == "dangling":
        target.symlink_to(tmp_path / "nowhere")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    before = snapshot(tmp_path)
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(runs), "--output", str(target))
    one_line_error(code, err, f"{target}:", fragment)
    assert snapshot(tmp_path) == before


def test_every_atomic_writer_refuses_a_non_regular_target(tmp_path):
    pointee = write(tmp_path / "pointee", "kept\n")
    link = tmp_path / "link"
    link.symlink_to(pointee)
    with pytest.raises(NotRegularFileError, match="symbolic link"):
        atomic_write_bytes(link, b"new")
    assert link.is_symlink() and pointee.read_text() == "kept\n"
    with pytest.raises(NotRegularFileError, match="character device"):
        existing_regular_or_absent("/dev/null")  # only looked at: nothing is written there
    atomic_write_bytes(pointee, b"new")  # a regular file is replaced as before
    existing_regular_or_absent(tmp_path / "missing")
    assert pointee.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["link", "pointee"]


# ------------------------------------------------------------- 4. repeated options


@pytest.mark.parametrize("flag, values", [
    ("--qrels", ["Q", "Q"]), ("--output", ["o1", "o2"]), ("--format", ["irmeta", "trec_eval"]),
    ("--average", ["all", "returned"]), ("--threshold", ["1", "1"]), ("--depth", ["5", "10"]),
    ("--duplicates", ["error", "first"]), ("--run-name", ["file", "tag"]), ("--rarity-depth", ["5", "6"]),
    ("--gains", ["1:1", "1:2"]), ("--beta", ["1", "2"]), ("--asl-unretrieved", ["paper", "depth"]),
    ("--digits", ["3", "4"]),
])
def test_a_single_valued_score_option_given_twice_is_refused(campaign, tmp_path, monkeypatch, flag, values):
    qrels, runs, _ = campaign
    monkeypatch.chdir(tmp_path)
    args = ["--qrels", str(qrels)] if flag != "--qrels" else []
    args += ["--runs", str(runs)]
    args += [item for value in values for item in (flag, str(qrels) if value == "Q" else value)]
    before = snapshot(tmp_path)
    code, out, err = run_cli("score", *args)
    one_line_error(code, err, "irmeta score: error:", f"{flag} given twice", "--help")
    assert out == "" and snapshot(tmp_path) == before


@pytest.mark.parametrize("flag", ["--out", "--seed", "--runs", "--topics", "--depth", "--pool-size", "--threads"])
def test_a_simulate_option_given_twice_is_refused(tmp_path, flag):
    args = ["--out", str(tmp_path / "c")] if flag != "--out" else []
    value = str(tmp_path / "c") if flag == "--out" else "3"
    code, _, err = run_cli("simulate", *args, flag, value, flag, value)
    one_line_error(code, err, "irmeta simulate: error:", f"{flag} given twice")
    assert list(tmp_path.iterdir()) == []


def test_repeated_runs_add_runs(campaign):
    qrels, runs, _ = campaign
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", str(runs / "A"), "--runs", str(runs / "B.gz"),
                             "--measure", "P@1")
    assert code == 0, err
    assert out == "run\tmeasure\tqid\tvalue\nA\tP@1\tall\t1\nB\tP@1\tall\t0.5\n"  # both runs, not the last


# --------------------------------------- 5. a closed standard output, a reader gone


@pytest.fixture(scope="module")
def big_campaign(tmp_path_factory) -> list[str]:
    """``irmeta score`` arguments whose output (~300 KB) overflows a pipe's buffer."""
    made = simulate_campaign(tmp_path_factory.mktemp("big") / "c", seed=1, n_runs=10, n_topics=300, depth=50)
    return ["score", "--qrels", str(made["qrels"]), "--runs", str(made["qrels"].parent / "runs"), "--per-topic",
            "--measure", "P@5", "--measure", "AP", "--measure", "nDCG@10"]


IRMETA = [sys.executable, "-m", "irmeta.cli"]


@pytest.mark.slow
def test_a_reader_gone_exits_quietly(big_campaign):
    proc = subprocess.Popen([*IRMETA, *big_campaign], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before irmeta has written a byte
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == b""


@pytest.mark.slow
def test_piped_into_head_exits_quietly(big_campaign):
    irmeta_proc = subprocess.Popen([*IRMETA, *big_campaign], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.Popen(["head", "-c", "10"], stdin=irmeta_proc.stdout, stdout=subprocess.PIPE)
    irmeta_proc.stdout.close()  # head alone holds the pipe, as in a shell pipeline
    assert head.communicate(timeout=120)[0] == b"run\tmeasur"
    err = irmeta_proc.stderr.read()
    assert irmeta_proc.wait(timeout=120) == 141 and err == b""


@pytest.mark.slow
def test_closed_stdout_is_one_line(big_campaign):
    proc = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *IRMETA, *big_campaign], capture_output=True,
                          text=True, timeout=120)
    one_line_error(proc.returncode, proc.stderr, "standard output: is closed", "--output")


@pytest.mark.slow
def test_closed_stderr_keeps_warnings_out_of_the_scores(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"\xef\xbb\xbf" + QRELS.encode())  # warned about, on standard error
    run = write(tmp_path / "A", RUN_A)
    argv = [*IRMETA, "score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P@1"]
    proc = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "run\tmeasure\tqid\tvalue\nA\tP@1\tall\t1\n"


def test_out_of_memory_is_one_line(campaign, monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 240. TiB for an array")

    monkeypatch.setattr(irmeta.cli, "score", exhausted)
    qrels, runs, _ = campaign
    one_line_error(*run_cli("score", "--qrels", str(qrels), "--runs", str(runs))[::2], "out of memory", "240. TiB")


# ----------------------------------------------------------------- 6. a full disk


def test_full_disk_names_the_output_and_keeps_the_old_one(campaign, tmp_path, monkeypatch):
    qrels, runs, _ = campaign
    target = write(tmp_path / "scores.tsv", "old scores\n")
    real = pathlib.Path.write_bytes

    def full(self, data):
        if self.name.startswith(".scores.tsv."):  # the temporary file beside the output
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    before = snapshot(tmp_path)
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(runs), "--output", str(target))
    one_line_error(code, err, f"{target}:", "No space left on device")
    assert snapshot(tmp_path) == before


def test_full_disk_on_standard_output_names_it(campaign, monkeypatch):
    class FullDisk(io.StringIO):
        class buffer:  # noqa: N801 (stands for sys.stdout.buffer)
            @staticmethod
            def write(data):
                raise OSError(errno.ENOSPC, "No space left on device")

    qrels, runs, _ = campaign
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", FullDisk())
    with redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--runs", str(runs)])
    one_line_error(code, err.getvalue(), "standard output: No space left on device")


# ------------------------------------------------------- 7. other inputs, one line each


@pytest.mark.parametrize("args, fragment", [
    (["--output", ""], "--output: an empty path"), (["--runs", ""], "--runs: an empty path"),
    (["--qrels", ""], "--qrels: an empty path"), (["--gains", ""], "grade:gain pairs"),
    (["--gains", "1:1,1:2"], "grade 1 given twice"), (["--gains", "99999999999999999999:1"], "int64"),
    (["--measure", "nDCG(gains={99999999999999999999:1})@10"], "too large"),
    (["--plugin", "PLUGIN_RAISES"], "RuntimeError: boom"), (["--plugin", "PLUGIN_SYNTAX"], "SyntaxError"),
])
def test_other_bad_inputs_are_one_line(campaign, tmp_path, args, fragment):
    qrels, runs, _ = campaign
    plugins = {"PLUGIN_RAISES": write(tmp_path / "raises.py", "raise RuntimeError('boom')\n"),
               "PLUGIN_SYNTAX": write(tmp_path / "syntax.py", "def f(:\n")}
    args = [str(plugins.get(a, a)) for a in args]
    base = {"--qrels": str(qrels), "--runs": str(runs)}
    for flag in set(base) & set(args):
        del base[flag]
    before = snapshot(tmp_path)
    code, out, err = run_cli("score", *[x for pair in base.items() for x in pair], *args)
    line = one_line_error(code, err, fragment)
    if "--plugin" in args:
        assert str(tmp_path) in line and ":1:" in line  # where in the plugin it failed
    assert out == "" and snapshot(tmp_path) == before


def test_simulate_out_empty_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # "" would have meant this folder
    code, _, err = run_cli("simulate", "--out", "")
    one_line_error(code, err, "--out: an empty path")
    assert list(tmp_path.iterdir()) == []
