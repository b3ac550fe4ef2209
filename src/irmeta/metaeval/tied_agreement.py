"""The tie-aware variants of rank agreement a table reports beside its own columns, by
name (issue 42): a system ranking ties where means tie, which a measure on a grid (P@k's
multiples of 1/k) and a judgment set's coarse grades make common.

The tables' own columns keep the coefficients they always had: ``tau`` / ``kendall_tau``
is Kendall's tau-b (ties in either ranking discounted from the normaliser, ``ircor``'s
``tau_b``), ``tau_ap`` Yilmaz et al.'s tau_AP with the reference (the baseline, the qrels)
as the truth and a tie in either ranking not credited (one of the two terms of Urbano and
Marrero's tau_AP-b), ``tau_ap_symmetric`` tau_AP-b itself, ``rbo`` Webber et al.'s RBO_ext
with ties broken by run name. A setting ``ties`` (a list of :data:`TIED_VARIANTS`) adds:

* ``a`` (the reference is the true ranking, without ties; the other an observer who may
  tie): ``tau_a`` and ``tau_ap_a`` (``ircor``'s ``tau_a``, ``tauAP_a``; empty where the
  reference itself ties, which no true ranking does) and ``rbo_a`` (Corsi and Urbano's
  RBO^a_ext, the expected RBO over random tie-breaks);
* ``b`` (both observers who may tie): ``tau_ap_b`` (``tauAP_b``) and ``rbo_b`` (RBO^b_ext,
  corrected for what the ties lose; tau-b is the ``tau`` column already);
* ``w`` (tied runs really share a rank): ``rbo_w`` (RBO^w_ext).

A table that reports no RBO takes ``a`` and ``b`` only (:data:`TAU_ONLY`).

The reproducibility table compares two document rankings of a topic, not two system
rankings: its ``ktu`` (Kendall's tau Union) and ``rbo`` read each run in trec_eval's
order, equal scores broken by document id. Its variants (:data:`ORDER_COLUMNS`) read the
run's scores, equal scores tied: ``a`` adds ``ktu_a`` (tau-a over the union, the
original as the truth; empty where the original ties, its own scores or the documents
it lacks, tied below its last) and ``rbo_a``; ``b`` adds ``ktu_b`` (tau-b over the union,
score ties kept) and ``rbo_b``; ``w`` adds ``rbo_w``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

TIED_VARIANTS = ("a", "b", "w")
#: Each variant's columns, in the order tables write them.
TIED_COLUMNS = {"a": ("tau_a", "tau_ap_a", "rbo_a"), "b": ("tau_ap_b", "rbo_b"), "w": ("rbo_w",)}
#: The variants of a table without RBO.
TAU_ONLY = ("a", "b")
#: Every column a variant can add, in order (a table's OPTIONAL_COLUMNS name them).
ALL_TIED_COLUMNS = tuple(c for variant in TIED_VARIANTS for c in TIED_COLUMNS[variant])
#: Each variant's document-order columns (the reproducibility table's KTU and RBO), in order.
ORDER_COLUMNS = {"a": ("ktu_a", "rbo_a"), "b": ("ktu_b", "rbo_b"), "w": ("rbo_w",)}


def tied_variants(ties: Sequence[str] | str, allowed: Sequence[str] = TIED_VARIANTS, name: str = "ties") -> list[str]:
    """``ties`` checked (one line naming ``name`` and the choices), in the fixed order."""
    given = [ties] if isinstance(ties, str) else list(ties)
    unknown = [v for v in given if v not in allowed]
    if unknown or len(set(given)) != len(given):
        raise ValueError(f"{name} must be some of {', '.join(allowed)} (each once), not {given}")
    return [v for v in allowed if v in given]


def tied_columns(ties: Sequence[str], with_rbo: bool = True) -> list[str]:
    """The columns ``ties`` adds (:data:`TIED_COLUMNS`), RBO's only ``with_rbo``."""
    return [c for v in ties for c in TIED_COLUMNS[v] if with_rbo or not c.startswith("rbo")]


def order_columns(ties: Sequence[str]) -> list[str]:
    """The document-order columns ``ties`` adds (:data:`ORDER_COLUMNS`)."""
    return [c for v in ties for c in ORDER_COLUMNS[v]]


def tied_agreement(reference: np.ndarray, other: np.ndarray, ties: Sequence[str], *, rbo_p: float | None = None,
                   names: Sequence[str] | None = None) -> dict[str, float]:
    """The columns of ``ties`` for one pair of rankings: ``reference``'s and ``other``'s
    means of the same runs, both best first (higher is better; a lower-is-better measure
    negated), ``names`` the runs; RBO's (persistence ``rbo_p``) only when ``rbo_p`` is given."""
    # here: the command line declares its options from this module's constants alone
    from irmeta.metaeval.stats.overlap import rbo, tied_ranking
    from irmeta.metaeval.stats.rank_agreement import tau_a, tau_ap_a, tau_ap_b

    reference, other = np.asarray(reference, dtype=np.float64), np.asarray(other, dtype=np.float64)
    out: dict[str, float] = {}
    defined = len(reference) >= 2 and not (np.isnan(reference).any() or np.isnan(other).any())
    truth = defined and len(np.unique(reference)) == len(reference)
    for column in tied_columns(ties, rbo_p is not None):
        if column.startswith("rbo"):
            out[column] = (rbo(tied_ranking(reference, names), tied_ranking(other, names), rbo_p, column[-1])["ext"]
                           if defined else math.nan)
        elif column == "tau_ap_b":
            out[column] = tau_ap_b(reference, other) if defined else math.nan
        else:  # the a variants take the reference as the truth: none where it ties
            out[column] = (tau_a if column == "tau_a" else tau_ap_a)(reference, other) if truth else math.nan
    return out
