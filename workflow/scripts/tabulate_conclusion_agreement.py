"""Rule tabulate_conclusion_agreement: irmeta.metaeval.conclusion_agreement on the scores
under the qrels and under each alternative judgment set."""

from irmeta.metaeval.conclusion_agreement import conclusion_agreement_table
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    measures = list(smk.params.measures)
    reference = load_scores(smk.input.reference, measures)
    alternatives = {name: load_scores(path, measures)
                    for name, path in zip(smk.params.judgments, smk.input.alternatives)}
    log.info("conclusions of %d judgment sets by %s (corrections %s), seed %d", len(alternatives),
             ", ".join(smk.params.methods), ", ".join(smk.params.corrections), smk.params.seed)
    table = conclusion_agreement_table(
        reference, alternatives, methods=list(smk.params.methods), corrections=list(smk.params.corrections),
        levels=list(smk.params.levels), permutations=smk.params.permutations, seed=smk.params.seed,
        reference_name="qrels")
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows)", smk.output.table, len(table))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
