"""Measure names as the user typed them. irmeta's tables and files name a measure by its
canonical name (``AP``, ``P@10``: :func:`~irmeta.measures.names.parse_measure`), so that
they read back whatever the spelling; a report a person reads names it as they typed it
(``map``, ``P_10``), its caption saying which canonical name each stands for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from irmeta.measures.alpha import alpha_label
from irmeta.measures.names import Measure, parse_measure


def typed_spellings(typed: Mapping[str, Measure]) -> dict[str, str]:
    """Canonical name -> the spelling typed, for each typed name irmeta spells otherwise
    (``{"map": AP, "P@10": P@10}`` -> ``{"AP": "map"}``; the names as read where they entered)."""
    spellings: dict[str, str] = {}
    for name, measure in typed.items():
        canonical = str(measure)
        if canonical != name.strip():
            spellings[canonical] = name.strip()
    return spellings


def as_typed(m: Measure, spellings: Mapping[str, str]) -> str:
    """A measure (its alpha in its name) as the user typed it: ``AP`` -> ``map``; a rareness
    label with its alpha (``P_rareness(alpha=0.5)@100``) keeps the alpha beside the typed
    name (``p_rareness@100 (alpha 0.5)``). A measure nobody spelled otherwise keeps its name."""
    typed = spellings.get(str(m.without_alpha()))
    if typed is None:
        return str(m)
    return typed if m.alpha is None else f"{typed} (alpha {alpha_label(m.alpha)})"


def typed_labels(labels: Iterable[str], spellings: Mapping[str, str]) -> list[str]:
    """:func:`as_typed` over a table's measure column (the canonical labels irmeta wrote,
    read back here once each)."""
    labels = [str(label) for label in labels]
    if not spellings:
        return labels
    read = {label: parse_measure(label) for label in dict.fromkeys(labels)}
    return [as_typed(read[label], spellings) for label in labels]


def spellings_note(spellings: Mapping[str, str]) -> str:
    """The caption's sentence naming the canonical measure of each typed spelling
    (empty when every measure was typed by its canonical name)."""
    if not spellings:
        return ""
    pairs = ", ".join(f"{typed} is {canonical}" for canonical, typed in spellings.items())
    return f" Measures as typed (irmeta's names: {pairs})."
