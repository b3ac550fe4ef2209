"""Fetch a collection's public qrels from their official address.

Qrels are public (runs are not: NIST distributes them behind a password). A download is
retried with a growing pause, checked against a SHA-256 when the config pins one,
unpacked (plain, gzip, or a tar.gz whose members are concatenated in name order, as
NIST ships the early ad hoc qrels in parts) and moved into place atomically: a failure
leaves nothing behind. Without a pinned checksum the file's SHA-256 is written beside
it (``<qrels>.sha256``) so later runs and the record can name exactly what was used.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from irmeta.support.atomic import atomic_write_bytes, atomic_write_text

QrelsFormat = Literal["plain", "gzip", "tar.gz", "subtopics", "qrels_jg"]  # the last two: served as they are read


class DownloadError(RuntimeError):
    """The qrels could not be fetched; the message says from where and what to do."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch(url: str, *, retries: int = 3, timeout: float = 60, pause: float = 2.0,
          opener: Callable[..., object] = urllib.request.urlopen) -> bytes:
    """The bytes at ``url``; ``retries`` attempts, the pause doubling after each failure."""
    last: Exception | None = None
    for attempt in range(1, retries + 1):
        try:
            with opener(url, timeout=timeout) as response:  # type: ignore[attr-defined]
                return response.read()
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            last = exc
            if attempt < retries:
                time.sleep(pause * 2 ** (attempt - 1))
    raise DownloadError(
        f"could not download {url} after {retries} attempts ({last}); check the network, or put "
        f"the file in place by hand"
    )


def unpack(data: bytes, fmt: QrelsFormat, url: str = "") -> bytes:
    """Qrels text from the downloaded bytes."""
    try:
        if fmt in ("plain", "subtopics", "qrels_jg"):  # subtopic and judgment-group qrels: read plain or gzipped alike
            return data
        if fmt == "gzip":
            return gzip.decompress(data)
        if fmt == "tar.gz":
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                members = sorted((m for m in archive.getmembers() if m.isfile()), key=lambda m: m.name)
                parts = []
                for member in members:
                    content = archive.extractfile(member).read()  # type: ignore[union-attr]
                    if member.name.endswith(".gz"):
                        content = gzip.decompress(content)
                    parts.append(content if content.endswith(b"\n") or not content else content + b"\n")
                return b"".join(parts)
    except (OSError, EOFError, tarfile.TarError) as exc:
        raise DownloadError(f"{url}: not a valid {fmt} file ({exc})") from exc
    raise ValueError(f"unknown qrels format {fmt!r}")


def download_qrels(url: str, dest: str | Path, *, fmt: QrelsFormat = "plain", sha256: str | None = None,
                   retries: int = 3, timeout: float = 60, pause: float = 2.0) -> str:
    """Fetch, unpack, check and store qrels at ``dest``; return the SHA-256 of the qrels.

    ``sha256`` pins the unpacked qrels' checksum: a mismatch raises and writes nothing.
    """
    dest = Path(dest)
    text = unpack(fetch(url, retries=retries, timeout=timeout, pause=pause), fmt, url)
    digest = sha256_of(text)
    if sha256 is not None and digest != sha256.lower():
        raise DownloadError(f"{url}: SHA-256 of the qrels is {digest}, the config pins {sha256}; not stored")
    atomic_write_bytes(dest, text)
    if sha256 is None:
        atomic_write_text(dest.with_name(dest.name + ".sha256"), f"{digest}  {dest.name}\n")
    return digest
