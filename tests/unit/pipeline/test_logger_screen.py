"""What irmeta's Snakemake logger plugin leaves off the screen (issue 43, item 4): the
"Loading script code for rule ..." line ``snakemake --report`` writes once per rule, and
nothing else (tests/integration/test_logger.py runs the plugin in a real workflow)."""

from __future__ import annotations

import logging

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
