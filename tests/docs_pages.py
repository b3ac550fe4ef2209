"""The documentation pages' code blocks, as the tests read them (docs/*.md, the site's
pages; docs/incoming/ is not yet part of the site).

Conventions of the pages: a ```bash block holds commands, one a line (a trailing
backslash continues it; a line starting with # and text after two spaces and a # are
comments); a ```python block is either a doctest (it starts with >>>) or a file the
reader saves (its first line is ``# <name>.py: ...``); ```yaml blocks are configs;
```text blocks are output. A test that runs a page's command or reads its file says so in
a comment ``# docs: <page>: <command or file name>``, which tests/unit/test_docs_pages.py
collects.
"""

from __future__ import annotations

import re
from pathlib import Path

from campaigns import REPO

DOCS = REPO / "docs"
_BLOCK = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
_CLAIM = re.compile(r"#\s*docs:\s*(\S+\.md):\s*(.+?)\s*$", re.M)


def pages() -> list[Path]:
    """Every page of the site (docs/incoming/ and the hooks excluded)."""
    return sorted(p for p in DOCS.rglob("*.md") if not {"incoming", "hooks"} & set(p.relative_to(DOCS).parts))


def page_name(page: Path) -> str:
    """``score.md``, ``reference/measures.md``; the README is ``README.md``."""
    return page.relative_to(DOCS if page.is_relative_to(DOCS) else REPO).as_posix()


def sources() -> list[Path]:
    """Where commands are shown: the site's pages and the README."""
    return [*pages(), REPO / "README.md"]


def blocks(page: Path) -> list[tuple[str, str]]:
    """The page's fenced blocks as (language, text)."""
    return _BLOCK.findall(page.read_text())


def page_block(page: str, first_line: str) -> str:
    """The block of ``docs/<page>`` that starts with ``first_line``."""
    for _, block in blocks(DOCS / page):
        if block.startswith(first_line):
            return block
    raise AssertionError(f"docs/{page} has no block starting {first_line!r}")


def commands(block: str) -> list[str]:
    """A bash block's commands: continuations joined, comments dropped."""
    out: list[str] = []
    for line in block.replace("\\\n", " ").splitlines():
        line = re.split(r"\s{2,}#", line)[0].strip()
        if line and not line.startswith("#"):
            out.append(re.sub(r"\s+", " ", line))
    return out


def page_commands() -> list[tuple[str, str]]:
    """(page, command) for every command of every bash block of the site and the README."""
    return [(page_name(p), c) for p in sources() for lang, b in blocks(p) if lang == "bash" for c in commands(b)]


def page_files() -> list[tuple[str, str]]:
    """(page, file name) for every python block that is a file to save, not a doctest."""
    found = []
    for p in sources():
        for lang, block in blocks(p):
            if lang == "python" and not block.startswith(">>>"):
                match = re.match(r"# (\S+\.py)\b", block)
                assert match, f"{page_name(p)}: a python block is neither a doctest nor a named file: {block[:60]!r}"
                found.append((page_name(p), match.group(1)))
    return found


def claims() -> set[tuple[str, str]]:
    """(page, command or file) that some test under tests/ says it runs or reads."""
    found: set[tuple[str, str]] = set()
    for path in (REPO / "tests").rglob("*.py"):
        for page, what in _CLAIM.findall(path.read_text()):
            found.add((page, re.sub(r"\s+", " ", what)))
    return found
