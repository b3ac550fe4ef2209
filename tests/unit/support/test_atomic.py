"""irmeta.support.atomic: the one atomic writer."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

import irmeta
from irmeta.support.atomic import atomic_path, atomic_write_bytes


def test_concurrent_writers_never_share_a_temporary_file(tmp_path):
    target = tmp_path / "out.bin"
    seen: list[Path] = []
    start = threading.Barrier(8)

    def write(i: int) -> None:
        start.wait()
        with atomic_path(target) as tmp:
            seen.append(tmp)
            tmp.write_bytes(bytes([i]) * 1000)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 8
    data = target.read_bytes()
    assert len(data) == 1000 and len(set(data)) == 1  # one writer's whole file, never a mix
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_a_failure_leaves_nothing_and_keeps_the_old_file(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    atomic_write_bytes(target, b"old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half")
            raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old"
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_the_file_gets_ordinary_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        atomic_write_bytes(tmp_path / "f", b"x")
    finally:
        os.umask(umask)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o644


def test_no_other_module_renames_files_into_place():
    root = Path(irmeta.__file__).parent
    renaming = re.compile(r"\bos\.replace\(|\bos\.rename\(|\.replace\(\s*(dest|path|out|target)\b|mkstemp")
    others = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
              if renaming.search(p.read_text()) and p != root / "support" / "atomic.py"]
    assert others == []
