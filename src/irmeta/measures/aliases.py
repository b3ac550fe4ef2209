"""Other tools' measure names, read as irmeta's: the one table of aliases (issue 29).

The names users of trec_eval, ir_measures, ranx and PyTerrier type are read as the irmeta
family that computes the same thing; every output names the family (``NDCG@10``,
``ndcg_cut.10``, ranx's ``ndcg@10`` are all ``nDCG@10``). A family's own name and every
alias are read without regard to case. A name is an alias only where the definitions agree
(read from each tool's source: trec_eval 9.0.8, ir_measures 0.3, ranx 0.3.21); a name whose
peer computes something else is refused with the reason and what to write instead
(:data:`REFUSED`), never read as a near neighbour. docs/names.md lists both.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from irmeta.measures.registry import MEASURES

# trec_eval's names of irmeta's families, without a cutoff and with one ({}: the cutoff): read
# here, written by names.trec_eval_name (irmeta score --format trec_eval).
TREC_EVAL_NAMES = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref",
                   "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F",
                   "SetAP": "set_map", "SetRelP": "set_relative_P", "NumQ": "num_q", "NumRet": "num_ret",
                   "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "nDCG_rel": "ndcg_rel"}
TREC_EVAL_CUT_NAMES = {"P": "P_{}", "AP": "map_cut_{}", "nDCG": "ndcg_cut_{}", "Recall": "recall_{}",
                       "Success": "success_{}", "RelP": "relative_P_{}", "Unjudged": "unj_{}",
                       "P_avgjg": "P_avgjg_{}"}
# Names trec_eval writes that irmeta's grammar cannot read as a family (a leading digit, or
# the parameter in the name), or that no pytrec_eval computes (map_avgjg reads -R qrels_jg;
# checked against trec_eval itself): written by names.trec_eval_name, read by trec_eval_spelling.
TREC_EVAL_WRITTEN = {"IPrec_avg": "11pt_avg", "AP_avgjg": "map_avgjg"}


@dataclass(frozen=True)
class Alias:
    """A name another tool uses: ``family`` is what it reads as with ``@k``, ``bare``
    without (None: that form is refused, ``note`` says why); ``note``: why they agree."""

    name: str
    peer: str
    family: str | None
    bare: str | None
    note: str


_TREC = "trec_eval, PyTerrier"  # PyTerrier's string measures are trec_eval's names
ALIASES: tuple[Alias, ...] = (
    *(Alias(name, _TREC, family, family, f"trec_eval's {name}") for family, name in TREC_EVAL_NAMES.items()),
    Alias("P_", "trec_eval", "P", "P", "trec_eval's P without its cutoff"),
    Alias("MAP", "ir_measures", "AP", "AP", "ir_measures' alias of AP"),
    Alias("MRR", "ir_measures, ranx", "RR", "RR", "ir_measures' alias of RR; ranx's mrr@k: 1 / rank of the "
          "first relevant document in the top k, 0 if none"),
    Alias("R", "ir_measures", "Recall", "Recall", "ir_measures' R@k: relevant in the top k / relevant"),
    Alias("Precision", "ir_measures, ranx", "P", "SetP", "precision@k: relevant in the top k / k (P@k); "
          "ranx's precision without k: relevant returned / returned (trec_eval set_P)"),
    Alias("hit_rate", "ranx", "Success", "Success", "ranx's hit_rate@k: 1 if a relevant document is in the "
          "top k (its docstring: trec_eval success)"),
    Alias("r-precision", "ranx", "Rprec", "Rprec", "ranx's r-precision: P@R, R the relevant documents"),
    Alias("r_precision", "ranx", "Rprec", "Rprec", "ranx's r-precision, with an underscore"),
    Alias("f1", "ranx", "F1", "SetF", "ranx's f1@k: 2 P R / (P + R), P = hits@k / k (irmeta's F1@k, not SetF@k, "
          "which divides by the documents returned); f1 without k divides by the documents returned: set_F (beta 1)"),
    Alias("hits", "ranx", "Hits", "Hits", "ranx's hits@k: the relevant documents in the top k, a count (hits: in "
          "the whole list)"),
    *(Alias(name, "ndeval, pyndeval", family, family, f"ndeval's {name} (TREC Web track 2009-2014)")
      for name, family in (("alpha-nDCG", "alpha_nDCG"), ("alpha-DCG", "alpha_DCG"), ("ERR-IA", "ERR_IA"),
                           ("nERR-IA", "nERR_IA"), ("P-IA", "P_IA"), ("MAP-IA", "AP_IA"), ("strec", "StRecall"))),
    Alias("MAP_IA", "ir_measures", "AP_IA", "AP_IA", "ir_measures' alias of AP_IA (its pyndeval provider)"),
)

#: Parameters a peer spells otherwise, by family: ndeval's and ir_measures' NRBP(beta=...)
#: is NRBP's patience (irmeta's beta is Sakai's, which --beta and measure_options set).
PARAMETER_ALIASES: dict[tuple[str, str], str] = {("NRBP", "beta"): "patience", ("nNRBP", "beta"): "patience"}
# Recall, DCG, nDCG, Bpref and ranx's map/ndcg/dcg/recall/bpref need no entry: they are the
# family's own name in another case (ranx's map@k sums precision at the relevant ranks <= k
# over all relevant documents, trec_eval's map_cut_k; its dcg and ndcg take gain = grade and
# discount log2(rank + 1), trec_eval's ndcg_cut, not irmeta's DCG_jk).

#: Names a peer uses for something irmeta computes differently, with what to write instead.
REFUSED: dict[str, str] = {
    "ndcg_burges": "ranx's ndcg_burges takes the gain 2^grade - 1: write nDCG(gains={1:1,2:3,3:7})@k for "
                   "grades 1..3",
    "dcg_burges": "ranx's dcg_burges takes the gain 2^grade - 1: write DCG(gains={1:1,2:3,3:7})@k for "
                  "grades 1..3",
    "rbp": "trec_eval writes its RBP's persistence as rbp.p=0.95 (read as RBP(p=0.95,gain_scale=topic_max)); "
           "ranx's rbp.95 weighs a relevant document by its grade: write RBP(p=0.95) or "
           "RBP(p=0.95,gains={...}) for irmeta's",
    "gm_map": "trec_eval's gm_map is AP under the geometric mean: score AP with average geometric",
}

# trec_eval's names with a cutoff, as it prints them (P_10, map_cut_100) and as -m takes them
# (P.10, ndcg_cut.10), in any case; gives the family @ the cutoff.
CUT_SPELLINGS = [(re.compile(re.escape(name.format("").rstrip("_")) + r"[._](\d+)", re.IGNORECASE), family)
                 for family, name in TREC_EVAL_CUT_NAMES.items()]
_BY_NAME = {a.name.lower(): a for a in ALIASES}

_NUMBER = r"(\d*\.?\d+(?:[eE][+-]?\d+)?)"
_SIGNED = r"([+-]?\d*\.?\d+(?:[eE][+-]?\d+)?)"
# trec_eval's names that carry a parameter (as -m takes them, name.params, and as it prints
# them, name_params), case as trec_eval spells them: each read as irmeta's name.
TREC_EVAL_SPELLINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"rbp"), "RBP(p=0.9,gain_scale=topic_max)"),
    (re.compile(r"rbp[._]p=" + _NUMBER), "RBP(p={0},gain_scale=topic_max)"),
    (re.compile(r"rbp_resid"), "RBP_residual(p=0.9,when=any_unjudged)"),
    (re.compile(r"rbp_resid[._]p=" + _NUMBER), "RBP_residual(p={0},when=any_unjudged)"),
    (re.compile(r"iprec_at_recall[._]" + _NUMBER), "IPrec(recall={0})"),
    (re.compile(r"11pt_avg"), "IPrec_avg"),
    (re.compile(r"11pt_avg[._](" + _NUMBER + "(?:," + _NUMBER + ")*)"), "IPrec_avg(levels=[{0}])"),
    (re.compile(r"Rprec_mult[._]" + _NUMBER), "Rprec_mult(multiple={0})"),
    (re.compile(r"Rprec_mult_avgjg[._]" + _NUMBER), "Rprec_mult_avgjg(multiple={0})"),
    (re.compile(r"set_F[._]" + _NUMBER), "SetF(recall_weight={0})"),
    (re.compile(r"map_avgjg"), "AP_avgjg"),  # checked against trec_eval -R qrels_jg (no pytrec_eval reads it)
    (re.compile(r"utility"), "Utility"),
    (re.compile(r"utility[._]" + ",".join([_SIGNED] * 4)),
     "Utility(rel_ret={0},nonrel_ret={1},rel_unret={2},nonrel_unret={3})"),
)


def trec_eval_spelling(text: str) -> str | None:
    """trec_eval's name with its parameter as irmeta's (``rbp`` -> ``RBP(p=0.9,gain_scale=topic_max)``,
    ``iprec_at_recall_0.10`` -> ``IPrec(recall=0.10)``, ``ndcg.1=0,2=3`` ->
    ``nDCG(gains={1:0,2:3},gains_rest=grade)``); None for any other text."""
    for pattern, spelling in TREC_EVAL_SPELLINGS:
        match = pattern.fullmatch(text)
        if match:
            return spelling.format(*match.groups())
    return trec_eval_gain_spelling(text)


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


def spelled_with_cutoff(text: str) -> str | None:
    """``ndcg_cut.10`` -> ``nDCG@10`` (trec_eval's cut names); None for any other text."""
    for pattern, family in CUT_SPELLINGS:
        match = pattern.fullmatch(text)
        if match:
            return f"{family}@{match.group(1)}"
    return None


def family_of(word: str, text: str, cutoff: str | None) -> str:
    """The family ``word`` names (``text``: the whole name, for errors; ``cutoff``: its
    ``@k``, if any): a family, then an alias, exactly, then a family, then an alias, in
    any case. A refused name or an unknown one is a one-line ValueError."""
    if word in MEASURES:
        return word
    families = {f.lower(): f for f in MEASURES}
    alias = next((a for a in ALIASES if a.name == word), None)
    if alias is None and word.lower() in families:
        return families[word.lower()]
    alias = alias or _BY_NAME.get(word.lower())
    if alias is not None:
        target = alias.family if cutoff is not None else alias.bare
        if target is not None:
            return target
        raise ValueError(f"measure {text!r}: {alias.note}")
    refusal = REFUSED.get(word.lower())
    if refusal is not None:
        raise ValueError(f"measure {text!r}: {refusal}")
    raise ValueError(unknown_message(text, word, cutoff))


def refused_reason(text: str) -> str | None:
    """Why a name the grammar cannot read is a peer's measure irmeta refuses (``rbp.95``), else None."""
    match = _FIRST_WORD.match(text.strip())
    return None if match is None else REFUSED.get(match.group().lower())


def unknown_message(text: str, word: str, cutoff: str | None) -> str:
    """``unknown measure 'ndgc@10'; the closest known: nDCG@10, DCG@10, ...``: the three
    known names closest to ``word`` (difflib's ratio, in any case), as their family."""
    shown = [f + (f"@{cutoff}" if cutoff else "") for f in closest(word)]
    return f"unknown measure {text!r}; the closest known: {', '.join(shown)}"


def closest(word: str, n: int = 3) -> list[str]:
    """The ``n`` families whose names or aliases are closest to ``word``."""
    names: dict[str, str] = {f.lower(): f for f in MEASURES}
    names.update({a.name.lower(): a.family or a.bare or "" for a in ALIASES})
    ranked = difflib.get_close_matches(word.lower(), list(names), n=len(names), cutoff=0.0)
    return _unique(names[x] for x in ranked)[:n]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
