"""Did my reproduction reproduce? ``irmeta repro`` and ``irmeta.repro``: Breuer et al.'s
reproducibility measures (:mod:`irmeta.metaeval.reproducibility`) for an original
baseline and advanced run and their reproductions, one row per measure (and alpha),
columns :data:`~irmeta.metaeval.reproducibility_table.COLUMNS`.

Without ``reproduced_qrels`` the reproductions ran on the original's collection
(``same_collection``): the four runs are scored together on the qrels (every qrels
topic, a topic not returned scoring 0; rareness measures count S_d over these four runs)
and their rankings compared. With it, on another collection (``other_collection``): the
reproductions are scored on their own qrels, and only ER, Delta RI and the unpaired
t-test are filled. Runs are read as ``irmeta score`` reads them (files or runs in memory,
trec_eval's order, ``depth`` as -M); ``baseline`` and ``advanced`` are the original runs'
names (file name minus ``.gz``, or the tag with ``run_name="tag"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

import irmeta.settings as check
from irmeta.api import DEFAULT_MEASURES
from irmeta.artefacts.tables import table_texts
from irmeta.campaign.in_memory import read_given, run_sources, to_qrels
from irmeta.campaign.judge import judge_each
from irmeta.campaign.rankings import ranking_of_file
from irmeta.campaign.runs import RunFile
from irmeta.measures.averaging import Scores, score_arrays
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.reproducibility_table import COLUMNS, OrderSettings, Reproduction, reproducibility_table
from irmeta.settings import ScoreSettings
from irmeta.support.formats import REPORT_FORMATS, check_tsv_names, refuse_infinite

FORMATS = REPORT_FORMATS
ROLES = ("original_baseline", "original_advanced", "reproduced_baseline", "reproduced_advanced")
_OWN_KEYWORDS = ("reproduced_qrels", "ktu_cutoff", "rbo_p", "rbo_depth")


@dataclass(frozen=True)
class Repro:
    """A reproduction's table with the settings its caption states."""

    table: pd.DataFrame
    order: OrderSettings
    setting: str


def order_settings(ktu_cutoff: Any = rm.KTU_CUTOFF, rbo_p: Any = rm.RBO_P, rbo_depth: Any = rm.RBO_DEPTH
                   ) -> OrderSettings:
    """KTU's cutoff, RBO's p and depth, checked (one line each refusal; a depth past where
    RBO's terms count is summed to there, :func:`~irmeta.metaeval.reproducibility.rbo_terms`)."""
    order = OrderSettings(check.integer("ktu_cutoff", ktu_cutoff, 1), check.number("rbo_p", rbo_p, 0.0, 1.0,
                          open_low=True, open_high=True), check.integer("rbo_depth", rbo_depth, 1))
    rm.rbo_terms(order.rbo_p, order.rbo_depth, 0)  # refused now, not after the runs are read
    return order


def repro(qrels: Any, original_baseline: Any, original_advanced: Any, reproduced_baseline: Any,
          reproduced_advanced: Any, measures: Sequence[str] = DEFAULT_MEASURES, *, reproduced_qrels: Any = None,
          ktu_cutoff: int = rm.KTU_CUTOFF, rbo_p: float = rm.RBO_P, rbo_depth: int = rm.RBO_DEPTH,
          **settings: Any) -> pd.DataFrame:
    """The table of ``irmeta repro --format tsv`` as a DataFrame (undefined values NaN).
    Each run is a path or a run in memory, as :func:`irmeta.evaluate` takes them (one run
    each); ``settings``: :func:`irmeta.score`'s (``depth``, ``threshold``, ``alphas``,
    ``gains``...), checked as it checks them, before any file is read."""
    return reproduce(qrels, (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced),
                     measures, reproduced_qrels=reproduced_qrels,
                     order=order_settings(ktu_cutoff, rbo_p, rbo_depth), **settings).table


def reproduce(qrels: Any, runs: Sequence[Any], measures: Sequence[str] = DEFAULT_MEASURES, *,
              reproduced_qrels: Any = None, order: OrderSettings | None = None, **settings: Any) -> Repro:
    """:func:`repro` on the four runs in :data:`ROLES` order, with the settings kept."""
    s = check.score_settings("repro", measures, settings, own=_OWN_KEYWORDS)
    order = order or OrderSettings()
    if s.average != "all":
        raise ValueError("repro pairs topics of the original and reproduced runs (average 'all'), so average "
                         f"{s.average!r} is refused")
    original_qrels = to_qrels(qrels, qrels_format=s.qrels_format)
    other = reproduced_qrels is not None
    files = [_read_one(role, run, s) for role, run in zip(ROLES, runs)]
    if other:
        original = _scored(original_qrels, files[:2], ROLES[:2], s)
        reproduced = _scored(to_qrels(reproduced_qrels, "reproduced_qrels", s.qrels_format), files[2:], ROLES[2:], s)
        pairs = [Reproduction(ROLES[i], ROLES[i + 2]) for i in (0, 1)]
    else:
        original = reproduced = _scored(original_qrels, files, ROLES, s)
        pairs = [Reproduction(ROLES[i], ROLES[i + 2], ranking_of_file(files[i]), ranking_of_file(files[i + 2]))
                 for i in (0, 1)]
        for i, pair in enumerate(pairs):
            _refuse_disjoint(pair, files[i], files[i + 2])
    setting = "other_collection" if other else "same_collection"
    table = reproducibility_table(original, reproduced, *pairs, setting=setting, order=order,
                                  names=(files[0].name, files[1].name))
    return Repro(table, order, setting)


def _refuse_disjoint(pair: Reproduction, original: RunFile, reproduced: RunFile) -> None:
    """A reproduction on the same collection must share a topic with its original."""
    assert pair.original_ranking is not None and pair.reproduced_ranking is not None
    if not set(pair.original_ranking) & set(pair.reproduced_ranking):
        raise ValueError(f"{reproduced.path}: the {pair.reproduced.replace('_', ' ')} run {reproduced.name} shares "
                         f"no topic with the original run {original.name} ({original.path})")


def _read_one(role: str, run: Any, s: ScoreSettings) -> RunFile:
    """The one run given as ``role``, in trec_eval's order, cut at ``depth``; named ``role``
    in the scores (two reproductions may share a file name), its own name kept aside."""
    sources = run_sources(run)
    if len(sources) != 1:
        raise ValueError(f"{role}: expected one run, got {len(sources)}")
    return read_given(sources[0], s.run_name, s.depth, s.duplicates, s.score_precision)  # type: ignore[arg-type]


def _scored(qrels: Any, files: list[RunFile], roles: Sequence[str], s: ScoreSettings) -> Scores:
    """The runs' per-topic scores on ``qrels``, each run named by its role; a run sharing
    no topic with the qrels is refused (it would score 0 everywhere)."""
    named = [replace(f, name=role) for f, role in zip(files, roles)]
    matrix, _ = judge_each(named, lambda f: f, qrels, depth=s.depth, threshold=s.threshold, duplicates=s.duplicates)
    for f, role, returned in zip(files, roles, matrix.length.sum(axis=1)):
        if returned == 0:
            raise ValueError(f"{f.path}: the {role.replace('_', ' ')} run {f.name} shares no topic with the "
                             f"qrels ({qrels.source})")
    return score_arrays(matrix, s.measures, averaging=(s.average,), alphas=s.alphas, rarity_depth=s.rarity_depth,
                        **s.options)


# ------------------------------------------------------------------- output

_NUMBERS = [c for c in COLUMNS if c not in ("setting", "baseline", "advanced", "measure", "alpha")]


def _caption(r: Repro) -> str:
    where = ("on the original's collection" if r.setting == "same_collection"
             else "on another collection (document order and scores not compared; unpaired t-test)")
    o = r.order
    return (f"Reproducibility measures (Breuer et al., SIGIR 2020), reproductions {where}; KTU at "
            f"{o.ktu_cutoff}, RBO p {o.rbo_p:g} to depth {o.rbo_depth}: ktu is Kendall's tau-b over the union of "
            f"the two lists, rbo Webber et al.'s extrapolated RBO (eq. 32, a shorter ranking extrapolated), "
            f"rbo_repro_eval repro_eval's normalised finite-depth RBO; documents in trec_eval's order (score ties "
            f"broken by document id). Empty: undefined.")


def repro_tsv(table: pd.DataFrame, digits: int | None = None) -> str:
    """The table as TSV, :data:`COLUMNS`, full precision (or ``digits`` decimals), an
    undefined value an empty cell; names TSV cannot carry and infinities refused."""
    for column in ("baseline", "advanced", "measure"):
        check_tsv_names(column, pd.unique(table[column]))
    for column in _NUMBERS:
        refuse_infinite(table[column].to_numpy(np.float64), lambda i, column=column: (
            f"repro's {column} of {table['measure'].iat[i]} for {table['baseline'].iat[i]}"))
    return table.to_csv(sep="\t", index=False, lineterminator="\n", na_rep="",
                        float_format=None if digits is None else f"%.{digits}f")


def render(r: Repro, fmt: str = "markdown", digits: int | None = None) -> str:
    """The table in one of :data:`FORMATS`; ``digits`` None: 4 decimals in Markdown and
    LaTeX (through :func:`irmeta.artefacts.tables.table_texts`), full precision in TSV."""
    fmt = check.choice("format", fmt, FORMATS)
    if fmt == "tsv":
        return repro_tsv(r.table, digits)
    texts = table_texts(r.table, _caption(r), f"{{:.{4 if digits is None else digits}f}}", "repro")
    return texts["md" if fmt == "markdown" else "tex"]
