"""The measure-name grammar, the one place names are read: irmeta's ``P@100``,
``AP``, ``nDCG@10``; trec_eval's ``P_100``, ``map``, ``map_cut_100``, ``ndcg_cut_10``,
``recall_100``, ...; ir_measures' ``R@k``; Alex et al.'s ``ASL@g1-10``; and the label a
measure carries with its alpha, ``P_rareness(alpha=0.5)@100``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable
from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.registry import MEASURES, MeasureDefinition


@dataclass(frozen=True)
class Measure:
    """A measure family at a cutoff: ``Measure("P", 100)`` is ``P@100``."""

    family: str
    cutoff: int | None = None

    def __str__(self) -> str:
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"

    @property
    def definition(self) -> "MeasureDefinition":
        return MEASURES[self.family]

    @property
    def higher_is_better(self) -> bool:
        return self.definition.higher_is_better

    @property
    def uses_alpha(self) -> bool:
        return self.definition.uses_alpha


_MEASURE = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_+]*)(?:@(?P<cutoff>\d+))?$")


MAX_CUTOFF = 2**31 - 1  # ranks are int32


# trec_eval's names (and ir_measures' R@k) -> irmeta's families.
_ALIASES = {"map": "AP", "MAP": "AP", "P_": "P", "recip_rank": "RR", "ndcg": "nDCG", "R": "Recall",
            "bpref": "Bpref", "set_P": "SetP", "set_recall": "SetR", "set_F": "SetF"}


# trec_eval's names with a cutoff: P_10, map_cut_100, ndcg_cut_10, recall_100, success_10;
# ASL@g1-10 (Alex et al.).
_SPELLINGS = [(re.compile(r"P_(\d+)"), "P@{}"), (re.compile(r"map_cut_(\d+)"), "AP@{}"),
              (re.compile(r"ndcg_cut_(\d+)"), "nDCG@{}"), (re.compile(r"recall_(\d+)"), "Recall@{}"),
              (re.compile(r"success_(\d+)"), "Success@{}"), (re.compile(r"ASL@g1-(\d+)"), "ASL_g1@{}")]


def parse_measure(text: str | Measure) -> Measure:
    """``"P@100"`` -> ``Measure("P", 100)``; also accepts trec_eval's names (``P_100``,
    ``map``, ``map_cut_100``, ``ndcg``, ``ndcg_cut_10``, ``recip_rank``, ``recall_100``,
    ``Rprec``, ``bpref``, ``set_P``, ``set_recall``, ``set_F``, ``success_10``) and ``ASL@g1-10``."""
    if isinstance(text, Measure):
        return text
    raw = text.strip()
    for pattern, spelling in _SPELLINGS:
        m = pattern.fullmatch(raw)
        if m:
            raw = spelling.format(m.group(1))
    match = _MEASURE.match(raw)
    if not match:
        raise ValueError(f"cannot read measure {text!r}; write it like P@100 or AP@100")
    family = _ALIASES.get(match.group("family"), match.group("family"))
    if family not in MEASURES:
        known = ", ".join(sorted(MEASURES))
        raise ValueError(f"unknown measure {text!r}; known measures: {known}")
    cutoff = match.group("cutoff")
    if cutoff is not None and int(cutoff) < 1:
        raise ValueError(f"measure {text!r}: the cutoff must be at least 1")
    if cutoff is not None and int(cutoff) > MAX_CUTOFF:
        raise ValueError(f"measure {text!r}: the cutoff must be at most {MAX_CUTOFF}")
    return Measure(family, int(cutoff) if cutoff is not None else None)


_PAPER_NAME = re.compile(r"^\s*ASL\s*@\s*g\s*_?\s*1\s*[-\u2013]\s*(\d+)\s*$", re.IGNORECASE)


def parse_asl_name(text: str) -> str:
    """The paper's spelling to irmeta's: ``ASL@g1-10`` -> ``ASL_g1@10``, ``ASL@g1-1`` ->
    ``ASL_g1@1`` (also ``ASL@g_1-10``, an en dash, any case); ``ASL@g1`` (the paper's
    short name for ASL@g1-1) -> ``ASL_g1@1``. Any other text is returned stripped, so
    ``parse_measure(parse_asl_name(name))`` reads both spellings."""
    match = _PAPER_NAME.match(text)
    if match:
        return f"ASL_g1@{int(match.group(1))}"
    if re.fullmatch(r"\s*ASL\s*@\s*g\s*_?\s*1\s*", text, re.IGNORECASE):
        return "ASL_g1@1"
    return text.strip()


def measure_label(measure: str | Measure, alpha: Alpha | None = None) -> str:
    """A measure's name with its alpha in ir_measures' notation: ``P_rareness(alpha=0.5)@100``."""
    m = parse_measure(measure)
    if alpha is None:
        return str(m)
    text = f"{m.family}(alpha={alpha_label(alpha)})"
    return text if m.cutoff is None else f"{text}@{m.cutoff}"


def depth_read(measures: Iterable[str | Measure], rarity_depth: int | None = None) -> int | None:
    """How deep the runs must be read for the measures: the deepest cutoff (and rarity
    depth); None (everything) when a measure reads the whole run. Reading no deeper
    changes no score and keeps less."""
    depths = []
    for item in measures:
        m = parse_measure(item)
        if m.cutoff is None or not m.definition.cutoff_is_depth:
            return None
        depths.append(m.cutoff)
    return max(depths + ([rarity_depth] if rarity_depth else []), default=None)
