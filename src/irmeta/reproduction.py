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
names (file name minus ``.gz``, or the tag with ``run_name="tag"``). ``ties`` (some of
``a``, ``b``, ``w``) adds the tie-aware KTU and RBO columns, the runs' equal scores tied
(:func:`~irmeta.metaeval.reproducibility.tied_document_order`); none by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

import irmeta.settings as check
from irmeta.api import DEFAULT_MEASURES
from irmeta.artefacts.tables import latex_table, markdown_table
from irmeta.campaign.in_memory import read_given, run_sources, to_qrels
from irmeta.campaign.judge import judge_each
from irmeta.campaign.rankings import ranking_of_file, scores_of_file
from irmeta.campaign.runs import RunFile
from irmeta.measures.averaging import Scores, score_arrays
from irmeta.measures.diversity import refuse_without_subtopics
from irmeta.measures.typed import spellings_note, typed_labels
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.reproducibility_table import (
    COLUMNS,
    OrderSettings,
    Reproduction,
    reproducibility_table,
)
from irmeta.metaeval.tied_agreement import order_columns
from irmeta.settings import ScoreSettings
from irmeta.support.formats import (
    REPORT_FORMATS,
    check_tsv_names,
    markdown_escape,
    refuse_infinite,
    refuse_infinite_cells,
)

FORMATS = REPORT_FORMATS
ROLES = ("original_baseline", "original_advanced", "reproduced_baseline", "reproduced_advanced")
_OWN_KEYWORDS = ("reproduced_qrels", "ktu_cutoff", "rbo_p", "rbo_depth", "ties")


@dataclass(frozen=True)
class Repro:
    """A reproduction's table with the settings its caption states."""

    table: pd.DataFrame
    order: OrderSettings
    setting: str
    #: the four runs' names, in :data:`ROLES` order (the table names the originals alone)
    runs: tuple[str, ...] = ()


def order_settings(ktu_cutoff: Any = rm.KTU_CUTOFF, rbo_p: Any = rm.RBO_P, rbo_depth: Any = rm.RBO_DEPTH,
                   ties: Any = ()) -> OrderSettings:
    """KTU's cutoff, RBO's p and depth, the tie-aware variants, checked (one line each
    refusal; a depth past where RBO's terms count is summed to there,
    :func:`~irmeta.metaeval.reproducibility.rbo_terms`)."""
    if not isinstance(ties, str):
        check.items("ties", ties, empty=True)
    order = OrderSettings(check.integer("ktu_cutoff", ktu_cutoff, 1), check.number("rbo_p", rbo_p, 0.0, 1.0,
                          open_low=True, open_high=True), check.integer("rbo_depth", rbo_depth, 1),
                          (ties,) if isinstance(ties, str) else tuple(ties))
    rm.rbo_terms(order.rbo_p, order.rbo_depth, 0)  # refused now, not after the runs are read
    return order


def repro(qrels: Any, original_baseline: Any, original_advanced: Any, reproduced_baseline: Any,
          reproduced_advanced: Any, measures: Sequence[str] = DEFAULT_MEASURES, *, reproduced_qrels: Any = None,
          ktu_cutoff: int = rm.KTU_CUTOFF, rbo_p: float = rm.RBO_P, rbo_depth: int = rm.RBO_DEPTH,
          ties: Sequence[str] = (), **settings: Any) -> pd.DataFrame:
    """The table of ``irmeta repro --format tsv`` as a DataFrame (undefined values NaN).
    Each run is a path or a run in memory, as :func:`irmeta.evaluate` takes them (one run
    each); ``ties``: the tie-aware KTU and RBO columns added (``a``: ``ktu_a_*``,
    ``rbo_a_*``; ``b``: ``ktu_b_*``, ``rbo_b_*``; ``w``: ``rbo_w_*``), the runs' equal
    scores tied; ``settings``: :func:`irmeta.score`'s (``depth``, ``threshold``,
    ``alphas``, ``gains``...), checked as it checks them, before any file is read."""
    return reproduce(qrels, (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced),
                     measures, reproduced_qrels=reproduced_qrels,
                     order=order_settings(ktu_cutoff, rbo_p, rbo_depth, ties), **settings).table


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
        scores = [scores_of_file(f) for f in files] if order.ties else [None] * len(files)
        pairs = [Reproduction(ROLES[i], ROLES[i + 2], ranking_of_file(files[i]), ranking_of_file(files[i + 2]),
                              scores[i], scores[i + 2]) for i in (0, 1)]
        for i, pair in enumerate(pairs):
            _refuse_disjoint(pair, files[i], files[i + 2])
    setting = "other_collection" if other else "same_collection"
    table = reproducibility_table(original, reproduced, *pairs, setting=setting, order=order,
                                  names=(files[0].name, files[1].name))
    return Repro(table, order, setting, tuple(f.name for f in files))


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
    refuse_without_subtopics(s.measures, qrels.subtopics is not None, qrels.source or "the qrels")
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


#: The document-order columns of one run pair (the TSV repeats them on each measure's row).
_ORDER = ("ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval")
#: The score columns, per measure.
_SCORES = ("rmse_baseline", "rmse_advanced", "nrmse_baseline", "nrmse_advanced", "er", "delta_ri",
           "p_value_baseline", "p_value_advanced")


#: What each tie-aware column is, for the caption.
_TIED_MEANING = {
    "ktu_a": "ktu_a tau-a over the union (the original the truth; empty where it ties)",
    "rbo_a": "rbo_a Corsi and Urbano's RBO^a_ext (ties as uncertainty)",
    "ktu_b": "ktu_b tau-b over the union with score ties",
    "rbo_b": "rbo_b RBO^b_ext (RBO^a corrected for what ties lose)",
    "rbo_w": "rbo_w RBO^w_ext (tied documents share a rank)",
}


def _rankings_caption(r: Repro) -> str:
    o = r.order
    tied = order_columns(o.ties)
    also = (f" With the runs' equal scores tied (tie groups kept whole at the cut): "
            f"{', '.join(_TIED_MEANING[c] for c in tied)}." if tied else "")
    return (f"Reproducibility (Breuer et al., SIGIR 2020), the rankings: each reproduced run against its original, "
            f"KTU at {o.ktu_cutoff}, RBO p {o.rbo_p:g} to depth {o.rbo_depth}, averaged over the topics both "
            f"return: ktu is Kendall's tau-b over the union of the two lists, rbo Webber et al.'s extrapolated RBO "
            f"(eq. 32, a shorter ranking extrapolated), ktu_repro_eval and rbo_repro_eval repro_eval's forms (its "
            f"normalised finite-depth RBO); documents in trec_eval's order (score ties broken by document id)."
            f"{also} Empty: undefined.")


def _scores_caption(r: Repro, spellings: Mapping[str, str]) -> str:
    same = r.setting == "same_collection"
    where = ("on the original's collection: RMSE and nRMSE of the per-topic scores, original against reproduced, "
             if same else "on another collection (scores not paired topic by topic): ")
    runs = f" ({r.runs[1]} over {r.runs[0]})" if r.runs else ""
    return (f"Reproducibility (Breuer et al., SIGIR 2020), the scores of the reproductions {where}Effect Ratio "
            f"(er) and Delta RI of the advanced run over the baseline{runs}, and p of the "
            f"{'paired' if same else 'unpaired'} t-test between the original and reproduced scores. Empty: "
            f"undefined.{spellings_note(spellings)}")


def _report_blocks(r: Repro, digits: int, spellings: Mapping[str, str]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's blocks (caption, header, rows): the rankings, one row per run pair
    named (on the original's collection only: elsewhere the documents differ), then the
    scores, one row per measure (and alpha) as typed."""
    t = r.table
    refuse_infinite_cells(t, "repro")

    def number(v: Any) -> str:
        return "" if pd.isna(v) else f"{float(v):.{digits}f}"

    blocks = []
    if r.setting == "same_collection" and len(t):
        order = [*_ORDER, *order_columns(r.order.ties)]
        rows = [[pair, original, reproduced, *(number(t[f"{c}_{pair}"].iat[0]) for c in order)]
                for pair, original, reproduced in (("baseline", *r.runs[0::2]), ("advanced", *r.runs[1::2]))]
        blocks.append((_rankings_caption(r), ["pair", "original", "reproduced", *order], rows))
    alphas = bool((t["alpha"].astype(str) != "").any())
    scores = [c for c in _SCORES if r.setting == "same_collection" or not c.startswith(("rmse", "nrmse"))]
    rows = [[m, *([str(a)] if alphas else []), *(number(row[c]) for c in scores)]
            for m, a, (_, row) in zip(typed_labels(t["measure"], spellings), t["alpha"], t.iterrows())]
    blocks.append((_scores_caption(r, spellings), ["measure", *(["alpha"] if alphas else []), *scores], rows))
    return blocks


def repro_tsv(table: pd.DataFrame, digits: int | None = None) -> str:
    """The table as TSV, :data:`COLUMNS`, full precision (or ``digits`` decimals), an
    undefined value an empty cell; names TSV cannot carry and infinities refused."""
    for column in ("baseline", "advanced", "measure"):
        check_tsv_names(column, pd.unique(table[column]))
    for column in (c for c in _NUMBERS if c in table.columns):
        refuse_infinite(table[column].to_numpy(np.float64), lambda i, column=column: (
            f"repro's {column} of {table['measure'].iat[i]} for {table['baseline'].iat[i]}"))
    return table.to_csv(sep="\t", index=False, lineterminator="\n", na_rep="",
                        float_format=None if digits is None else f"%.{digits}f")


def repro_markdown(r: Repro, digits: int = 4, spellings: Mapping[str, str] | None = None) -> str:
    """The report as GitHub Markdown: the rankings block, then the scores block, each with
    its caption on the line above (:func:`_report_blocks`)."""
    parts = []
    for caption, header, rows in _report_blocks(r, digits, spellings or {}):
        right = [h not in ("pair", "original", "reproduced", "measure", "alpha") for h in header]
        parts.append("\n".join([markdown_escape(caption), "", *markdown_table(header, rows, right)]) + "\n")
    return "\n".join(parts)


def repro_latex(r: Repro, digits: int = 4, spellings: Mapping[str, str] | None = None) -> str:
    """The report as LaTeX ``table`` environments, the blocks of :func:`repro_markdown`."""
    parts = []
    for caption, header, rows in _report_blocks(r, digits, spellings or {}):
        spec = "".join("l" if h in ("pair", "original", "reproduced", "measure", "alpha") else "r" for h in header)
        parts.append("\n".join(latex_table(header, rows, spec, caption)) + "\n")
    return "\n".join(parts)


def render(r: Repro, fmt: str = "markdown", digits: int | None = None,
           spellings: Mapping[str, str] | None = None) -> str:
    """The reproduction in one of :data:`FORMATS`; ``digits`` None: 4 decimals in Markdown
    and LaTeX, full precision in TSV. ``spellings`` (canonical -> typed,
    :func:`~irmeta.measures.typed.typed_spellings`): the reports name the measures as
    typed; the TSV keeps the canonical names, one row per measure with every column."""
    fmt = check.choice("format", fmt, FORMATS)
    if fmt == "tsv":
        return repro_tsv(r.table, digits)
    shown = 4 if digits is None else digits
    return repro_markdown(r, shown, spellings) if fmt == "markdown" else repro_latex(r, shown, spellings)
