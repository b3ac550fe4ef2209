"""Atomic writes, the one place they are made: a unique temporary file beside the
target, renamed over it when complete, removed when anything fails, so no reader ever
sees a partial file and concurrent writers never share a temporary name.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (a unique name, so concurrent writers never share
    one) to write to; renamed to ``path`` when the block ends, removed if it fails, so a
    reader never sees a partial file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o666 & ~umask)  # mkstemp makes it private; the output is an ordinary file
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (:func:`atomic_path`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Arrays to an uncompressed ``.npz`` (each member loads on its own), atomically."""
    with atomic_path(path) as tmp, open(tmp, "wb") as stream:
        # numpy's stubs read ** as the keyword allow_pickle; the arrays are all members
        np.savez(stream, **arrays)  # type: ignore[arg-type]


def write_parquet(table: pa.Table, path: str | Path) -> None:
    """Write Parquet atomically: a temporary file renamed into place, so no partial output."""
    import pyarrow.parquet as pq  # here: libparquet costs 10 MB the command line does not need

    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
