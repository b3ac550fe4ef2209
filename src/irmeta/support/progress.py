"""Progress of long loops, written to the ``irmeta`` logger (a rule's log file)."""

from __future__ import annotations

import logging
import time

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
