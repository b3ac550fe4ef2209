"""Rule tabulate_kendall_tau: Figure 2's table with irmeta.experiments.kendall_tau_table."""

from irmeta.experiments import kendall_tau_table
from irmeta.pipeline import load_scores, log_to, run_script, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    scores = load_scores(smk.input.scores)
    table = kendall_tau_table(scores, list(smk.params.comparisons))
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
