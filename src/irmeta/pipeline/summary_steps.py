"""Jobs that summarise tables other jobs wrote, or read the campaign's relevant postings
once, and draw their figures: about a second of work and half a gigabyte at every size
(10^9 lines included), less than a script's start (an interpreter, pandas and
matplotlib). Their rules are localrules that run them in the workflow's own process
(:func:`irmeta.pipeline.scripts.run_in_process`); each returns what its log says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def _stem(figure: str | Path) -> Path:
    return Path(figure).with_suffix("")


def stability_step(counts: Sequence[str | Path], *, trials: int, seed: int, table_out: str | Path,
                   figure: str | Path) -> str:
    """Table 2 (:func:`irmeta.api.stability_table`) from the shards' per-pair counts, and
    its figure."""
    from irmeta.api import stability_table
    from irmeta.artefacts.figures.collection import plot_stability
    from irmeta.metaeval.stability import StabilityCounts
    from irmeta.pipeline.stored_scores import read_table, write_csv

    table = stability_table(trials=trials, seed=seed, counts=[StabilityCounts.load(p) for p in counts])
    write_csv(table, table_out)
    plot_stability(read_table(table_out, "stability"), _stem(figure))
    return f"wrote {table_out} ({len(table)} rows) and {figure}"


def system_subsampling_step(taus: Sequence[str | Path], *, table_out: str | Path, figure: str | Path) -> str:
    """Table 3 (:func:`irmeta.metaeval.system_subsampling.subsampling_table`) from the
    shards' taus, and its figure."""
    from irmeta.artefacts.figures.collection import plot_system_subsampling
    from irmeta.metaeval.system_subsampling import subsampling_table
    from irmeta.pipeline.stored_scores import read_shards, read_table, write_csv

    table = subsampling_table(read_shards(list(taus)))
    write_csv(table, table_out)
    plot_system_subsampling(read_table(table_out, "system_subsampling"), _stem(figure))
    return f"wrote {table_out} ({len(table)} rows) and {figure}"


def label_agreement_figures_step(*, confusion: str | Path, labels: str | Path, agreement: str | Path,
                                 outputs: Mapping[str, str], title: str) -> str:
    """The grade confusion heatmaps and kappa against Kendall's tau, from the label and
    judgment agreement tables (``outputs``: confusion, confusion_pdf, kappa_tau,
    kappa_tau_pdf)."""
    import pandas as pd

    from irmeta.artefacts.figures.judgment_sets import plot_kappa_tau, plot_label_confusion

    plot_label_confusion(pd.read_csv(confusion), outputs["confusion"], outputs["confusion_pdf"], title=title)
    plot_kappa_tau(pd.read_csv(labels, keep_default_na=False, na_values=[""]),
                   pd.read_csv(agreement, keep_default_na=False, na_values=[""]),
                   outputs["kappa_tau"], outputs["kappa_tau_pdf"], title=title)
    return f"wrote {outputs['confusion']} and {outputs['kappa_tau']}"


def paper_step(inputs: Any, *, names: Sequence[str], labels: Sequence[str], swap: bool,
               settings: Mapping[str, Any], synthetic_measure: str, comparison_out: str | Path) -> str:
    """The paper's Tables 1-3 laid out as published, Figure 2 (measures named as the tables name them) and
    published_vs_reproduced.md, beside ``comparison_out`` (``inputs``: the rule's named
    inputs, :func:`irmeta.pipeline.paper_inputs.read_paper_frames`)."""
    from irmeta.artefacts.figures.collection import plot_kendall_tau
    from irmeta.artefacts.paper.outputs import write_paper_tables
    from irmeta.artefacts.paper.published_vs_reproduced import published_vs_reproduced
    from irmeta.artefacts.paper.report import load_published
    from irmeta.pipeline.paper_inputs import read_paper_frames, read_swap_tables
    from irmeta.support.atomic import atomic_write_bytes

    out = Path(comparison_out).parent
    collections = dict(zip(names, labels))
    frames = read_paper_frames(inputs, collections)
    write_paper_tables(frames, out, swap=read_swap_tables(inputs, collections) if swap else None)
    plot_kendall_tau({label: f["kendall_tau"] for label, f in frames.items()}, out / "figure2")
    text = published_vs_reproduced(load_published(inputs.published), frames, dict(settings),
                                   synthetic_measure=synthetic_measure)
    atomic_write_bytes(comparison_out, text.encode("utf-8"))
    return f"wrote the paper's tables for {', '.join(frames)}"


def claims_step(inputs: Any, *, collections: Mapping[str, str], comparisons: Sequence[Any], tau_threshold: float,
                csv_out: str | Path, figure: str | Path, pdf: str | Path) -> str:
    """Do the paper's claims hold? (:func:`irmeta.artefacts.claims.claims_table`) per
    collection, under the paper's protocol and the alternatives: CSV, Markdown and LaTeX
    beside ``csv_out``, and the figure (``inputs``: the rule's named inputs)."""
    from irmeta.artefacts.claims import claims_table, write_claims
    from irmeta.artefacts.claims_unfilled import unfilled_claims
    from irmeta.artefacts.figures.claims import plot_claims
    from irmeta.pipeline.paper_inputs import add_collection_tables, read_collection_tables
    from irmeta.pipeline.properties import read_properties
    from irmeta.pipeline.reusability import add_reusability_summaries

    collections = dict(collections)
    given = dict(inputs.items())
    tables = read_collection_tables(inputs, collections, ["kendall_tau", "discriminative_power", "stability"])
    tables = add_reusability_summaries(tables, given, collections)
    tables = add_collection_tables(tables, given, collections, "judgment_agreement")
    tables = add_collection_tables(tables, given, collections, "test_error_rates")
    table = claims_table(tables, list(comparisons), tau_threshold=tau_threshold)
    labels = list(collections.values())
    write_claims(table, Path(csv_out).with_suffix(""), collections=labels,
                 properties=read_properties(inputs.properties),
                 unfilled=unfilled_claims(table, tables, list(comparisons)))
    plot_claims(table, figure, pdf, collections=labels)
    return f"wrote {Path(csv_out).with_suffix('.md')}: {len(table)} claims over {len(labels)} collections"


def rarity_listing_step(judged: str | Path, *, depths: Sequence[int | None], functions: Sequence[str],
                        topics: Sequence[str], rarity_out: str | Path, table_out: str | Path,
                        figure: str | Path) -> str:
    """S_d, R(d), R'(d) of every relevant document (``rarity.parquet``,
    :func:`irmeta.pipeline.steps.rarity_collection`); Table 4, those of ``topics``; and the
    distribution of every relevant document's rarity (0.7 s and 0.5 GB at 10^9 lines)."""
    import pandas as pd

    from irmeta.artefacts.figures.collection import plot_rarity_distribution
    from irmeta.pipeline.experiments import rarity_listing_table
    from irmeta.pipeline.steps import rarity_collection
    from irmeta.pipeline.stored_scores import write_csv

    rarity_collection(matrix=judged, out=rarity_out, depths=list(depths), functions=list(functions))
    rarity = pd.read_parquet(rarity_out)  # as the listing read it when a job of its own wrote it
    listing = rarity_listing_table(rarity, list(topics))
    write_csv(listing, table_out)
    plot_rarity_distribution(rarity, _stem(figure))
    return f"rarity of {judged} at depths {list(depths)}; wrote {table_out} ({len(listing)} documents x depths)"


def synthetic_rare_common_step(judged: str | Path, *, settings: Mapping[str, Any], rarity_depth: int | None,
                               topic: str | None, table_out: str | Path, figure: str | Path) -> str:
    """Figure 1's table (:func:`irmeta.metaeval.synthetic_rare_common.synthetic_rare_common_table`)
    on one topic of the campaign, and the figure (0.9 s and 0.5 GB at 10^9 lines)."""
    from irmeta.artefacts.figures.collection import plot_synthetic_rare_common
    from irmeta.campaign.store import load_matrix
    from irmeta.metaeval.synthetic_rare_common import synthetic_rare_common_table
    from irmeta.pipeline.experiments import synthetic_topic
    from irmeta.pipeline.stored_scores import read_table, write_csv

    settings = dict(settings)
    matrix = load_matrix(judged)
    chosen = synthetic_topic(matrix, topic)
    write_csv(synthetic_rare_common_table(matrix, chosen, settings, rarity_depth), table_out)
    plot_synthetic_rare_common(read_table(table_out, "synthetic_rare_common"), _stem(figure),
                               measure=settings["measure"])
    return (f"synthetic rare/common on topic {chosen} ({matrix.n_relevant[matrix.topics.index(chosen)]} relevant), "
            f"{settings}, S_d at {rarity_depth or 'the cutoff'}; wrote {table_out}")
