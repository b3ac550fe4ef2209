"""What irmeta's Snakemake logger plugin leaves off the screen (issue 43, item 4): the
"Loading script code for rule ..." line ``snakemake --report`` writes once per rule, and
nothing else (tests/integration/test_logger.py runs the plugin in a real workflow). And no
"coroutine was never awaited" around the report: no rule asks Snakemake for its input's
size (``input.size_mb`` starts a coroutine that ``--report``'s event loop cannot run)."""

from __future__ import annotations

import logging
import re

from campaigns import REPO
from snakemake_logger_plugin_irmeta import shown_on_screen


def _record(message: str) -> logging.LogRecord:
    return logging.LogRecord("snakemake", logging.INFO, __file__, 1, message, None, None)


def test_the_reports_loading_lines_are_left_off_the_screen():
    assert not shown_on_screen(_record("Loading script code for rule score_runs"))
    assert not shown_on_screen(_record("Loading wrapper code for rule x"))


def test_everything_else_is_shown():
    for message in ("Creating report...", "Report created: results/report.html.", "3 of 31 steps (10%) done",
                    "Error in rule score_runs:", "Loading script code"):
        assert shown_on_screen(_record(message)), message


def test_no_rule_reads_its_input_size_through_a_coroutine():
    files = [REPO / "Snakefile", *sorted((REPO / "workflow").rglob("*.smk"))]
    uses = [(f.name, m.group(0)) for f in files for m in re.finditer(r"\binput\.size\w*", f.read_text())]
    assert len(files) > 5 and uses == []  # common.smk's input_size_mb reads the sizes itself
