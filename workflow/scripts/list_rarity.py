"""Rule list_rarity: Table 4, the rarity of the configured topics' relevant documents."""

import pandas as pd

from irmeta.pipeline.experiments import rarity_listing_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    listing = rarity_listing_table(pd.read_parquet(smk.input.rarity), smk.params.topics)
    write_csv(listing, smk.output.table)
    log.info("wrote %s (%d documents x depths)", smk.output.table, len(listing))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
