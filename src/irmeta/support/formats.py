"""How a name or a number becomes text in each format irmeta writes: the one place every
writer (``irmeta score``, ``irmeta compare``, the pipeline's tables, the paper's report,
the claims) takes its escaping and its checks from, so no two writers disagree.

- **TSV** (:func:`check_tsv_names`): fields are not quoted, so a name holding a tab, a
  newline or a carriage return (or a character UTF-8 cannot encode, a lone surrogate of a
  file name) would split a row and cannot be read back by
  :mod:`irmeta.measures.score_files`; it is refused, one line naming it. trec_eval's
  format separates its fields by any whitespace, so there a run name holding a space,
  a vertical tab or a form feed is refused too.
- **Markdown** (:func:`markdown_escape`): a character is backslash-escaped only where
  GitHub Markdown (CommonMark and its table, strikethrough and math extensions) would read
  it as markup, so that the raw text reads as the rendered one: ``\\ | * ` [ ] ~ $``
  always, ``_`` unless between two letters or digits (``P_rareness``, ``dl20_perturbed``
  stay as they are: an underscore inside a word opens no emphasis), ``<`` before what
  would open an HTML tag or an autolink (a letter, ``/``, ``!``, ``?``), ``&`` before what
  would make an entity (a letter, ``#``), ``>`` opening the text (a block quote);
  ``grade >= 2`` is as written. A newline becomes a space. A run named
  ``<img src=x onerror=alert(1)>`` is text (``\\<img src=x onerror=alert(1)>``).
- **LaTeX** (:func:`latex_escape`): ``& % $ # _ { }`` with a backslash, ``\\ ~ ^ | < >``
  as text commands (``\\textbackslash{}``, ``\\textasciitilde{}``, ``\\textasciicircum{}``,
  ``\\textbar{}``, ``\\textless{}``, ``\\textgreater{}``: outside math mode ``|<>`` would
  print other glyphs); a newline becomes a space.
- **HTML** (:func:`html_escape`): ``& < > " '`` as entities.
- :class:`Markup`: text already in its target format (compare's superscripts), passed
  through by the table writers; everything else is escaped.

Numbers (:func:`refuse_non_finite`, :func:`refuse_infinite`): a non-finite number reaching
a writer is a bug upstream, and the writer stops the job with one line naming where it is
(the measure and run, or the table and column) rather than write it. The rule:

- +-infinity is refused everywhere (no table means it);
- NaN is refused in the value columns of score outputs (``irmeta score``'s TSV and
  trec_eval output, ``irmeta compare``'s numbers, ``scores.parquet``): a score is a number;
- NaN in a table's other cells is a missing entry (``permutations`` of a method that
  draws none, ``randomised_p`` where no randomised test ran, a baseline's ``alpha``) and
  is written as an empty cell, as it always was.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["REPORT_FORMATS", "Markup", "check_tsv_names", "html_escape", "latex_escape", "markdown_escape",
           "refuse_infinite", "refuse_infinite_cells", "refuse_non_finite", "refuse_non_finite_scores", "tsv_fault"]

#: What ``irmeta compare``, ``agree`` and ``repro`` write (the first is their default).
REPORT_FORMATS = ("markdown", "latex", "tsv")


class Markup(str):
    """Text already written in its target format (a ``<sup>`` in Markdown, ``$^{ab}$`` in
    LaTeX): the table writers pass it through unescaped. Only irmeta's own code makes one."""

    __slots__ = ()


#: Markup wherever it stands: table cells (``|``), escapes, emphasis (``*``), code,
#: links, strikethrough, GitHub's math.
_MARKDOWN_ALWAYS = frozenset("\\|*`[]~$")


def markdown_escape(text: object) -> str:
    """``text`` as literal text in a GitHub Markdown table cell or paragraph, escaped only
    where it would be read as markup (the module's rules): ``dl20_perturbed``,
    ``cohen_kappa`` and ``grade >= 2`` come out as they are, ``a|b`` as ``a\\|b``, ``<b>``
    as ``\\<b>``; line breaks as spaces. A :class:`Markup` is returned as it is."""
    if isinstance(text, Markup):
        return text
    chars = str(text)
    out = []
    opening = True  # only white space so far: a ">" here would open a block quote
    for i, c in enumerate(chars):
        before = chars[i - 1] if i else ""
        after = chars[i + 1] if i + 1 < len(chars) else ""
        if c in "\r\n":
            out.append(" ")
            continue
        if (c in _MARKDOWN_ALWAYS
                or (c == "_" and not (before.isalnum() and after.isalnum()))
                or (c == "<" and (after.isalpha() or (after != "" and after in "/!?")))
                or (c == "&" and (after.isalpha() or after == "#"))
                or (c == ">" and opening)):
            out.append("\\" + c)
        else:
            out.append(c)
        opening = opening and c.isspace()
    return "".join(out)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}", "\n": " ", "\r": " ",
}


def latex_escape(text: object) -> str:
    """``text`` as literal text in LaTeX's text mode: every special character escaped
    (``& % $ # _ { } ~ ^ \\ | < >``), line breaks as spaces. A :class:`Markup` is returned
    as it is."""
    if isinstance(text, Markup):
        return text
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def html_escape(text: object) -> str:
    """``text`` as literal HTML text or attribute value (``& < > " '`` as entities)."""
    import html

    return html.escape(str(text), quote=True)


# What irmeta's TSV reader cannot carry inside a field, and what trec_eval's format
# (fields split by any whitespace) cannot carry either.
_TSV_BREAKS = {"\t": "a tab", "\n": "a newline", "\r": "a carriage return"}
_TREC_EVAL_BREAKS = _TSV_BREAKS | {" ": "a space", "\x0b": "a vertical tab", "\x0c": "a form feed"}


def tsv_fault(name: str, *, trec_eval: bool = False) -> str | None:
    """What in ``name`` a TSV field (or, ``trec_eval``, a trec_eval field) cannot carry,
    as words (``"a tab"``), or None: nothing. Empty names are a fault too."""
    if not name:
        return "nothing (it is empty)"
    breaks = _TREC_EVAL_BREAKS if trec_eval else _TSV_BREAKS
    for c in name:
        if c in breaks:
            return breaks[c]
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "a character UTF-8 cannot encode"
    return None


def check_tsv_names(kind: str, names: Iterable[str], *, trec_eval: bool = False) -> None:
    """Refuse the first of ``names`` (runs, measures, topics: ``kind``) that a TSV field
    cannot carry: ValueError ``run name 'a\\tb' holds a tab, which TSV cannot carry``."""
    for name in names:
        fault = tsv_fault(str(name), trec_eval=trec_eval)
        if fault is not None:
            layout = "trec_eval's format" if trec_eval else "TSV"
            raise ValueError(f"{kind} name {str(name)!r} holds {fault}, which {layout} cannot carry")


def _first_bad(values: np.ndarray, bad: Callable[[np.ndarray], np.ndarray]) -> int | None:
    flat = np.asarray(values).reshape(-1)
    if flat.dtype.kind not in "fc":
        return None
    hits = np.flatnonzero(bad(flat))
    return int(hits[0]) if len(hits) else None


def refuse_non_finite(values: np.ndarray, where: Callable[[int], str]) -> None:
    """Refuse NaN and +-infinity in ``values`` (a value column of scores): ValueError
    naming the first, ``where(i)`` saying where flat index i is (measure and run)."""
    i = _first_bad(values, lambda v: ~np.isfinite(v))
    if i is not None:
        value = float(np.asarray(values).reshape(-1)[i])
        raise ValueError(f"{where(i)}: {value!r} is not a finite number; irmeta writes none (a bug: please report it)")


def refuse_infinite(values: np.ndarray, where: Callable[[int], str]) -> None:
    """Refuse +-infinity (NaN, a missing entry, passes): ValueError naming the first."""
    i = _first_bad(values, np.isinf)
    if i is not None:
        value = float(np.asarray(values).reshape(-1)[i])
        raise ValueError(f"{where(i)}: {value!r} is not a finite number; irmeta writes none (a bug: please report it)")


def refuse_non_finite_scores(per_topic: np.ndarray | None, means: Mapping[str, np.ndarray], runs: Sequence[str],
                             topics: Sequence[str], labels: Sequence[str]) -> None:
    """Refuse NaN and +-infinity in scores: ``per_topic`` (blocks, runs, topics; None: not
    written) and each averaging's ``means`` (blocks, runs), block ``i`` the measure
    ``labels[i]``; one line naming the measure, the run and the topic or averaging."""
    n_topics = len(topics)

    def topic_place(label: str) -> Callable[[int], str]:
        return lambda k: f"{label} of run {runs[k // n_topics]} on topic {topics[k % n_topics]}"

    def mean_place(label: str, name: str) -> Callable[[int], str]:
        return lambda k: f"{label} of run {runs[k]} (mean, {name})"

    for i, label in enumerate(labels):
        if per_topic is not None:
            refuse_non_finite(per_topic[i], topic_place(label))
        for name, values in means.items():
            refuse_non_finite(values[i], mean_place(label, name))


def refuse_infinite_cells(frame: pd.DataFrame, table: str) -> None:
    """No table holds +-infinity (NaN is a missing entry, written as an empty cell): one
    line naming the table, the column, the row and, when the table has them, the row's
    measure and run."""
    for column in frame.columns:
        series = frame[column]
        if series.dtype.kind in "fc":
            values = series.to_numpy()
        elif series.dtype == object:
            values = np.array([v if isinstance(v, (float, np.floating)) else 0.0 for v in series], dtype=np.float64)
        else:
            continue
        refuse_infinite(values, functools.partial(_cell_place, frame, table, column))


def _cell_place(frame: pd.DataFrame, table: str, column: object, i: int) -> str:
    row = frame.iloc[i]
    named = ", ".join(f"{key} {row[key]}" for key in ("measure", "run") if key in frame.columns)
    return f"table {table}, column {column}, row {i}" + (f" ({named})" if named else "")
