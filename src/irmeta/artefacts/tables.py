"""One DataFrame as ``<stem>.csv`` (full precision), ``<stem>.md`` (GitHub Markdown) and
``<stem>.tex`` (a LaTeX ``table``/``tabular``, written here, no jinja2), atomically and
byte for byte deterministic. Names are escaped by :mod:`irmeta.support.formats`, the one
writer per format every table and report shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from irmeta.support.atomic import atomic_write_text
from irmeta.support.formats import latex_escape, markdown_escape, refuse_infinite_cells

if TYPE_CHECKING:  # pandas in the functions: irmeta compare's report (these rows) costs no pandas to import
    import pandas as pd


def is_missing(value: object) -> bool:
    import pandas as pd

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
    import pandas as pd

    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """A GitHub Markdown table's lines, every cell escaped (:func:`~irmeta.support.formats.markdown_escape`;
    a :class:`~irmeta.support.formats.Markup` cell passes as it is)."""
    lines = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
             "| " + " | ".join("---:" if r else ":---" for r in right) + " |"]
    lines += ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows]
    return lines


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]], spec: str, caption: str = "") -> list[str]:
    """A LaTeX ``table`` environment's lines (``\\caption``, a ``tabular`` with ``\\hline``
    rules, no package needed), every cell escaped (:func:`~irmeta.support.formats.latex_escape`;
    a :class:`~irmeta.support.formats.Markup` cell passes as it is)."""
    lines = [r"\begin{table}[htbp]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    lines += [r"\begin{tabular}{" + spec + "}", r"\hline", " & ".join(latex_escape(h) for h in header) + r" \\",
              r"\hline"]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows]
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return lines


def table_texts(frame: pd.DataFrame, caption: str = "", float_format: str = "{:.3f}",
                name: str = "table") -> dict[str, str]:
    """``frame`` as the texts :func:`write_table` writes, by extension (``csv``, ``md``,
    ``tex``); +-infinity refused, one line naming ``name`` and the column."""
    refuse_infinite_cells(frame, name)
    header = [str(c) for c in frame.columns]
    right = [_numeric_column(frame[c]) for c in frame.columns]
    rows = [[_format_cell(v, float_format) for v in row] for row in frame.itertuples(index=False, name=None)]
    md_lines = [markdown_escape(caption), ""] if caption else []
    return {
        "csv": frame.to_csv(index=False, lineterminator="\n"),
        "md": "\n".join(md_lines + markdown_table(header, rows, right)) + "\n",
        "tex": "\n".join(latex_table(header, rows, "".join("r" if r else "l" for r in right), caption)) + "\n",
    }


def write_table(frame: pd.DataFrame, stem: str | Path, caption: str = "",
                float_format: str = "{:.3f}") -> list[Path]:
    """Write ``frame`` as ``<stem>.csv``, ``<stem>.md`` and ``<stem>.tex``; return the paths.

    - CSV: ``DataFrame.to_csv(index=False)`` with ``\\n`` line ends, full precision
      (reads back to the same values).
    - Markdown: the caption on a line of its own, a blank line, then a GitHub table
      (numeric columns right-aligned); names escaped.
    - LaTeX: a ``table`` environment with ``\\caption`` and a ``tabular`` (``\\hline``
      rules, no package needed); every special character escaped.

    Floats are printed with ``float_format`` in the Markdown and LaTeX files, integers
    as integers, missing values (None, NaN) as empty cells; +-infinity is refused, one line
    naming the table and column (:mod:`irmeta.support.formats`). Each file is written
    atomically; the same frame gives the same bytes.
    """
    stem = Path(stem)
    texts = table_texts(frame, caption, float_format, stem.name)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("csv", "md", "tex"):
        path = stem.with_name(stem.name + "." + ext)
        atomic_write_text(path, texts[ext])
        paths.append(path)
    return paths
