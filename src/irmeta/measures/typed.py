"""Measure names as the user typed them. irmeta's tables and files name a measure by its
canonical name (``AP``, ``P@10``: :func:`~irmeta.measures.names.parse_measure`), so that
they read back whatever the spelling; a report a person reads names it as they typed it
(``map``, ``P_10``), its caption saying which canonical name each stands for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from irmeta.measures.alpha import alpha_label
from irmeta.measures.names import parse_measure


def typed_spellings(typed: Iterable[str]) -> dict[str, str]:
    """Canonical name -> the spelling typed, for each typed name irmeta spells otherwise
    (``["map", "P@10"]`` -> ``{"AP": "map"}``)."""
    spellings: dict[str, str] = {}
    for name in typed:
        canonical = str(parse_measure(name))
        if canonical != name.strip():
            spellings[canonical] = name.strip()
    return spellings


def as_typed(label: str, spellings: Mapping[str, str]) -> str:
    """A measure's canonical label as the user typed it: ``AP`` -> ``map``; a rareness
    label with its alpha (``P_rareness(alpha=0.5)@100``) keeps the alpha beside the typed
    name (``p_rareness@100 (alpha 0.5)``). A label nobody spelled otherwise is kept."""
    if not spellings:
        return label
    m = parse_measure(label)
    typed = spellings.get(str(m.without_alpha()))
    if typed is None:
        return label
    return typed if m.alpha is None else f"{typed} (alpha {alpha_label(m.alpha)})"


def spellings_note(spellings: Mapping[str, str]) -> str:
    """The caption's sentence naming the canonical measure of each typed spelling
    (empty when every measure was typed by its canonical name)."""
    if not spellings:
        return ""
    pairs = ", ".join(f"{typed} is {canonical}" for canonical, typed in spellings.items())
    return f" Measures as typed (irmeta's names: {pairs})."
