"""Atomic writes, the one place they are made: a unique temporary file beside the
target, renamed over it when complete, removed when anything fails, so no reader ever
sees a partial file and concurrent writers never share a temporary name.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
import numpy as np
import pyarrow as pa
import uuid


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
    """Write ``data`` to ``path`` through a temporary file in the same directory and an
    atomic rename, so a reader never sees a partial file. The file gets the ordinary
    permissions (umask), not a private temporary file's."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "xb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Arrays to an uncompressed ``.npz`` (each member loads on its own), atomically."""
    with atomic_path(path) as tmp, open(tmp, "wb") as stream:
        np.savez(stream, **arrays)


def write_parquet(table: pa.Table, path: str | Path) -> None:
    """Write Parquet atomically: a temporary file renamed into place, so no partial output."""
    import pyarrow.parquet as pq  # here: libparquet costs 10 MB the command line does not need

    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
