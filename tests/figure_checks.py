"""A figure a test built, opened: a PNG that decodes, of a plausible size, not blank; and
fit for a paper (its facts, irmeta.artefacts.figures.style.figure_facts): the size of a
page, fonts a reader can read, series told apart, panels titled, no internal id."""

from __future__ import annotations

import json
import re
from pathlib import Path


def assert_drawn(png: str | Path, *, min_size: tuple[int, int] = (300, 200)) -> None:
    """``png`` decodes as an image at least ``min_size`` (width, height) pixels and is not
    blank: more than one colour, and more than 2% of its pixels differ from the most
    common one (the background)."""
    import numpy as np
    from matplotlib.image import imread

    pixels = imread(str(png))
    height, width = pixels.shape[:2]
    assert width >= min_size[0] and height >= min_size[1], f"{png}: {width}x{height} pixels"
    flat = pixels.reshape(height * width, -1)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    assert len(colours) > 1, f"{png}: one colour"
    drawn = 1 - counts.max() / counts.sum()
    assert drawn > 0.02, f"{png}: only {drawn:.1%} of the pixels differ from the background"


# ------------------------------------------------------------ fit for a paper


#: A figure fits a page: at most this wide and high (inches), its text at least MIN_FONT
#: points once printed at a page's width (PAGE_WIDTH) or less.
MAX_SIZE = (7.5, 10.0)
PAGE_WIDTH = 7.0
MIN_FONT = 7.0

#: Generated judgment sets' names and the claims' means of their trials (irmeta.metaeval.generated_set_names).
_GENERATED_NAME = re.compile(r"\b(pool_depth_\d+|fraction_[0-9.]+(_trial_\d+)?|error_[0-9.]+(_trial_\d+)?)\b")
_TOKEN = re.compile(r"[A-Za-z0-9_+.@']+")


def internal_ids() -> set[str]:
    """What the code names things by and a reader never meets in a figure: the test
    registry's names (``paired_t``, ``paired_t+holm``...), the manifest's experiments,
    sections, outputs, captions and plot functions, the claims and their protocols'
    names (``leave_one_out+frozen``, ``tau_ap``), the tables' columns, the averaging and
    the synthetic systems' variants (``protocol``, ``paper_script``). Only the names that
    are no plain word (an underscore or a plus in them), and ``protocol``."""
    from irmeta.artefacts import claims
    from irmeta.measures.averaging import AVERAGING_NAMES
    from irmeta.metaeval.stats.registry import CORRECTIONS, TESTS
    from irmeta.pipeline.manifest import EXPERIMENTS

    ids = set(TESTS) | set(CORRECTIONS) | {f"{t}+{c}" for t in TESTS for c in CORRECTIONS}
    for entry in EXPERIMENTS:
        ids |= {entry.name, entry.section or ""}
        for output in (*entry.tables, *entry.figures):
            ids |= {output.name, output.caption or "", output.plot.rpartition(":")[2]}
            if output.columns:
                ids |= set(output.declared_columns().names)
    ids |= set(claims.CLAIMS) | set(claims.TAU_PROTOCOLS.values()) | set(claims.COLUMNS)
    ids |= {"leave_one_out+frozen", "leave_one_out+joined", "paper_script", "same_collection", "other_collection"}
    ids |= set(AVERAGING_NAMES.values())
    return {i for i in ids if "_" in i or "+" in i} | {"protocol"}


def ids_in(text: str, ids: set[str]) -> list[str]:
    """The internal ids ``text`` shows: a whole word among ``ids``, or a generated set's name."""
    found = [token for token in _TOKEN.findall(text) if token.strip(".'") in ids]
    return found + [m.group(0) for m in _GENERATED_NAME.finditer(text)]


def _style(entry: dict) -> tuple:
    return (entry["colour"], entry["marker"], entry["linestyle"])


def _clashes(entries: list[dict]) -> list[str]:
    """Labels of entries that share a colour, marker and line style with another label."""
    seen: dict[tuple, str] = {}
    clashes = []
    for entry in entries:
        key = _style(entry)
        if key in seen and seen[key] != entry["label"]:
            clashes.append(f"{seen[key]!r} and {entry['label']!r} share {key}")
        seen.setdefault(key, entry["label"])
    return clashes


def page_problems(page: dict, ids: set[str]) -> list[str]:
    """Why one page of a figure (irmeta.artefacts.figures.style.figure_facts) would not
    print well: too large, a font under MIN_FONT at its printed size, a text off the
    figure or out of its panel, a panel without a title, two series a reader cannot tell apart, an internal id."""
    problems = []
    width, height = page["width"], page["height"]
    if width > MAX_SIZE[0] + 1e-9 or height > MAX_SIZE[1] + 1e-9:
        problems.append(f"{width:g} x {height:g} in, more than {MAX_SIZE[0]:g} x {MAX_SIZE[1]:g}")
    scale = min(1.0, PAGE_WIDTH / width)  # printed at most a page wide
    small = sorted({(t["size"] * scale, t["text"]) for t in page["texts"] if t["size"] * scale < MIN_FONT - 1e-9})
    if small:
        problems.append(f"{len(small)} text(s) under {MIN_FONT:g} pt printed, e.g. {small[0][1]!r} at "
                        f"{small[0][0]:.2f} pt")
    outside = [t["text"] for t in page["texts"] if t.get("outside")]
    if outside:
        problems.append(f"text off the figure: {outside[:3]}")
    spills = [t["text"] for t in page["texts"] if t.get("spills")]
    if spills:
        problems.append(f"text out of its panel: {spills[:3]}")
    untitled = [i for i, panel in enumerate(page["panels"]) if not panel["title"].strip()]
    if untitled:
        problems.append(f"panel(s) {untitled} without a title")
    for i, panel in enumerate(page["panels"]):
        problems += [f"panel {i}: {c}" for c in _clashes(panel["series"])]
    for legend in page["legends"]:
        problems += [f"legend: {c}" for c in _clashes(legend)]
    texts = [t["text"] for t in page["texts"]] + [page.get("suptitle") or ""]
    shown = sorted({i for text in texts for i in ids_in(text, ids)})
    if shown:
        problems.append(f"internal id(s) in its text: {shown}")
    return problems


def figure_problems(facts: str | Path | dict, ids: set[str] | None = None) -> list[str]:
    """Every page's :func:`page_problems`, of a figure's facts (``<stem>.facts.json``)."""
    if not isinstance(facts, dict):
        facts = json.loads(Path(facts).read_text(encoding="utf-8"))
    ids = internal_ids() if ids is None else ids
    return [f"page {n + 1}: {p}" for n, page in enumerate(facts["pages"]) for p in page_problems(page, ids)]
