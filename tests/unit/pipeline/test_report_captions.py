"""The HTML report never turns a name into markup: Snakemake renders each caption in
workflow/report/ with Jinja (the config's values put in) and then docutils (RST to HTML),
and the tables and Markdown files it links are attachments, not HTML. Rendered here the
same way (Jinja as Snakemake sets it up, ``publish_parts(..., writer_name="html")``),
with every value the captions read from the config a hostile string, no tag of it comes
out."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaigns import REPO

CAPTIONS = sorted((REPO / "workflow" / "report").glob("*.rst"))
HOSTILE = "<img src=x onerror=alert(1)> `x`_ **b** ``lit`` |sub| [#]_"


class _Hostile:
    """A config whose every value, at any depth, is :data:`HOSTILE` (a string, a list of
    two of them, or a number's arithmetic: the captions use all three)."""

    def __getitem__(self, key):
        return _Hostile()

    def __iter__(self):
        return iter([HOSTILE, HOSTILE])

    def __str__(self):
        return HOSTILE

    def __rsub__(self, other):
        return HOSTILE

    def __bool__(self):
        return True


class _Snakemake:
    config = _Hostile()


@pytest.mark.parametrize("caption", CAPTIONS, ids=[p.name for p in CAPTIONS])
def test_no_config_value_becomes_markup_in_the_report(caption: Path):
    from docutils.core import publish_parts
    from jinja2 import Environment

    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(caption.read_text()).render(
        snakemake=_Snakemake(), categories={}, files={})
    html = publish_parts(text, writer_name="html", settings_overrides={"report_level": 5})["body"]
    assert "<img" not in html
    if "snakemake.config" in caption.read_text():
        assert "&lt;img src=x onerror=alert(1)&gt;" in html  # the value is there, as text
