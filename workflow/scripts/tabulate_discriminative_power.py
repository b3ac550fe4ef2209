"""Rule tabulate_discriminative_power: Table 1 with irmeta.experiments.discriminative_power_table."""

import pandas as pd

from irmeta.experiments import discriminative_power_table, score_matrices
from irmeta.pipeline import load_scores, log_to, run_script, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    matrices = score_matrices(load_scores(smk.input.scores, list(smk.params.measures)))
    null = pd.concat([pd.read_parquet(p) for p in smk.input.null], ignore_index=True) if smk.input.null else None
    table = discriminative_power_table(matrices, methods=list(smk.params.methods),
                                       levels=list(smk.params.levels), null=null)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
