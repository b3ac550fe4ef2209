"""Rule tabulate_discriminative_power: Table 1 with irmeta.metaeval.discriminative_power.discriminative_power_table."""

from irmeta.api import discriminative_power_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, merged_shards, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    scores = load_scores(smk.input.scores, smk.params.measures)
    table = discriminative_power_table(scores, smk.params.measures, methods=list(smk.params.methods),
                                       levels=list(smk.params.levels), null=merged_shards(smk.input.null),
                                       randomised_p=smk.params.randomised_p)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
