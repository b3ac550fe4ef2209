"""Rule tabulate_judgment_agreement: irmeta.metaeval.judgment_agreement on the scores under
each judgment set, and its figure."""

from irmeta.artefacts.figures.judgments import plot_judgment_agreement
from irmeta.metaeval.judgment_agreement import judgment_agreement_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    measures = list(smk.params.measures)
    reference = load_scores(smk.input.reference, measures)
    alternatives = {name: load_scores(path, measures)
                    for name, path in zip(smk.params.judgments, smk.input.alternatives)}
    table = judgment_agreement_table(reference, alternatives, reference_name="qrels", level=smk.params.level)
    write_csv(table, smk.output.table)
    plot_judgment_agreement(table, smk.output.figure, smk.output.pdf, title=smk.params.label)
    log.info("wrote %s (%d rows) and its figure", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
