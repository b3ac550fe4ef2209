"""Rule plot_collection: one collection's figures with irmeta.artefacts.figures."""

from functools import partial
from pathlib import Path

import pandas as pd

from irmeta.artefacts.figures.collection import (
    plot_discriminative_power,
    plot_kendall_tau,
    plot_rarity_distribution,
    plot_stability,
    plot_synthetic_rare_common,
    plot_system_subsampling,
)
from irmeta.artefacts.figures.style import render_all
from irmeta.artefacts.figures.topic_set_size import plot_topic_set_size
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import read_table

# Each figure from the inputs its rule has: plot_collection (every collection) and
# plot_rankings (collections with runs) share this script.
FIGURES = {
    "discriminative_power": lambda read, folder, label: plot_discriminative_power(
        read("discriminative_power"), folder / "discriminative_power"),
    "synthetic_rare_common": lambda read, folder, label: plot_synthetic_rare_common(
        read("synthetic_rare_common"), folder / "synthetic_rare_common"),
    "kendall_tau": lambda read, folder, label: plot_kendall_tau({label: read("kendall_tau")}, folder / "kendall_tau"),
    "stability": lambda read, folder, label: plot_stability(read("stability"), folder / "stability"),
    "system_subsampling": lambda read, folder, label: plot_system_subsampling(
        read("system_subsampling"), folder / "system_subsampling"),
    "rarity": lambda read, folder, label: plot_rarity_distribution(
        pd.read_parquet(read.path("rarity")), folder / "rarity_distribution"),
    "topic_set_size": lambda read, folder, label: plot_topic_set_size(
        read("topic_set_size"), read("minimum_detectable_difference"), folder / "topic_set_size", label),
}


class _Tables:
    def __init__(self, smk) -> None:
        self.smk = smk

    def path(self, name: str) -> str:
        return getattr(self.smk.input, name)

    def __call__(self, name: str) -> pd.DataFrame:
        return read_table(self.path(name), name)


def main(smk) -> None:
    log = log_to(smk.log[0])
    folder = Path(smk.output.pdfs[0]).parent
    read = _Tables(smk)
    given = [name for name in FIGURES if name in smk.input.keys()]
    tasks = [partial(FIGURES[name], read, folder, smk.params.label) for name in given]
    render_all(tasks, processes=smk.threads)
    log.info("wrote the figures of %s in %s: %s", smk.params.label, folder, ", ".join(given))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
