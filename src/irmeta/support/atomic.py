"""Atomic writes, the one place they are made: a unique temporary file beside the
target, renamed over it when complete, removed when anything fails, so no reader ever
sees a partial file and concurrent writers never share a temporary name. Only a missing
target or a regular file is replaced: renaming over a symbolic link, a FIFO or a device
would destroy it (as root, /dev/full or /dev/stdout), so those are refused. A writer of
a whole folder (:func:`owned_folder`) writes only into a new or empty folder or one it
made itself, recognised by a marker listing the files it wrote, and replaces only those.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import numpy as np
import pyarrow as pa

from irmeta.support.interrupts import raise_if_interrupted


class NotRegularFileError(FileExistsError):
    """The target exists and is not a regular file, so an atomic write would replace it."""


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def existing_regular_or_absent(path: str | Path) -> None:
    """Refuse (:class:`NotRegularFileError`, or :class:`IsADirectoryError` for a folder)
    unless ``path`` is missing or a regular file; the link itself is looked at, not what
    it points to, since renaming over a link replaces the link."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file to write", str(path))
    what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise NotRegularFileError(errno.EEXIST, f"is {what}, not a regular file irmeta would replace", str(path))


# The temporary :func:`atomic_path` makes: ``.<target name>.<mkstemp's 8 characters>.tmp``.
_TEMPORARY_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def is_atomic_temporary(name: str) -> bool:
    """Whether a file name is one :func:`atomic_path` gives its temporaries."""
    return _TEMPORARY_NAME.fullmatch(name) is not None


def remove_stale_temporaries(root: str | Path) -> list[Path]:
    """Remove the temporaries :func:`atomic_path` left under ``root`` (a job killed while
    it wrote leaves one beside its target); return them, sorted. Only regular files named
    as :func:`is_atomic_temporary` says are removed, symbolic links are neither followed
    nor removed. Call it only while no irmeta writer runs under ``root`` (the workflow's
    ``onstart``: Snakemake's lock keeps other runs out, no job has started yet), since a
    live writer's temporary looks the same."""
    removed = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if is_atomic_temporary(name) and _regular_file(path):
                path.unlink(missing_ok=True)
                removed.append(path)
    return sorted(removed)


def _regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (a unique name, so concurrent writers never share
    one) to write to; renamed to ``path`` when the block ends, removed if it fails, so a
    reader never sees a partial file. ``path`` must be missing or a regular file
    (:func:`existing_regular_or_absent`), checked before and again just before the rename."""
    path = Path(path)
    existing_regular_or_absent(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o666 & ~umask)  # mkstemp makes it private; the output is an ordinary file
    try:
        yield tmp
        raise_if_interrupted()  # a Ctrl-C some library swallowed still leaves nothing behind
        existing_regular_or_absent(path)  # it may have changed while the block wrote
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def scratch_beside(path: str | Path) -> Iterator[Path]:
    """A unique empty file beside ``path``, named as :func:`atomic_path` names its
    temporaries (so :func:`remove_stale_temporaries` finds it after a kill), removed when
    the block ends: a job's intermediate that is never renamed into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(name)
    finally:
        Path(name).unlink(missing_ok=True)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (:func:`atomic_path`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


NpzMember = tuple[str, np.dtype, tuple[int, ...], Iterable[np.ndarray]]
_NPZ_DATE = (1980, 1, 1, 0, 0, 0)  # zip's earliest: the same arrays give the same bytes


def atomic_save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Arrays to an uncompressed ``.npz`` (each member loads on its own), atomically."""
    atomic_stream_npz(path, [(name, a.dtype, a.shape, [a]) for name, a in ((k, np.asarray(v))
                                                                          for k, v in arrays.items())])


def atomic_stream_npz(path: str | Path, members: Iterable[NpzMember]) -> None:
    """An uncompressed ``.npz`` laid out as ``np.savez`` lays it out (``np.load`` reads
    it), each member ``(name, dtype, shape, pieces)`` written from its pieces in turn (C
    order), so no array need be whole in memory; members dated 1980-01-01 (``np.savez``
    stamps the time of writing), so the same arrays give the same bytes; ending with the
    checksum of its bytes that readers verify (:mod:`irmeta.support.checksum`); atomically."""
    import zipfile

    from irmeta.support.checksum import checksummed_zip

    with atomic_path(path) as tmp, open(tmp, "wb") as raw, checksummed_zip(raw) as z:
        for name, dtype, shape, pieces in members:
            dtype = np.dtype(dtype)
            if dtype.hasobject:
                raise TypeError(f"{name}: an .npz member holds numbers, not Python objects")
            header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)}
            written = 0
            with z.open(zipfile.ZipInfo(f"{name}.npy", date_time=_NPZ_DATE), "w", force_zip64=True) as member:
                np.lib.format.write_array_header_1_0(member, header)
                for piece in pieces:
                    piece = np.ascontiguousarray(piece, dtype=dtype)
                    member.write(piece.reshape(-1).view(np.uint8).data)
                    written += piece.size
            if written != int(np.prod(shape, dtype=np.int64)):
                raise ValueError(f"{name}: {written} values written for shape {tuple(shape)}")


def write_parquet(table: pa.Table, path: str | Path) -> None:
    """Write Parquet atomically: a temporary file renamed into place, so no partial output."""
    import pyarrow.parquet as pq  # here: libparquet costs 10 MB the command line does not need

    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


# ------------------------------------------------------------- folders a writer owns


@contextmanager
def owned_folder(out: str | Path, names: list[str], *, marker: str, maker: str, about: dict) -> Iterator[Path]:
    """A hidden staging folder inside ``out`` to write the files ``names`` (relative
    POSIX paths, e.g. ``runs/a.gz``) into; when the block ends they are moved into
    ``out`` and the files an earlier call wrote that ``names`` lacks are removed; if it
    fails, ``out`` is left as it was (folders this call made removed). ``out/marker``
    (JSON: ``about`` and ``files``) records what was written.

    ``out`` must be new, empty (empty subfolders aside) or hold a marker: only the files
    the marker lists are replaced or removed. Refused (:class:`FileExistsError`, one
    line naming the path) before anything is made: any other folder (as "not made by
    ``maker``"), a subfolder of ``names`` holding a visible file the marker does not
    list (it would join the output), a target the marker does not list or that is not a
    regular file. A failure to write names ``out``, not the staging folder."""
    out = Path(out)
    previous = _claim(out, names, marker, maker)
    subfolders = sorted({str(PurePosixPath(n).parent) for n in names} - {"."})
    missing = {p for p in (*(out / sub for sub in subfolders), out, *out.parents) if not os.path.lexists(p)}
    created = sorted(missing, key=lambda p: len(p.parts), reverse=True)  # deepest first
    for sub in subfolders:
        (out / sub).mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out, prefix=f"{marker}.", suffix=".tmp"))
    try:
        for sub in subfolders:
            (staging / sub).mkdir(parents=True, exist_ok=True)
        yield staging
        _move_in(staging, out, names, previous, out / marker, about)
    except OSError as exc:
        _undo(staging, created)
        if exc.filename is not None and not str(exc.filename).startswith(str(staging)):
            raise
        # the staging folder's name means nothing to the caller: name the folder asked for
        raise OSError(exc.errno, f"cannot write ({exc.strerror or exc})", str(out)) from exc
    except BaseException:
        _undo(staging, created)
        raise
    shutil.rmtree(staging)


def _claim(out: Path, names: list[str], marker: str, maker: str) -> set[str]:
    """The files of an earlier call in ``out`` this one may replace or remove; refuses
    what :func:`owned_folder` says it refuses."""
    if not out.exists():
        return set()
    if not out.is_dir():
        raise FileExistsError(errno.EEXIST, "exists and is not a directory", str(out))
    if not os.path.lexists(out / marker):
        if _holds_files(out, marker):
            raise FileExistsError(errno.ENOTEMPTY, f"not empty and not made by {maker} (no {marker} marker); "
                                                   "give a new or empty folder", str(out))
        return set()
    previous = _marker_files(out, marker, maker)
    for sub in sorted({str(PurePosixPath(n).parent) for n in names} - {"."}):
        folder = out / sub
        if not os.path.lexists(folder):
            continue
        if folder.is_symlink() or not folder.is_dir():
            raise FileExistsError(errno.EEXIST, f"is not a folder {maker} made (a symbolic link or a file)",
                                  str(folder))
        foreign = sorted(n for n in os.listdir(folder) if not n.startswith(".") and f"{sub}/{n}" not in previous)
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise FileExistsError(errno.ENOTEMPTY, f"holds {len(foreign)} file(s) {maker} did not write ({shown}); "
                                                   "they would join its output: move them away or give a new "
                                                   "folder", str(folder))
    for name in names:
        if os.path.lexists(out / name) and name not in previous:
            raise FileExistsError(errno.EEXIST, f"exists and was not written by {maker}", str(out / name))
        existing_regular_or_absent(out / name)
    return previous


def _holds_files(out: Path, marker: str) -> bool:
    """Whether ``out`` holds anything but empty folders, an earlier call's staging folder
    aside (ours, left by a kill, which must not make the folder unusable)."""
    for entry in os.scandir(out):
        if entry.name.startswith(f"{marker}.") and entry.name.endswith(".tmp"):
            continue
        if entry.is_symlink() or not entry.is_dir():
            return True
        if any(p.is_symlink() or not p.is_dir() for p in Path(entry.path).rglob("*")):
            return True
    return False


def _owned_name(name: object) -> bool:
    """A relative path of visible parts, none of them ``..``: a marker naming anything
    else (``../x``, ``/etc/passwd``) is not trusted."""
    if not isinstance(name, str) or not name or "\x00" in name:
        return False
    path = PurePosixPath(name)
    return not path.is_absolute() and all(part and not part.startswith(".") for part in path.parts)


def _marker_files(out: Path, marker: str, maker: str) -> set[str]:
    """The files ``out``'s marker lists; a marker that is not a regular file (a FIFO
    would hang the read), not JSON with a list of files, or naming anything outside
    ``out`` refuses the folder."""
    existing_regular_or_absent(out / marker)
    try:
        files = json.loads((out / marker).read_text(encoding="utf-8"))["files"]
        if not isinstance(files, list) or not all(map(_owned_name, files)):
            raise ValueError(files)
    except (ValueError, KeyError, TypeError, IndexError) as exc:  # UnicodeDecodeError and JSON's are ValueErrors
        raise FileExistsError(errno.EEXIST, f"not empty and its {marker} marker is not one {maker} wrote; "
                                            "give a new or empty folder", str(out)) from exc
    return set(files)


def _undo(staging: Path, created: list[Path]) -> None:
    """Remove the staging folder and the folders this call made (if still empty)."""
    shutil.rmtree(staging, ignore_errors=True)
    for folder in created:
        try:
            folder.rmdir()
        except OSError:
            pass  # not empty: something else is in it now


def _move_in(staging: Path, out: Path, names: list[str], previous: set[str], marker: Path, about: dict) -> None:
    """Rename the staged files into ``out``, remove the earlier call's other files. The
    marker lists old and new first, so that whatever happens it covers every file
    written here; then only the new ones."""
    def mark(files: set[str]) -> None:
        atomic_write_text(marker, json.dumps({**about, "files": sorted(files)}, indent=1) + "\n")

    raise_if_interrupted()
    present = {name for name in previous if os.path.lexists(out / name)}
    mark(present | set(names))
    for name in names:
        existing_regular_or_absent(out / name)
        os.replace(staging / name, out / name)
    for name in sorted(present - set(names)):
        if (out / name).is_file() and not (out / name).is_symlink():
            (out / name).unlink()
    mark(set(names))
