"""The reproducibility table: for a baseline b and an advanced run a, each original and
reproduced, one row per measure (and alpha) with every measure of
:mod:`.reproducibility` (columns :data:`COLUMNS`). ``same_collection``: the reproduced
runs are scored on the original's qrels (repro_eval's ``RpdEvaluator``), and every column
is filled; ``other_collection``: on another collection's (``RplEvaluator``), and the
document-order and score columns are empty (NaN), the t-test unpaired.

Document order is compared per topic over the topics both rankings return and averaged
over them (repro_eval iterates over the reproduced run's topics and needs each in the
original); its columns repeat on each measure's row. Scores are every qrels topic's
(irmeta's ``average="all"``, a topic not returned scores 0), so on the same collection
the two versions pair topic by topic.

With ``OrderSettings.ties`` (issue 42), the tie-aware document-order columns follow
(:data:`TIED_ORDER_COLUMNS`: ``ktu_a``, ``rbo_a``, ``ktu_b``, ``rbo_b``, ``rbo_w``, each
for the baseline and the advanced pair; :func:`~.reproducibility.tied_document_order`),
read from the runs' scores, equal scores tied; without, the table is as before.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.measures.averaging import Scores
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.tied_agreement import ORDER_COLUMNS, TIED_VARIANTS, order_columns, tied_variants

SETTINGS = ("same_collection", "other_collection")
ROLES = ("baseline", "advanced")
#: The tie-aware document-order columns a variant adds, each for both pairs, in order.
TIED_ORDER_COLUMNS = {v: tuple(f"{c}_{role}" for c in ORDER_COLUMNS[v] for role in ROLES) for v in TIED_VARIANTS}
COLUMNS = ("setting", "baseline", "advanced", "measure", "alpha", "ktu_baseline", "ktu_advanced", "rbo_baseline",
           "rbo_advanced", "rmse_baseline", "rmse_advanced", "nrmse_baseline", "nrmse_advanced", "er", "delta_ri",
           "p_value_baseline", "p_value_advanced", "ktu_repro_eval_baseline", "ktu_repro_eval_advanced",
           "rbo_repro_eval_baseline", "rbo_repro_eval_advanced",
           *(c for v in TIED_VARIANTS for c in TIED_ORDER_COLUMNS[v]))
#: Columns of :data:`COLUMNS` written only under some settings, with when.
OPTIONAL_COLUMNS = {c: f"experiments.reproducibility.ties names {v}" for v in TIED_VARIANTS
                    for c in TIED_ORDER_COLUMNS[v]}

Rankings = Mapping[str, Sequence[str]]  # topic -> documents, best first


class ReproducibilityWarning(UserWarning):
    """A reproducibility measure left empty because it is undefined (a 0 denominator)."""


@dataclass(frozen=True)
class Reproduction:
    """A run and its reproduction, by name, with their rankings when document order is
    compared (same collection)."""

    original: str
    reproduced: str
    original_ranking: Rankings | None = None
    reproduced_ranking: Rankings | None = None
    #: each ranking's scores per topic, aligned with its documents (the tie-aware columns read them)
    original_scores: Mapping[str, np.ndarray] | None = None
    reproduced_scores: Mapping[str, np.ndarray] | None = None


@dataclass(frozen=True)
class OrderSettings:
    """KTU's cutoff, RBO's persistence and depth (repro_eval's defaults), and the
    tie-aware variants added (none by default)."""

    ktu_cutoff: int = rm.KTU_CUTOFF
    rbo_p: float = rm.RBO_P
    rbo_depth: int = rm.RBO_DEPTH
    ties: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "ties", tuple(tied_variants(self.ties, name="reproducibility ties")))


def table_columns(ties: Sequence[str] = ()) -> list[str]:
    """The table's columns with the tie-aware variants ``ties`` and no others."""
    written = {c for v in ties for c in TIED_ORDER_COLUMNS[v]}
    return [c for c in COLUMNS if c not in OPTIONAL_COLUMNS or c in written]


def shared_topics(pair: Reproduction) -> list[str]:
    """The topics both rankings return, in the original's order; a pair sharing none is refused."""
    assert pair.original_ranking is not None and pair.reproduced_ranking is not None
    shared = [t for t in pair.original_ranking if t in pair.reproduced_ranking]
    if not shared:
        raise ValueError(f"reproduced run {pair.reproduced} shares no topic with the original run {pair.original}")
    return shared


def document_order(pair: Reproduction, order: OrderSettings) -> dict[str, float]:
    """Mean over the shared topics of each document-order measure: ``ktu``, ``rbo``,
    ``ktu_repro_eval``, ``rbo_repro_eval``, then those of ``order.ties`` (NaN topics, fewer
    than two documents, left out of the mean; NaN when every topic is)."""
    per_topic = document_order_per_topic(pair, order)
    return {name: _mean_defined(values) for name, values in per_topic.items()}


def document_order_per_topic(pair: Reproduction, order: OrderSettings) -> dict[str, np.ndarray]:
    """Each document-order measure per shared topic (:func:`shared_topics`' order)."""
    topics = shared_topics(pair)
    o, r = pair.original_ranking, pair.reproduced_ranking
    assert o is not None and r is not None
    measures = {
        "ktu": np.array([rm.ktu(o[t], r[t], order.ktu_cutoff) for t in topics]),
        "rbo": np.array([rm.rbo(o[t], r[t], order.rbo_p, order.rbo_depth) for t in topics]),
        "ktu_repro_eval": np.array([rm.ktu_repro_eval(o[t], r[t], order.ktu_cutoff) for t in topics]),
        "rbo_repro_eval": np.array([rm.rbo_repro_eval(o[t], r[t], order.rbo_p, order.rbo_depth) for t in topics]),
    }
    if order.ties:
        os_, rs = pair.original_scores, pair.reproduced_scores
        if os_ is None or rs is None:
            raise ValueError(f"the tie-aware columns need the scores of {pair.original} and {pair.reproduced}")
        tied = [rm.tied_document_order(o[t], os_[t], r[t], rs[t], order.ties, order.ktu_cutoff, order.rbo_p,
                                       order.rbo_depth) for t in topics]
        measures.update({c: np.array([row[c] for row in tied]) for c in order_columns(order.ties)})
    return measures


def _mean_defined(values: np.ndarray) -> float:
    kept = values[~np.isnan(values)]
    return float(np.mean(kept)) if len(kept) else math.nan


def _row_of(scores: Scores, run: str, role: str) -> int:
    try:
        return scores.runs.index(run)
    except ValueError:
        raise ValueError(f"{role} run {run!r} is not among the scored runs") from None


def reproducibility_table(original: Scores, reproduced: Scores, baseline: Reproduction, advanced: Reproduction,
                          *, setting: str = "same_collection", order: OrderSettings = OrderSettings(),
                          names: tuple[str, str] | None = None) -> pd.DataFrame:
    """One row per measure block of ``original`` (columns :data:`COLUMNS`), the
    reproduced runs' scores read from ``reproduced`` (the same :class:`Scores` on the same
    collection). ``names``: what the ``baseline`` and ``advanced`` columns say (default
    the original runs' names). Undefined values are NaN, each ER and Delta RI with a
    :class:`ReproducibilityWarning` naming the pair and measure."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {', '.join(SETTINGS)}, not {setting!r}")
    same = setting == "same_collection"
    if same and list(original.topics) != list(reproduced.topics):
        raise ValueError("same_collection: the reproduced runs must be scored on the original's topics")
    shown = names or (baseline.original, advanced.original)
    rows = [_orig_rows(original, baseline, advanced), _orig_rows(reproduced, baseline, advanced, reproduced=True)]
    orders = {"b": document_order(baseline, order), "a": document_order(advanced, order)} if same else None
    blocks = [_measure_row(original, reproduced, i, rows, same, shown) for i in range(len(original.measures))]
    frame = pd.DataFrame(blocks)
    for role, key in (("b", "baseline"), ("a", "advanced")):
        for name in ("ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval", *order_columns(order.ties)):
            frame[f"{name}_{key}"] = math.nan if orders is None else orders[role][name]
    columns = table_columns(order.ties)
    return frame.reindex(columns=columns) if len(frame) else pd.DataFrame(columns=columns)


def _orig_rows(scores: Scores, baseline: Reproduction, advanced: Reproduction,
               reproduced: bool = False) -> tuple[int, int]:
    which = "reproduced" if reproduced else "original"
    b = baseline.reproduced if reproduced else baseline.original
    a = advanced.reproduced if reproduced else advanced.original
    return _row_of(scores, b, f"{which} baseline"), _row_of(scores, a, f"{which} advanced")


def _measure_row(original: Scores, reproduced: Scores, i: int, rows: list[tuple[int, int]], same: bool,
                 names: tuple[str, str]) -> dict:
    """One measure's values (the document-order columns are added by the caller)."""
    measure, alpha = original.measures[i], original.alphas[i]
    j = reproduced.block(measure, alpha)
    ob, oa = original.per_topic[i, rows[0][0]], original.per_topic[i, rows[0][1]]
    rb, ra = reproduced.per_topic[j, rows[1][0]], reproduced.per_topic[j, rows[1][1]]
    label = f"{measure}" + (f" (alpha {alpha})" if alpha else "")
    er = _warned(rm.effect_ratio(oa, ob, ra, rb), f"ER of {label} for baseline {names[0]} and advanced "
                 f"{names[1]} is undefined (the original improvement is 0): left empty")
    dri = _warned(rm.delta_ri(oa, ob, ra, rb), f"Delta RI of {label} for baseline {names[0]} and advanced "
                  f"{names[1]} is undefined (a baseline's mean is 0): left empty")
    nan = math.nan
    return {
        "setting": "same_collection" if same else "other_collection", "baseline": names[0], "advanced": names[1],
        "measure": measure, "alpha": alpha or "",
        "rmse_baseline": rm.rmse(ob, rb) if same else nan, "rmse_advanced": rm.rmse(oa, ra) if same else nan,
        "nrmse_baseline": _nrmse(ob, rb, label) if same else nan,
        "nrmse_advanced": _nrmse(oa, ra, label) if same else nan,
        "er": er, "delta_ri": dri,
        "p_value_baseline": rm.t_test_p(ob, rb, paired=same), "p_value_advanced": rm.t_test_p(oa, ra, paired=same),
    }


def _warned(value: float, message: str) -> float:
    if math.isnan(value):
        warnings.warn(message, ReproducibilityWarning, stacklevel=4)
    return value


def _nrmse(original: np.ndarray, reproduced: np.ndarray, label: str) -> float:
    return _warned(rm.nrmse(original, reproduced), f"nRMSE of {label} is undefined (an original score is outside "
                   "[0, 1]): left empty")
