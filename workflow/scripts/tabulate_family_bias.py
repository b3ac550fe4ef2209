"""Rule tabulate_family_bias: irmeta.metaeval.family_bias on the scores under each
alternative judgment set, then the generated sets' rows (shards of compare_reduced_judgments)."""

from irmeta.pipeline.family_steps import FamilyCollector, run_families
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_shards, write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    reference = load_scores(smk.input.reference, list(smk.params.measures))
    collect = FamilyCollector(reference, run_families(smk.input.get("families"), reference.runs),
                              permutations=smk.params.permutations, seed=smk.params.seed)
    for name, path in zip(smk.params.judgments, smk.input.alternatives):
        collect.add({name: load_scores(path, list(reference.measures))})
    collect.tables.extend(read_shards(smk.input.family_shards))
    table = collect.table()
    write_csv(table, smk.output.table)
    log.info("wrote %s (%d rows, %d permutations, seed %d)", smk.output.table, len(table),
             smk.params.permutations, smk.params.seed)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
