"""Importing a user's plugin module: one way for measures and significance tests alike.

A plugin is a dotted module name (importable, or a module under ``base``) or a ``.py``
file (relative to ``base``). Importing one twice is a no-op. While it imports, what it
prints goes to standard error (``irmeta score`` writes its table to standard output,
which a chatty plugin would corrupt), and the registries it may fill are watched: a
plugin whose import fails leaves them as they were (a second try starts afresh) and is
one line naming its file and line; a plugin that registers nothing gets a warning.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import re
import sys
import traceback
import warnings
from collections.abc import Iterator, MutableMapping, Sequence
from pathlib import Path

# The plugin files being imported, innermost last: the source of a function whose own file
# inspect cannot find (a callable object, a function made by exec).
_loading: list[str] = []


class PluginWarning(UserWarning):
    """A plugin that imported but registered nothing."""


def loading_file() -> str:
    """The file of the plugin being imported now, "" when none is."""
    return _loading[-1] if _loading else ""


def same_file(a: str, b: str) -> bool:
    return bool(b) and (a == b or Path(a).resolve() == Path(b).resolve())


def import_plugins(modules: Sequence[str], base: str | Path, registries: Sequence[MutableMapping],
                   key: str = "plugins") -> None:
    """Import each of ``modules`` (``key``: the setting that names them, for messages);
    ``registries`` are the dictionaries a plugin may add to."""
    for entry in modules:
        _import_one(str(entry), Path(base), registries, key)


def _shown(entry: str) -> str:
    """A plugin entry in a message: as written, or quoted when it is empty or holds a
    space at an end or a control character (a newline would split the line)."""
    return entry if entry and entry.isprintable() and entry.strip() == entry else repr(entry)


def _import_one(entry: str, base: Path, registries: Sequence[MutableMapping], key: str) -> None:
    if entry.endswith(".py"):
        path = (base / entry).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{key}: {_shown(entry)}: no such file")
        name = "irmeta_plugin_" + re.sub(r"\W", "_", str(path))
        if name in sys.modules:
            return
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        with _importing(entry, str(path), registries, key, name):
            spec.loader.exec_module(module)
        return
    if (base / entry).is_file() or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", entry):
        what = "a folder" if (base / entry).is_dir() else ("a file" if (base / entry).is_file() else "neither")
        raise ValueError(f"{key}: {_shown(entry)}: not a Python module: give a .py file or a dotted module name "
                         f"(this is {what})")
    if str(base.resolve()) not in sys.path:
        sys.path.insert(0, str(base.resolve()))
    if entry in sys.modules:
        return
    with _importing(entry, "", registries, key):  # finding a submodule imports its package
        spec = importlib.util.find_spec(entry)
    if spec is None:
        raise ValueError(f"{key}: cannot import {entry} (no module named {entry!r})")
    with _importing(entry, spec.origin or "", registries, key):
        importlib.import_module(entry)


@contextlib.contextmanager
def _importing(entry: str, path: str, registries: Sequence[MutableMapping], key: str,
               module: str | None = None) -> Iterator[None]:
    """Import a plugin: what it registers is known to come from ``path``; if it fails,
    the registries are restored and the fault is one line; if it registers nothing, a
    warning says so."""
    before = [dict(r) for r in registries]
    _loading.append(path)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    except MemoryError:
        raise
    except (Exception, SystemExit) as exc:
        for registry, kept in zip(registries, before):
            registry.clear()
            registry.update(kept)
        if module is not None:
            sys.modules.pop(module, None)
        missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
        if missing and (entry == missing or entry.startswith(missing + ".")):  # not a fault of its code
            raise ValueError(f"{key}: cannot import {entry} ({exc})") from None
        raise ValueError(_import_fault(entry, path, exc, key)) from exc
    finally:
        _loading.pop()
    if path and all(dict(r) == kept for r, kept in zip(registries, before)):
        warnings.warn(f"{key}: {entry} registered no measure and no test", PluginWarning, stacklevel=2)


def _import_fault(entry: str, path: str, exc: BaseException, key: str) -> str:
    """``plugin mine.py:3: SyntaxError: invalid syntax``: the line of the plugin the fault
    came through; for a dotted module, or a fault in another file (a module the plugin
    imports), that file and line: ``plugin mine: /x/mine.py:3: ...``."""
    if isinstance(exc, SyntaxError):
        file, line, text = exc.filename or "", exc.lineno, exc.msg
    else:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
        own = [f for f in frames if same_file(f.filename, path)] or frames[-1:]
        file, line, text = (own[-1].filename, own[-1].lineno, str(exc)) if own else ("", None, str(exc))
    if line and entry.endswith(".py") and same_file(file, path):
        where = f"{entry}:{line}"
    else:
        where = f"{entry}: {file}:{line}" if file and line else entry
    label = {"measure_plugins": "measure plugin", "test_plugins": "test plugin"}.get(key, "plugin")
    return f"{label} {where}: {type(exc).__name__}: {' '.join(text.split())}"
