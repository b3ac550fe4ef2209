"""Rule plot_label_agreement: irmeta.artefacts.figures.judgment_sets' grade confusion
heatmaps and kappa against Kendall's tau."""

import pandas as pd

from irmeta.artefacts.figures.judgment_sets import plot_kappa_tau, plot_label_confusion
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    plot_label_confusion(pd.read_csv(smk.input.confusion), smk.output.confusion, smk.output.confusion_pdf,
                         title=smk.params.label)
    plot_kappa_tau(pd.read_csv(smk.input.labels, keep_default_na=False, na_values=[""]),
                   pd.read_csv(smk.input.agreement, keep_default_na=False, na_values=[""]),
                   smk.output.kappa_tau, smk.output.kappa_tau_pdf, title=smk.params.label)
    log.info("wrote %s and %s", smk.output.confusion, smk.output.kappa_tau)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
