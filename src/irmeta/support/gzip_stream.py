"""A file written a piece at a time as one gzip stream, for writers that cannot hold
the whole text (a simulated campaign of 10^9 lines)."""

from __future__ import annotations

import zlib
from pathlib import Path


class GzipAppender:
    """``path`` (created empty) written by appending pieces; gzipped (``gzip_it``), the
    pieces form one stream at level 1 with no mtime, the bytes
    ``gzip.compress(whole, compresslevel=1, mtime=0)`` gives for their concatenation
    (deflate's output does not depend on how its input is cut, only on its flushes).
    Level 1 compresses three times faster than gzip's default 6, and zlib runs outside
    the GIL, so several files compress in parallel threads. The file is complete only
    after :meth:`close`: write it where a partial file is never read (a staging folder
    moved into place whole, :func:`irmeta.support.atomic.owned_folder`)."""

    def __init__(self, path: Path, gzip_it: bool = True):
        self.path = Path(path)
        self.zip = zlib.compressobj(1, zlib.DEFLATED, 31) if gzip_it else None
        self.path.write_bytes(b"")

    def add(self, data: bytes) -> None:
        with self.path.open("ab") as out:
            out.write(self.zip.compress(data) if self.zip else data)

    def close(self) -> None:
        if self.zip:
            with self.path.open("ab") as out:
                out.write(self.zip.flush())
