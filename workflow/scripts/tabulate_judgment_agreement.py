"""Rule tabulate_judgment_agreement: irmeta.metaeval.judgment_agreement on the scores under
each alternative judgment set, with the generated sets' rows (shards of
compare_reduced_judgments), the generated sets' summary, and the figures."""

from irmeta.artefacts.figures.judgment_reduction import plot_judgment_reduction
from irmeta.artefacts.figures.judgments import plot_judgment_agreement
from irmeta.metaeval.judgment_agreement import judgment_agreement_table
from irmeta.metaeval.judgment_reduction import gathered_agreement, judgment_reduction_table, trial_means
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_shards, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    measures, generated = list(smk.params.measures), list(smk.params.generated)
    reference = load_scores(smk.input.reference, measures)
    alternatives = {name: load_scores(path, measures)
                    for name, path in zip(smk.params.judgments, smk.input.alternatives)}
    table = gathered_agreement(
        judgment_agreement_table(reference, alternatives, reference_name="qrels", level=smk.params.level,
                                 ties=list(smk.params.ties)),
        read_shards(smk.input.generated),
    )
    write_csv(table, smk.output.table)
    plot_judgment_agreement(trial_means(table, generated), smk.output.figure, smk.output.pdf, title=smk.params.label)
    reduction = judgment_reduction_table(table, generated)
    write_csv(reduction, smk.output.reduction)
    plot_judgment_reduction(reduction, smk.output.reduction_figure, smk.output.reduction_pdf, title=smk.params.label)
    log.info("wrote %s (%d rows), %s (%d rows) and their figures", smk.output.table, len(table),
             smk.output.reduction, len(reduction))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
