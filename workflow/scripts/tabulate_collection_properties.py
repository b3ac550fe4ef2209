"""Rule tabulate_collection_properties: every collection's row in one table."""

from irmeta.pipeline.properties import gather_properties
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    table = gather_properties(list(smk.input.rows), smk.output.table)
    log.info("wrote %s (%d collections)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
