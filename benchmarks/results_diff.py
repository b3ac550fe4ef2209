"""Compare two results/ trees file by file: what a change did to the tables.

    python benchmarks/results_diff.py BEFORE/results AFTER/results

Tables (CSV, TSV, Parquet, NPZ) must be byte-identical; a Markdown or LaTeX file that
differs only by escaping (``\\_`` for ``_``, ``\\textless{}`` for ``<``...) is listed as
such; figures, logs and benchmarks are not compared (figures embed no data the tables do
not hold). Exits 1 when a table differs or a file is missing on either side.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TABLES = {".csv", ".tsv", ".parquet", ".npz", ".json"}
TEXT = {".md", ".tex"}
SKIPPED_FOLDERS = {"logs", "benchmarks", ".snakemake", "campaign", "figures"}

_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]<>()#+\-.!|~])")
_LATEX_WORDS = {r"\textless{}": "<", r"\textgreater{}": ">", r"\textbar{}": "|", r"\textbackslash{}": "\\",
                r"\textasciitilde{}": "~", r"\textasciicircum{}": "^"}


def unescaped(text: str) -> str:
    """``text`` with Markdown's and LaTeX's escapes undone and HTML entities decoded."""
    import html

    for word, char in _LATEX_WORDS.items():
        text = text.replace(word, char)
    text = re.sub(r"\\([&%$#_{}])", r"\1", text)
    return html.unescape(_MARKDOWN_ESCAPE.sub(r"\1", text))


def compared(before: Path, after: Path) -> list[tuple[str, str]]:
    """(relative path, verdict) for every file of either tree."""
    def files(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for p in root.rglob("*")
                if p.is_file() and not SKIPPED_FOLDERS & set(p.relative_to(root).parts[:-1])
                and p.suffix in TABLES | TEXT}

    out = []
    old, new = files(before), files(after)
    for name in sorted(old | new):
        if name not in new:
            out.append((name, "missing after"))
        elif name not in old:
            out.append((name, "new"))
        else:
            a, b = (before / name).read_bytes(), (after / name).read_bytes()
            if a == b:
                continue
            if Path(name).suffix in TEXT and unescaped(a.decode()) == unescaped(b.decode()):
                out.append((name, "escaping only"))
            else:
                out.append((name, "differs"))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    verdicts = compared(Path(argv[0]), Path(argv[1]))
    for name, verdict in verdicts:
        print(f"{verdict:15s} {name}")
    bad = [n for n, v in verdicts if v in ("differs", "missing after") and Path(n).suffix in TABLES]
    bad += [n for n, v in verdicts if v == "differs" and Path(n).suffix in TEXT]
    print(f"{len(bad)} tables differ" if bad else "tables identical (text files: escaping only, if listed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
