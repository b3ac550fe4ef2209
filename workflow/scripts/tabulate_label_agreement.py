"""Rule tabulate_label_agreement: irmeta.metaeval.label_agreement on the qrels and each
alternative judgment set's own labels (fused sets fused, holes not filled)."""

import pandas as pd

from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.store import load_matrix
from irmeta.metaeval.label_agreement import (
    LABEL_AGREEMENT_COLUMNS,
    LABEL_CONFUSION_COLUMNS,
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
    sets = {judgment_set.name: own_labels(judgment_set) for judgment_set in smk.params.judgments}
    tables, confusions = [], []
    if sets:  # the qrels file is read only to be compared with a set (10^7 lines hold 1 GB)
        table, confusion = label_tables(read_qrels(smk.input.reference), sets, threshold=smk.params.threshold)
        tables, confusions = [table], [confusion]
    if "judged" in smk.input.keys():
        # generated assessors: the campaign's qrels rows, each assessor's grades
        matrix = load_matrix(smk.input.judged)
        generated = generated_assessors(matrix, list(smk.params.generated), smk.params.seed)
        table, confusion = label_tables(matrix_qrels(matrix), generated, threshold=smk.params.threshold)
        tables.append(table)
        confusions.append(confusion)
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=list(LABEL_AGREEMENT_COLUMNS))
    write_csv(table, smk.output.table)
    write_csv(pd.concat(confusions, ignore_index=True) if confusions else
              pd.DataFrame(columns=list(LABEL_CONFUSION_COLUMNS)), smk.output.confusion)
    folders = {folder: {name: sets[name] for name in names} for folder, names in smk.params.folders.items()}
    assessors = assessor_agreement_table(folders, threshold=smk.params.threshold)
    write_csv(assessors, smk.output.assessors)
    log.info("wrote %s (%d rows), %s and %s (%d rows)", smk.output.table, len(table), smk.output.confusion,
             smk.output.assessors, len(assessors))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
