"""Finding and opening campaign files: files, directories and globs; gzip; a
leading byte-order mark dropped with a warning; a run's name from its file.
"""

from __future__ import annotations

import glob
import gzip
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path

from irmeta.campaign.errors import TrecFormatError, TrecFormatWarning

_BOM = b"\xef\xbb\xbf"


def without_bom(path: str | Path, data: bytes) -> bytes:
    """The file's bytes without a leading UTF-8 byte-order mark, with a warning. trec_eval
    would read the mark as part of the first qid (a topic "\\ufeff401" no run shares)."""
    if not data.startswith(_BOM):
        return data
    warnings.warn(TrecFormatWarning(f"{path}:1: starts with a UTF-8 byte-order mark, read without it "
                                    f"(trec_eval would take it for part of the first topic id)"), stacklevel=3)
    return data[len(_BOM):]


def resolve_paths(specs: str | Path | Iterable[str | Path]) -> list[Path]:
    """Expand files, directories (their non-hidden files) and globs, sorted, no repeats."""
    if isinstance(specs, (str, Path)):
        specs = [specs]
    found: list[Path] = []
    for spec in specs:
        text = str(spec)
        if any(ch in text for ch in "*?["):
            matches = sorted(Path(p) for p in glob.glob(text))
            files = [p for p in matches if p.is_file()]
            if not files:
                raise FileNotFoundError(f"{text}: the pattern matches no file")
            found.extend(files)
        elif Path(text).is_dir():
            files = sorted(p for p in Path(text).iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise FileNotFoundError(f"{text}: the directory holds no run file")
            found.extend(files)
        elif Path(text).is_file():
            found.append(Path(text))
        else:
            raise FileNotFoundError(f"{text}: no such file or directory")
    unique: dict[Path, None] = {}
    for p in found:
        unique.setdefault(p, None)
    return list(unique)


def read_bytes(path: str | Path) -> bytes:
    """The file's content, gunzipped when it starts with the gzip magic number."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            # wbits=47: gzip header, and concatenated members are handled by gzip below
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TrecFormatError(path, None, f"corrupt gzip data ({exc})") from exc
    return data


def run_name_from_path(path: str | Path) -> str:
    """A run's name from its file name, minus a final ``.gz``."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name
