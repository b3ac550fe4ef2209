"""Rule tabulate_variance: anova.csv, topic_set_size.csv and minimum_detectable_difference.csv
with irmeta.metaeval.variance.variance_tables, from scores.npz read once, and the topic set
size figure."""

from pathlib import Path

from irmeta.artefacts.figures.topic_set_size import plot_topic_set_size
from irmeta.metaeval.variance import variance_tables
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_table, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    settings = smk.params.topic_set_size
    tables = variance_tables(load_scores(smk.input.scores), alpha_level=settings["alpha_level"],
                             beta=settings["beta"], min_differences=list(settings["min_differences"]),
                             systems=list(settings["systems"]))
    for name, table in tables.items():
        write_csv(table, getattr(smk.output, name))
        log.info("wrote %s (%d rows)", getattr(smk.output, name), len(table))
    plot_topic_set_size(read_table(smk.output.topic_set_size, "topic_set_size"),
                        read_table(smk.output.minimum_detectable_difference, "minimum_detectable_difference"),
                        Path(smk.output.figure).with_suffix(""), smk.params.label,
                        anova=read_table(smk.output.anova, "anova"))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
