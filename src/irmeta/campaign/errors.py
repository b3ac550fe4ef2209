"""Bad campaign input: an error that names the file, the line and the fault, and a
warning for input read with a fix it needed.
"""

from __future__ import annotations

from pathlib import Path


class TrecFormatWarning(UserWarning):
    """Input read with a fix it needed (a byte-order mark dropped); names the file."""


class TrecFormatError(ValueError):
    """Bad input: names the file, the 1-based line (when there is one) and the fault."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")
