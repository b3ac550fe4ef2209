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
empty/NaN for the baseline measures (P@100, AP@100). :func:`alpha_cell` normalises both.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from irmeta.artefacts.paper.published_figures import figure1_section, figure2_section
from irmeta.artefacts.paper.published_tables import table1_section, table2_section, table3_section, table4_section
from irmeta.artefacts.paper.report import COLUMNS, Report, collections_of, join_items, settings_lines
from irmeta.artefacts.paper.tables import FIGURE1_TOPIC
from irmeta.artefacts.tables import markdown_table
from irmeta.support.formats import markdown_escape


def published_vs_reproduced(
    published: dict,
    reproduced: Mapping[str, Mapping[str, pd.DataFrame]],
    settings: Mapping[str, dict],
    *,
    cutoff: int = 100,
    figure1_topic: str = FIGURE1_TOPIC,
    table4_depth: int = 1000,
    synthetic_measure: str | None = None,
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
    ``synthetic_measure``: what ranked the synthetic systems (``experiments.synthetic.measure``;
    None: the paper's, P_rareness@``cutoff``), as Figure 1's rows name it.
    """
    order = collections_of(published)
    report = Report()
    table1_section(report, published, reproduced, order, cutoff)
    table2_section(report, published, reproduced, order, cutoff)
    table3_section(report, published, reproduced, cutoff)
    table4_section(report, published, reproduced, table4_depth)
    figure1_section(report, published, reproduced, order, str(figure1_topic),
                    synthetic_measure or f"P_rareness@{cutoff}", cutoff)
    figure2_section(report, published, reproduced, order, cutoff)
    return _markdown(report, order, reproduced, settings)


def _markdown(report: Report, order: list[str], reproduced: Mapping, settings: Mapping[str, dict]) -> str:
    """The report as Markdown: what ran, each section's rows, the notes, the settings."""
    ran = [c for c in order if c in reproduced]
    missing = [c for c in order if c not in reproduced]
    extra = sorted(c for c in reproduced if c not in order)
    lines = [
        "# Published versus reproduced",
        "",
        "Türkmen, Lease, Kutlu: New Metrics to Encourage Innovation and Diversity in Information "
        "Retrieval Approaches (ECIR 2023). Published figures from config/published.yaml.",
        "",
        f"- Collections run: {markdown_escape(join_items(ran))}.",
        f"- Not run: {markdown_escape(join_items(missing))}.",
    ]
    if extra:
        lines.append(f"- Run, with no published figures to compare: {markdown_escape(join_items(extra))}.")
    lines += [
        "- difference = reproduced - published. Reproduced values are computed, never adjusted "
        "toward the published ones.",
        "",
    ]
    for title, rows in report.sections:
        lines += [f"## {title}", ""]
        if rows:
            lines += markdown_table(COLUMNS, rows, [False] * 4 + [True] * 3 + [False])
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
    lines += settings_lines(settings, order) or ["(none given)"]
    return "\n".join(lines).rstrip("\n") + "\n"
