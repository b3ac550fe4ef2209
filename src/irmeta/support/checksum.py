"""A checksum of every byte of each store irmeta writes and reads back (``judged.npz``,
``ranked.npz``, ``scores.npz``, an ingestion shard's part, a stability shard: every
``.npz`` of :func:`irmeta.support.atomic.atomic_stream_npz`), verified by its reader.

The zip members' own CRC-32s do not do it: a reader that takes a slice of a member from
disk (``ranked.npz``'s rankings, ``judged.npz``'s postings) never checks them, so zeroed
bytes were read as rankings; and they leave the zip's headers out. Here the file ends
with the zip's comment, :data:`TAG` and eight hexadecimal digits: the CRC-32 (zlib's, at
about 1.4 GB/s a core) of every byte before those digits. The writer computes it as the
bytes go out (:class:`ChecksummedStream`); the reader (:func:`verify_store`) makes one
pass over the file in blocks of :data:`BLOCK` bytes (memory bounded whatever the store)
before it reads anything, once per file a process reads (a later read of the same file,
unchanged, costs nothing). A damaged, truncated or older store is refused on one line
(:class:`DamagedStoreError`, a ``ValueError``) naming the file and what to do: delete it,
and the run that made it makes it again.
"""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

TAG = b"irmeta crc32 "
DIGITS = 8
PLACEHOLDER = b"0" * DIGITS
TRAILER = len(TAG) + DIGITS  # the zip comment: TAG and the digits
BLOCK = 1 << 22  # 4 MiB a read
_HEX = frozenset(b"0123456789abcdef")
_EOCD = 22  # a zip's end-of-central-directory record, before its comment


class DamagedStoreError(ValueError):
    """A store that fails its checksum, is cut short or carries none: one line naming the
    file and what to delete."""

    def __init__(self, path: str | Path, reason: str):  # reason: "is damaged (...)"
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path} {reason}: delete it and run again")


class ChecksummedStream:
    """A file to write a zip into that keeps the CRC-32 of the bytes written, and ends
    them with their checksum (:meth:`finish`). It cannot seek, so ``zipfile`` writes each
    member once and in order (sizes and CRC in a data descriptor after its data) and never
    goes back to patch a header: the bytes checksummed are the file's. The last
    :data:`DIGITS` bytes are held back: the placeholder of the zip's comment, which
    :meth:`finish` replaces by the checksum of everything before it."""

    def __init__(self, raw: IO[bytes]):
        self._raw = raw
        self._crc = 0
        self._held = b""

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        if len(view) >= DIGITS:
            self._out(self._held)
            self._out(view[:len(view) - DIGITS])
            self._held = bytes(view[len(view) - DIGITS:])
        else:
            joined = self._held + bytes(view)
            self._out(joined[:-DIGITS])
            self._held = joined[-DIGITS:]
        return len(view)

    def _out(self, data: bytes | memoryview) -> None:
        if len(data):
            self._crc = zlib.crc32(data, self._crc)
            self._raw.write(data)

    def flush(self) -> None:
        self._raw.flush()

    def finish(self) -> None:
        """Write the checksum in place of the comment's placeholder (the last bytes written)."""
        if self._held != PLACEHOLDER:
            raise ValueError("the zip did not end with the checksum's placeholder")
        self._raw.write(f"{self._crc:08x}".encode("ascii"))


@contextmanager
def checksummed_zip(raw: IO[bytes]):
    """A ``zipfile.ZipFile`` writing into ``raw`` (a new, empty file) through a
    :class:`ChecksummedStream`, its comment the checksum, written when the block ends."""
    stream = ChecksummedStream(raw)
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:  # type: ignore[call-overload]
        archive.comment = TAG + PLACEHOLDER
        yield archive
    stream.finish()


# Files verified by this process, by identity: a job reading a store in several steps
# (the hits now, the misses later) pays one pass. A rewrite changes the inode (atomic
# rename) or the times; a store damaged while one process reads it is beyond any check.
_VERIFIED: set[tuple[int, int, int, int, int]] = set()


def verify_store(path: str | Path) -> None:
    """Refuse (:class:`DamagedStoreError`) a store whose bytes do not match the checksum
    it ends with, that is cut short, or that carries none (an earlier irmeta's, or not
    irmeta's); one pass over its bytes, the first time this process reads the file."""
    if not stat.S_ISREG(os.stat(path).st_mode) and not Path(path).is_dir():  # opening a FIFO would wait
        raise DamagedStoreError(path, "is not a regular file")
    with open(path, "rb") as stored:
        info = os.fstat(stored.fileno())
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        if key in _VERIFIED:
            return
        expected = _stated_checksum(stored, info.st_size, path)
        if _crc32(stored, info.st_size - DIGITS, path) != expected:
            raise DamagedStoreError(path, "is damaged (its checksum does not match its content)")
    _VERIFIED.add(key)


def _stated_checksum(stored: IO[bytes], size: int, path: str | Path) -> int:
    """The checksum the store ends with; refused when it ends otherwise."""
    if size >= TRAILER + _EOCD:
        stored.seek(size - TRAILER)
        tail = stored.read(TRAILER)
        if tail.startswith(TAG) and _HEX.issuperset(tail[len(TAG):]):
            return int(tail[len(TAG):], 16)
    if _zip_without_comment(stored):
        raise DamagedStoreError(path, "was stored by an earlier irmeta, without a checksum of its content")
    raise DamagedStoreError(path, "is damaged (it does not end with its checksum: cut short, or not written "
                                  "by irmeta)")


def _zip_without_comment(stored: IO[bytes]) -> bool:
    """Whether the file reads as a zip with no comment: what ``np.savez`` and irmeta
    before the checksum wrote (a store cut short inside its comment still reads as a zip,
    with the comment's start)."""
    stored.seek(0)
    try:
        with zipfile.ZipFile(stored) as archive:
            return archive.comment == b""
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def _crc32(stored: IO[bytes], size: int, path: str | Path) -> int:
    """The CRC-32 of the first ``size`` bytes, read in blocks into one buffer."""
    stored.seek(0)
    buffer = memoryview(bytearray(min(BLOCK, max(size, 1))))
    crc, left = 0, size
    while left:
        n = stored.readinto(buffer[:min(len(buffer), left)])  # type: ignore[attr-defined]
        if not n:
            raise DamagedStoreError(path, "is damaged (cut short while read)")
        crc = zlib.crc32(buffer[:n], crc)
        left -= n
    return crc


@contextmanager
def load_npz(path: str | Path):
    """``np.load(path)`` of a store whose checksum :func:`verify_store` has checked."""
    import numpy as np

    verify_store(path)
    with np.load(path) as stored:
        yield stored
