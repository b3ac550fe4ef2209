"""One DataFrame as ``<stem>.csv`` (full precision), ``<stem>.md`` (GitHub Markdown) and
``<stem>.tex`` (a LaTeX ``table``/``tabular``, written here, no jinja2), atomically and
byte for byte deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from irmeta.support.atomic import atomic_write_text


def is_missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _format_cell(value: object, float_format: str) -> str:
    if is_missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return float_format.format(float(value))
    return str(value)


def _numeric_column(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters (``_``, ``%``, ``&``, ``#``, ``$``, braces, ...)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _markdown_escape(text: str) -> str:
    return str(text).replace("|", r"\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    lines = ["| " + " | ".join(_markdown_escape(h) for h in header) + " |",
             "| " + " | ".join("---:" if r else ":---" for r in right) + " |"]
    lines += ["| " + " | ".join(_markdown_escape(c) for c in row) + " |" for row in rows]
    return lines


def write_table(frame: pd.DataFrame, stem: str | Path, caption: str = "",
                float_format: str = "{:.3f}") -> list[Path]:
    """Write ``frame`` as ``<stem>.csv``, ``<stem>.md`` and ``<stem>.tex``; return the paths.

    - CSV: ``DataFrame.to_csv(index=False)`` with ``\\n`` line ends, full precision
      (reads back to the same values).
    - Markdown: the caption on a line of its own, a blank line, then a GitHub table
      (numeric columns right-aligned).
    - LaTeX: a ``table`` environment with ``\\caption`` and a ``tabular`` (``\\hline``
      rules, no package needed); special characters (``_``, ``%``, ...) escaped.

    Floats are printed with ``float_format`` in the Markdown and LaTeX files, integers
    as integers, missing values as empty cells. Each file is written atomically; the
    same frame gives the same bytes.
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    header = [str(c) for c in frame.columns]
    right = [_numeric_column(frame[c]) for c in frame.columns]
    rows = [[_format_cell(v, float_format) for v in row] for row in frame.itertuples(index=False, name=None)]

    csv_text = frame.to_csv(index=False, lineterminator="\n")

    md_lines = []
    if caption:
        md_lines += [_markdown_escape(caption), ""]
    md_lines += markdown_table(header, rows, right)
    md_text = "\n".join(md_lines) + "\n"

    spec = "".join("r" if r else "l" for r in right)
    tex_lines = [r"\begin{table}[htbp]", r"\centering"]
    if caption:
        tex_lines.append(r"\caption{" + latex_escape(caption) + "}")
    tex_lines += [r"\begin{tabular}{" + spec + "}", r"\hline",
                  " & ".join(latex_escape(h) for h in header) + r" \\", r"\hline"]
    tex_lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows]
    tex_lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    tex_text = "\n".join(tex_lines) + "\n"

    paths = []
    for ext, text in (("csv", csv_text), ("md", md_text), ("tex", tex_text)):
        path = stem.with_name(stem.name + "." + ext)
        atomic_write_text(path, text)
        paths.append(path)
    return paths
