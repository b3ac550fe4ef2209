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


class DuplicateDocumentError(TrecFormatError):
    """A document twice for one topic of a run, which trec_eval refuses. The way to keep
    the best-ranked copy instead is worded where the setting is given (:meth:`with_fix`):
    on the command line ``give --duplicates first``, in a collection's config ``set
    duplicates: first ...``; by default, for the Python API, its keyword."""

    def __init__(self, path: str | Path, line: int | None, fault: str, fix: str = 'pass duplicates="first"'):
        self.fault, self.fix = fault, fix
        super().__init__(path, line, f"{fault}; trec_eval refuses this: {fix} to keep the best-ranked copy")

    def with_fix(self, fix: str) -> DuplicateDocumentError:
        """The same error, its way out worded as ``fix``."""
        return DuplicateDocumentError(self.path, self.line, self.fault, fix)

    def __reduce__(self):  # pickled with its parts, not its message
        return DuplicateDocumentError, (self.path, self.line, self.fault, self.fix)
