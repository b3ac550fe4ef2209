"""Rule tabulate_swap_sensitivity: Sakai's Table 1 from the swap shards."""

from irmeta.api import swap_sensitivity_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_shards, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    settings = dict(smk.params.settings)
    topics_only = load_scores(smk.input.scores, measures=[])
    table = swap_sensitivity_table(topics_only, trials=settings["trials"], sampling=settings["sampling"],
                                   topic_set_size=settings["topic_set_size"], bin_width=settings["bin_width"],
                                   confidence=settings["confidence"], seed=smk.params.seed,
                                   counts=read_shards(smk.input.counts))
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
