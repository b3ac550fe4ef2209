"""Rule list_rarity: S_d, R(d), R'(d) of every relevant document (irmeta.pipeline.steps);
Table 4, the rarity of the configured topics' relevant documents, and the distribution of
every relevant document's rarity."""

from pathlib import Path

import pandas as pd

from irmeta.artefacts.figures.collection import plot_rarity_distribution
from irmeta.pipeline.experiments import rarity_listing_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.steps import rarity_collection
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    log.info("rarity of %s at depths %s", smk.input.judged, smk.params.depths)
    rarity_collection(matrix=smk.input.judged, out=smk.output.rarity, depths=list(smk.params.depths),
                      functions=list(smk.params.rarity_functions))
    rarity = pd.read_parquet(smk.output.rarity)  # as the listing read it when a job of its own wrote it
    listing = rarity_listing_table(rarity, smk.params.topics)
    write_csv(listing, smk.output.table)
    log.info("wrote %s (%d documents x depths)", smk.output.table, len(listing))
    plot_rarity_distribution(rarity, Path(smk.output.figure).with_suffix(""))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
