"""Rule tabulate_discriminative_power: Table 1 with irmeta.metaeval.discriminative_power.discriminative_power_table."""

import pandas as pd

from irmeta.metaeval.discriminative_power import discriminative_power_table
from irmeta.metaeval.score_matrices import score_matrices
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    matrices = score_matrices(load_scores(smk.input.scores, list(smk.params.measures)))
    null = pd.concat([pd.read_parquet(p) for p in smk.input.null], ignore_index=True) if smk.input.null else None
    table = discriminative_power_table(matrices, methods=list(smk.params.methods),
                                       levels=list(smk.params.levels), null=null)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
