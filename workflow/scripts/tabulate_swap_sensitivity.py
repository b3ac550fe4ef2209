"""Rule tabulate_swap_sensitivity: Sakai's Table 1 from the swap shards."""

from irmeta.metaeval.swap_sensitivity import swap_table
from irmeta.pipeline.experiments import swap_topic_set_size
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_shards, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    settings = dict(smk.params.settings)
    n_topics = len(load_scores(smk.input.scores, measures=[]).topics)
    table = swap_table(read_shards(smk.input.counts), trials=settings["trials"], sampling=settings["sampling"],
                       topic_set_size=swap_topic_set_size(settings, n_topics), bin_width=settings["bin_width"],
                       confidence=settings["confidence"], seed=smk.params.seed)
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
