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
from irmeta.pipeline.config import validate_config

ROOT = REPO
CAPTIONS = sorted((ROOT / "workflow" / "report").glob("*.rst"))


def render(path: Path, config: dict) -> str:
    class Snakemake:
        pass

    Snakemake.config = config
    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(path.read_text()).render(
        snakemake=Snakemake, categories={}, files={})
    return publish_parts(text, writer="html", settings_overrides={"report_level": 1})["html_body"]


@pytest.mark.parametrize("configfile", ["config.yaml", "measures.yaml", "paper.yaml"])
@pytest.mark.parametrize("caption", CAPTIONS, ids=lambda p: p.name)
def test_caption_renders_without_system_messages(caption, configfile):
    config = validate_config(yaml.safe_load((ROOT / "config" / configfile).read_text()))
    html = render(caption, config)
    assert "system-message" not in html and "System Message" not in html, html


def test_the_measure_list_is_literal_text():
    config = validate_config({"measures": ["P@100", "P_rareness@100", "ASL_g1@10", "nDCG@10", "RR"],
                              "experiments": {"comparisons": [{"measure": "P_rareness@100", "baseline": "P@100"}],
                                              "swap": {"measures": ["P@100", "RR"]}}})
    html = unescape(render(ROOT / "workflow" / "report" / "workflow.rst", config))
    for name in ("P@100", "P_rareness@100", "ASL_g1@10", "nDCG@10", "RR"):
        assert f'<tt class="docutils literal">{name}</tt>' in html, name
