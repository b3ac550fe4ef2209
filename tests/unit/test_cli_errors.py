"""No input reaches a traceback: every failure of the command line exits 2 with one line.

Explicit cases for each known fault (output to a directory or a missing folder, qrels
that are a directory, absurd cutoffs, alphas out of range, a simulate target that is a
file, a negative --digits, byte-order marks), then hypothesis over arguments, paths and
file contents: the exit status is 0 or 2, nothing looks like a traceback, and a failure
is one line starting with ``irmeta``.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import write
from irmeta.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
RUN = "1 Q0 a 1 2.5 r\n1 Q0 x 2 1.5 r\n2 Q0 c 1 9 r\n"


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``irmeta argv``, in-process."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse: --help, --version, usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def assert_one_line_error(code: int, err: str, *fragments: str) -> str:
    assert code == 2, err
    lines = [line for line in err.splitlines() if not line.startswith("irmeta: warning:")]
    assert len(lines) == 1 and lines[0].startswith("irmeta"), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture()
def campaign(tmp_path):
    return write(tmp_path / "qrels.txt", QRELS), write(tmp_path / "runs" / "r", RUN)


# ------------------------------------------------------------------ known faults


def test_output_naming_a_directory(campaign, tmp_path):
    qrels, run = campaign
    target = tmp_path / "out"
    target.mkdir()
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--output", str(target))
    assert_one_line_error(code, err, str(target), "directory")
    assert list(target.iterdir()) == [] and not list(tmp_path.glob(".*tmp"))


def test_output_in_a_missing_directory_names_the_users_path(campaign, tmp_path):
    qrels, run = campaign
    target = f"{tmp_path}/nodir/sub/out.tsv"
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--output", target)
    line = assert_one_line_error(code, err, target)
    assert ".tmp" not in line and not (tmp_path / "nodir").exists()


def test_output_written_atomically_and_readable(campaign, tmp_path):
    qrels, run = campaign
    target = tmp_path / "scores.tsv"
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--output", str(target))
    assert code == 0 and out == "" and err == ""
    assert target.read_text().startswith("run\tmeasure\tqid\tvalue\n")
    assert oct(target.stat().st_mode & 0o077) != "0o0"  # an ordinary file, not mkstemp's private one
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_qrels_naming_a_directory(campaign, tmp_path):
    _, run = campaign
    code, _, err = run_cli("score", "--qrels", str(tmp_path), "--runs", str(run))
    assert_one_line_error(code, err, str(tmp_path), "directory")


@pytest.mark.parametrize("measure, fragment", [("P@99999999999999999999", "at most 2147483647"),
                                               ("P@0", "at least 1"), ("Q@10x", "measure"),
                                               ("nonsense", "unknown measure")])
def test_absurd_measures(campaign, measure, fragment):
    qrels, run = campaign
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--measure", measure)
    assert_one_line_error(code, err, fragment)


@pytest.mark.parametrize("alpha, measure, fragment", [
    ("2", "P_rareness_norm@2", "outside [0, 1]"), ("-1", "P_rareness@2", "'-1'"),
    ("nan", "P_rareness@2", "'nan'"), ("inf", "AP_rareness@2", "'inf'"), ("x", "P_rareness@2", "neither"),
    ("1.5", "AP_rareness_norm@2", "1.5"), ("1e300", "P_rareness@2", "'1e300' is above 1e+100"),
    ("1e101", "RBP_rareness", "'1e101' is above 1e+100"),
])
def test_alphas_out_of_range_are_refused(campaign, alpha, measure, fragment):
    qrels, run = campaign
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--measure", measure,
                           "--alpha", alpha)
    assert_one_line_error(code, err, fragment)


def test_alpha_above_one_scores_eq1(campaign):
    """Eq. 1 (unnormalised) gives alpha > 1 a meaning: more weight to rarity than to relevance."""
    qrels, run = campaign
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P_rareness@2",
                             "--alpha", "2")
    assert code == 0 and "P_rareness(alpha=2)@2" in out, err


def test_simulate_onto_an_existing_file(tmp_path):
    target = write(tmp_path / "taken", "x")
    code, _, err = run_cli("simulate", "--out", str(target))
    assert_one_line_error(code, err, str(target))
    assert target.read_text() == "x"


def test_simulate_refuses_a_pool_that_cannot_fill_the_depth(tmp_path):
    code, _, err = run_cli("simulate", "--out", str(tmp_path / "c"), "--depth", "100", "--pool-size", "50")
    assert_one_line_error(code, err, "--pool-size 50 cannot fill --depth 100")
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("args, fragment", [
    (["--digits", "-1"], "--digits"), (["--digits", "x"], "--digits"), (["--depth", "0"], "--depth"),
    (["--threshold", "-1"], "--threshold"), (["--beta", "nan"], "--beta"), (["--rarity-depth", "-5"], "--rarity-depth"),
    (["--average", "median"], "--average"),
])
def test_bad_numbers_are_usage_errors(campaign, args, fragment):
    qrels, run = campaign
    code, _, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), *args)
    assert_one_line_error(code, err, fragment, "--help")


def test_qrels_with_a_byte_order_mark_is_read_with_a_warning(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    run = write(tmp_path / "r", RUN)
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P@1", "--per-topic")
    assert code == 0
    assert err.count("irmeta: warning:") == 1 and str(qrels) in err and "byte-order mark" in err
    assert "\ufeff" not in out and "r\tP@1\t1\t1" in out  # topic 1 is topic 1


def test_run_with_a_byte_order_mark_is_read_with_a_warning(tmp_path):
    qrels = write(tmp_path / "qrels.txt", QRELS)
    run = tmp_path / "r"
    run.write_bytes(b"\xef\xbb\xbf" + RUN.encode())
    code, out, err = run_cli("score", "--qrels", str(qrels), "--runs", str(run), "--measure", "P@1", "--per-topic")
    assert code == 0 and "byte-order mark" in err and str(run) in err
    assert "r\tP@1\t1\t1" in out and "not in the qrels" not in err


def test_version_and_help_exit_zero():
    for argv in (["--version"], ["--help"], ["score", "--help"], ["simulate", "--help"]):
        code, out, _ = run_cli(*argv)
        assert code == 0 and out


def test_unreadable_file_is_named(campaign, tmp_path):
    """As root (CI), chmod does not stop reading: the check runs in a forked child that
    drops to user nobody after the CLI's modules are loaded."""
    qrels, run = campaign
    assert run_cli("score", "--qrels", str(qrels), "--runs", str(run))[0] == 0  # warm every import
    locked = write(tmp_path / "locked" / "qrels.txt", QRELS)
    locked.chmod(0)
    os.chmod(tmp_path, 0o755)
    os.chmod(tmp_path / "locked", 0o755)
    if os.geteuid() != 0:
        code, _, err = run_cli("score", "--qrels", str(locked), "--runs", str(run))
    else:
        read, write_end = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover (the child)
            try:
                os.setgid(65534)
                os.setuid(65534)
                result = run_cli("score", "--qrels", str(locked), "--runs", str(run))
            except BaseException as exc:  # report anything to the parent
                result = (99, "", repr(exc))
            os.write(write_end, pickle.dumps(result))
            os._exit(0)
        os.close(write_end)
        data = b""
        while chunk := os.read(read, 65536):
            data += chunk
        os.waitpid(child, 0)
        code, _, err = pickle.loads(data)
    assert_one_line_error(code, err, str(locked), "ermission")


# -------------------------------------------------------------------- hypothesis

_TEXT_LINES = st.lists(st.one_of(
    st.sampled_from(["1 Q0 a 1 2.5 r", "1 Q0 b 2 nan r", "2 Q0 c 1 inf r", "1 Q0 a 3 1 r", "1 Q0", "",
                     "1\tQ0\ta\t1\t0x1p3\tr", "1 Q0 a 1 1e999 r", "1 Q0 \xe9 1 1 r", "  1 Q0 z 1 1 r  ",
                     "1 0 a 1", "1 0 a x", "1 0 a 1.5", "\ufeff1 0 a 1"]),
    st.text(min_size=0, max_size=30)), max_size=8)


@st.composite
def file_contents(draw) -> bytes:
    kind = draw(st.sampled_from(["lines", "bytes", "gzip", "corrupt-gzip", "bom"]))
    text = "\n".join(draw(_TEXT_LINES)).encode("utf-8", errors="surrogatepass")
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "gzip":
        return gzip.compress(text, mtime=0)
    if kind == "corrupt-gzip":
        return gzip.compress(text, mtime=0)[:-5] + b"xx"
    if kind == "bom":
        return b"\xef\xbb\xbf" + text
    return text


_PATH_KINDS = ["qrels", "run", "runs_dir", "missing", "directory", "through_file", "empty", "generated",
               "glob_none", "output_dir", "output_missing_dir"]
_MEASURES = st.sampled_from(["P@1", "AP", "map", "ndcg", "P", "bpref", "set_F", "recall_5", "P_rareness@2",
                             "P_rareness_norm@2", "ASL", "ASL_g1", "Q@3", "P@0", "P@-1", "zz", "RR@99999999999"])


@st.composite
def argvs(draw, root: Path):
    def path(kind: str) -> str:
        return {"qrels": str(root / "qrels.txt"), "run": str(root / "runs" / "r"), "runs_dir": str(root / "runs"),
                "missing": str(root / "missing" / "x"), "directory": str(root / "dir"),
                "through_file": str(root / "qrels.txt" / "x"), "empty": str(root / "empty"),
                "generated": str(root / "generated"), "glob_none": str(root / "nomatch*"),
                "output_dir": str(root / "dir"), "output_missing_dir": str(root / "nodir" / "o.tsv")}[kind]

    command = draw(st.sampled_from(["score", "score", "score", "simulate", "bogus"]))
    argv = [command]
    if command == "score":
        if draw(st.booleans()):
            argv += ["--qrels", path(draw(st.sampled_from(["qrels", "qrels", "generated", "missing", "directory",
                                                             "through_file", "empty"])))]
        if draw(st.booleans()):
            argv += ["--runs", *[path(k) for k in draw(st.lists(st.sampled_from(
                ["run", "runs_dir", "generated", "missing", "directory", "empty", "glob_none", "through_file"]),
                min_size=1, max_size=3))]]
        for measure in draw(st.lists(_MEASURES, max_size=3)):
            argv += ["--measure", measure]
        options = draw(st.lists(st.sampled_from([
            ["--depth", "1"], ["--depth", "0"], ["--threshold", "2"], ["--threshold", "-3"], ["--digits", "3"],
            ["--digits", "-1"], ["--alpha", "0.5"], ["--alpha", "2"], ["--alpha", "-1"], ["--alpha", "1/R"],
            ["--alpha", "nan"], ["--per-topic"], ["--average", "returned"], ["--duplicates", "first"],
            ["--run-name", "tag"], ["--gains", "1:2"], ["--gains", "x"], ["--beta", "-1"], ["--rarity-depth", "1"],
            ["--asl-unretrieved", "depth"], ["--output", path("output_dir")],
            ["--output", path("output_missing_dir")], ["--unknown"]]), max_size=4))
        argv += [item for option in options for item in option]
    elif command == "simulate":
        argv += draw(st.sampled_from([["--out", path("qrels")], ["--out", path("through_file")], [],
                                      ["--out", str(root / "sim"), "--runs", "1"],
                                      ["--out", str(root / "sim"), "--topics", "x"],
                                      ["--out", str(root / "sim"), "--runs", "2", "--topics", "1", "--depth", "3"]]))
    return argv


@pytest.mark.slow
@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), contents=file_contents())
def test_any_input_exits_0_or_2_with_one_line(data, contents):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root / "qrels.txt", QRELS)
        write(root / "runs" / "r", RUN)
        (root / "dir").mkdir()
        (root / "empty").write_bytes(b"")
        (root / "generated").write_bytes(contents)
        argv = data.draw(argvs(root))
        code, out, err = run_cli(*argv)
        assert code in (0, 2), (argv, code, err)
        assert "Traceback" not in err and "Traceback" not in out
        if code == 2:
            assert_one_line_error(code, err)
        others = [p.name for p in root.rglob(".*") if p.name.endswith(".tmp")]
        assert not others, others  # no temporary file left behind
