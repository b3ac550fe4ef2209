"""The report's first page, of a small run built here: it names the collection that ran
and, apart, the configured one that did not (with why), then the claims and the claims
figure, the workflow graph last; opened in headless Chromium (DOM and a screenshot).

Small: a simulated collection of 8 runs and 6 topics, two measures, few trials, and only
the claims' tables made (the report covers the jobs of its targets).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from test_report import CHROMIUM_FLAGS, _chromium
from test_workflow import _copy_workflow, _ok, _snakemake

from figure_checks import assert_drawn

pytestmark = pytest.mark.integration

TINY = """name: tiny
label: Tiny
description: Simulated (8 runs, 6 topics), for the report's test.
simulate: {seed: 7, n_runs: 8, n_topics: 6, depth: 100}
depth: 100
relevance_threshold: 1
duplicates: error
run_name: file
"""

SMALL = """collections: [tiny, trec5]
missing_data: skip
measures: ["P@100", "P_rareness@100"]
alphas: [0, 1]
averaging: [all]
experiments:
  shards: 1
  comparisons: [{measure: "P_rareness@100", baseline: "P@100"}]
  discriminative_power: {permutations: 100, levels: [0.05], methods: [paper_pairwise]}
  stability: {trials: 20}
  system_subsampling: {trials: 10, largest: 4, measures: ["P_rareness@100"]}
  synthetic: {alphas: [0, 1], max_relevant: 5}
  swap: {measures: []}
  judgment_agreement: {pool_depths: [], judgment_fractions: []}
  reusability: {enabled: false}
  asl: {enabled: false}
"""

TARGETS = ["results/claims.md", "results/claims.png"]


@pytest.fixture(scope="module")
def front(tmp_path_factory, shared_data) -> tuple[Path, str]:
    """The report of the small run and its first page's DOM, rendered by Chromium."""
    workdir = _copy_workflow(tmp_path_factory.mktemp("front"))
    (workdir / "config" / "collections" / "tiny.yaml").write_text(TINY)
    (workdir / "small.yaml").write_text(SMALL)
    options = ["--configfile", "small.yaml", "--config", f"data_root={shared_data}"]
    _ok(_snakemake(workdir, *TARGETS, "--cores", "2", *options))
    _ok(_snakemake(workdir, *TARGETS, "--report", "results/report.html", *options))
    report = workdir / "results" / "report.html"
    profile = workdir / "profile"
    dom = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=15000",
                          "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    return report, dom.stdout


def _first_page(dom: str) -> str:
    """The text of the page the report opens on: the workflow description, up to the graph."""
    start = dom.index('id="irmeta-front"')
    end = dom.index('id="rulegraph"', start)  # the graph comes after the text
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom[start:end]))


def test_first_page_names_only_what_ran(front):
    _, dom = front
    page = _first_page(dom)
    ran, _, rest = page.partition("Not run")
    assert re.search(r"Ran on 1 collection: Tiny \( ?tiny ?\)\.", ran), ran
    assert "trec5" not in ran and "trec5" not in rest.split("irmeta meta-evaluates")[1]
    assert re.search(r"trec5 ?: \S*trec5\.yaml: key 'runs': ", rest), rest[:500]  # why, from the data check


def test_first_page_shows_the_claims_then_the_figure_then_the_graph(front):
    _, dom = front
    page = _first_page(dom)
    claims = page.index("The paper's claims")
    assert page.index("Ran on") < claims < page.index("Each claim per collection and protocol")
    assert re.search(r"discriminative_power \(paper_pairwise\) P_rareness@100 vs P@100 [+-]\d+ = [+-]\d+\.\d\d% "
                     r"of pairs \((yes|no)\)", page), page[claims:claims + 800]
    figure = dom.index('src="data:image/png;base64,', dom.index('id="irmeta-front"'))
    assert figure < dom.index('id="rulegraph"')


def test_the_report_opens_on_that_page(front, tmp_path):
    report, _ = front
    shot = tmp_path / "first_page.png"
    proc = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           "--virtual-time-budget=15000", "--window-size=1400,1000", f"--screenshot={shot}",
                           report.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert_drawn(shot, min_size=(1400, 1000))
