"""The published-versus-reproduced sections of the paper's Tables 1 to 4."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from irmeta.artefacts.labels import alpha_display, is_baseline, measure_from_paper_label, paper_label
from irmeta.artefacts.paper.report import WHY, Report, diff_float, diff_int, fill, fmt, frames_by_key, join_items
from irmeta.artefacts.paper.tables import (
    PAPER_TRIALS,
    TABLE3_COLLECTION,
    TABLE4_COLLECTION,
    level_label,
    select_rows,
    single_value,
    with_keys,
)
from irmeta.artefacts.tables import is_missing
from irmeta.measures.alpha import alpha_cell, alpha_sort_key, alpha_value


def table1_section(report: Report, published: Mapping, reproduced, order: list[str], cutoff: int) -> None:
    """Table 1's cells (paper_pairwise) next to the published ones, with notes: how many
    cells agree, the number of pairs, and what each method makes of the rareness gain."""
    data = published.get("table1_discriminative_power") or {}
    rows = report.section("Table 1: discriminative power (paper_pairwise, Tukey HSD per pair)")
    notes = report.notes("Table 1")
    cells = _table1_rows(rows, data, reproduced, order, cutoff)
    for collection in order:
        if collection in cells:
            diffs = cells[collection]
            notes.append(fill(WHY["table1_cells"], collection=collection, equal=sum(d == 0 for d in diffs),
                                                    cells=len(diffs), low=diff_int(min(diffs), 0),
                                                    high=diff_int(max(diffs), 0)))
    setup = (published.get("setup") or {}).get("collections") or {}
    for collection in order:
        frame = _discriminative_power(reproduced, collection)
        if frame is None or "total_pairs" not in frame.columns:
            continue
        paper = (setup.get(collection) or {}).get("total_pairs")
        here = sorted({int(t) for t in frame["total_pairs"].dropna()})
        if paper is not None and here and here != [int(paper)]:
            notes.append(fill(WHY["table1_pairs"], collection=collection, here="/".join(map(str, here)), paper=paper))
    if cells:
        notes.append(WHY["table1_method"])
    for collection in order:
        notes += _table1_gain_notes(reproduced, collection, cutoff)
    if data:
        notes.append(WHY["table1_quirk"])


def _at_fuzziness(frame: pd.DataFrame, mode: str, fuzziness: float) -> pd.DataFrame:
    at = (frame["fuzziness_mode"].astype(str) == mode) & np.isclose(frame["fuzziness"].astype(float), fuzziness)
    return frame[at]


def _values(frame: pd.DataFrame, column: str) -> str:
    """A column's distinct values, "/"-joined; "?" when the table has no such column."""
    return "/".join(str(v) for v in sorted(frame[column].dropna().unique())) if column in frame.columns else "?"


def _discriminative_power(reproduced, collection: str) -> pd.DataFrame | None:
    frames = frames_by_key(reproduced, collection)
    return None if frames is None else frames.get("discriminative_power")


def _published_cells(data: Mapping, order: list[str], cutoff: int):
    """Every published cell of a table: (paper label, measure, alpha as published, alpha
    cell, collection, published value), collections in the paper's order."""
    for metric, by_alpha in data.items():
        measure = measure_from_paper_label(metric, cutoff)
        for alpha, by_collection in by_alpha.items():
            key = "" if is_baseline(measure) else alpha_cell(alpha)
            for collection in order:
                if collection in by_collection:
                    yield metric, measure, alpha, key, collection, by_collection[collection]


def _table1_rows(rows: list, data: Mapping, reproduced, order: list[str], cutoff: int) -> dict[str, list[int]]:
    """One row per published cell; returns reproduced - published per collection."""
    cells: dict[str, list[int]] = {}
    for metric, measure, alpha, key, collection, published_cell in _published_cells(data, order, cutoff):
        frames = frames_by_key(reproduced, collection)
        frame = None if frames is None else frames.get("discriminative_power")
        for level, pub in zip((0.05, 0.01), published_cell):
            name = f"{metric} [{level_label(level)}]"
            if frames is None:
                rows.append(["Table 1", name, alpha, collection, str(pub), "not run", "", ""])
                continue
            if frame is None:
                rows.append(["Table 1", name, alpha, collection, str(pub), "not computed", "", ""])
                continue
            sel = select_rows(with_keys(frame), measure, key)
            sel = sel[(sel["method"] == "paper_pairwise") & np.isclose(sel["level"].astype(float), level)]
            if sel.empty:
                rows.append(["Table 1", name, alpha, collection, str(pub), "not computed", "", ""])
                continue
            value = int(single_value(sel, "significant_pairs", f"{collection} {measure} {key} {level}"))
            total = single_value(sel, "total_pairs", collection) if "total_pairs" in sel.columns else pd.NA
            method = f"paper_pairwise, level {level:g}"
            if not is_missing(total):
                method += f", {int(total)} pairs"
            rows.append(["Table 1", name, alpha, collection, str(pub), str(value),
                         diff_int(value, pub), method])
            cells.setdefault(collection, []).append(value - int(pub))
    return cells


def _pairs_at_95(frame: pd.DataFrame, measure: str, key: str, method: str, collection: str) -> object:
    sel = select_rows(frame, measure, key)
    sel = sel[(sel["method"] == method) & np.isclose(sel["level"].astype(float), 0.05)]
    return single_value(sel, "significant_pairs", f"{collection} {measure} {method}")


def _table1_gain_notes(reproduced, collection: str, cutoff: int) -> list[str]:
    """Per family, the rareness measure at the largest alpha against its baseline, in
    significant pairs at 95%, by every method the collection ran (two or more)."""
    frame = _discriminative_power(reproduced, collection)
    if frame is None:
        return []
    frame = with_keys(frame)
    methods = [m for m in ("paper_pairwise", "tukey_hsd", "randomised_tukey_hsd") if (frame["method"] == m).any()]
    if len(methods) < 2:
        return []
    notes = []
    for family in ("P", "AP"):
        base, rare = f"{family}@{cutoff}", f"{family}_rareness@{cutoff}"
        alphas = sorted({k for k in frame.loc[frame["measure"] == rare, "_alpha_key"] if alpha_value(k)},
                        key=alpha_sort_key)
        if not alphas:
            continue
        top = alphas[-1]
        gains = []
        for method in methods:
            a, b = _pairs_at_95(frame, rare, top, method, collection), _pairs_at_95(frame, base, "", method, collection)
            if is_missing(a) or is_missing(b):
                continue
            label = method
            if method == "randomised_tukey_hsd" and "permutations" in frame.columns:
                perms = frame.loc[frame["method"] == method, "permutations"].dropna()
                if len(perms):
                    label += f" ({int(perms.max())} permutations)"
            gains.append(f"{int(a) - int(b):+d} pairs by {label}")
        if gains:
            notes.append(fill(WHY["table1_gain"], collection=collection, metric=paper_label(rare),
                                                   alpha=alpha_display(top), baseline=paper_label(base),
                                                   level="95%", gains="; ".join(gains)))
    return notes


def table2_section(report: Report, published: Mapping, reproduced, order: list[str], cutoff: int,
            mode: str = "absolute", fuzziness: float = 0.05) -> None:
    data = published.get("table2_stability") or {}
    rows = report.section(f"Table 2: stability ({mode} fuzziness {fuzziness:g})")
    notes = report.notes("Table 2")
    setup = (published.get("setup") or {}).get("collections") or {}
    ran = set()
    for metric, measure, alpha, key, collection, published_cell in _published_cells(data, order, cutoff):
        pub = float(published_cell)
        frames = frames_by_key(reproduced, collection)
        frame = None if frames is None else frames.get("stability")
        base = ["Table 2", metric, alpha, collection, fmt(pub, 3)]
        if frames is None:
            rows.append(base + ["not run", "", ""])
            continue
        sel = None if frame is None else _at_fuzziness(select_rows(with_keys(frame), measure, key), mode, fuzziness)
        if sel is None or sel.empty:
            rows.append(base + ["not computed", "", ""])
            continue
        value = float(single_value(sel, "stability", f"{collection} {measure} {key}"))
        method = f"{mode} fuzziness {fuzziness:g}"
        for column, name in (("topics_per_trial", "T"), ("trials", "trials"), ("seed", "seed")):
            if column in sel.columns:
                method += f", {name} {single_value(sel, column, collection)}"
        rows.append(base + [fmt(value, 4), diff_float(value, pub, 4), method])
        ran.add(collection)
    for collection in order:
        if collection not in ran:
            continue
        frame = with_keys(frames_by_key(reproduced, collection)["stability"])
        sel = _at_fuzziness(frame, mode, fuzziness)
        n_topics = (setup.get(collection) or {}).get("n_topics")
        paper_topics = round(n_topics / 2) if n_topics else "?"
        notes.append(fill(WHY["table2_trials"], collection=collection, trials=_values(sel, "trials"),
                                                 topics=_values(sel, "topics_per_trial"), seed=_values(sel, "seed"),
                                                 paper_trials=PAPER_TRIALS, paper_topics=paper_topics))
        gains = []
        for family in ("P", "AP"):
            base_m, rare = f"{family}@{cutoff}", f"{family}_rareness@{cutoff}"
            for measure, m in ((rare, mode), (rare, "relative" if mode == "absolute" else "absolute"),
                               (f"{family}_rareness_norm@{cutoff}", mode)):
                a = single_value(_at_fuzziness(select_rows(frame, measure, "1"), m, fuzziness), "stability",
                                 f"{collection} {measure}")
                b = single_value(_at_fuzziness(select_rows(frame, base_m, ""), m, fuzziness), "stability",
                                 f"{collection} {base_m}")
                if is_missing(a) or is_missing(b):
                    continue
                gains.append(f"{paper_label(measure)} (alpha = 1.0) minus {paper_label(base_m)} = "
                             f"{float(a) - float(b):+.3f} with {m} fuzziness {fuzziness:g}")
        if gains:
            notes.append(fill(WHY["table2_scale"], collection=collection, gains="; ".join(gains)))


def table3_section(report: Report, published: Mapping, reproduced, cutoff: int) -> None:
    data = published.get("table3_system_subsampling") or {}
    collection = data.get("collection", TABLE3_COLLECTION)
    rows = report.section(f"Table 3: number of systems ({collection}, rarity from the N sampled runs)")
    notes = report.notes("Table 3")
    sizes = [int(n) for n in data.get("n_systems") or []]
    frames = frames_by_key(reproduced, collection)
    frame = None if frames is None else frames.get("system_subsampling")
    ses, within, beyond = [], [], []
    for metric, values in data.items():
        if metric in ("n_systems", "collection"):
            continue
        measure = measure_from_paper_label(metric, cutoff)
        for n, pub in zip(sizes, values):
            base = ["Table 3", f"{metric}, N={n}", "1.0", collection, fmt(pub, 3)]
            if frames is None:
                rows.append(base + ["not run", "", ""])
                continue
            sel = None if frame is None else select_rows(with_keys(frame), measure, "1")
            sel = None if sel is None else sel[sel["n_systems"].astype(int) == n]
            if sel is None or sel.empty:
                rows.append(base + ["not computed", "", ""])
                continue
            value = float(single_value(sel, "mean_tau", f"{collection} {measure} N={n}"))
            trials = int(single_value(sel, "trials", collection)) if "trials" in sel.columns else None
            undefined = (int(single_value(sel, "undefined_trials", collection))
                         if "undefined_trials" in sel.columns else 0)
            method = "mean Kendall tau-b over trials"
            if trials is not None:
                method += f", {trials} trials, {undefined} undefined"
            if "sd_tau" in sel.columns:
                sd = float(single_value(sel, "sd_tau", collection))
                method += f", sd {sd:.4f}"
                if trials is not None and trials - undefined > 0:
                    se = sd / math.sqrt(trials - undefined)
                    ses.append(f"{metric} N={n}: {se:.4f}")
                    (within if abs(value - pub) <= 2 * se else beyond).append(f"{metric} N={n}")
            rows.append(base + [fmt(value, 4), diff_float(value, pub, 4), method])
    if frame is not None:
        trials = ("/".join(str(int(t)) for t in sorted(frame["trials"].dropna().unique()))
                  if "trials" in frame.columns else "?")
        undefined = "none"
        if "undefined_trials" in frame.columns:
            bad = frame[frame["undefined_trials"].fillna(0).astype(int) > 0]
            undefined = join_items(f"{paper_label(m)} N={int(n)}: {int(u)}"
                              for m, n, u in zip(bad["measure"], bad["n_systems"], bad["undefined_trials"]))
        notes.append(fill(WHY["table3_trials"], collection=collection, trials=trials, paper_trials=PAPER_TRIALS,
                                                 undefined=undefined))
        if ses:
            notes.append(fill(WHY["table3_se"], collection=collection, ses="; ".join(ses),
                                                 within=join_items(within), beyond=join_items(beyond)))


def table4_section(report: Report, published: Mapping, reproduced, depth: int) -> None:
    key = next((k for k in published if re.fullmatch(r"table4_topic\d+_rarity", str(k))), None)
    if key is None:
        return
    topic = re.search(r"\d+", key[len("table4_"):]).group(0)
    data = published[key] or {}
    collection = TABLE4_COLLECTION
    rows = report.section(f"Table 4: rarity R(d) of relevant documents, {collection} topic {topic}")
    notes = report.notes("Table 4")
    frames = frames_by_key(reproduced, collection)
    listing = None if frames is None else frames.get("rarity")
    found, other = [], {}
    for docid, pub in data.items():
        base = ["Table 4", f"R({docid})", "", collection, fmt(pub, 2)]
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
        value = float(single_value(sel, "rarity", docid))
        method = f"R(d) = 1 - S_d/S, S_d counted at depth {depth}"
        if "n_retrieving" in sel.columns:
            method += f" (S_d = {int(single_value(sel, 'n_retrieving', docid))})"
        rows.append(base + [fmt(value, 3), diff_float(value, pub, 3), method])
        found.append((str(docid), value, float(pub)))
        for d, r in zip(doc["depth"].astype(int), doc["rarity"].astype(float)):
            if d != depth:
                other.setdefault(d, []).append(r)
    if found:
        equal = sum(round(v, 2) == p for _, v, p in found)
        for d in sorted(other):
            if len(other[d]) == len(found):
                notes.append(fill(WHY["table4_depth"], depth=depth, equal=equal, count=len(found), other=d,
                                                        values=", ".join(f"{v:.3f}" for v in other[d])))
        if not other:
            notes.append(fill(WHY["table4_depth"].split(" Counted")[0], depth=depth, equal=equal, count=len(found)))
        for docid, value, pub in found:
            if round(value, 2) != pub:
                notes.append(fill(WHY["table4_round"], docid=docid, value=f"{value:.4f}",
                                                        rounded=f"{round(value, 2):.2f}", published=f"{pub:.2f}"))


def first_rank(rows: pd.DataFrame) -> tuple[int | None, float, int]:
    """Smallest D with rank 1, else (None, best rank, D of the best rank)."""
    rows = rows.sort_values("n_relevant")
    first = rows[rows["rank"].astype(float) == 1.0]
    if not first.empty:
        return int(first["n_relevant"].iloc[0]), 1.0, int(first["n_relevant"].iloc[0])
    best = rows.loc[rows["rank"].astype(float).idxmin()] if len(rows) else None
    if best is None:
        return None, float("nan"), 0
    return None, float(best["rank"]), int(best["n_relevant"])
