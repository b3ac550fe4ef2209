"""Other tools' measure names, read as each tool means them (issues 29 and 42).

The names users of trec_eval, ir_measures, ranx and PyTerrier type are read as the irmeta
measure that computes what that tool computes; every output names irmeta's measure
(``NDCG@10``, ``ndcg_cut.10``, ranx's ``ndcg@10`` are all ``nDCG@10``; ranx's ``rbp.95`` is
``RBP(p=0.95,gain_scale=none)``). The table is the registry's
:data:`~irmeta.measures.registry.PEER_NAMES`: each family declares its peers' names beside
its registration, each with the peer whose meaning it takes, what irmeta reads and what
differs. A name whose peer computes something irmeta cannot is refused with why and what
to write instead, never read as a near neighbour; a spelling two peers read differently is
refused naming the spellings that pick each. docs/names.md and ``irmeta measures`` show
the same table; tests/unit/measures/test_aliases.py checks each name against its peer.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from irmeta.measures.registry import MEASURES, PEER_NAMES, PeerName

#: Parameters a peer spells otherwise, by family: ndeval's and ir_measures' NRBP(beta=...)
#: is NRBP's patience (irmeta's beta is Sakai's, which --beta and measure_options set).
PARAMETER_ALIASES: dict[tuple[str, str], str] = {("NRBP", "beta"): "patience", ("nNRBP", "beta"): "patience"}

# trec_eval's measures that take grade=gain pairs (gain_init.c's setup_gains), as irmeta's
# family with what their name fixes besides: a grade the pairs do not name keeps gain = grade.
TREC_EVAL_GAIN_FAMILIES = {"ndcg": ("nDCG", ""), "dcg": ("DCG", ""), "G": ("G", ""), "ndcg_rel": ("nDCG_rel", ""),
                           "Rndcg": ("Rndcg", ""), "rbp": ("RBP", "gain_scale=topic_max,")}
_GAIN_PAIRS = re.compile(r"(" + "|".join(sorted(TREC_EVAL_GAIN_FAMILIES, key=len, reverse=True))  # ndcg_rel first
                         + r")[._]([^=,]+=[^=,]*(?:,[^=,]+=[^=,]*)*)")


def trec_eval_gain_spelling(text: str) -> str | None:
    """trec_eval's ``ndcg.1=0,2=3`` (as -m takes it; ``ndcg_1=0,2=3`` as it prints it), and
    G's, dcg's, ndcg_rel's, Rndcg's and rbp's (whose ``p=x`` may join them), as irmeta's
    ``nDCG(gains={1:0,2:3},gains_rest=grade)``; None for other text. A pair trec_eval
    would ignore (a name that is no grade), a negative grade (trec_eval gives it to its
    unjudged documents' codes) or a gain that is no whole number (trec_eval orders its
    ideal gains by their difference cast to int, gain_init.c, so gains less than 1 apart
    may be misordered: the ideal list depends on the C library's qsort) is refused."""
    if re.fullmatch(r"rbp_resid[._].*=.*", text):  # its p=x alone is TREC_EVAL_SPELLINGS'
        raise ValueError(f"measure {text!r}: trec_eval's rbp_resid reads p=x alone (it takes no gains): write "
                         f"rbp_resid.p=x")
    match = _GAIN_PAIRS.fullmatch(text)
    if not match:
        return None
    name, pairs = match.groups()
    family, fixed = TREC_EVAL_GAIN_FAMILIES[name]
    gains: dict[int, str] = {}
    p = "0.9" if name == "rbp" else None
    for pair in pairs.split(","):
        key, _, value = pair.partition("=")
        if name == "rbp" and key == "p":
            p = value
            continue
        if not re.fullmatch(r"[+-]?\d+", key):
            raise ValueError(f"measure {text!r}: trec_eval's {name} reads grade=gain pairs"
                             f"{' and p=x' if name == 'rbp' else ''}, and ignores {pair!r}: leave it out")
        grade = int(key)
        if grade < 0:
            raise ValueError(f"measure {text!r}: trec_eval gives the gain of grade {grade} to documents absent from "
                             f"the qrels (-1) or graded below 0 (-2), not to a grade: write {family}(gains={{...}},"
                             f"gains_rest=grade) for irmeta's reading of negative grades")
        if grade in gains:
            raise ValueError(f"measure {text!r}: grade {grade} is given twice")
        try:
            float(value)
        except ValueError:
            raise ValueError(f"measure {text!r}: the gain of grade {grade} is not a number: {value!r}") from None
        if not re.fullmatch(r"[+-]?\d+(\.0*)?", value):
            raise ValueError(f"measure {text!r}: trec_eval orders its gains by their difference cast to an integer "
                             f"(gain_init.c), so with a gain that is not a whole number ({value!r}) its ideal list "
                             f"depends on its C library's sort: write {family}(gains={{...}},gains_rest=grade) for "
                             f"the true ideal")
        gains[grade] = str(int(float(value)))
    written = ",".join(f"{grade}:{gain}" for grade, gain in sorted(gains.items()))
    persistence = "" if p is None else f",p={p}"
    return f"{family}({fixed}gains={{{written}}},gains_rest=grade{persistence})"


_FIRST_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*")
_compiled: tuple[int, list[tuple[PeerName, re.Pattern[str]]]] = (-1, [])


def _patterns() -> list[tuple[PeerName, re.Pattern[str]]]:
    """The pattern entries, compiled once (again when a family declares more): the ones
    in a fixed case first, so an any-case refusal never shadows a peer's exact spelling."""
    global _compiled
    if _compiled[0] != len(PEER_NAMES):
        entries = [e for e in PEER_NAMES if e.pattern is not None]
        entries.sort(key=lambda e: str(e.pattern).startswith("(?i)"))
        _compiled = (len(PEER_NAMES), [(e, re.compile(str(e.pattern))) for e in entries])
    return _compiled[1]


def peer_spelling(text: str) -> str | None:
    """A peer's name matched whole by a pattern entry, as irmeta's name (``rbp.95`` ->
    ``RBP(p=0.95,gain_scale=none)``, ``ndcg_cut.10`` -> ``nDCG@10``); None for any other
    text. A refused one is a one-line ValueError naming what to write."""
    for entry, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match:
            groups = match.groups()
            if entry.reads is None:
                raise ValueError(f"measure {text!r}: {entry.differs.format(*groups)}")
            return entry.reads.format(*groups)
    return None


def _fits(entry: PeerName, cutoff: str | None) -> bool:
    return entry.cutoff is None or entry.cutoff == (cutoff is not None)


def _words(word: str, cutoff: str | None, *, exact: bool) -> list[PeerName]:
    key = word if exact else word.lower()
    return [e for e in PEER_NAMES if e.pattern is None and (e.name if exact else e.name.lower()) == key
            and _fits(e, cutoff)]


def family_of(word: str, text: str, cutoff: str | None) -> str:
    """The family ``word`` names (``text``: the whole name, for errors; ``cutoff``: its
    ``@k``, if any): a family, then a peer's word as spelt, then a family in any case,
    then a peer's word in any case. A refused name or an unknown one is a one-line
    ValueError."""
    if word in MEASURES:
        return word
    families = {f.lower(): f for f in MEASURES}
    found = _words(word, cutoff, exact=True)
    if not found and word.lower() in families:
        return families[word.lower()]
    found = found or _words(word, cutoff, exact=False)
    if found:
        entry = found[0]
        if entry.reads is None:
            raise ValueError(f"measure {text!r}: {entry.differs}")
        return entry.reads
    raise ValueError(unknown_message(text, word, cutoff))


def refused_reason(text: str) -> str | None:
    """Why a name the grammar cannot read is a peer's measure irmeta refuses
    (``ndcg_burges@10-l2``), else None."""
    match = _FIRST_WORD.match(text.strip())
    if match is None:
        return None
    word = match.group().lower()
    refused = [e for e in PEER_NAMES if e.pattern is None and e.reads is None and e.name.lower() == word]
    return refused[0].differs if refused else None


def unknown_message(text: str, word: str, cutoff: str | None) -> str:
    """``unknown measure 'ndgc@10'; the closest known: nDCG@10, DCG@10, ...``: the three
    known names closest to ``word`` (difflib's ratio, in any case; families and every
    peer's name), as their family."""
    shown = [f + (f"@{cutoff}" if cutoff else "") for f in closest(word, cutoff=cutoff)]
    return f"unknown measure {text!r}; the closest known: {', '.join(shown)}"


def _spelt_word(entry: PeerName) -> str:
    """A peer name's leading word (``iprec_at_recall`` of ``iprec_at_recall_x``)."""
    match = _FIRST_WORD.match(entry.name)
    return (match.group() if match else entry.name).rstrip("_.")


def closest(word: str, n: int = 3, cutoff: str | None = None) -> list[str]:
    """The ``n`` families whose names or peers' names (those that take ``cutoff``, if
    given) are closest to ``word``."""
    names: dict[str, str] = {f.lower(): f for f in MEASURES}
    for entry in PEER_NAMES:
        if entry.family in MEASURES and _fits(entry, cutoff):
            names.setdefault(_spelt_word(entry).lower(), entry.family)
    ranked = difflib.get_close_matches(word.lower(), list(names), n=len(names), cutoff=0.0)
    return _unique(names[x] for x in ranked)[:n]


def trec_eval_printed(family: str, cutoff: int | None) -> str | None:
    """The name trec_eval prints for ``family`` (``{}``: the cutoff) with a cutoff or without,
    from the peer names trec_eval's families declare; None if it has none."""
    for entry in PEER_NAMES:
        if entry.peer != "trec_eval" or entry.prints is None or entry.family != family:
            continue
        if ("{}" in entry.prints) == (cutoff is not None) and (entry.reads or "").split("@")[0] == family:
            return entry.prints
    return None


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
