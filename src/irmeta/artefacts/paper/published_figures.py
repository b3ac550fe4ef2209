"""The published-versus-reproduced sections of the paper's Figures 1 and 2, and the
checks of its stated facts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from irmeta.artefacts.labels import alpha_display, measure_from_paper_label, paper_label
from irmeta.artefacts.paper.published_tables import first_rank
from irmeta.artefacts.paper.report import WHY, Report, diff_int, fill, frames_by_key
from irmeta.artefacts.paper.tables import FIGURE1_COLLECTION, with_keys
from irmeta.measures.alpha import alpha_value
from irmeta.support.formats import markdown_escape


def figure1_section(report: Report, published: Mapping, reproduced, order: list[str], topic: str,
                    measure: str = "P_rareness@100", cutoff: int = 100) -> None:
    """Figure 1's rows: S_rare ranked by ``measure`` (``experiments.synthetic.measure``)
    against the paper's, which ranked by P_rareness@``cutoff``; another measure's numbers
    are listed without a difference, as they answer another question."""
    data = published.get("figure1_s_rare_docs_to_rank_first") or {}
    collection = FIGURE1_COLLECTION
    rows = report.section(f"Figure 1: relevant documents S_rare needs to rank first "
                          f"({markdown_escape(collection)} topic {markdown_escape(topic)})")
    notes = report.notes("Figure 1")
    metric = figure1_metric(measure)
    paper_measure = f"P_rareness@{cutoff}"
    other_measure = "" if measure == paper_measure else f"; the paper ranked by {paper_label(paper_measure)}"
    frames = frames_by_key(reproduced, collection)
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
        for variant, part in _variants(frame):
            seen_variants |= variant is not None
            text, d = _first_rank_text(part, alpha)
            method = "rank among the real runs, ties averaged"
            if variant is not None:
                method += f"; rare_systems = {variant}"
            comparable = d is not None and not other_measure
            rows.append(base + [text, diff_int(d, int(pub)) if comparable else "", method + other_measure])
    if frames is None:
        notes.append(fill(WHY["figure1_missing"], collection=collection))
    seen_variants |= _figure1_other_topics(rows, notes, reproduced, order, collection, metric)
    if seen_variants:
        notes.append(WHY["figure1_variants"])


def figure1_metric(measure: str) -> str:
    """The metric column of Figure 1's rows: what ranks S_rare, in the paper's spelling."""
    return f"{paper_label(measure)}: smallest D with S_rare ranked 1"


def _variants(frame: pd.DataFrame) -> list[tuple[str | None, pd.DataFrame]]:
    """The synthetic table's rows per ``rare_systems`` variant (protocol first)."""
    if "rare_systems" not in frame.columns:
        return [(None, frame)]
    names = sorted(frame["rare_systems"].dropna().astype(str).unique(), key=lambda v: (v != "protocol", v))
    return [(v, frame[frame["rare_systems"].astype(str) == v]) for v in names]


def _first_rank_text(frame: pd.DataFrame, alpha: float) -> tuple[str, int | None]:
    """The smallest D at which S_rare ranks first, as text, and as a number when reached."""
    sel = frame[(frame["system"] == "S_rare") & np.isclose(frame["alpha"].astype(float), alpha)]
    if sel.empty:
        return "not computed", None
    d, best, at = first_rank(sel)
    if d is not None:
        return str(d), d
    return f"not reached for D <= {int(sel['n_relevant'].max())} (best rank {best:g} at D = {at})", None


def _figure1_other_topics(rows: list, notes: list, reproduced, order: list[str], collection: str,
                          metric: str) -> bool:
    """The experiment on the other collections' topics, for reference (nothing published
    to compare); True when a table had several variants."""
    seen_variants = False
    for other in sorted(reproduced, key=lambda c: (order.index(c) if c in order else len(order), c)):
        if other == collection:
            continue
        frame = (frames_by_key(reproduced, other) or {}).get("synthetic_rare_common")
        if frame is None:
            continue
        for t in sorted(frame["topic"].astype(str).unique()):
            part_t = frame[frame["topic"].astype(str) == t]
            summary = []
            for variant, part in _variants(part_t):
                seen_variants |= variant is not None
                for alpha in sorted(part["alpha"].astype(float).unique(), reverse=True):
                    text, _ = _first_rank_text(part, alpha)
                    method = "rank among the real runs, ties averaged"
                    if variant is not None:
                        method += f"; rare_systems = {variant}"
                    rows.append(["Figure 1 (other topic)", metric, alpha_display(alpha),
                                 f"{other} topic {t}", "n/a", text, "", method])
                    summary.append(f"alpha {alpha_display(alpha)}{'' if variant is None else f' ({variant})'}: {text}")
            notes.append(fill(WHY["figure1_other"], collection=other, topic=t, summary="; ".join(summary)))
    return seen_variants


def taus_of(frame: pd.DataFrame, measure: str) -> list[tuple[float, float]]:
    """(alpha, tau) of a measure at its numeric alphas, ascending."""
    frame = with_keys(frame)
    sel = frame[frame["measure"] == measure]
    out = [(alpha_value(k), float(t)) for k, t in zip(sel["_alpha_key"], sel["tau"]) if alpha_value(k) is not None]
    return sorted(out)


def kendall_rows(frames: Mapping[str, pd.DataFrame] | None) -> pd.DataFrame | None:
    if frames is None or "kendall_tau" not in frames:
        return None
    frame = frames["kendall_tau"]
    if "averaging" in frame.columns:
        values = sorted(frame["averaging"].dropna().astype(str).unique())
        if values:
            pick = "all_topics" if "all_topics" in values else values[0]
            frame = frame[frame["averaging"].astype(str) == pick]
    return frame


def figure2_section(report: Report, published: Mapping, reproduced, order: list[str], cutoff: int) -> None:
    facts = published.get("figure2_facts") or []
    rows = report.section("Figure 2: Kendall tau between each rareness measure and its baseline")
    notes = report.notes("Figure 2")
    setup = (published.get("setup") or {}).get("collections") or {}
    pairs = [(f"P_rareness@{cutoff}", f"P@{cutoff}"), (f"AP_rareness@{cutoff}", f"AP@{cutoff}")]
    tables = {c: kendall_rows(frames_by_key(reproduced, c)) for c in order}
    averaging = set()
    for collection in order:
        frame = tables[collection]
        for measure, base in pairs:
            name = f"tau({paper_label(measure)}, {paper_label(base)})"
            if frames_by_key(reproduced, collection) is None:
                rows.append(["Figure 2", name, "0 to 1", collection, "figure only", "not run", "", ""])
                continue
            taus = [] if frame is None else taus_of(frame, measure)
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
        rows.append(["Figure 2 (fact)", str(fact), "", fact_collections(fact, order), "stated",
                     check_fact(str(fact), tables, order, cutoff), "", ""])
    if averaging:
        notes.append(fill(WHY["figure2_method"], averaging="/".join(sorted(averaging))))
    for collection in order:
        frame = tables[collection]
        paper = (setup.get(collection) or {}).get("n_runs")
        if frame is not None and "n_runs" in frame.columns and paper is not None:
            notes.append(fill(WHY["figure2_runs"], collection=collection, here=int(frame["n_runs"].max()),
                                                    paper=paper))


def fact_collections(fact: str, order: list[str]) -> str:
    named = [c for c in order if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", fact)]
    return ", ".join(named) if named else "all"


def check_fact(fact: str, tables: Mapping[str, pd.DataFrame | None], order: list[str], cutoff: int) -> str:
    """Evaluate the published Figure 2 facts that can be checked mechanically: a bound on
    tau for one collection, the span of the taus, or how close P and AP stay."""
    named = [c for c in order if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", fact)]
    less = re.search(r"tau\s*<\s*([0-9.]+)\s+for every alpha\s*>\s*0", fact)
    stays = re.search(r"tau stays\s*>=\s*([0-9.]+)", fact)
    spans = re.search(r"spans\s+([0-9.]+)\s+to\s+([0-9.]+)", fact)
    if (less or stays) and len(named) == 1:
        return _bound_fact(fact, tables.get(named[0]), less, stays, cutoff)
    if spans:
        return _span_fact(float(spans.group(1)), tables, order, cutoff)
    if re.search(r"similar|diverge", fact):
        return _similar_fact(tables, named or order, cutoff)
    return "not checked automatically"


def _fact_measure(fact: str, cutoff: int) -> str | None:
    """The measure a fact names after "vs" (``... vs P@100_rareness: ...``)."""
    m = re.search(r"vs\s+(\S+?):", fact)
    if not m:
        return None
    try:
        return measure_from_paper_label(m.group(1), cutoff)
    except ValueError:
        return None


def _bound_fact(fact: str, frame: pd.DataFrame | None, less: re.Match | None, stays: re.Match | None,
                cutoff: int) -> str:
    """"tau < x for every alpha > 0" or "tau stays >= x", on one collection's measure."""
    if frame is None:
        return "not run"
    measure = _fact_measure(fact, cutoff)
    taus = taus_of(frame, measure) if measure else []
    if not taus:
        return "not computed"
    shown = ", ".join(f"{t:.4f} at {a:g}" for a, t in taus)
    if less:
        positive = [t for a, t in taus if a > 0]
        verdict = "holds" if positive and max(positive) < float(less.group(1)) else "does not hold"
    else:
        assert stays is not None
        verdict = "holds" if min(t for _, t in taus) >= float(stays.group(1)) else "does not hold"
    return f"{verdict}: tau = {shown}"


def _span_fact(low: float, tables: Mapping[str, pd.DataFrame | None], order: list[str], cutoff: int) -> str:
    """"tau spans low to high": the lowest tau of either rareness measure, anywhere."""
    lows = []
    for collection in order:
        frame = tables.get(collection)
        if frame is None:
            continue
        for measure in (f"P_rareness@{cutoff}", f"AP_rareness@{cutoff}"):
            taus = taus_of(frame, measure)
            if taus:
                lows.append((min(t for _, t in taus), collection, measure))
    if not lows:
        return "not run"
    value, collection, measure = min(lows)
    verdict = "within" if value >= low else "below"
    return f"lowest tau {value:.4f} ({collection}, {paper_label(measure)}): {verdict} the published range"


def _similar_fact(tables: Mapping[str, pd.DataFrame | None], collections: list[str], cutoff: int) -> str:
    """"P and AP behave similarly / diverge": the largest gap between their taus."""
    parts = []
    for collection in collections:
        frame = tables.get(collection)
        if frame is None:
            parts.append(f"{collection}: not run")
            continue
        p = dict(taus_of(frame, f"P_rareness@{cutoff}"))
        a = dict(taus_of(frame, f"AP_rareness@{cutoff}"))
        common = sorted(set(p) & set(a))
        if not common:
            parts.append(f"{collection}: not computed")
            continue
        gap = max(abs(p[x] - a[x]) for x in common)
        parts.append(f"{collection}: max |tau_P - tau_AP| = {gap:.4f}")
    return "; ".join(parts)
