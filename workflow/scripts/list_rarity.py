"""Rule list_rarity: Table 4, the rarity of the configured topics' relevant documents, and the
distribution of every relevant document's rarity."""

from pathlib import Path

import pandas as pd

from irmeta.artefacts.figures.collection import plot_rarity_distribution
from irmeta.pipeline.experiments import rarity_listing_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    rarity = pd.read_parquet(smk.input.rarity)
    listing = rarity_listing_table(rarity, smk.params.topics)
    write_csv(listing, smk.output.table)
    log.info("wrote %s (%d documents x depths)", smk.output.table, len(listing))
    plot_rarity_distribution(rarity, Path(smk.output.figure).with_suffix(""))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
