"""irmeta.support.formats, the one writer per format: hostile names come out as text in
Markdown, LaTeX and HTML; TSV refuses what it cannot carry and reads back everything else;
non-finite numbers never reach a file."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irmeta.artefacts.tables import write_table
from irmeta.cli import scores_trec_eval, scores_tsv
from irmeta.measures.averaging import Scores
from irmeta.measures.score_files import read_score_file
from irmeta.support.formats import (
    Markup,
    check_tsv_names,
    html_escape,
    latex_escape,
    markdown_escape,
    refuse_infinite,
    refuse_non_finite,
    tsv_fault,
)

HOSTILE = ["<img src=x onerror=alert(1)>", "a|b", "x_y*z", "back\\slash", "& % $ # _ { } ~ ^ \\ | < >",
           "[link](javascript:alert(1))", "`code`", "&lt;b&gt;"]


def _markdown_text(escaped: str) -> str:
    """What CommonMark shows for backslash-escaped text: each escaped character itself."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escaped)


def _rendered_cell(escaped: str) -> str:
    """The text a GitHub-like Markdown renderer (CommonMark with GFM's tables and
    strikethrough: markdown-it-py) shows in a table cell holding ``escaped``, and the HTML
    it made of it; no tag but the table's may appear."""
    import html

    from markdown_it import MarkdownIt

    made = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(f"| h |\n| --- |\n| {escaped} |\n")
    cell = re.search(r"<td>(.*)</td>", made, re.S)
    assert cell is not None, made
    return html.unescape(cell.group(1)), cell.group(1)


@pytest.mark.parametrize("name", HOSTILE + ["dl20_perturbed", "cohen_kappa", "grade >= 2", "_x_", "a__b", "*em*",
                                            "~~gone~~", "<b>", "</i>", "<!-- c -->", "<https://x.org>", "&amp;",
                                            "&#60;", "> quote", "P_rareness(alpha=0.5)@100", "x < 3 & y > 2"])
def test_markdown_renders_as_the_name_itself(name):
    shown, made = _rendered_cell(markdown_escape(name))
    assert shown == name.strip()  # the reader sees the name, exactly
    assert not re.search(r"<(?!/?td)", made.replace("&lt;", "")), made  # and no markup was made of it


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_leaves_no_markup(name):
    escaped = markdown_escape(name)
    assert _markdown_text(escaped) == name  # backslashes only before punctuation, so the reader sees the name


def test_markdown_examples():
    # escaped only where Markdown would read markup, so the raw text reads as it renders
    assert markdown_escape("P_rareness") == "P_rareness"
    assert markdown_escape("dl20_perturbed") == "dl20_perturbed"
    assert markdown_escape("relevant: grade >= 2") == "relevant: grade >= 2"
    assert markdown_escape("_x") == r"\_x"
    assert markdown_escape("<img src=x onerror=alert(1)>") == r"\<img src=x onerror=alert(1)>"
    assert markdown_escape("a|b\nc") == r"a\|b c"
    assert markdown_escape(Markup("0.5<sup>ab</sup>")) == "0.5<sup>ab</sup>"


def _latex_text(escaped: str) -> str:
    """The characters LaTeX typesets for :func:`latex_escape`'s output."""
    words = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
             r"\textbar{}": "|", r"\textless{}": "<", r"\textgreater{}": ">"}
    return re.sub(r"\\text[a-z]+\{\}|\\[&%$#_{}]", lambda m: words.get(m.group(0), m.group(0)[1:]), escaped)


@pytest.mark.parametrize("name", HOSTILE)
def test_latex_escapes_every_special_character(name):
    escaped = latex_escape(name)
    assert _latex_text(escaped) == name
    bare = re.sub(r"\\text[a-z]+\{\}|\\[&%$#_{}]", "", escaped)  # every escape taken out
    assert not set(bare) & set("&%$#_{}~^\\|<>")


def test_latex_examples():
    assert latex_escape("& % $ # _ { } ~ ^ \\ | < >") == (
        r"\& \% \$ \# \_ \{ \} \textasciitilde{} \textasciicircum{} \textbackslash{} \textbar{} \textless{} "
        r"\textgreater{}")
    assert latex_escape(Markup("$^{ab}$")) == "$^{ab}$"


@pytest.mark.parametrize("name", HOSTILE)
def test_html_escape(name):
    import html

    escaped = html_escape(name)
    assert html.unescape(escaped) == name and not set(escaped) & set("<>\"'")


def test_write_table_escapes_hostile_names(tmp_path):
    frame = pd.DataFrame({"run": HOSTILE, "value": np.arange(len(HOSTILE), dtype=float)})
    csv, md, tex = write_table(frame, tmp_path / "t", caption="runs like <b>x_y</b>")
    assert csv.read_bytes() == frame.to_csv(index=False, lineterminator="\n").encode()  # CSV as pandas writes it
    text = md.read_text()
    assert not re.search(r"(?<!\\)<[A-Za-z/!?]", text)  # no tag opened
    assert r"\<img src=x onerror=alert(1)>" in text and r"\<b>x_y\</b>" in text
    rows = [line for line in text.splitlines()[4:]]
    assert [_markdown_text(r.split(" | ")[0][2:]) for r in rows] == HOSTILE
    body = tex.read_text()
    assert r"\textless{}img src=x onerror=alert(1)\textgreater{}" in body and "<" not in body


@pytest.mark.parametrize("name, fault", [
    ("a\tb", "a tab"), ("a\nb", "a newline"), ("a\rb", "a carriage return"), ("", "nothing (it is empty)"),
    ("a\udcffb", "a character UTF-8 cannot encode")])
def test_tsv_refuses_what_it_cannot_carry(name, fault):
    assert tsv_fault(name) == fault
    with pytest.raises(ValueError) as caught:
        check_tsv_names("run", ["ok", name])
    message = str(caught.value)
    assert "\n" not in message and message == f"run name {name!r} holds {fault}, which TSV cannot carry"


def test_trec_eval_refuses_whitespace_in_names():
    assert tsv_fault("a b") is None
    assert tsv_fault("a b", trec_eval=True) == "a space"
    with pytest.raises(ValueError, match=r"run name 'a b' holds a space, which trec_eval's format cannot carry"):
        check_tsv_names("run", ["a b"], trec_eval=True)


def _scores(runs: list[str], per_topic: np.ndarray | None = None) -> Scores:
    tenths = np.rint(np.linspace(0.0, 10.0, 3 * len(runs))) / 10  # scores P@10 can give, as read back
    values = tenths.reshape(1, len(runs), 3) if per_topic is None else per_topic
    return Scores(runs=runs, topics=["401", "402", "403"], measures=["P@10"], alphas=[None], per_topic=values,
                  means={"all_topics": values.mean(axis=-1)})


# Names the TSV can carry: no tab, newline or carriage return, no lone surrogate, not empty.
CARRIED = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r"), min_size=1,
                  max_size=12)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CARRIED, min_size=1, max_size=4, unique=True))
def test_any_carried_run_name_round_trips_through_tsv(tmp_path_factory, runs):
    scores = _scores(runs)
    path = tmp_path_factory.mktemp("rt") / "scores.tsv"
    path.write_bytes(scores_tsv(scores, per_topic=True, digits=None))
    back = read_score_file(path, format="irmeta")
    per_topic = back[back["qid"] != "all"]
    assert per_topic["run"].tolist() == [r for r in runs for _ in range(3)]
    assert np.array_equal(per_topic["value"].to_numpy(), scores.per_topic[0].reshape(-1))


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r \x0b\x0c"),
                        min_size=1, max_size=12), min_size=1, max_size=4, unique=True))
def test_run_names_without_whitespace_round_trip_through_trec_eval(tmp_path_factory, runs):
    scores = _scores(runs)
    path = tmp_path_factory.mktemp("rt") / "scores.txt"
    path.write_bytes(scores_trec_eval(scores, per_topic=True, digits=6))
    back = read_score_file(path, format="trec_eval")
    assert back.loc[back["qid"] != "all", "run"].tolist() == [r for r in runs for _ in range(3)]


@pytest.mark.parametrize("writer", [scores_tsv, scores_trec_eval])
def test_score_writers_refuse_a_run_name_they_cannot_carry(writer):
    with pytest.raises(ValueError, match=r"^run name 'a\\tb' holds a tab, which .* cannot carry$"):
        writer(_scores(["a\tb"]), per_topic=True, digits=4)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("writer", [scores_tsv, scores_trec_eval])
def test_score_writers_refuse_non_finite_values(writer, bad):
    values = np.full((1, 2, 3), 0.5)
    values[0, 1, 2] = bad
    with pytest.raises(ValueError, match=r"^P@10 of run r2 on topic 403: (nan|inf|-inf) is not a finite number"):
        writer(_scores(["r1", "r2"], values), per_topic=True, digits=4)


def test_refusals_name_where():
    with pytest.raises(ValueError, match="^here 1: inf is not a finite number"):
        refuse_non_finite(np.array([0.0, np.inf]), lambda i: f"here {i}")
    refuse_infinite(np.array([0.0, np.nan]), lambda i: "never")  # NaN is a missing entry
    refuse_non_finite(np.array(["a"], dtype=object), lambda i: "never")  # not numbers: nothing to check


def test_tables_keep_missing_cells_and_refuse_infinity(tmp_path):
    frame = pd.DataFrame({"measure": ["AP", "P@10"], "run": ["r1", "r2"], "permutations": [None, 1000],
                          "randomised_p": [np.nan, 0.5]})
    csv, md, _ = write_table(frame, tmp_path / "ok")
    assert csv.read_text().splitlines()[1] == "AP,r1,,"
    assert md.read_text().splitlines()[2] == "| AP | r1 |  |  |"
    frame.loc[1, "randomised_p"] = -np.inf
    with pytest.raises(ValueError, match=r"^table bad, column randomised_p, row 1 \(measure P@10, run r2\): -inf"):
        write_table(frame, tmp_path / "bad")
    assert not list(tmp_path.glob("bad*"))
