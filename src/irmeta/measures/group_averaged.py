"""trec_eval's measures averaged over judgment groups (issue 42): ``P_avgjg``, ``map_avgjg``
and ``Rprec_mult_avgjg`` over judgment-group qrels (``-R qrels_jg``), with the arithmetic of
m_P_avgjg.c, m_map_avgjg.c and m_Rprec_mult_avgjg.c (trec_eval 10.0).

A topic judged by groups 1..n_t (:mod:`irmeta.campaign.judgment_groups`) scores

    m_avgjg = (1/n_t) sum_{j=1..n_t} m(judgments of group j)      (no division when n_t = 1)

each group's m computed as over ordinary qrels holding only its lines (a document it did
not judge is unjudged; N_R its own relevant documents), summed in the groups' byte order of
names, as trec_eval's loop adds them. Registered names (trec_eval's in brackets):

``P_avgjg@k`` (``P_avgjg_k``)
    P@k per group: relevant in the top k / k.
``AP_avgjg`` (``map_avgjg``)
    AP per group (0 for a group with no relevant document); ``@k`` cuts the run first.
``Rprec_mult_avgjg(multiple=x)`` (``Rprec_mult_avgjg_x``)
    Rprec_mult(multiple=x) per group: precision at rank floor(x N_R + 0.9) of the group's N_R.

These read judgment groups only, and every other measure reads one judgment per document:
over ordinary qrels the first are refused, over judgment groups the others, as trec_eval
refuses either (:func:`refuse_mismatch`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from irmeta.campaign.judgment_groups import group_matrix
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.measures.interpolated import precision_at_multiple
from irmeta.measures.precision import average_precision, precision
from irmeta.measures.registry import (
    NUMBER,
    UNIT_RANGE,
    MeasureDefinition,
    PeerName,
    register,
    register_peer_names,
    trec_eval_cut,
    trec_eval_word,
)

#: The families that average a measure over judgment groups, and only those, read them.
GROUP_FAMILIES: list[str] = []
_FORMAT = "--qrels-format qrels_jg; qrels_format: qrels_jg in a collection"


def averaged_over_groups(matrix: RelevanceMatrix, cutoff: int | None, measure: Callable[..., np.ndarray],
                         name: str, **options: object) -> np.ndarray:
    """(runs, topics): ``measure`` on each group's judgments, summed in slot order from 0
    and divided by the topic's groups when it has more than one (trec_eval's arithmetic)."""
    groups = matrix.judgment_groups
    if groups is None:
        raise ValueError(f"{name} averages over judgment groups and these qrels have none: read judgment-group "
                         f"qrels (qid jg docid grade) in the qrels_jg format ({_FORMAT}); judgments regraded "
                         f"or subsampled carry none")
    total = np.zeros((matrix.n_runs, matrix.n_topics), dtype=np.float64)
    for slot in range(groups.width):
        judged = groups.n_groups > slot  # the topics with a group at this slot
        total += np.where(judged[None, :], measure(group_matrix(matrix, slot), cutoff, **options), 0.0)
    n = groups.n_groups.astype(np.float64)[None, :]
    return np.divide(total, n, out=total.copy(), where=n > 1)


def precision_avgjg(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """P_avgjg@k = (1/n_t) sum_j P@k under group j (trec_eval ``P_avgjg_k``)."""
    return averaged_over_groups(matrix, cutoff, precision, "P_avgjg")


def average_precision_avgjg(matrix: RelevanceMatrix, cutoff: int | None) -> np.ndarray:
    """AP_avgjg = (1/n_t) sum_j AP under group j (trec_eval ``map_avgjg``)."""
    return averaged_over_groups(matrix, cutoff, average_precision, "AP_avgjg")


def precision_at_multiple_avgjg(matrix: RelevanceMatrix, cutoff: int | None, *, multiple: float = 1.0) -> np.ndarray:
    """Rprec_mult_avgjg(multiple=x) = (1/n_t) sum_j Rprec_mult(multiple=x) under group j
    (trec_eval ``Rprec_mult_avgjg_x``)."""
    return averaged_over_groups(matrix, cutoff, precision_at_multiple, "Rprec_mult_avgjg", multiple=multiple)


def refuse_mismatch(measures: Iterable[object], has_groups: bool, source: str = "the qrels") -> None:
    """One line refusing a ``*_avgjg`` measure over qrels without judgment groups, or any
    other measure over qrels with them (trec_eval -R qrels_jg computes only these)."""
    families = [(str(m), getattr(m, "family", None)) for m in measures]
    if has_groups:
        other = [name for name, family in families if family not in GROUP_FAMILIES]
        if other:
            raise ValueError(f"{', '.join(other)}: {source} hold judgment groups (qrels_jg), and this measure reads "
                             f"one judgment per document: score {', '.join(GROUP_FAMILIES)} over them (trec_eval "
                             f"-R qrels_jg computes only these), or one group's qrels in the trec format")
    else:
        wanted = [name for name, family in families if family in GROUP_FAMILIES]
        if wanted:
            raise ValueError(f"{', '.join(wanted)}: a measure averaged over judgment groups needs judgment-group "
                             f"qrels (qid jg docid grade), and {source} are ordinary ones: read them in the qrels_jg "
                             f"format ({_FORMAT})")


for _definition in (
    MeasureDefinition("P_avgjg", precision_avgjg, "precision at k averaged over judgment groups (trec_eval P_avgjg)",
                      value_range=UNIT_RANGE),  # a mean of P@k: off P@k's grid when groups disagree
    MeasureDefinition("AP_avgjg", average_precision_avgjg, "average precision averaged over judgment groups "
                      "(trec_eval map_avgjg)", value_range=UNIT_RANGE),
    MeasureDefinition("Rprec_mult_avgjg", precision_at_multiple_avgjg, "precision at rank x R averaged over "
                      "judgment groups (trec_eval Rprec_mult_avgjg)", options=("multiple",), value_range=UNIT_RANGE),
):
    register(_definition)
    GROUP_FAMILIES.append(_definition.family)

# trec_eval's names, read with -R qrels_jg: no pytrec_eval reads those, so each is checked
# against trec_eval 10's golden output by tests/unit/measures/test_trec_eval_jg_gains.py.
_JG_TEST = "tests/unit/measures/test_trec_eval_jg_gains.py"
register_peer_names(
    replace(trec_eval_cut("P_avgjg", "P_avgjg"), checked_by=_JG_TEST,
            examples=(("P_avgjg_10", "P_avgjg.10"), ("P_avgjg.10", "P_avgjg.10"))),
    replace(trec_eval_word("AP_avgjg", "map_avgjg"), checked_by=_JG_TEST),
    PeerName("Rprec_mult_avgjg", "trec_eval", "Rprec_mult_avgjg_x", "Rprec_mult_avgjg(multiple={0})",
             pattern=r"Rprec_mult_avgjg[._]" + NUMBER, examples=(("Rprec_mult_avgjg.0.5", "Rprec_mult_avgjg.0.5"),),
             symbols=("x",), checked_by=_JG_TEST),
)
