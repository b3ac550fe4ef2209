"""Figures a reviewer would print (issue 43): every figure at most 7.5 x 10 in, its text at
least 7 pt at its printed size (a page's 7 in at most), none of it off the figure, every
panel titled, no two series of a panel or legend alike in colour, marker and line style,
and no internal id of the test registry or the manifest in its text.

Each figure writes its facts beside it when IRMETA_FIGURE_FACTS is set
(:func:`irmeta.artefacts.figures.style.figure_facts`); tests/figure_checks.py judges them.
First the checks themselves, on figures made to fail them; then every figure of small
synthetic tables; then every figure the demo campaign and TREC-8's paper config draw,
from the session's runs of the workflow (tests/conftest.py, tests/session_workflows.py:
the runs the workflow's and the report's tests read too, so the suite runs each once).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from figure_checks import figure_problems, ids_in, internal_ids
from irmeta.artefacts.figures.style import FACTS_ENV, figure_facts, save_figure, styled
from irmeta.pipeline.manifest import EXPERIMENTS


def _facts(draw) -> dict:
    fig = styled(draw)
    fig.canvas.draw()
    return {"pages": [figure_facts(fig)]}


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def test_a_figure_fit_for_a_page_passes():
    def draw():
        fig = _figure(3.5, 2.6)
        ax = fig.subplots()
        ax.plot([0, 1], [0, 1], color="C0", marker="o", label="P@100")
        ax.plot([0, 1], [1, 0], color="C0", marker="s", label="AP@100")
        ax.set_title("Kendall's tau against alpha")
        ax.legend()
        return fig

    assert figure_problems(_facts(draw)) == []


@pytest.mark.parametrize("defect, expected", [
    ("wide", "more than 7.5 x 10"),
    ("small", "under 7 pt printed"),
    ("untitled", "without a title"),
    ("alike", "share ("),
    ("id", "internal id(s) in its text: ['paired_t+holm']"),
    ("generated", "internal id(s) in its text: ['error_0.1']"),
    ("off", "text off the figure"),
    ("spill", "text out of its panel: ['-19.57%']"),
])
def test_the_checks_see_each_defect(defect, expected):
    """Each check can fail: a figure made with one defect is reported for it."""
    def draw():
        fig = _figure(16.5 if defect == "wide" else 3.5, 2.6)
        ax = fig.subplots()
        ax.plot([0, 1], [0, 1], color="C0", marker="o", label="P@100")
        ax.plot([0, 1], [1, 0], color="C0", marker="o" if defect == "alike" else "s", label="AP@100")
        title = {"id": "paired_t+holm", "generated": "tau under error_0.1", "untitled": ""}.get(defect, "tau")
        ax.set_title(title)
        ax.legend(fontsize=6 if defect == "small" else 7.5)
        if defect == "off":
            ax.text(1.5, 0.5, "a note that runs off the figure's right edge", transform=ax.transAxes, in_layout=False)
        if defect == "spill":  # a bar's value written past the panel's left edge, into the margin
            ax.text(0.02, 0.5, "-19.57%", transform=ax.transAxes, ha="right", fontsize=7.5)
        return fig

    problems = figure_problems(_facts(draw))
    assert any(expected in p for p in problems), problems


def test_a_figure_wider_than_a_page_prints_its_fonts_smaller():
    """A figure is printed at most a page (7 in) wide: 7.5 pt text in a 7 in figure prints
    at 7.5 pt, in a 7.6 in one at 6.9 pt."""
    def draw(width):
        def inner():
            fig = _figure(width, 3)
            ax = fig.subplots()
            ax.set_title("tau", fontsize=7.5)
            ax.tick_params(labelsize=7.5)
            ax.xaxis.label.set_fontsize(7.5)
            return fig
        return inner

    assert figure_problems(_facts(draw(7.0))) == []
    assert any("under 7 pt" in p for p in figure_problems(_facts(draw(7.6))))


def test_ids_are_the_registry_s_and_the_manifest_s_not_words_or_measures():
    ids = internal_ids()
    assert {"paper_pairwise", "paired_t+holm", "leave_one_out+frozen", "protocol", "paper_script",
            "judgment_agreement", "all_topics", "tau_ap"} <= ids
    assert ids_in("P_rareness@100 vs P@100, Tukey HSD (two-way ANOVA), stability", ids) == []
    assert ids_in("rarity of S_rare: protocol", ids) == ["protocol"]
    assert ids_in("pool_depth_10 and fraction_0.5_trial_3", ids) == ["pool_depth_10", "fraction_0.5_trial_3"]


# ------------------------------------------------------------ every figure, small tables


def _synthetic_cases() -> dict:
    from test_claims_vs_properties import claims, properties
    from test_figures import CASES

    from irmeta.artefacts.figures.properties import plot_claims_vs_properties

    cases = dict(CASES)
    cases["claims_vs_properties"] = lambda stem: plot_claims_vs_properties(
        claims({"rank_agreement": [0.9, 0.6, 0.8, 0.7], "stability": [0.1, 0.3, 0.4, 0.2],
                "discriminative_power": [3.0, -1.0, 2.0, 0.0]}), properties(), stem.with_suffix(".png"))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_synthetic_cases()))
def test_every_figure_of_small_tables_fits_a_page(tmp_path, monkeypatch, name):
    monkeypatch.setenv(FACTS_ENV, "1")
    stem = tmp_path / name
    _synthetic_cases()[name](stem)
    facts = stem.with_name(name + ".facts.json")
    assert figure_problems(facts) == []


def test_pages_past_the_height_go_to_the_pdf_and_the_png_shows_the_first(tmp_path, monkeypatch):
    """A figure of many pages: one PNG (the first), a PDF page each, facts of each."""
    monkeypatch.setenv(FACTS_ENV, "1")

    def draw():
        pages = []
        for n in range(3):
            fig = _figure(7.0, 9.0)
            ax = fig.subplots()
            ax.plot(np.arange(3), np.arange(3) * n)
            ax.set_title(f"page {n + 1}")
            pages.append(fig)
        return pages

    png, pdf = save_figure(styled(draw), tmp_path / "many")
    data = pdf.read_bytes()
    assert data.count(b"/Type /Page") - data.count(b"/Type /Pages") == 3
    facts = json.loads((tmp_path / "many.facts.json").read_text())
    assert [p["panels"][0]["title"] for p in facts["pages"]] == ["page 1", "page 2", "page 3"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_the_variable_no_facts_are_written(tmp_path, monkeypatch):
    monkeypatch.delenv(FACTS_ENV, raising=False)
    _synthetic_cases()["stability"](tmp_path / "stability")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stability.pdf", "stability.png"]


# ------------------------------------------------------------ every figure the pipeline draws


def _drawn(workdir) -> dict:
    """Every PNG under the run's results/ with its facts file (None when it has none)."""
    results = workdir / "results"
    return {png.relative_to(results).as_posix(): (png.with_suffix(".facts.json")
                                                  if png.with_suffix(".facts.json").is_file() else None)
            for png in sorted(results.rglob("*.png")) if "report" not in png.parts}


@pytest.fixture(scope="module")
def pipeline_figures(demo_workflow, paper_workflow) -> dict:
    return {**{f"demo run: {k}": v for k, v in _drawn(demo_workflow).items()},
            **{f"paper run: {k}": v for k, v in _drawn(paper_workflow).items()}}


@pytest.mark.slow
@pytest.mark.integration
def test_the_runs_draw_every_figure_of_the_manifest_each_with_its_facts(pipeline_figures):
    """The demo and TREC-8's paper config between them draw every figure the manifest
    declares, the claims figure and Figure 2; each wrote its facts."""
    stems = {Path(key.split(": ", 1)[1]).stem for key in pipeline_figures}
    declared = {figure.name for entry in EXPERIMENTS for figure in entry.figures}
    assert declared | {"claims", "figure2"} <= stems, sorted(declared - stems)
    assert [key for key, facts in pipeline_figures.items() if facts is None] == []


@pytest.mark.slow
@pytest.mark.integration
def test_every_figure_of_the_demo_and_of_trec8_s_paper_config_fits_a_page(pipeline_figures):
    ids = internal_ids()
    problems = {key: figure_problems(facts, ids) for key, facts in pipeline_figures.items() if facts}
    assert {key: found for key, found in problems.items() if found} == {}


# ------------------------------------------------------------ more than a page


def _pages(facts_path) -> list[dict]:
    return json.loads(facts_path.read_text())["pages"]


@pytest.mark.slow
def test_many_judgment_sets_split_into_pages_each_fit_for_print(tmp_path, monkeypatch):
    """Forty judgment sets of three measures (one with alphas) do not fit one page: the
    sets split into pages of about equal size, each page a page, every set on one."""
    from irmeta.artefacts.figures.judgments import judgment_pages, plot_judgment_agreement

    monkeypatch.setenv(FACTS_ENV, "1")
    rng = np.random.default_rng(7)
    rows = [{"reference": "qrels", "level": 0.05, "judgments": f"assessor {s}", "measure": m, "alpha": a,
             "kendall_tau": rng.uniform(0.5, 1), "tau_ap": rng.uniform(0.4, 1), "swapped_significant": 3,
             "significant_reference": 100}
            for s in range(40) for m, alphas in (("P@100", [""]), ("AP@100", [""]), ("P_rareness@100", ["0", "1"]))
            for a in alphas]
    plot_judgment_agreement(pd.DataFrame(rows), tmp_path / "j.png", tmp_path / "j.pdf")
    pages = _pages(tmp_path / "j.facts.json")
    assert len(pages) >= 2 and figure_problems(tmp_path / "j.facts.json") == []
    shown = [t["text"] for p in pages for t in p["texts"] if t["text"].startswith("assessor ")]
    assert {f"assessor {s}" for s in range(40)} <= set(shown)
    layout = judgment_pages(40, 3, reserved=1.0)
    assert sorted(i for sets, _ in layout for i in sets) == list(range(40))
    assert max(len(s) for s, _ in layout) - min(len(s) for s, _ in layout) <= 1  # balanced
    assert judgment_pages(10, 6, reserved=1.0) == [(range(10), range(6))]  # the demo's: one page


@pytest.mark.slow
def test_reproducibility_names_its_pairs_ramps_alpha_and_writes_far_outliers(tmp_path, monkeypatch):
    """Fourteen pairs: more than the markers, so two pages, each pair named once; an
    Effect Ratio of 58 sits on the axis' edge with its value written beside it."""
    from irmeta.artefacts.figures.reproducibility import PAIR_MARKERS, plot_reproducibility

    monkeypatch.setenv(FACTS_ENV, "1")
    rng = np.random.default_rng(3)
    rows = [{"baseline": f"base{p}", "advanced": f"run{p}", "measure": m, "alpha": a,
             "er": 58.0 if (p, m, a) == (0, "P_rareness@100", "1") else rng.normal(1, 0.5),
             "delta_ri": rng.normal(0, 0.3)}
            for p in range(14) for m, alphas in (("P@100", [""]), ("P_rareness@100", ["0", "0.5", "1"]))
            for a in alphas]
    plot_reproducibility(pd.DataFrame(rows), tmp_path / "r", title="Demo: reproducibility")
    pages = _pages(tmp_path / "r.facts.json")
    assert len(pages) == 2 and figure_problems(tmp_path / "r.facts.json") == []
    names = [e["label"] for p in pages for legend in p["legends"] for e in legend if " over " in e["label"]]
    assert sorted(names) == sorted(f"run{p} over base{p}" for p in range(14))
    assert len([e for e in pages[0]["legends"][0] if " over " in e["label"]]) == len(PAIR_MARKERS)
    ramp = [e["colour"] for e in pages[0]["legends"][0] if e["label"].startswith(r"$\alpha$")]
    assert len(set(ramp)) == 3
    assert any(t["text"] == "ER 58" for t in pages[0]["texts"])
    assert [p["title"] for p in pages[0]["panels"]] == ["P@100", "P_rareness@100"]


@pytest.mark.slow
def test_claims_of_many_comparisons_go_on_pages_and_rank_agreement_starts_at_zero(tmp_path, monkeypatch):
    """Five comparisons: four on the first page, one on the second; tau's bars from 0."""
    from irmeta.artefacts.claims import COLUMNS
    from irmeta.artefacts.figures.claims import plot_claims

    monkeypatch.setenv(FACTS_ENV, "1")
    rows = []
    for i in range(5):
        for protocol, tau in (("kendall_tau", 0.942), ("tau_ap", 0.667)):
            rows.append({"claim": "rank_agreement", "protocol": protocol, "measure": f"M{i}_rareness@100",
                         "baseline": "P@100", "alpha": "1", "collection": "Demo", "value": tau, "threshold": 0.9})
        for protocol in ("paper_pairwise", "paired_t+holm"):
            rows.append({"claim": "discriminative_power", "protocol": protocol, "measure": f"M{i}_rareness@100",
                         "baseline": "P@100", "alpha": "1", "collection": "Demo", "value": 3.0, "threshold": 0.0,
                         "pairs_share": 0.01})
    table = pd.DataFrame(rows).reindex(columns=COLUMNS)
    plot_claims(table, tmp_path / "claims.png")
    pages = _pages(tmp_path / "claims.facts.json")
    assert len(pages) == 2 and figure_problems(tmp_path / "claims.facts.json") == []
    assert len(pages[0]["panels"]) == 8 and len(pages[1]["panels"]) == 2
    texts = {t["text"] for t in pages[0]["texts"]}
    assert {"Kendall's tau-b", "paired t-test, Holm", "paper pairwise (authors' script)", "0.667"} <= texts
