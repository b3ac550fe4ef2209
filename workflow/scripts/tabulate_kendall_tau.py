"""Rule tabulate_kendall_tau: Figure 2's table with irmeta.metaeval.kendall_tau.kendall_tau_table,
and the figure (drawn from the table as written)."""

from pathlib import Path

from irmeta.api import kendall_tau_table
from irmeta.artefacts.figures.collection import plot_kendall_tau
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_table, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    scores = load_scores(smk.input.scores)
    table = kendall_tau_table(scores, list(smk.params.comparisons), tau_ap=list(smk.params.tau_ap),
                              bootstrap_samples=smk.params.bootstrap_samples, rbo_p=smk.params.rbo_p,
                              seed=smk.params.seed, ties=list(smk.params.ties))
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))
    plot_kendall_tau({smk.params.label: read_table(smk.output.table, "kendall_tau")},
                     Path(smk.output.figure).with_suffix(""))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
