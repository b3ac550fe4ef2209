"""Snakemake logger plugin ``irmeta`` (``--logger irmeta``, set in profiles/default): the
screen shows progress, not Snakemake's job listing; the listing stays in full in
Snakemake's own log file, ``.snakemake/log/*.snakemake.log``.

Snakemake's ``quiet`` setting applies to its screen and its log file alike. The profile
therefore leaves it unset, so the log file keeps every job (rule, input, output,
wildcards, reason), and this handler, which takes the screen's place, is quiet about
rules, host and reason. An explicit ``--quiet ...`` on the command line replaces that
default (and applies to the log file, as in Snakemake): ``--quiet host`` shows the listing.
"""

from __future__ import annotations

import sys
from logging import LogRecord

from snakemake_interface_logger_plugins.base import LogHandlerBase

SCREEN_QUIET = ("rules", "host", "reason")

#: Snakemake's --report says this once per rule (24 lines around the report): on the
#: screen it is noise, in Snakemake's own log file it stays.
SCREEN_NOISE = ("Loading script code for rule ", "Loading wrapper code for rule ")


def shown_on_screen(record: LogRecord) -> bool:
    """Whether the screen shows ``record``: all but :data:`SCREEN_NOISE`."""
    return not str(record.getMessage()).startswith(SCREEN_NOISE)


class LogHandler(LogHandlerBase):
    """Snakemake's own screen handler, quiet about :data:`SCREEN_QUIET` unless told otherwise."""

    def __post_init__(self) -> None:
        from snakemake.logging import ColorizingTextHandler, DefaultFilter, DefaultFormatter
        from snakemake.settings.enums import Quietness

        common = self.common_settings
        quiet = set(common.quiet or ()) or {Quietness.parse_choice(q) for q in SCREEN_QUIET}
        self.screen = ColorizingTextHandler(
            nocolor=common.nocolor, stream=sys.stdout if common.stdout else sys.stderr,
            formatter=DefaultFormatter(quiet, common.show_failed_logs),
            filter=DefaultFilter(quiet, common.debug_dag, common.verbose, common.dryrun, common.printshellcmds))

    def emit(self, record: LogRecord) -> None:
        if shown_on_screen(record):
            self.screen.handle(record)

    def flush(self) -> None:
        self.screen.flush()

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return True

    @property
    def has_formatter(self) -> bool:
        return True

    @property
    def needs_rulegraph(self) -> bool:
        return False
