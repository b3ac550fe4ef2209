"""Rule simulate_rare_common: Figure 1's table with irmeta.metaeval.synthetic_rare_common, and
the figure."""

from pathlib import Path

from irmeta.artefacts.figures.collection import plot_synthetic_rare_common
from irmeta.campaign.store import load_matrix
from irmeta.metaeval.synthetic_rare_common import synthetic_rare_common_table
from irmeta.pipeline.experiments import synthetic_topic
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import read_table, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    settings = dict(smk.params.settings)
    matrix = load_matrix(smk.input.judged)
    topic = synthetic_topic(matrix, smk.params.topic)
    log.info("synthetic rare/common on topic %s (%d relevant), %s, S_d at %s", topic,
             matrix.n_relevant[matrix.topics.index(topic)], settings, smk.params.rarity_depth or "the cutoff")
    write_csv(synthetic_rare_common_table(matrix, topic, settings, smk.params.rarity_depth), smk.output.table)
    plot_synthetic_rare_common(read_table(smk.output.table, "synthetic_rare_common"),
                               Path(smk.output.figure).with_suffix(""), measure=settings["measure"])


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
