"""Rule list_rarity: Table 4, the rarity of the configured topics' relevant documents."""

import pandas as pd

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    listing = pd.read_parquet(smk.input.rarity)
    topics = list(smk.params.topics)
    if topics:
        missing = sorted(set(topics) - set(listing["qid"]))
        if missing:
            raise ValueError(f"listing_topics not in the qrels (or without relevant documents): {missing}")
        listing = listing[listing["qid"].isin(topics)]
    listing = listing.sort_values(["qid", "depth", "rarity", "docid"], ascending=[True, True, False, True],
                                  kind="stable")
    write_csv(listing, smk.output.table)
    log.info("wrote %s (%d documents x depths)", smk.output.table, len(listing))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
