"""What ``irmeta score`` and ``irmeta compare`` write, read back and escaped: every
(--average, --format) of ``score --per-topic`` reads back through irmeta's score-file
reader; a run name the output cannot carry is refused in one line before scoring; hostile
names are text in compare's Markdown and LaTeX."""

from __future__ import annotations

import gzip
import io
import shutil
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from irmeta.api import score
from irmeta.cli import main
from irmeta.measures.averaging import AVERAGING_NAMES
from irmeta.measures.score_files import read_score_file, scores_from_table


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """Four simulated runs on five topics; one of them returns no document for the first
    topic (so ``returned`` and ``all`` differ)."""
    root = tmp_path_factory.mktemp("campaign")
    assert main(["simulate", "--out", str(root), "--runs", "4", "--topics", "5", "--depth", "20"]) == 0
    runs = sorted((root / "runs").iterdir())
    lines = gzip.decompress(runs[0].read_bytes()).decode().splitlines()
    first = lines[0].split()[0]
    runs[0].write_bytes(gzip.compress("".join(f"{x}\n" for x in lines if x.split()[0] != first).encode()))
    return root


MEASURES = ("AP", "P@5")


@pytest.mark.parametrize("fmt", ["irmeta", "trec_eval"])
@pytest.mark.parametrize("average", ["all", "returned", "geometric"])
def test_per_topic_output_reads_back(campaign, tmp_path, average, fmt):
    out = tmp_path / "scores.txt"
    qrels, runs = str(campaign / "qrels.txt"), str(campaign / "runs")
    code, _, err = run_cli("score", "--qrels", qrels, "--runs", runs, *(f"--measure={m}" for m in MEASURES),
                           "--per-topic", "--average", average, "--format", fmt, "--digits", "6", "--output", str(out))
    assert code == 0, err
    table = read_score_file(out, format=fmt)
    scored = score(qrels, runs, list(MEASURES), average=average)
    s, returned = scored.scores, scored.matrix.returned
    per_topic = table[table["qid"] != "all"]
    # the rows written are every (run, topic), or with trec_eval's -q without -c the topics returned
    shown = returned if (fmt, average) == ("trec_eval", "returned") else np.ones_like(returned)
    assert len(per_topic) == len(MEASURES) * int(shown.sum())
    for i, measure in enumerate(MEASURES):
        rows = per_topic[per_topic["measure"] == measure]
        r = [s.runs.index(x) for x in rows["run"]]
        t = [s.topics.index(x) for x in rows["qid"]]
        assert shown[r, t].all()
        assert np.allclose(rows["value"].to_numpy(), s.per_topic[i][r, t], atol=5e-7, rtol=0)
    # the mean rows agree with the per-topic rows (checked by the reader), or, geometric
    # ones, are left out and counted, as trec_eval's gm_map is
    back = scores_from_table(table, list(MEASURES), [], missing="zero")
    if (fmt, average) == ("trec_eval", "returned"):  # the topics each run returned, as written
        assert np.allclose(back.means["returned_topics"], s.means[AVERAGING_NAMES[average]], atol=5e-6, rtol=0)
    else:  # every topic's row written (0 where the run returned nothing): means over all of them
        assert np.allclose(back.means["all_topics"], s.per_topic.mean(axis=-1), atol=5e-6, rtol=0)
    if average == "geometric":
        gm = {"irmeta": ["gm_AP", "gm_P@5"], "trec_eval": ["gm_map", "gm_P_5"]}[fmt]
        assert all(table.attrs["dropped"][name] == len(s.runs) for name in gm)


@pytest.fixture
def hostile_runs(campaign, tmp_path):
    """A copy of the runs, one of them renamed ``name`` (a fixture argument set per test)."""
    def make(name: str):
        folder = tmp_path / "runs"
        shutil.copytree(campaign / "runs", folder)
        first = sorted(folder.iterdir())[0]
        first.rename(folder / name)
        return folder
    return make


@pytest.mark.parametrize("name, fault", [("a\tb", "a tab"), ("a\nb", "a newline"), ("a\rb", "a carriage return")])
@pytest.mark.parametrize("command", [["score"], ["score", "--format", "trec_eval"], ["compare", "--format", "tsv"]])
def test_a_run_name_no_output_can_carry_is_refused_before_scoring(campaign, hostile_runs, monkeypatch, command,
                                                                   name, fault):
    import irmeta.cli
    import irmeta.cli_compare

    for module in (irmeta.cli, irmeta.cli_compare):
        monkeypatch.setattr(module, "score", lambda *a, **k: pytest.fail("scored before refusing"))
    code, out, err = run_cli(*command, "--qrels", str(campaign / "qrels.txt"), "--runs", str(hostile_runs(name)))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"irmeta: error: run name {name!r} holds {fault}, which ")


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_markdown_and_latex_carry_a_tab_in_a_run_name(campaign, hostile_runs, fmt):
    """Issue 40: the reports escape what they write, so only TSV refuses a name (and says TSV)."""
    runs = str(hostile_runs("a\tb"))
    code, out, err = run_cli("compare", "--qrels", str(campaign / "qrels.txt"), "--runs", runs, "--format", fmt)
    assert code == 0 and err == "" and "a\tb" in out
    code, _, err = run_cli("compare", "--qrels", str(campaign / "qrels.txt"), "--runs", runs, "--format", "tsv")
    assert code == 2 and err == "irmeta: error: run name 'a\\tb' holds a tab, which TSV cannot carry\n"


def test_trec_eval_format_refuses_a_space_in_a_run_name(campaign, hostile_runs):
    runs = str(hostile_runs("my run"))
    code, _, err = run_cli("score", "--qrels", str(campaign / "qrels.txt"), "--runs", runs, "--format", "trec_eval")
    assert code == 2
    assert err == "irmeta: error: run name 'my run' holds a space, which trec_eval's format cannot carry\n"
    code, out, _ = run_cli("score", "--qrels", str(campaign / "qrels.txt"), "--runs", runs)
    assert code == 0 and "my run\tP@10\tall\t" in out  # irmeta's TSV carries it


HOSTILE = "<img src=x onerror=alert(1)>&x_y*z|[a]\\"


def test_compare_reports_escape_hostile_names(campaign, hostile_runs):
    runs = str(hostile_runs(HOSTILE))
    common = ("compare", "--qrels", str(campaign / "qrels.txt"), "--runs", runs, "--measure", "P_rareness@10",
              "--alpha", "0.5", "--baseline", HOSTILE, "--level", "0.5")
    code, md, err = run_cli(*common)
    assert code == 0, err
    assert r"\<img src=x onerror=alert(1)\>\&x\_y\*z\|\[a\]\\" in md and r"P\_rareness" in md
    body = md.replace(r"\<", "").replace(r"\>", "").replace("<sup>", "").replace("</sup>", "")
    assert "<" not in body and ">" not in body  # the only markup: the superscripts
    code, tex, _ = run_cli(*common, "--format", "latex")
    assert code == 0
    assert (r"\textless{}img src=x onerror=alert(1)\textgreater{}\&x\_y*z\textbar{}[a]\textbackslash{}" in tex
            and r"P\_rareness" in tex)
    code, tsv, _ = run_cli(*common, "--format", "tsv")
    assert code == 0 and f"\t{HOSTILE}\t" in tsv  # TSV carries it as it is
