"""The reusability step of the pipeline (rule ``assess_reusability``): leave-one-group-out
on a collection's judged postings, written as ``reusability.csv``, its summary and figure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irmeta.campaign.pools import judged_depth
from irmeta.campaign.run_groups import UnitKind, Units, groups_for_runs, run_units
from irmeta.campaign.store import load_matrix
from irmeta.measures.alpha import Alpha
from irmeta.measures.names import depth_read, parse_measure
from irmeta.metaeval.reusability import check_pool_depth, leave_one_unit_out
from irmeta.metaeval.reusability_tables import reusability_summary, reusability_table
from irmeta.pipeline.paper_inputs import paper_input
from irmeta.pipeline.properties import refuse_contradicted_pool_depth
from irmeta.pipeline.scripts import log
from irmeta.pipeline.stored_scores import load_scores, read_table, write_csv

if TYPE_CHECKING:
    import pandas as pd


def assess_reusability(*, judged: str | Path, scores: str | Path, run_groups: str | Path | None,
                       table_out: str | Path, summary_out: str | Path, figure_stem: str | Path,
                       measures: Sequence[str], alphas: Sequence[Alpha], rarity_depth: int | None,
                       pool_depth: int, unit: UnitKind = "group", rules: Sequence[str] = ("frozen", "joined"),
                       measure_options: Mapping[str, Any] | None = None, source: str = "the collection",
                       label: str = "", pool_depth_origin: str = "stated") -> None:
    """Score every run with its unit's solely pooled judgments removed; write the table,
    the summary and the figure. ``unit`` group falls back to run without ``run_groups``;
    ``source``: the collection file, named when ``pool_depth`` is too deep or contradicted
    by how deep the runs are judged (``pool_depth_origin``: stated, simulated or default;
    :func:`~irmeta.pipeline.properties.refuse_contradicted_pool_depth`)."""
    from irmeta.artefacts.figures.reusability import plot_reusability

    # Read as deep as the measures and the pools (TREC-8: 100 of the 1,000 stored): the same
    # scores, and memory for what is read (at 10^9 lines the whole misses took 16 GB).
    named = [parse_measure(m) for m in measures]  # config's names, read once as they enter the job
    read = depth_read(named, rarity_depth)
    matrix = load_matrix(judged, depth=None if read is None else max(read, int(pool_depth)))
    depth = check_pool_depth(pool_depth, matrix, source)
    measured = judged_depth(matrix, depth)
    refuse_contradicted_pool_depth(measured, pool_depth_origin, source)  # pools the runs were never built from
    units = reusability_units(run_groups, matrix.runs, unit)
    # Every alpha of these measures: a name may fix one the grid lacks (P_rareness(alpha=0.3)@100).
    full = load_scores(scores, [m.without_alpha() for m in named])
    log.info("leave-one-%s-out: %d units of %d runs, pool depth %d (%s; %d of %d runs wholly judged to it on most "
             "topics), rules %s", units.kind, units.n_units, matrix.n_runs, depth, pool_depth_origin,
             int(measured.judged_to_pool.sum()), measured.runs, list(rules))
    result = leave_one_unit_out(matrix, named, units, pool_depth=depth,
                                alphas=alphas, rarity_depth=rarity_depth, rules=rules, full=full,
                                measure_options=measure_options)
    table = reusability_table(result)
    write_csv(table, table_out)
    write_csv(reusability_summary(table), summary_out)
    plot_reusability(table, figure_stem, title=f"{label}: leave one {units.kind} out" if label else None)



def reusability_units(run_groups: str | Path | None, runs: Sequence[str], unit: UnitKind = "group") -> Units:
    """The units left out: the groups of ``run_groups`` read as the collection's properties
    read them (:func:`~irmeta.campaign.run_groups.groups_for_runs`), or each run alone
    (``unit`` run, or no groups file)."""
    groups = groups_for_runs(run_groups, runs) if run_groups is not None and unit == "group" else None
    return run_units(runs, groups, kind=unit, source=str(run_groups))


def add_reusability_summaries(tables: dict[str, dict[str, pd.DataFrame]], inputs: Mapping[str, Any],
                              collections: Mapping[str, str]) -> dict[str, dict[str, pd.DataFrame]]:
    """``tables`` (collection label -> table name -> frame) with each collection's
    ``reusability_summary`` added where ``inputs`` (named by
    :func:`~irmeta.pipeline.paper_inputs.paper_input`) hold one: the claims' reusability rows."""
    for name, label in collections.items():
        key = paper_input("reusability_summary", name)
        if key in inputs:
            tables[label]["reusability_summary"] = read_table(inputs[key], "reusability_summary")
    return tables
