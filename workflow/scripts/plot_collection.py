"""Rule plot_collection: one collection's figures with irmeta.plots."""

from pathlib import Path

import pandas as pd

from irmeta import plots
from irmeta.pipeline import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    folder = Path(smk.output.kendall_tau).parent

    def table(name: str) -> pd.DataFrame:
        return pd.read_csv(getattr(smk.input, name), dtype={"alpha": str, "topic": str, "qid": str}
                           if name != "synthetic_rare_common" else {"topic": str})

    tasks = [
        lambda: plots.plot_discriminative_power(table("discriminative_power"), folder / "discriminative_power"),
        lambda: plots.plot_synthetic_rare_common(table("synthetic_rare_common"), folder / "synthetic_rare_common"),
        lambda: plots.plot_kendall_tau({smk.params.label: table("kendall_tau")}, folder / "kendall_tau"),
        lambda: plots.plot_stability(table("stability"), folder / "stability"),
        lambda: plots.plot_system_subsampling(table("system_subsampling"), folder / "system_subsampling"),
        lambda: plots.plot_rarity_distribution(pd.read_parquet(smk.input.rarity), folder / "rarity_distribution"),
    ]
    plots.render_all(tasks, processes=smk.threads)
    log.info("wrote the figures of %s in %s", smk.params.label, folder)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
