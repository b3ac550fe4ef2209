"""Rule tabulate_system_subsampling: Table 3 from the subsampling shards."""

import pandas as pd

from irmeta.metaeval.system_subsampling import subsampling_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    table = subsampling_table([pd.read_parquet(p) for p in smk.input.taus])
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
