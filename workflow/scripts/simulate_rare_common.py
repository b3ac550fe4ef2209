"""Rule simulate_rare_common: Figure 1's table with irmeta.metaeval.synthetic_rare_common.synthetic_rare_common."""

import numpy as np
import pandas as pd

from irmeta.campaign.store import load_matrix
from irmeta.measures.names import parse_measure
from irmeta.metaeval.synthetic_rare_common import synthetic_rare_common
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    settings = dict(smk.params.settings)
    cutoff = parse_measure(settings["measure"]).cutoff
    matrix = load_matrix(smk.input.judged)
    # Default topic: the one with the most relevant documents (first such in topic order).
    topic = smk.params.topic or matrix.topics[int(np.argmax(matrix.n_relevant))]
    log.info("synthetic rare/common on topic %s (%d relevant), %s", topic,
             matrix.n_relevant[matrix.topics.index(topic)], settings)
    tables = []
    for variant in settings["rare_systems"]:
        table = synthetic_rare_common(matrix, topic, cutoff=cutoff, alphas=settings["alphas"],
                                      max_relevant=settings["max_relevant"], rare_systems=variant)
        tables.append(table.assign(rare_systems=variant, n_systems=len(matrix.runs) + 1))
    write_csv(pd.concat(tables, ignore_index=True), smk.output.table)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
