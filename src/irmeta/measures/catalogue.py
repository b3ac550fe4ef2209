"""The measures as a reader looks them up: every family with its parameters and defaults,
and the names its peers give it with what differs (issues 42 and 43), written from the
registry (:data:`~irmeta.measures.registry.MEASURES` and ``PEER_NAMES``) alone, so that
``irmeta measures`` and docs/names.md (filled in by docs/hooks/reference.py) say the same.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from irmeta.measures.names import JUDGED_ONLY, parse_measure
from irmeta.measures.registry import MEASURES, PEER_NAMES, MeasureDefinition, PeerName

#: The peers whose names irmeta reads, in the order they are shown.
PEERS = ("trec_eval", "ir_measures", "ranx", "ndeval")
#: Where docs/names.md takes the generated table.
NAMES_TABLE_MARKER = "<!-- peer names: generated from the registry by docs/hooks/reference.py -->"


@dataclass(frozen=True)
class NameRow:
    """One peer name as the table shows it: the peer, the spellings, an example read,
    irmeta's reading and what differs."""

    peer: str
    spellings: tuple[str, ...]
    example: str
    reads: str
    differs: str


def option_default(compute: Callable[..., Any], option: str) -> object:
    """An option's default: the family function's keyword default (as the names read it)."""
    try:
        parameter = inspect.signature(compute).parameters.get(option)
    except (TypeError, ValueError):
        return None
    return None if parameter is None or parameter.default is inspect.Parameter.empty else parameter.default


def parameters(definition: MeasureDefinition) -> list[tuple[str, object]]:
    """(option, default) of every parameter a name of the family takes."""
    shown = [(o, option_default(definition.compute, o)) for o in definition.options]
    if definition.uses_alpha:
        shown.append(("alpha", None))
    return shown + [(JUDGED_ONLY, False)]


def _default_text(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def spellings(entry: PeerName) -> tuple[str, ...]:
    """How the peer's users write the name: a pattern's as declared, a word with or
    without ``@k`` as it takes it."""
    if entry.pattern is not None:
        return tuple(s.strip() for s in entry.name.split(", ")) if entry.symbols[:1] == ("k",) else (entry.name,)
    return {True: (f"{entry.name}@k",), False: (entry.name,), None: (entry.name, f"{entry.name}@k")}[entry.cutoff]


def row(entry: PeerName) -> NameRow:
    """The table's row of ``entry``: its example read as irmeta reads it."""
    if entry.refused:
        return NameRow(entry.peer, spellings(entry), "", "refused", _named(entry, entry.differs))
    typed, request = entry.examples[0]
    own = typed != request and not _spelt_so(entry, typed)
    owner = entry.peer + ("'" if entry.peer.endswith("s") else "'s")
    example = f"`{typed}` gives {owner} `{request}`" if own else f"`{typed}` is `{parse_measure(typed)}`"
    reads = _symbolic(entry)
    return NameRow(entry.peer, spellings(entry), example, reads, _named(entry, entry.differs) or "the same measure")


def _spelt_so(entry: PeerName, typed: str) -> bool:
    if entry.pattern is not None:
        return re.fullmatch(entry.pattern, typed) is not None
    return typed.split("@")[0].lower() == entry.name.lower()


def _named(entry: PeerName, text: str) -> str:
    """A pattern entry's text with its groups named by its symbols (``{0}`` -> ``k``)."""
    return text.format(*entry.symbols) if entry.pattern is not None else text


def _symbolic(entry: PeerName) -> str:
    """irmeta's reading, the pattern's groups named as the spelling names them."""
    reads = str(entry.reads)
    if entry.pattern is None:
        return {True: f"{reads}@k", False: reads, None: f"{reads}, {reads}@k"}[entry.cutoff]
    return _named(entry, reads)


def names_rows(peer: str | None = None) -> list[NameRow]:
    """Every peer name's row (of ``peer`` only, if given), by peer then as declared."""
    entries = [e for e in PEER_NAMES if peer is None or e.peer == peer]
    entries.sort(key=lambda e: (PEERS.index(e.peer) if e.peer in PEERS else len(PEERS), e.family.lower()))
    return [row(e) for e in entries]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def names_table() -> str:
    """docs/names.md's table: peer, the name as typed, irmeta's reading, what differs."""
    lines = ["| peer | you type | irmeta reads | for example | what differs |", "|---|---|---|---|---|"]
    for r in names_rows():
        typed = ", ".join(f"`{s}`" for s in r.spellings)
        reads = r.reads if r.reads == "refused" else f"`{r.reads}`"
        lines.append(f"| {r.peer} | {_cell(typed)} | {_cell(reads)} | {_cell(r.example)} | {_cell(r.differs)} |")
    return "\n".join(lines) + "\n"


def family_matches(family: str, search: str | None, peer: str | None) -> bool:
    """A family is listed when ``search`` (any case) is in its name, its description or
    one of its peers' names, and, with ``peer``, when that peer names it."""
    named = [e for e in PEER_NAMES if e.family == family and (peer is None or e.peer == peer)]
    if peer is not None and not named:
        return False
    if not search:
        return True
    text = " ".join([family, MEASURES[family].description] + [e.name for e in named]).lower()
    return search.lower() in text


def listing(search: str | None = None, peer: str | None = None) -> str:
    """``irmeta measures``: each family, its definition, parameters and defaults, and its
    peers' names (irmeta's reading; what differs)."""
    blocks = []
    for family in sorted(MEASURES, key=str.lower):
        if not family_matches(family, search, peer):
            continue
        d = MEASURES[family]
        params = ", ".join(f"{o}={_default_text(v)}" for o, v in parameters(d))
        lines = [f"{family}: {d.description}; {'higher' if d.higher_is_better else 'lower'} is better",
                 f"  parameters (default): {params}"]
        for e in PEER_NAMES:
            if e.family != family or (peer is not None and e.peer != peer):
                continue
            r = row(e)
            lines.append(f"  {e.peer} {' / '.join(r.spellings)}: "
                         + (f"refused: {r.differs}" if e.refused else f"{r.reads}; {r.differs}"))
        blocks.append("\n".join(lines))
    if not blocks:
        return f"no measure family matches {search!r}" + (f" among {peer}'s names" if peer else "") + "\n"
    return "\n\n".join(blocks) + "\n"
