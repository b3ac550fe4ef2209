"""Rule plot_collection: one collection's figures with irmeta.artefacts.figures."""

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
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import read_table


def main(smk) -> None:
    log = log_to(smk.log[0])
    folder = Path(smk.output.kendall_tau).parent

    def table(name: str) -> pd.DataFrame:
        return read_table(getattr(smk.input, name), name)

    tasks = [
        lambda: plot_discriminative_power(table("discriminative_power"), folder / "discriminative_power"),
        lambda: plot_synthetic_rare_common(table("synthetic_rare_common"), folder / "synthetic_rare_common"),
        lambda: plot_kendall_tau({smk.params.label: table("kendall_tau")}, folder / "kendall_tau"),
        lambda: plot_stability(table("stability"), folder / "stability"),
        lambda: plot_system_subsampling(table("system_subsampling"), folder / "system_subsampling"),
        lambda: plot_rarity_distribution(pd.read_parquet(smk.input.rarity), folder / "rarity_distribution"),
    ]
    render_all(tasks, processes=smk.threads)
    log.info("wrote the figures of %s in %s", smk.params.label, folder)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
