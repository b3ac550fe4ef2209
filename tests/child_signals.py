"""A test that signals a child process it starts gives the child that signal's default
disposition first: a shell starts a background job (``nohup make test > log 2>&1 &``)
with SIGINT and SIGQUIT ignored, a child inherits that, and Python installs its Ctrl-C
handler only where SIGINT is not ignored, so the child would never see the interrupt."""

from __future__ import annotations

import signal
from collections.abc import Callable


def default_disposition(*signals: signal.Signals) -> Callable[[], None]:
    """A ``preexec_fn`` for :mod:`subprocess`: each of ``signals`` at its default action
    in the child, whatever the test's own process inherited."""

    def reset() -> None:
        for number in signals:
            signal.signal(number, signal.SIG_DFL)

    return reset
