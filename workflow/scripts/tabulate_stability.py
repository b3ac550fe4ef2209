"""Rule tabulate_stability: Table 2 from the stability shards, and its figure."""

from pathlib import Path

from irmeta.api import stability_table
from irmeta.artefacts.figures.collection import plot_stability
from irmeta.metaeval.stability import StabilityCounts
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import read_table, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    shards = [StabilityCounts.load(p) for p in smk.input.counts]
    table = stability_table(trials=smk.params.trials, seed=smk.params.seed, counts=shards)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))
    plot_stability(read_table(smk.output.table, "stability"), Path(smk.output.figure).with_suffix(""))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
