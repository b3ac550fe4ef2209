"""How measures and alphas are printed in tables and figures: by the names users type
(``P_rareness@100``, :func:`measure_label`) everywhere, the paper's notation
(``P@100_rareness``, ``AP'_rareness``, :func:`paper_label`) only where a table or figure
reproduces one of the paper's own (``irmeta.artefacts.paper``, Figure 2); and the alpha
cells of tables read back from CSV.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from irmeta.measures.alpha import alpha_cell, alpha_value
from irmeta.measures.names import parse_measure


class PaperMeasure(NamedTuple):
    """A measure the paper reports: P or AP at k, plain, rareness (eq. 1, 3) or [0, 1] (eq. 4)."""

    family: str  # "P" or "AP"
    rareness: bool
    norm: bool
    k: int


_PAPER_FAMILIES = {"P": ("P", False, False), "AP": ("AP", False, False), "P_rareness": ("P", True, False),
                   "AP_rareness": ("AP", True, False), "P_rareness_norm": ("P", True, True),
                   "AP_rareness_norm": ("AP", True, True)}


def paper_measure(measure: str) -> PaperMeasure | None:
    """The paper's reading of a measure name (by irmeta's one grammar); None for a
    measure the paper does not report, or one without a cutoff or with parameters."""
    try:
        m = parse_measure(str(measure))
    except ValueError:
        return None
    if m.family not in _PAPER_FAMILIES or m.cutoff is None or m.params:
        return None
    return PaperMeasure(*_PAPER_FAMILIES[m.family], m.cutoff)


_LABEL_PATTERN = re.compile(r"^(?P<family>AP|P)(?P<prime>')?(?:@(?P<k>\d+))?(?P<rareness>_rareness)?$")


def alpha_display(value: object) -> str:
    """An alpha as the paper prints it: ``0.0``, ``0.5``, ``1.0``, ``0.25``, ``1/R``;
    a baseline (no alpha) is ``0.0``."""
    key = alpha_cell(value)
    if key == "":
        return "0.0"
    if alpha_value(key) is None:
        return key
    return key if any(c in key for c in ".e") else key + ".0"


def paper_label(measure: str) -> str:
    """The paper's name of a measure: ``P_rareness@100`` -> ``P@100_rareness``,
    ``AP@100`` -> ``AP``, ``AP_rareness@100`` -> ``AP_rareness``; the [0, 1] forms of
    eq. 4 get a prime: ``P_rareness_norm@100`` -> ``P'@100_rareness``. Other cutoffs
    keep theirs (``AP@10`` -> ``AP@10``). Unknown names are returned unchanged."""
    m = paper_measure(measure)
    if m is None:
        return str(measure)
    prime = "'" if m.norm else ""
    suffix = "_rareness" if m.rareness else ""
    if m.family == "P":
        return f"P{prime}@{m.k}{suffix}"
    cut = "" if m.k == 100 else f"@{m.k}"
    return f"AP{prime}{cut}{suffix}"


#: How a figure or table names measures: ``typed`` (the names of the config and the
#: command line) or ``paper`` (the paper's notation, for its own tables and figures).
Notation = Literal["typed", "paper"]


def measure_label(measure: str, notation: Notation = "typed") -> str:
    """A measure's name as printed: as users type it (``P_rareness@100``, the default),
    or in the paper's notation (:func:`paper_label`) where a table or figure reproduces
    the paper's."""
    if notation == "paper":
        return paper_label(measure)
    if notation != "typed":
        raise ValueError(f"notation must be 'typed' or 'paper', not {notation!r}")
    return str(measure)


def measure_from_paper_label(label: str, cutoff: int = 100) -> str:
    """Inverse of :func:`paper_label`: ``P@100_rareness`` -> ``P_rareness@100``,
    ``AP`` -> ``AP@100`` (the paper's AP is cut at ``cutoff``)."""
    m = _LABEL_PATTERN.match(str(label).strip())
    if not m:
        raise ValueError(f"not a measure label of the paper: {label!r}")
    k = m["k"] or str(cutoff)
    return f"{m['family']}{'_rareness' if m['rareness'] else ''}{'_norm' if m['prime'] else ''}@{k}"


def is_baseline(measure: str) -> bool:
    m = paper_measure(measure)
    return m is not None and not m.rareness


# --- ids in words, for figures (a figure never shows a table's internal id) ------------

_AVERAGING_WORDS = {"all_topics": "every qrels topic", "returned_topics": "the topics a run returned",
                    "geometric_all_topics": "every qrels topic, geometric mean"}


def averaging_label(averaging: str) -> str:
    """A mean's topics in words: ``all_topics`` -> "every qrels topic" (trec_eval -c),
    ``returned_topics`` -> "the topics a run returned"; another value as it is."""
    return _AVERAGING_WORDS.get(str(averaging), str(averaging))


def judgment_set_label(name: str) -> str:
    """A judgment set's name in words: a generated set's (``pool_depth_10`` -> "pool depth
    10", ``fraction_0.1_trial_3`` -> "10% of judgments, trial 3", ``error_0.2_trial_0`` ->
    "assessor error 0.2, trial 0") and a mean of its trials' (``fraction_0.1``,
    ``error_0.2`` -> "..., mean of trials"); a set the user named keeps its name."""
    from irmeta.metaeval.generated_set_names import ERROR, FRACTION, parse_set_name

    name = str(name)
    trial = ""
    try:
        generated = parse_set_name(name)
    except ValueError:
        mean = re.fullmatch(r"(fraction|error)_([0-9.]+)", name)  # a mean of trials (the figures' rows)
        if mean is None:
            return name
        kind, value, trial = mean[1], float(mean[2]), ", mean of trials"
    else:
        kind, value = generated.kind, float(generated.value)
        if generated.trial is not None:
            trial = f", trial {generated.trial}"
    if kind == FRACTION:
        return f"{100 * value:g}% of judgments{trial}"
    if kind == ERROR:
        return f"assessor error {value:g}{trial}"
    return f"pool depth {value:g}"


_PROTOCOL_WORDS = {"kendall_tau": "Kendall's tau-b", "tau_ap": r"$\tau_{AP}$ (baseline as reference)",
                   "leave_one_out+frozen": "leave one group out, frozen rarity",
                   "leave_one_out+joined": "leave one group out, joined rarity"}


def protocol_label(protocol: str) -> str:
    """A claims protocol (:mod:`irmeta.artefacts.claims`) in words: a test by the test
    registry's title (``paired_t+holm`` -> "paired t-test, Holm"), a stability setting
    (``absolute 0.05`` -> "absolute fuzziness 0.05"), a rarity rule or a judgment set
    (:func:`judgment_set_label`); an unknown one as it is."""
    from irmeta.metaeval.stats.registry import TESTS, name_title

    protocol = str(protocol)
    if protocol in _PROTOCOL_WORDS:
        return _PROTOCOL_WORDS[protocol]
    if protocol.partition("+")[0] in TESTS:
        return name_title(protocol)
    fuzziness = re.fullmatch(r"(absolute|relative) ([0-9.eE+-]+)", protocol)
    if fuzziness:
        value = float(fuzziness[2])
        return (f"absolute fuzziness {value:g}" if fuzziness[1] == "absolute"
                else f"relative fuzziness {100 * value:g}%")
    return judgment_set_label(protocol)
