"""Rule tabulate_discriminative_power: Table 1 with irmeta.metaeval.discriminative_power.discriminative_power_table,
and its figure."""

from pathlib import Path

from irmeta.api import discriminative_power_table
from irmeta.artefacts.figures.collection import plot_discriminative_power
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_pairwise import StoredFamilies
from irmeta.pipeline.stored_scores import load_scores, merged_shards, read_table, write_csv

PVALUE_COLUMNS = ["measure", "alpha", "method", "p_value", "p_adjusted_holm", "p_adjusted_bh", "p_adjusted_bonferroni"]


def main(smk) -> None:
    log = log_to(smk.log[0])
    scores = load_scores(smk.input.scores, smk.params.measures)
    # the paired tests' counts are read from test_run_pairs' table, one family at a time
    pairwise = StoredFamilies(smk.input.pairwise, PVALUE_COLUMNS) if smk.input.pairwise else None
    table = discriminative_power_table(scores, smk.params.measures, methods=list(smk.params.methods),
                                       levels=list(smk.params.levels), null=merged_shards(smk.input.null),
                                       randomised_p=smk.params.randomised_p,
                                       corrections=list(smk.params.corrections), pairwise=pairwise,
                                       permutations=smk.params.permutations)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))
    plot_discriminative_power(read_table(smk.output.table, "discriminative_power"),
                              Path(smk.output.figure).with_suffix(""))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
