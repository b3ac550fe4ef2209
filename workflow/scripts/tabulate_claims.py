"""Rule tabulate_claims: irmeta.artefacts.claims across the configured collections."""

from pathlib import Path

from irmeta.artefacts.claims import claims_table, write_claims
from irmeta.artefacts.claims_unfilled import unfilled_claims
from irmeta.artefacts.figures.claims import plot_claims
from irmeta.pipeline.paper_inputs import add_collection_tables, read_collection_tables
from irmeta.pipeline.properties import read_properties
from irmeta.pipeline.reusability import add_reusability_summaries
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    collections = dict(smk.params.collections)
    tables = read_collection_tables(smk.input, collections, ["kendall_tau", "discriminative_power", "stability"])
    tables = add_reusability_summaries(tables, dict(smk.input.items()), collections)
    tables = add_collection_tables(tables, dict(smk.input.items()), collections, "judgment_agreement")
    table = claims_table(tables, list(smk.params.comparisons), tau_threshold=smk.params.tau_threshold)
    labels = list(collections.values())
    write_claims(table, Path(smk.output.csv).with_suffix(""), collections=labels,
                 properties=read_properties(smk.input.properties),
                 unfilled=unfilled_claims(table, tables, list(smk.params.comparisons)))
    plot_claims(table, smk.output.figure, smk.output.pdf, collections=labels)
    log.info("wrote %s: %d claims over %d collections", smk.output.md, len(table), len(labels))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
