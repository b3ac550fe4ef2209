"""Rule tabulate_label_agreement: irmeta.metaeval.label_agreement on the qrels and each
alternative judgment set's own labels (fused sets fused, holes not filled)."""

import pandas as pd

from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.store import load_matrix
from irmeta.metaeval.label_agreement import (
    assessor_agreement_table,
    generated_assessors,
    label_tables,
    matrix_qrels,
)
from irmeta.pipeline.judgment_config import own_labels
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    reference = read_qrels(smk.input.reference)
    sets = {judgment_set.name: own_labels(judgment_set) for judgment_set in smk.params.judgments}
    table, confusion = label_tables(reference, sets, threshold=smk.params.threshold)
    tables, confusions = [table], [confusion]
    if "judged" in smk.input.keys():
        # generated assessors: the campaign's qrels rows, each assessor's grades
        matrix = load_matrix(smk.input.judged)
        generated = generated_assessors(matrix, list(smk.params.generated), smk.params.seed)
        table, confusion = label_tables(matrix_qrels(matrix), generated, threshold=smk.params.threshold)
        tables.append(table)
        confusions.append(confusion)
    table = pd.concat(tables, ignore_index=True)
    write_csv(table, smk.output.table)
    write_csv(pd.concat(confusions, ignore_index=True), smk.output.confusion)
    folders = {folder: {name: sets[name] for name in names} for folder, names in smk.params.folders.items()}
    assessors = assessor_agreement_table(folders, threshold=smk.params.threshold)
    write_csv(assessors, smk.output.assessors)
    log.info("wrote %s (%d rows), %s and %s (%d rows)", smk.output.table, len(table), smk.output.confusion,
             smk.output.assessors, len(assessors))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
