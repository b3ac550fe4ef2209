"""What every section of the published-versus-reproduced report shares: the published
figures, the explanations of known differences, the rows and their formatting.

The reproduced numbers are never adjusted toward the published ones: the report only
reads, formats and subtracts; the explanatory sentences are fixed templates.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from irmeta.artefacts.paper.tables import TABLE_ALIASES
from irmeta.support.formats import markdown_escape
from irmeta.support.yaml_files import load_yaml


def load_published(path: str | Path) -> dict:
    """The published figures (``config/published.yaml``) as a dict."""
    data = load_yaml(path)  # a figure named twice is refused, not the last one kept
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
        "(docs/PROTOCOL.md, Numerical care, records such a TREC-8 pair for P@100 at 95%)."
    ),
    "table1_quirk": (
        "The authors' discriminative-power script scores the AP_rareness rows with the P@k_rareness "
        "scores (docs/PROTOCOL.md, Known quirks), so the published AP_rareness rows cannot come from that "
        "script as released; the rows here score AP_rareness."
    ),
    "table1_cells": ("{collection}: {equal} of {cells} cells equal the published count; differences range "
                     "from {low} to {high}."),
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
        "authors read trec_eval's 4-decimal output, which merges or splits near-ties "
        "(docs/PROTOCOL.md, Numerical care)."
    ),
    "figure2_runs": "{collection}: {here} runs here, {paper} in the paper.",
}


COLUMNS = ["table", "metric", "alpha", "collection", "published", "reproduced", "difference", "method and settings"]


def frames_by_key(reproduced: Mapping[str, Mapping[str, pd.DataFrame]],
                  collection: str) -> dict[str, pd.DataFrame] | None:
    if collection not in reproduced:
        return None
    out = {}
    for key, frame in reproduced[collection].items():
        out[TABLE_ALIASES.get(key, key)] = frame
    return out


def fill(template: str, **values: object) -> str:
    """A note: one of :data:`WHY`'s templates (Markdown of irmeta's own) with the values
    from the inputs put in as text (escaped: a name never becomes markup)."""
    return template.format(**{key: markdown_escape(value) for key, value in values.items()})


def diff_int(reproduced: int, published: int) -> str:
    d = int(reproduced) - int(published)
    return "0" if d == 0 else f"{d:+d}"


def diff_float(reproduced: float, published: float, digits: int) -> str:
    """``0`` when equal (up to float noise, 1e-12); a signed difference otherwise,
    unsigned when it rounds to zero at ``digits``."""
    d = float(reproduced) - float(published)
    if math.isclose(float(reproduced), float(published), rel_tol=1e-12, abs_tol=1e-12):
        return "0"
    text = f"{d:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def fmt(value: float, digits: int) -> str:
    return f"{float(value):.{digits}f}"


def join_items(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items) if items else "none"


class Report:
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


def collections_of(published: Mapping) -> list[str]:
    return list((published.get("setup") or {}).get("collections") or {})


def settings_lines(settings: Mapping[str, Mapping[str, Any]], order: list[str]) -> list[str]:
    lines = []
    for collection in sorted(settings, key=lambda c: (order.index(c) if c in order else len(order), str(c))):
        values = settings[collection] or {}
        text = "; ".join(f"{k} = {json.dumps(values[k], sort_keys=True, default=str)}" for k in sorted(values, key=str))
        lines.append(f"- {markdown_escape(collection)}: {markdown_escape(text) if text else '(none given)'}")
    return lines
