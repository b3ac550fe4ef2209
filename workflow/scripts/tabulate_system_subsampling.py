"""Rule tabulate_system_subsampling: Table 3 from the subsampling shards, and its figure."""

from pathlib import Path

from irmeta.artefacts.figures.collection import plot_system_subsampling
from irmeta.metaeval.system_subsampling import subsampling_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import read_shards, read_table, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    table = subsampling_table(read_shards(smk.input.taus))
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))
    plot_system_subsampling(read_table(smk.output.table, "system_subsampling"), Path(smk.output.figure).with_suffix(""))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
