"""The HTML report's first page (``workflow/report/workflow.rst``): the collections that
ran, those the config named that did not (and why), the experiments a collection skipped
(and why); then the claims under each claim's first protocol (the paper's) and the
headline figures; the workflow graph comes last, below this text (the page's own style,
in ``workflow.rst``).

Snakemake renders the page with Jinja when it builds the report (``snakemake --report``)
and gives the template only the config, so the workflow puts a :class:`FrontPage` in it
(``config["report_front"]``), which reads the results when the page is rendered, not when
the workflow is parsed: every job parses it, only the report reads the tables.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Figures shown on the first page when the run wrote them, with their captions.
HEADLINE_FIGURES = (("claims.png", "Each claim per collection and protocol (0. Claims)."),
                    ("figures/claims_vs_properties.png",
                     "Each claim against the collection property that best orders it (0. Claims)."),
                    ("paper/figure2.png", "The paper's Figure 2 over the collections with runs (Paper)."))

_RST_SPECIAL = "\\`*_|[]<>:@"  # @: no address is made a mailto link


def rst_text(text: object) -> str:
    """``text`` as literal reStructuredText: every inline markup character escaped."""
    return "".join("\\" + c if c in _RST_SPECIAL else c for c in str(text)).replace("\n", " ")


def skipped_collections(configured: Iterable[str], ran: Iterable[str], warnings: Iterable[str]) -> dict[str, str]:
    """Name -> why, for each configured collection that did not run: the reason of its
    ``skipping collection <name>: <why>`` warning (``available_collections``)."""
    reasons = {}
    for warning in warnings:
        head, _, why = str(warning).partition(": ")
        if head.startswith("skipping collection "):
            reasons[head.removeprefix("skipping collection ")] = why
    done = set(ran)
    return {name: reasons.get(name, "not run") for name in configured if name not in done}


@dataclass(frozen=True)
class FrontPage:
    """What the report's first page says; each method returns reStructuredText."""

    ran: tuple[tuple[str, str], ...]  # (name, label) of each collection that ran
    skipped: tuple[tuple[str, str], ...] = ()  # (name, why) of each configured one that did not
    skipped_experiments: tuple[tuple[str, str, str], ...] = ()  # (collection, experiment, why)
    notes: tuple[str, ...] = ()  # what else the data check said (runs missing from a collection)
    results: str = "results"

    @classmethod
    def of(cls, configured: Sequence[str], ran: Mapping[str, str], warnings: Sequence[str],
           skipped_experiments: Mapping[str, Mapping[str, str]], results: str = "results") -> FrontPage:
        """From the config's collections, the label of each that ran, the data check's
        warnings and each collection's skipped experiments (name -> experiment -> why)."""
        skipped = skipped_collections(configured, ran, warnings)
        notes = tuple(str(w) for w in warnings if not str(w).startswith("skipping collection "))
        return cls(tuple((str(n), str(label)) for n, label in ran.items()), tuple(skipped.items()),
                   tuple((c, e, why) for c, by in skipped_experiments.items() for e, why in by.items()), notes,
                   str(results))

    def collections(self) -> str:
        """Which collections ran, and which the config named that did not, with why."""
        ran = ", ".join(f"{rst_text(label)} (``{name}``)" for name, label in self.ran)
        lines = [f"**Ran on {len(self.ran)} collection{'s' if len(self.ran) != 1 else ''}:** {ran}.", ""]
        if self.skipped:
            lines += ["**Not run** (named in the config):", ""]
            lines += [f"- ``{name}``: {rst_text(why)}" for name, why in self.skipped]
            lines.append("")
        if self.skipped_experiments:
            lines += ["**Experiments skipped:**", ""]
            lines += [f"- ``{c}``, {rst_text(e)}: {rst_text(why)}" for c, e, why in self.skipped_experiments]
            lines.append("")
        lines += [f"- {rst_text(note)}" for note in self.notes]
        return "\n".join(lines).rstrip() + "\n"

    def claims(self) -> str:
        """The claims under each claim's first protocol, one column per collection, as an
        RST list table; a line saying so when the run wrote no claims."""
        path = Path(self.results) / "claims.csv"
        if not path.is_file():
            return "No claims table in this run (``results/claims.csv`` is absent).\n"
        from irmeta.artefacts.claims import claims_wide, filled_claims
        from irmeta.pipeline.stored_scores import read_table

        table = filled_claims(read_table(path, "claims"))
        first: dict[str, str] = {}
        for claim, protocol in zip(table["claim"], table["protocol"]):
            first.setdefault(claim, protocol)
        shown = table[[first[c] == p for c, p in zip(table["claim"], table["protocol"])]]
        labels = [label for _, label in self.ran if label in set(shown["collection"])]
        wide = claims_wide(shown, labels)
        header = ["claim (protocol)", "comparison", *labels]
        rows = [[f"{r['claim']} ({r['protocol']})", r["comparison"], *[r[c] for c in labels]]
                for _, r in wide.iterrows()]
        lines = ["**The paper's claims**, each under its first protocol (the paper's); every protocol, "
                 "the criteria and the collections' properties: ``claims.md`` under *0. Claims*.", "",
                 ".. list-table::", "   :header-rows: 1", ""]
        for row in [header, *rows]:
            lines.append("   * - " + rst_text(row[0]))
            lines += [f"     - {rst_text(cell)}".rstrip() for cell in row[1:]]
        return "\n".join(lines) + "\n"

    def figures(self) -> str:
        """The headline figures this run wrote, embedded (the report is one file)."""
        lines = []
        for relative, caption in HEADLINE_FIGURES:
            path = Path(self.results) / relative
            if path.is_file():
                # the URI over many short lines (docutils joins them, and refuses a line
                # of over 10,000 characters)
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                chunks = [data[i:i + 76] for i in range(0, len(data), 76)]
                lines += [".. figure:: data:image/png;base64,", *[f"   {c}" for c in chunks], "   :width: 100%", "",
                          f"   {rst_text(caption)}", ""]
        return "\n".join(lines)
