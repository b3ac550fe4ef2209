"""Arrow helpers every layer may use: strings back to bytes without Python objects,
and memory that goes back to the system at once.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def joined_bytes(strings: pa.Array) -> bytes:
    """The strings of an Arrow array back to back, as bytes: its data buffer between the
    first and last offsets, without a Python string per element."""
    if not len(strings):
        return b""
    width = np.int64 if pa.types.is_large_string(strings.type) or pa.types.is_large_binary(strings.type) else np.int32
    offsets = np.frombuffer(strings.buffers()[1], dtype=width)[strings.offset:strings.offset + len(strings) + 1]
    return strings.buffers()[2][int(offsets[0]):int(offsets[-1])].to_pybytes()


def lean_memory() -> None:
    """Have freed memory go back to the system at once: Arrow allocates with the system
    allocator, and glibc maps every block above 256 KB on its own (its threshold would
    otherwise grow with the largest block freed, keeping the heap at its peak). Reading
    run files one after the other then peaks at about one file per thread, not at the
    sum of the files' fragments; it costs some speed. For the command line."""
    import ctypes
    import ctypes.util

    pa.set_memory_pool(pa.system_memory_pool())
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        if libc is not None and hasattr(libc, "mallopt"):
            libc.mallopt(-3, 256 * 1024)  # M_MMAP_THRESHOLD (glibc); absent elsewhere
    except OSError:
        pass
