"""Rule tabulate_stability: Table 2 from the stability shards."""

import pandas as pd

from irmeta.experiments import stability_table
from irmeta.pipeline import log_to, run_script, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    shards = [pd.read_parquet(p) for p in smk.input.counts]
    per_trial = int(shards[0]["topics_per_trial"].iloc[0])
    table = stability_table([s.drop(columns="topics_per_trial") for s in shards], topics_per_trial=per_trial,
                            trials=smk.params.trials, seed=smk.params.seed)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
