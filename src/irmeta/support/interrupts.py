"""Ctrl-C that nothing can swallow: a SIGINT latch checked before any output is committed.

Python turns SIGINT into :class:`KeyboardInterrupt` in whatever code runs at that moment,
and some code discards it: pyarrow imports pandas lazily on a first conversion and drops
an exception raised inside that import, so a Ctrl-C landing there let ``irmeta score``
finish and write its table with exit 0. :func:`latched` installs a handler that records
the signal before raising, and every atomic commit (:mod:`irmeta.support.atomic`) and
standard-output write calls :func:`raise_if_interrupted` first, so an interrupt that was
swallowed still stops the command before anything is written.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_pending = False


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _pending
    _pending = True
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Whether a SIGINT arrived while :func:`latched` was active."""
    return _pending


def raise_if_interrupted() -> None:
    """Raise :class:`KeyboardInterrupt` again if a SIGINT arrived (whoever caught the first)."""
    if _pending:
        raise KeyboardInterrupt


@contextmanager
def latched() -> Iterator[None]:
    """SIGINT recorded as well as raised within the block, in the main thread, and only
    where Python's own handler is in place (a background job that ignores SIGINT keeps
    ignoring it); the previous handler and a clear latch afterwards."""
    global _pending
    try:
        previous = signal.getsignal(signal.SIGINT)
    except ValueError:
        previous = None
    own = previous is signal.default_int_handler
    if own:
        try:
            signal.signal(signal.SIGINT, _on_sigint)
        except ValueError:  # not the main thread: signals are not ours to set
            own = False
    _pending = False
    try:
        yield
    finally:
        if own:
            signal.signal(signal.SIGINT, previous)
        _pending = False
