"""Progress of long loops: written to the ``irmeta`` logger (a rule's log file) by
:class:`Progress`; shown as it goes (a bar on a terminal) by :func:`progress_steps` when a caller
asked for it with :func:`shown_by` (``irmeta``'s commands, on a terminal), silent otherwise.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

log = logging.getLogger("irmeta")


class Progress:
    """Logs ``label: done/total (percent, elapsed, remaining)`` about every tenth of the way."""

    def __init__(self, total: int, label: str, every: float = 0.1):
        self.total = max(int(total), 1)
        self.label = label
        self.step = max(1, int(self.total * every))
        self.done = 0
        self.start = time.perf_counter()

    def advance(self, n: int = 1) -> None:
        before = self.done
        self.done = min(self.total, self.done + n)
        if self.done == self.total or self.done // self.step > before // self.step:
            elapsed = time.perf_counter() - self.start
            remaining = elapsed / self.done * (self.total - self.done)
            bar = "#" * (20 * self.done // self.total)
            log.info("%s [%-20s] %d/%d (%.0f%%, %.1f s, ~%.1f s left)", self.label, bar, self.done, self.total,
                     100 * self.done / self.total, elapsed, remaining)


class Bar(Protocol):
    """What :func:`shown_by`'s factory makes (a tqdm bar is one)."""

    def update(self, n: int = 1) -> object: ...

    def close(self) -> None: ...


#: Makes a bar from (what is counted, how many, the unit); None: progress is not shown.
BarFactory = Callable[[str, int, str], Bar]

_shown: ContextVar[BarFactory | None] = ContextVar("irmeta_progress", default=None)


@contextmanager
def shown_by(factory: BarFactory) -> Iterator[None]:
    """Within it, :func:`progress_steps` loops show their progress through ``factory``."""
    token = _shown.set(factory)
    try:
        yield
    finally:
        _shown.reset(token)


def _no_step(n: int = 1) -> None:
    return None


@contextmanager
def progress_steps(what: str, total: int, unit: str) -> Iterator[Callable[[int], None]]:
    """``step(n)``, to call as ``n`` of ``total`` steps of ``what`` (``runs read``) are
    done: shown when a caller asked (:func:`shown_by`), nothing otherwise. The step may
    be called from worker threads."""
    factory = _shown.get()
    if factory is None:
        yield _no_step
        return
    bar = factory(what, total, unit)

    def step(n: int = 1) -> None:
        bar.update(n)

    try:
        yield step
    finally:
        bar.close()
