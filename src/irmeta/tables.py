"""The paper's tables from the experiment tables, and the published-versus-reproduced report.

- :func:`write_table`: one DataFrame as ``<stem>.csv`` (full precision), ``<stem>.md``
  (GitHub Markdown) and ``<stem>.tex`` (a LaTeX ``table``/``tabular``, written here, no
  jinja2), atomically and byte-for-byte deterministic.
- :func:`paper_table1`, :func:`paper_table2`, :func:`paper_table3`: Tables 1-3 in the
  paper's layout, from the per-collection ``discriminative_power``, ``stability`` and
  ``system_subsampling`` tables.
- :func:`load_published` and :func:`published_vs_reproduced`: every published figure
  (``config/published.yaml``) next to the reproduced one, with the difference, the
  method and settings behind it, and generated notes on why they differ.

The reproduced numbers are never adjusted toward the published ones: the report only
reads, formats and subtracts. Every number in the generated text comes from the inputs
(the experiment tables, the published file, the settings); the explanatory sentences
are fixed templates.

Inputs are the tables the pipeline writes, as read back from CSV: alphas are text
labels ("0", "0.25", "1", "1/R") or floats when pandas parsed them as numbers, and are
empty/NaN for the baseline measures (P@100, AP@100). :func:`alpha_key` normalises both.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import yaml

__all__ = [
    "write_table",
    "paper_table1",
    "paper_table2",
    "paper_table3",
    "load_published",
    "published_vs_reproduced",
    "alpha_key",
    "alpha_number",
    "measure_label",
    "measure_from_label",
    "REPRODUCED_KEYS",
]

# ------------------------------------------------------------------ names and labels

MEASURE_PATTERN = re.compile(r"^(?P<family>AP|P)(?P<rareness>_rareness)?(?P<norm>_norm)?@(?P<k>\d+)$")
_LABEL_PATTERN = re.compile(r"^(?P<family>AP|P)(?P<prime>')?(?:@(?P<k>\d+))?(?P<rareness>_rareness)?$")

#: Keys of one collection's entry in ``reproduced`` (the pipeline's table names).
REPRODUCED_KEYS = ("kendall_tau", "discriminative_power", "stability", "system_subsampling",
                   "synthetic_rare_common", "rarity")
_ALIASES = {"rarity_all": "rarity", "rarity_listing": "rarity", "synthetic": "synthetic_rare_common"}

#: What the paper states about its own protocol and is not a table entry of
#: published.yaml (section 4.4 and Algorithm 1: R = 1000 trials; section 3: the topic).
PAPER_TRIALS = 1000
FIGURE1_COLLECTION = "DLT20"
FIGURE1_TOPIC = "1127540"
TABLE3_COLLECTION = "TREC-8"
TABLE4_COLLECTION = "TREC-8"


def alpha_key(value: object) -> str:
    """Canonical text of an alpha cell: ``""`` (baseline), ``"0.25"``, ``"1"``, ``"1/R"``.

    Accepts what a CSV read gives back: floats (``1.0`` -> ``"1"``), numeric strings
    (``"1.0"`` -> ``"1"``), NaN/None/"" for measures without alpha, and non-numeric
    labels such as ``1/R`` kept as they are.
    """
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    text = str(value).strip()
    if text == "" or text.lower() == "nan":
        return ""
    try:
        return f"{float(text):g}"
    except ValueError:
        return text


def alpha_number(value: object) -> float | None:
    """The numeric alpha of a cell; None for baselines and per-topic alphas (``1/R``)."""
    key = alpha_key(value)
    try:
        return float(key) if key else None
    except ValueError:
        return None


def alpha_display(value: object) -> str:
    """An alpha as the paper prints it: ``0.0``, ``0.5``, ``1.0``, ``0.25``, ``1/R``;
    a baseline (no alpha) is ``0.0``."""
    key = alpha_key(value)
    if key == "":
        return "0.0"
    if alpha_number(key) is None:
        return key
    return key if any(c in key for c in ".e") else key + ".0"


def _alpha_sort(key: str) -> tuple:
    number = alpha_number(key)
    return (0, number, "") if number is not None else (1, 0.0, key)


def measure_label(measure: str) -> str:
    """The paper's name of a measure: ``P_rareness@100`` -> ``P@100_rareness``,
    ``AP@100`` -> ``AP``, ``AP_rareness@100`` -> ``AP_rareness``; the [0, 1] forms of
    eq. 4 get a prime: ``P_rareness_norm@100`` -> ``P'@100_rareness``. Other cutoffs
    keep theirs (``AP@10`` -> ``AP@10``). Unknown names are returned unchanged."""
    m = MEASURE_PATTERN.match(str(measure))
    if not m:
        return str(measure)
    prime = "'" if m["norm"] else ""
    suffix = "_rareness" if m["rareness"] else ""
    if m["family"] == "P":
        return f"P{prime}@{m['k']}{suffix}"
    cut = "" if m["k"] == "100" else f"@{m['k']}"
    return f"AP{prime}{cut}{suffix}"


def measure_from_label(label: str, cutoff: int = 100) -> str:
    """Inverse of :func:`measure_label`: ``P@100_rareness`` -> ``P_rareness@100``,
    ``AP`` -> ``AP@100`` (the paper's AP is cut at ``cutoff``)."""
    m = _LABEL_PATTERN.match(str(label).strip())
    if not m:
        raise ValueError(f"not a measure label of the paper: {label!r}")
    k = m["k"] or str(cutoff)
    return f"{m['family']}{'_rareness' if m['rareness'] else ''}{'_norm' if m['prime'] else ''}@{k}"


def _is_baseline(measure: str) -> bool:
    m = MEASURE_PATTERN.match(str(measure))
    return bool(m) and not m["rareness"]


# -------------------------------------------------------------------- atomic writes


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and an
    atomic rename, so a reader never sees a partial file. The file gets the ordinary
    permissions (umask), not a private temporary file's."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "xb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


# ----------------------------------------------------------------------- write_table


def _is_missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _format_cell(value: object, float_format: str) -> str:
    if _is_missing(value):
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


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
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
    md_lines += _markdown_table(header, rows, right)
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
        _atomic_write_text(path, text)
        paths.append(path)
    return paths


# ------------------------------------------------------------------- paper tables


def _with_keys(frame: pd.DataFrame) -> pd.DataFrame:
    if "alpha" not in frame.columns or "measure" not in frame.columns:
        raise ValueError("table needs the columns measure and alpha")
    return frame.assign(_alpha_key=frame["alpha"].map(alpha_key))


def _select(frame: pd.DataFrame, measure: str, key: str) -> pd.DataFrame:
    return frame[(frame["measure"] == measure) & (frame["_alpha_key"] == key)]


def _paper_rows(frames: Iterable[pd.DataFrame], alphas: Sequence[str] | None, include_norm: bool,
                cutoff: int) -> list[tuple[str, str, str, str]]:
    """(Metric label, alpha as printed, measure, alpha key) in the paper's row order."""
    frames = list(frames)
    rows = []
    for family in ("P", "AP"):
        base = f"{family}@{cutoff}"
        rows.append((measure_label(base), "0.0", base, ""))
        for norm in (False, True) if include_norm else (False,):
            measure = f"{family}_rareness{'_norm' if norm else ''}@{cutoff}"
            if alphas is None:
                keys = sorted({k for f in frames for k in f.loc[f["measure"] == measure, "_alpha_key"] if k},
                              key=_alpha_sort)
            else:
                keys = [alpha_key(a) for a in alphas]
            rows += [(measure_label(measure), alpha_display(k), measure, k) for k in keys]
    return rows


def _single(rows: pd.DataFrame, column: str, what: str) -> object:
    if rows.empty:
        return pd.NA
    values = rows[column].unique()
    if len(values) > 1:
        raise ValueError(f"{what}: {len(rows)} rows with different {column} ({sorted(map(str, values))}); "
                         "select the setting first")
    return values[0]


def _level_label(level: float) -> str:
    return f"{100 * (1 - float(level)):g}%"


def paper_table1(
    dp: Mapping[str, pd.DataFrame],
    method: str = "paper_pairwise",
    alphas: Sequence[str] | None = ("0.5", "1"),
    *,
    levels: Sequence[float] = (0.05, 0.01),
    include_norm: bool = False,
    cutoff: int = 100,
) -> pd.DataFrame:
    """Table 1: significantly different pairs, the paper's layout.

    ``dp`` maps a collection label to its ``discriminative_power`` table. Rows: P@100
    (alpha shown as 0.0), P@100_rareness at each of ``alphas``, AP, AP_rareness at each
    of ``alphas`` (``alphas=None``: every alpha present, ``1/R`` last; ``include_norm``
    adds the [0, 1] forms, P'@100_rareness and AP'_rareness). Columns: ``Metric``,
    ``alpha``, then ``"<label> 95%"`` and ``"<label> 99%"`` per collection (one per
    level). Counts are integers, missing ones <NA>.
    """
    frames = {label: _with_keys(frame[frame["method"] == method]) for label, frame in dp.items()}
    spec = _paper_rows(frames.values(), alphas, include_norm, cutoff)
    out = pd.DataFrame({"Metric": [r[0] for r in spec], "alpha": [r[1] for r in spec]})
    for label, frame in frames.items():
        for level in levels:
            values = []
            for _, _, measure, key in spec:
                rows = _select(frame, measure, key)
                rows = rows[np.isclose(rows["level"].astype(float), float(level))]
                values.append(_single(rows, "significant_pairs", f"{label} {measure} {key} {level}"))
            out[f"{label} {_level_label(level)}"] = pd.array(values, dtype="Int64")
    return out


def paper_table2(
    stability: Mapping[str, pd.DataFrame],
    mode: str = "absolute",
    fuzziness: float = 0.05,
    alphas: Sequence[str] | None = ("0.5", "1"),
    *,
    include_norm: bool = False,
    cutoff: int = 100,
) -> pd.DataFrame:
    """Table 2: Buckley-Voorhees stability, the paper's layout.

    ``stability`` maps a collection label to its ``stability`` table; the rows with
    ``fuzziness_mode == mode`` and ``fuzziness == fuzziness`` are used (several
    settings left after that raise an error). Rows as :func:`paper_table1`; one column
    per collection.
    """
    frames = {}
    for label, frame in stability.items():
        frame = _with_keys(frame)
        frames[label] = frame[(frame["fuzziness_mode"].astype(str) == mode)
                              & np.isclose(frame["fuzziness"].astype(float), float(fuzziness))]
    spec = _paper_rows(frames.values(), alphas, include_norm, cutoff)
    out = pd.DataFrame({"Metric": [r[0] for r in spec], "alpha": [r[1] for r in spec]})
    for label, frame in frames.items():
        values = [_single(_select(frame, measure, key), "stability", f"{label} {measure} {key}")
                  for _, _, measure, key in spec]
        out[label] = pd.array([np.nan if _is_missing(v) else float(v) for v in values], dtype="float64")
    return out


def paper_table3(
    subsampling: Mapping[str, pd.DataFrame],
    collection: str,
    alpha: str = "1",
    *,
    cutoff: int = 100,
) -> pd.DataFrame:
    """Table 3: mean Kendall tau versus the number of sampled systems, one collection.

    Rows P@100_rareness and AP_rareness at ``alpha`` (the paper: 1); columns ``Metric``,
    ``alpha`` and ``N=<n>`` for every n_systems in the table, ascending.
    """
    frame = _with_keys(subsampling[collection])
    key = alpha_key(alpha)
    sizes = sorted(int(n) for n in frame["n_systems"].dropna().unique())
    measures = [f"P_rareness@{cutoff}", f"AP_rareness@{cutoff}"]
    out = pd.DataFrame({"Metric": [measure_label(m) for m in measures],
                        "alpha": [alpha_display(key)] * len(measures)})
    for n in sizes:
        values = []
        for measure in measures:
            rows = _select(frame, measure, key)
            rows = rows[rows["n_systems"].astype(int) == n]
            values.append(_single(rows, "mean_tau", f"{collection} {measure} N={n}"))
        out[f"N={n}"] = pd.array([np.nan if _is_missing(v) else float(v) for v in values], dtype="float64")
    return out


def swap_table(swap: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Sakai's Table 1 (2006) per collection: for each measure (and alpha), the absolute
    difference required for a sure comparison and the share of comparisons discriminated,
    measures ordered by sensitivity, most sensitive first, as Sakai lays it out."""
    rows = []
    for collection, frame in swap.items():
        frame = _with_keys(frame).sort_values("sensitivity", ascending=False, kind="stable")
        for _, row in frame.iterrows():
            rows.append({"collection": collection, "Metric": measure_label(row["measure"]),
                         "alpha": alpha_display(row["_alpha_key"]) if row["_alpha_key"] else "",
                         "absolute diff. required": row["required_difference"],
                         "sensitivity": row["sensitivity"],
                         "comparisons": int(row["comparisons"]), "sampling": row["sampling"],
                         "confidence": row["confidence"]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------- published vs reproduced


def load_published(path: str | Path) -> dict:
    """The published figures (``config/published.yaml``) as a dict."""
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of published figures")
    return data


# Explanations: fixed text, no numbers; the numbers are filled in from the inputs.
WHY = {
    "table1_method": (
        "`paper_pairwise` follows the authors' script: statsmodels' pairwise_tukeyhsd on the two "
        "runs' per-topic scores as two independent groups, one call per pair. That is an unpaired "
        "two-sample test with no topic blocking and no correction for the number of pairs, so a pair "
        "whose statistic sits at the critical value changes side with the last digits of the scores "
        "(PROTOCOL.md records such a TREC-8 pair for P@100 at 95%)."
    ),
    "table1_quirk": (
        "The authors' discriminative-power script scores the AP_rareness rows with the P@k_rareness "
        "scores (PROTOCOL.md, known quirks), so the published AP_rareness rows cannot come from that "
        "script as released; the rows here score AP_rareness."
    ),
    "table1_cells": "{collection}: {equal} of {cells} cells equal the published count; differences range from {low} to {high}.",
    "table1_pairs": "{collection}: {here} system pairs here, {paper} in the paper (a different set of runs).",
    "table1_gain": (
        "{collection}, {metric} (alpha = {alpha}) minus {baseline} at {level}: {gains}. The gain the "
        "paper reports depends on the test."
    ),
    "table2_trials": (
        "{collection}: {trials} trials of T = {topics} topics (seed {seed}) here; the paper: "
        "{paper_trials} trials of T = {paper_topics}. Stability is a Monte Carlo estimate over random "
        "topic subsets, so the draws differ from the authors' and the third decimal is not expected to agree."
    ),
    "table2_scale": (
        "{collection}, an absolute fuzziness favours measures with a wider range (the rareness measures "
        "reach up to 2): {gains}."
    ),
    "table3_trials": (
        "{collection}: {trials} trials per N here (the paper: {paper_trials}); undefined trials (the "
        "sampled runs tie, tau undefined, left out of the mean): {undefined}."
    ),
    "table3_se": (
        "{collection}: standard error of the mean tau, sd/sqrt(defined trials): {ses}. |difference| "
        "within 2 standard errors at {within}; beyond at {beyond}."
    ),
    "table4_depth": (
        "The published rarities are R(d) with S_d counted at depth {depth}: rounded to 2 decimals, "
        "{equal} of {count} agree. Counted at depth {other} the same documents give {values}. So the "
        "depth at which S_d is counted is a setting apart from the scoring cutoff."
    ),
    "table4_round": "{docid}: R(d) = {value} rounds to {rounded}; published {published}.",
    "figure1_missing": (
        "{collection} runs are not available here, so Figure 1's numbers are not reproduced."
    ),
    "figure1_other": (
        "The same experiment on {collection} topic {topic} (listed as 'Figure 1 (other topic)') has no "
        "published counterpart: {summary}."
    ),
    "figure1_variants": (
        "`protocol` counts S_rare's rarity over S + 1 runs (the real runs and S_rare); `paper_script` "
        "over S, as the authors' script does."
    ),
    "figure2_method": (
        "Tau is Kendall's tau-b on means kept exact (ties preserved), averaging over {averaging}. The "
        "authors read trec_eval's 4-decimal output, which merges or splits near-ties (PROTOCOL.md)."
    ),
    "figure2_runs": "{collection}: {here} runs here, {paper} in the paper.",
}

_COLUMNS = ["table", "metric", "alpha", "collection", "published", "reproduced", "difference", "method and settings"]


def _frames(reproduced: Mapping[str, Mapping[str, pd.DataFrame]], collection: str) -> dict[str, pd.DataFrame] | None:
    if collection not in reproduced:
        return None
    out = {}
    for key, frame in reproduced[collection].items():
        out[_ALIASES.get(key, key)] = frame
    return out


def _diff_int(reproduced: int, published: int) -> str:
    d = int(reproduced) - int(published)
    return "0" if d == 0 else f"{d:+d}"


def _diff_float(reproduced: float, published: float, digits: int) -> str:
    """``0`` when equal (up to float noise, 1e-12); a signed difference otherwise,
    unsigned when it rounds to zero at ``digits``."""
    d = float(reproduced) - float(published)
    if math.isclose(float(reproduced), float(published), rel_tol=1e-12, abs_tol=1e-12):
        return "0"
    text = f"{d:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def _fmt(value: float, digits: int) -> str:
    return f"{float(value):.{digits}f}"


def _join(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items) if items else "none"


class _Report:
    def __init__(self) -> None:
        self.sections: list[tuple[str, list[list[str]]]] = []
        self.why: list[tuple[str, list[str]]] = []

    def section(self, title: str) -> list[list[str]]:
        rows: list[list[str]] = []
        self.sections.append((title, rows))
        return rows

    def notes(self, title: str) -> list[str]:
        notes: list[str] = []
        self.why.append((title, notes))
        return notes


def _collections(published: Mapping) -> list[str]:
    return list((published.get("setup") or {}).get("collections") or {})


def _table1(report: _Report, published: Mapping, reproduced, order: list[str], cutoff: int) -> None:
    data = published.get("table1_discriminative_power") or {}
    rows = report.section("Table 1: discriminative power (paper_pairwise, Tukey HSD per pair)")
    notes = report.notes("Table 1")
    setup = (published.get("setup") or {}).get("collections") or {}
    levels = (0.05, 0.01)
    cells: dict[str, list[int]] = {}
    for metric, by_alpha in data.items():
        measure = measure_from_label(metric, cutoff)
        for alpha, by_collection in by_alpha.items():
            key = "" if _is_baseline(measure) else alpha_key(alpha)
            for collection in order:
                if collection not in by_collection:
                    continue
                frames = _frames(reproduced, collection)
                frame = None if frames is None else frames.get("discriminative_power")
                for level, pub in zip(levels, by_collection[collection]):
                    name = f"{metric} [{_level_label(level)}]"
                    if frames is None:
                        rows.append(["Table 1", name, alpha, collection, str(pub), "not run", "", ""])
                        continue
                    if frame is None:
                        rows.append(["Table 1", name, alpha, collection, str(pub), "not computed", "", ""])
                        continue
                    sel = _select(_with_keys(frame), measure, key)
                    sel = sel[(sel["method"] == "paper_pairwise") & np.isclose(sel["level"].astype(float), level)]
                    if sel.empty:
                        rows.append(["Table 1", name, alpha, collection, str(pub), "not computed", "", ""])
                        continue
                    value = int(_single(sel, "significant_pairs", f"{collection} {measure} {key} {level}"))
                    total = _single(sel, "total_pairs", collection) if "total_pairs" in sel.columns else pd.NA
                    method = f"paper_pairwise, level {level:g}"
                    if not _is_missing(total):
                        method += f", {int(total)} pairs"
                    rows.append(["Table 1", name, alpha, collection, str(pub), str(value),
                                 _diff_int(value, pub), method])
                    cells.setdefault(collection, []).append(value - int(pub))
    for collection in order:
        if collection in cells:
            diffs = cells[collection]
            notes.append(WHY["table1_cells"].format(collection=collection, equal=sum(d == 0 for d in diffs),
                                                    cells=len(diffs), low=_diff_int(min(diffs), 0), high=_diff_int(max(diffs), 0)))
    for collection in order:
        frames = _frames(reproduced, collection)
        frame = None if frames is None else frames.get("discriminative_power")
        if frame is None or "total_pairs" not in frame.columns:
            continue
        paper = (setup.get(collection) or {}).get("total_pairs")
        here = sorted({int(t) for t in frame["total_pairs"].dropna()})
        if paper is not None and here and here != [int(paper)]:
            notes.append(WHY["table1_pairs"].format(collection=collection, here="/".join(map(str, here)), paper=paper))
    if cells:
        notes.append(WHY["table1_method"])
    for collection in order:
        frames = _frames(reproduced, collection)
        frame = None if frames is None else frames.get("discriminative_power")
        if frame is None:
            continue
        frame = _with_keys(frame)
        methods = [m for m in ("paper_pairwise", "tukey_hsd", "randomised_tukey_hsd") if (frame["method"] == m).any()]
        if len(methods) < 2:
            continue
        for family in ("P", "AP"):
            base, rare = f"{family}@{cutoff}", f"{family}_rareness@{cutoff}"
            alphas = sorted({k for k in frame.loc[frame["measure"] == rare, "_alpha_key"] if alpha_number(k)},
                            key=_alpha_sort)
            if not alphas:
                continue
            top = alphas[-1]
            gains = []
            for method in methods:
                def count(measure: str, key: str) -> object:
                    sel = _select(frame, measure, key)
                    sel = sel[(sel["method"] == method) & np.isclose(sel["level"].astype(float), 0.05)]
                    return _single(sel, "significant_pairs", f"{collection} {measure} {method}")
                a, b = count(rare, top), count(base, "")
                if _is_missing(a) or _is_missing(b):
                    continue
                label = method
                if method == "randomised_tukey_hsd" and "permutations" in frame.columns:
                    perms = frame.loc[frame["method"] == method, "permutations"].dropna()
                    if len(perms):
                        label += f" ({int(perms.max())} permutations)"
                gains.append(f"{int(a) - int(b):+d} pairs by {label}")
            if gains:
                notes.append(WHY["table1_gain"].format(collection=collection, metric=measure_label(rare),
                                                       alpha=alpha_display(top), baseline=measure_label(base),
                                                       level="95%", gains="; ".join(gains)))
    if data:
        notes.append(WHY["table1_quirk"])


def _table2(report: _Report, published: Mapping, reproduced, order: list[str], cutoff: int,
            mode: str = "absolute", fuzziness: float = 0.05) -> None:
    data = published.get("table2_stability") or {}
    rows = report.section(f"Table 2: stability ({mode} fuzziness {fuzziness:g})")
    notes = report.notes("Table 2")
    setup = (published.get("setup") or {}).get("collections") or {}
    ran = set()
    for metric, by_alpha in data.items():
        measure = measure_from_label(metric, cutoff)
        for alpha, by_collection in by_alpha.items():
            key = "" if _is_baseline(measure) else alpha_key(alpha)
            for collection in order:
                if collection not in by_collection:
                    continue
                pub = float(by_collection[collection])
                frames = _frames(reproduced, collection)
                frame = None if frames is None else frames.get("stability")
                base = ["Table 2", metric, alpha, collection, _fmt(pub, 3)]
                if frames is None:
                    rows.append(base + ["not run", "", ""])
                    continue
                sel = None if frame is None else _select(_with_keys(frame), measure, key)
                if sel is not None:
                    sel = sel[(sel["fuzziness_mode"].astype(str) == mode)
                              & np.isclose(sel["fuzziness"].astype(float), fuzziness)]
                if sel is None or sel.empty:
                    rows.append(base + ["not computed", "", ""])
                    continue
                value = float(_single(sel, "stability", f"{collection} {measure} {key}"))
                method = f"{mode} fuzziness {fuzziness:g}"
                for column, name in (("topics_per_trial", "T"), ("trials", "trials"), ("seed", "seed")):
                    if column in sel.columns:
                        method += f", {name} {_single(sel, column, collection)}"
                rows.append(base + [_fmt(value, 4), _diff_float(value, pub, 4), method])
                ran.add(collection)
    for collection in order:
        if collection not in ran:
            continue
        frame = _with_keys(_frames(reproduced, collection)["stability"])
        sel = frame[(frame["fuzziness_mode"].astype(str) == mode) & np.isclose(frame["fuzziness"].astype(float), fuzziness)]
        n_topics = (setup.get(collection) or {}).get("n_topics")
        paper_topics = round(n_topics / 2) if n_topics else "?"

        def values(column: str) -> str:
            return "/".join(str(v) for v in sorted(sel[column].dropna().unique())) if column in sel.columns else "?"

        notes.append(WHY["table2_trials"].format(collection=collection, trials=values("trials"),
                                                 topics=values("topics_per_trial"), seed=values("seed"),
                                                 paper_trials=PAPER_TRIALS, paper_topics=paper_topics))
        gains = []
        for family in ("P", "AP"):
            base_m, rare = f"{family}@{cutoff}", f"{family}_rareness@{cutoff}"
            for measure, m in ((rare, mode), (rare, "relative" if mode == "absolute" else "absolute"),
                               (f"{family}_rareness_norm@{cutoff}", mode)):
                def stab(meas: str, key: str) -> object:
                    s = _select(frame, meas, key)
                    s = s[(s["fuzziness_mode"].astype(str) == m) & np.isclose(s["fuzziness"].astype(float), fuzziness)]
                    return _single(s, "stability", f"{collection} {meas}")
                a, b = stab(measure, "1"), stab(base_m, "")
                if _is_missing(a) or _is_missing(b):
                    continue
                gains.append(f"{measure_label(measure)} (alpha = 1.0) minus {measure_label(base_m)} = "
                             f"{float(a) - float(b):+.3f} with {m} fuzziness {fuzziness:g}")
        if gains:
            notes.append(WHY["table2_scale"].format(collection=collection, gains="; ".join(gains)))


def _table3(report: _Report, published: Mapping, reproduced, cutoff: int) -> None:
    data = published.get("table3_system_subsampling") or {}
    collection = data.get("collection", TABLE3_COLLECTION)
    rows = report.section(f"Table 3: number of systems ({collection}, rarity from the N sampled runs)")
    notes = report.notes("Table 3")
    sizes = [int(n) for n in data.get("n_systems") or []]
    frames = _frames(reproduced, collection)
    frame = None if frames is None else frames.get("system_subsampling")
    ses, within, beyond = [], [], []
    for metric, values in data.items():
        if metric in ("n_systems", "collection"):
            continue
        measure = measure_from_label(metric, cutoff)
        for n, pub in zip(sizes, values):
            base = ["Table 3", f"{metric}, N={n}", "1.0", collection, _fmt(pub, 3)]
            if frames is None:
                rows.append(base + ["not run", "", ""])
                continue
            sel = None if frame is None else _select(_with_keys(frame), measure, "1")
            sel = None if sel is None else sel[sel["n_systems"].astype(int) == n]
            if sel is None or sel.empty:
                rows.append(base + ["not computed", "", ""])
                continue
            value = float(_single(sel, "mean_tau", f"{collection} {measure} N={n}"))
            trials = int(_single(sel, "trials", collection)) if "trials" in sel.columns else None
            undefined = int(_single(sel, "undefined_trials", collection)) if "undefined_trials" in sel.columns else 0
            method = "mean Kendall tau-b over trials"
            if trials is not None:
                method += f", {trials} trials, {undefined} undefined"
            if "sd_tau" in sel.columns:
                sd = float(_single(sel, "sd_tau", collection))
                method += f", sd {sd:.4f}"
                if trials is not None and trials - undefined > 0:
                    se = sd / math.sqrt(trials - undefined)
                    ses.append(f"{metric} N={n}: {se:.4f}")
                    (within if abs(value - pub) <= 2 * se else beyond).append(f"{metric} N={n}")
            rows.append(base + [_fmt(value, 4), _diff_float(value, pub, 4), method])
    if frame is not None:
        trials = "/".join(str(int(t)) for t in sorted(frame["trials"].dropna().unique())) if "trials" in frame.columns else "?"
        undefined = "none"
        if "undefined_trials" in frame.columns:
            bad = frame[frame["undefined_trials"].fillna(0).astype(int) > 0]
            undefined = _join(f"{measure_label(m)} N={int(n)}: {int(u)}"
                              for m, n, u in zip(bad["measure"], bad["n_systems"], bad["undefined_trials"]))
        notes.append(WHY["table3_trials"].format(collection=collection, trials=trials, paper_trials=PAPER_TRIALS,
                                                 undefined=undefined))
        if ses:
            notes.append(WHY["table3_se"].format(collection=collection, ses="; ".join(ses),
                                                 within=_join(within), beyond=_join(beyond)))


def _table4(report: _Report, published: Mapping, reproduced, depth: int) -> None:
    key = next((k for k in published if re.fullmatch(r"table4_topic\d+_rarity", str(k))), None)
    if key is None:
        return
    topic = re.search(r"\d+", key[len("table4_"):]).group(0)
    data = published[key] or {}
    collection = TABLE4_COLLECTION
    rows = report.section(f"Table 4: rarity R(d) of relevant documents, {collection} topic {topic}")
    notes = report.notes("Table 4")
    frames = _frames(reproduced, collection)
    listing = None if frames is None else frames.get("rarity")
    found, other = [], {}
    for docid, pub in data.items():
        base = ["Table 4", f"R({docid})", "", collection, _fmt(pub, 2)]
        if frames is None:
            rows.append(base + ["not run", "", ""])
            continue
        if listing is None:
            rows.append(base + ["not computed", "", ""])
            continue
        doc = listing[(listing["qid"].astype(str) == topic) & (listing["docid"].astype(str) == str(docid))]
        sel = doc[doc["depth"].astype(int) == depth]
        if sel.empty:
            what = "not in the rarity listing" if doc.empty else f"not counted at depth {depth}"
            rows.append(base + [what, "", ""])
            continue
        value = float(_single(sel, "rarity", docid))
        method = f"R(d) = 1 - S_d/S, S_d counted at depth {depth}"
        if "n_retrieving" in sel.columns:
            method += f" (S_d = {int(_single(sel, 'n_retrieving', docid))})"
        rows.append(base + [_fmt(value, 3), _diff_float(value, pub, 3), method])
        found.append((str(docid), value, float(pub)))
        for d, r in zip(doc["depth"].astype(int), doc["rarity"].astype(float)):
            if d != depth:
                other.setdefault(d, []).append(r)
    if found:
        equal = sum(round(v, 2) == p for _, v, p in found)
        for d in sorted(other):
            if len(other[d]) == len(found):
                notes.append(WHY["table4_depth"].format(depth=depth, equal=equal, count=len(found), other=d,
                                                        values=", ".join(f"{v:.3f}" for v in other[d])))
        if not other:
            notes.append(WHY["table4_depth"].split(" Counted")[0].format(depth=depth, equal=equal, count=len(found)))
        for docid, value, pub in found:
            if round(value, 2) != pub:
                notes.append(WHY["table4_round"].format(docid=docid, value=f"{value:.4f}",
                                                        rounded=f"{round(value, 2):.2f}", published=f"{pub:.2f}"))


def _first_rank(rows: pd.DataFrame) -> tuple[int | None, float, int]:
    """Smallest D with rank 1, else (None, best rank, D of the best rank)."""
    rows = rows.sort_values("n_relevant")
    first = rows[rows["rank"].astype(float) == 1.0]
    if not first.empty:
        return int(first["n_relevant"].iloc[0]), 1.0, int(first["n_relevant"].iloc[0])
    best = rows.loc[rows["rank"].astype(float).idxmin()] if len(rows) else None
    if best is None:
        return None, float("nan"), 0
    return None, float(best["rank"]), int(best["n_relevant"])


def _figure1(report: _Report, published: Mapping, reproduced, order: list[str], topic: str) -> None:
    data = published.get("figure1_s_rare_docs_to_rank_first") or {}
    collection = FIGURE1_COLLECTION
    rows = report.section(f"Figure 1: relevant documents S_rare needs to rank first ({collection} topic {topic})")
    notes = report.notes("Figure 1")
    metric = "P@100_rareness: smallest D with S_rare ranked 1"

    def variants(frame: pd.DataFrame) -> list[tuple[str | None, pd.DataFrame]]:
        if "rare_systems" not in frame.columns:
            return [(None, frame)]
        names = sorted(frame["rare_systems"].dropna().astype(str).unique(), key=lambda v: (v != "protocol", v))
        return [(v, frame[frame["rare_systems"].astype(str) == v]) for v in names]

    def reproduce(frame: pd.DataFrame, alpha: float) -> tuple[str, int | None]:
        sel = frame[(frame["system"] == "S_rare") & np.isclose(frame["alpha"].astype(float), alpha)]
        if sel.empty:
            return "not computed", None
        d, best, at = _first_rank(sel)
        if d is not None:
            return str(d), d
        return f"not reached for D <= {int(sel['n_relevant'].max())} (best rank {best:g} at D = {at})", None

    frames = _frames(reproduced, collection)
    synthetic = None if frames is None else frames.get("synthetic_rare_common")
    has_topic = synthetic is not None and (synthetic["topic"].astype(str) == str(topic)).any()
    seen_variants = False
    for key, pub in data.items():
        alpha = float(str(key).split("_", 1)[1]) if "_" in str(key) else float(key)
        base = ["Figure 1", metric, alpha_display(alpha), collection, str(pub)]
        if frames is None:
            rows.append(base + [f"not reproduced: {collection} runs not available", "", ""])
            continue
        if not has_topic:
            rows.append(base + [f"not reproduced: topic {topic} not in the synthetic table", "", ""])
            continue
        frame = synthetic[synthetic["topic"].astype(str) == str(topic)]
        for variant, part in variants(frame):
            seen_variants |= variant is not None
            text, d = reproduce(part, alpha)
            method = "rank among the real runs, ties averaged"
            if variant is not None:
                method += f"; rare_systems = {variant}"
            rows.append(base + [text, "" if d is None else _diff_int(d, int(pub)), method])
    if frames is None:
        notes.append(WHY["figure1_missing"].format(collection=collection))
    # The experiment on another collection's topic, for reference (no published counterpart).
    for other in sorted(reproduced, key=lambda c: (order.index(c) if c in order else len(order), c)):
        if other == collection:
            continue
        frame = (_frames(reproduced, other) or {}).get("synthetic_rare_common")
        if frame is None:
            continue
        for t in sorted(frame["topic"].astype(str).unique()):
            part_t = frame[frame["topic"].astype(str) == t]
            summary = []
            for variant, part in variants(part_t):
                seen_variants |= variant is not None
                for alpha in sorted(part["alpha"].astype(float).unique(), reverse=True):
                    text, _ = reproduce(part, alpha)
                    method = "rank among the real runs, ties averaged"
                    if variant is not None:
                        method += f"; rare_systems = {variant}"
                    rows.append(["Figure 1 (other topic)", metric, alpha_display(alpha), f"{other} topic {t}",
                                 "n/a", text, "", method])
                    summary.append(f"alpha {alpha_display(alpha)}{'' if variant is None else f' ({variant})'}: {text}")
            notes.append(WHY["figure1_other"].format(collection=other, topic=t, summary="; ".join(summary)))
    if seen_variants:
        notes.append(WHY["figure1_variants"])


def _taus(frame: pd.DataFrame, measure: str) -> list[tuple[float, float]]:
    """(alpha, tau) of a measure at its numeric alphas, ascending."""
    frame = _with_keys(frame)
    sel = frame[frame["measure"] == measure]
    out = [(alpha_number(k), float(t)) for k, t in zip(sel["_alpha_key"], sel["tau"]) if alpha_number(k) is not None]
    return sorted(out)


def _kendall(frames: Mapping[str, pd.DataFrame] | None) -> pd.DataFrame | None:
    if frames is None or "kendall_tau" not in frames:
        return None
    frame = frames["kendall_tau"]
    if "averaging" in frame.columns:
        values = sorted(frame["averaging"].dropna().astype(str).unique())
        if values:
            pick = "all_topics" if "all_topics" in values else values[0]
            frame = frame[frame["averaging"].astype(str) == pick]
    return frame


def _figure2(report: _Report, published: Mapping, reproduced, order: list[str], cutoff: int) -> None:
    facts = published.get("figure2_facts") or []
    rows = report.section("Figure 2: Kendall tau between each rareness measure and its baseline")
    notes = report.notes("Figure 2")
    setup = (published.get("setup") or {}).get("collections") or {}
    pairs = [(f"P_rareness@{cutoff}", f"P@{cutoff}"), (f"AP_rareness@{cutoff}", f"AP@{cutoff}")]
    tables = {c: _kendall(_frames(reproduced, c)) for c in order}
    averaging = set()
    for collection in order:
        frame = tables[collection]
        for measure, base in pairs:
            name = f"tau({measure_label(measure)}, {measure_label(base)})"
            if _frames(reproduced, collection) is None:
                rows.append(["Figure 2", name, "0 to 1", collection, "figure only", "not run", "", ""])
                continue
            taus = [] if frame is None else _taus(frame, measure)
            if not taus:
                rows.append(["Figure 2", name, "0 to 1", collection, "figure only", "not computed", "", ""])
                continue
            method = "Kendall tau-b of the runs' mean scores"
            if "averaging" in frame.columns:
                avg = "/".join(sorted(frame["averaging"].dropna().astype(str).unique()))
                averaging.add(avg)
                method += f", averaging {avg}"
            if "n_runs" in frame.columns:
                method += f", {int(frame['n_runs'].max())} runs"
            rows.append(["Figure 2", name, " / ".join(f"{a:g}" for a, _ in taus), collection, "figure only",
                         " / ".join(f"{t:.4f}" for _, t in taus), "", method])
    for fact in facts:
        rows.append(["Figure 2 (fact)", str(fact), "", _fact_collections(fact, order), "stated",
                     _check_fact(str(fact), tables, order, cutoff), "", ""])
    if averaging:
        notes.append(WHY["figure2_method"].format(averaging="/".join(sorted(averaging))))
    for collection in order:
        frame = tables[collection]
        paper = (setup.get(collection) or {}).get("n_runs")
        if frame is not None and "n_runs" in frame.columns and paper is not None:
            notes.append(WHY["figure2_runs"].format(collection=collection, here=int(frame["n_runs"].max()), paper=paper))


def _fact_collections(fact: str, order: list[str]) -> str:
    named = [c for c in order if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", fact)]
    return ", ".join(named) if named else "all"


def _check_fact(fact: str, tables: Mapping[str, pd.DataFrame | None], order: list[str], cutoff: int) -> str:
    """Evaluate the published Figure 2 facts that can be checked mechanically."""
    def measure_of(text: str) -> str | None:
        m = re.search(r"vs\s+(\S+?):", text)
        if not m:
            return None
        try:
            return measure_from_label(m.group(1), cutoff)
        except ValueError:
            return None

    named = [c for c in order if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", fact)]
    less = re.search(r"tau\s*<\s*([0-9.]+)\s+for every alpha\s*>\s*0", fact)
    stays = re.search(r"tau stays\s*>=\s*([0-9.]+)", fact)
    spans = re.search(r"spans\s+([0-9.]+)\s+to\s+([0-9.]+)", fact)
    if (less or stays) and len(named) == 1:
        collection, measure = named[0], measure_of(fact)
        frame = tables.get(collection)
        if frame is None:
            return "not run"
        taus = _taus(frame, measure) if measure else []
        if not taus:
            return "not computed"
        shown = ", ".join(f"{t:.4f} at {a:g}" for a, t in taus)
        if less:
            bound = float(less.group(1))
            positive = [t for a, t in taus if a > 0]
            verdict = "holds" if positive and max(positive) < bound else "does not hold"
            return f"{verdict}: tau = {shown}"
        bound = float(stays.group(1))
        verdict = "holds" if min(t for _, t in taus) >= bound else "does not hold"
        return f"{verdict}: tau = {shown}"
    if spans:
        low = float(spans.group(1))
        lows = []
        for collection in order:
            frame = tables.get(collection)
            if frame is None:
                continue
            for measure in (f"P_rareness@{cutoff}", f"AP_rareness@{cutoff}"):
                taus = _taus(frame, measure)
                if taus:
                    lows.append((min(t for _, t in taus), collection, measure))
        if not lows:
            return "not run"
        value, collection, measure = min(lows)
        verdict = "within" if value >= low else "below"
        return f"lowest tau {value:.4f} ({collection}, {measure_label(measure)}): {verdict} the published range"
    if re.search(r"similar|diverge", fact):
        parts = []
        for collection in named or order:
            frame = tables.get(collection)
            if frame is None:
                parts.append(f"{collection}: not run")
                continue
            p = dict(_taus(frame, f"P_rareness@{cutoff}"))
            a = dict(_taus(frame, f"AP_rareness@{cutoff}"))
            common = sorted(set(p) & set(a))
            if not common:
                parts.append(f"{collection}: not computed")
                continue
            gap = max(abs(p[x] - a[x]) for x in common)
            parts.append(f"{collection}: max |tau_P - tau_AP| = {gap:.4f}")
        return "; ".join(parts)
    return "not checked automatically"


def _settings_lines(settings: Mapping[str, Mapping[str, Any]], order: list[str]) -> list[str]:
    lines = []
    for collection in sorted(settings, key=lambda c: (order.index(c) if c in order else len(order), str(c))):
        values = settings[collection] or {}
        text = "; ".join(f"{k} = {json.dumps(values[k], sort_keys=True, default=str)}" for k in sorted(values, key=str))
        lines.append(f"- {collection}: {text if text else '(none given)'}")
    return lines


def published_vs_reproduced(
    published: dict,
    reproduced: Mapping[str, Mapping[str, pd.DataFrame]],
    settings: Mapping[str, dict],
    *,
    cutoff: int = 100,
    figure1_topic: str = FIGURE1_TOPIC,
    table4_depth: int = 1000,
) -> str:
    """A Markdown document setting every published figure against the reproduced one.

    ``published``: :func:`load_published`'s dict. ``reproduced``: collection label (the
    paper's: TREC-5, TREC-8, WT14, DLT20; others are listed but have nothing to compare)
    -> {table name -> DataFrame}, only for collections that ran; table names are
    :data:`REPRODUCED_KEYS` (``kendall_tau``, ``discriminative_power``, ``stability``,
    ``system_subsampling``, ``synthetic_rare_common``, ``rarity`` — the rarity listing;
    ``rarity_all`` is accepted too). ``settings``: collection label -> the settings the
    run used, printed as they are.

    Rows (table, metric, alpha, collection, published, reproduced, difference = reproduced
    - published, method and settings) for Table 1 (paper_pairwise, 95% and 99%), Table 2
    (absolute fuzziness 0.05), Table 3 (alpha = 1), Table 4 (R(d) with S_d counted at
    ``table4_depth``), Figure 1 (smallest D at which S_rare ranks first, ``figure1_topic``)
    and Figure 2 (taus, and the published facts checked where they can be). A collection
    missing from ``reproduced`` shows "not run". Then a "Why they differ" section of
    generated notes. The output depends only on the inputs (no dates, sorted keys).
    """
    order = _collections(published)
    report = _Report()
    _table1(report, published, reproduced, order, cutoff)
    _table2(report, published, reproduced, order, cutoff)
    _table3(report, published, reproduced, cutoff)
    _table4(report, published, reproduced, table4_depth)
    _figure1(report, published, reproduced, order, str(figure1_topic))
    _figure2(report, published, reproduced, order, cutoff)

    ran = [c for c in order if c in reproduced]
    missing = [c for c in order if c not in reproduced]
    extra = sorted(c for c in reproduced if c not in order)
    lines = [
        "# Published versus reproduced",
        "",
        "Türkmen, Lease, Kutlu: New Metrics to Encourage Innovation and Diversity in Information "
        "Retrieval Approaches (ECIR 2023). Published figures from config/published.yaml.",
        "",
        f"- Collections run: {_join(ran)}.",
        f"- Not run: {_join(missing)}.",
    ]
    if extra:
        lines.append(f"- Run, with no published figures to compare: {_join(extra)}.")
    lines += [
        "- difference = reproduced - published. Reproduced values are computed, never adjusted "
        "toward the published ones.",
        "",
    ]
    for title, rows in report.sections:
        lines += [f"## {title}", ""]
        if rows:
            lines += _markdown_table(_COLUMNS, rows, [False] * 4 + [True] * 3 + [False])
        else:
            lines.append("No published figures.")
        lines.append("")
    lines += ["## Why they differ", ""]
    any_note = False
    for title, notes in report.why:
        if notes:
            any_note = True
            lines += [f"### {title}", ""] + [f"- {n}" for n in notes] + [""]
    if not any_note:
        lines += ["Nothing was reproduced, so there is nothing to explain.", ""]
    lines += ["## Settings", ""]
    lines += _settings_lines(settings, order) or ["(none given)"]
    return "\n".join(lines).rstrip("\n") + "\n"
