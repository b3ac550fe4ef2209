"""The report's texts render clean: every caption and the workflow description, through
Jinja with the settings Snakemake's report uses (trim_blocks, lstrip_blocks) and
docutils, leave no reStructuredText system message. Fast: no Snakemake run (the
Chromium test in test_report.py checks the rendered page too)."""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
import yaml
from docutils.core import publish_parts
from jinja2 import Environment

from campaigns import REPO
from irmeta.pipeline.config_checks import validate_config
from irmeta.pipeline.report_front import FrontPage

ROOT = REPO
CAPTIONS = sorted((ROOT / "workflow" / "report").glob("*.rst"))


def render(path: Path, config: dict) -> str:
    class Snakemake:
        pass

    Snakemake.config = config
    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(path.read_text()).render(
        snakemake=Snakemake, categories={}, files={})
    return publish_parts(text, writer="html", settings_overrides={"report_level": 1})["html_body"]


def with_front(config: dict) -> dict:
    """``config`` with the report's first page as the workflow sets it (common.smk): the
    first collection ran, the others were skipped; no results to read."""
    names = list(config["collections"])
    config["report_front"] = FrontPage.of(names, {names[0]: "One"},
                                          [f"skipping collection {c}: its runs are absent" for c in names[1:]], {},
                                          results="no-results-here")
    return config


@pytest.mark.parametrize("configfile", ["config.yaml", "measures.yaml", "paper.yaml"])
@pytest.mark.parametrize("caption", CAPTIONS, ids=lambda p: p.name)
def test_caption_renders_without_system_messages(caption, configfile):
    config = validate_config(yaml.safe_load((ROOT / "config" / configfile).read_text()))
    html = render(caption, with_front(config))
    assert "system-message" not in html and "System Message" not in html, html


def test_the_measure_list_is_literal_text():
    config = validate_config({"measures": ["P@100", "P_rareness@100", "ASL_g1@10", "nDCG@10", "RR"],
                              "experiments": {"comparisons": [{"measure": "P_rareness@100", "baseline": "P@100"}],
                                              "swap": {"measures": ["P@100", "RR"]}}})
    html = unescape(render(ROOT / "workflow" / "report" / "workflow.rst", with_front(config)))
    for name in ("P@100", "P_rareness@100", "ASL_g1@10", "nDCG@10", "RR"):
        assert f'<tt class="docutils literal">{name}</tt>' in html, name


# No config value becomes markup in the HTML report: Snakemake puts the values into each
# caption with Jinja, then docutils renders the RST (escaping text); the tables and
# Markdown files the report links are attachments, not HTML. With every value a hostile
# string, no tag of it comes out.
HOSTILE = "<img src=x onerror=alert(1)> `x`_ **b** ``lit`` |sub| [#]_"


class _Hostile:
    """A config whose every value, at any depth, is :data:`HOSTILE` (a string, a list of
    two of them, or a number's arithmetic: the captions use all three)."""

    def __getitem__(self, key):
        if key == "report_front":  # what ran, named by hostile collections, labels and reasons
            return FrontPage.of([HOSTILE, "x"], {HOSTILE: HOSTILE}, [f"skipping collection x: {HOSTILE}"],
                                {HOSTILE: {HOSTILE: HOSTILE}}, results="no-results-here")
        return _Hostile()

    def __iter__(self):
        return iter([HOSTILE, HOSTILE])

    def __str__(self):
        return HOSTILE

    def __rsub__(self, other):
        return HOSTILE

    def __bool__(self):
        return True


@pytest.mark.parametrize("caption", CAPTIONS, ids=lambda p: p.name)
def test_no_config_value_becomes_markup_in_the_report(caption):
    class Snakemake:
        config = _Hostile()

    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(caption.read_text()).render(
        snakemake=Snakemake, categories={}, files={})
    html = publish_parts(text, writer="html", settings_overrides={"report_level": 5})["body"]
    assert "<img" not in html
    if "snakemake.config" in caption.read_text():
        assert "&lt;img src=x onerror=alert(1)&gt;" in html  # the value is there, as text
