"""Rule compare_reduced_judgments: one shard of the generated judgment sets, with
irmeta.metaeval.judgment_reduction.generated_agreement_rows, and each set's family rows
and run ranks (irmeta.pipeline.family_steps)."""

from irmeta.campaign.store import load_matrix
from irmeta.metaeval.judgment_reduction import depth_needed, generated_agreement_rows
from irmeta.pipeline.family_steps import FamilyCollector, run_families
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    sets, measures = list(smk.params.sets), list(smk.params.measures)
    matrix = load_matrix(smk.input.judged, depth=depth_needed(sets, measures, smk.params.rarity_depth))
    reference = load_scores(smk.input.reference, measures)
    log.info("generated judgment sets %s, %d runs, seed %d", sets, matrix.n_runs, smk.params.seed)
    families = run_families(smk.input.get("families"), reference.runs)
    collect = FamilyCollector(reference, families, permutations=smk.params.family_permutations,
                              seed=smk.params.family_seed)
    options = dict(smk.params.measure_options, alphas=list(smk.params.alphas), rarity_depth=smk.params.rarity_depth)
    rows = generated_agreement_rows(matrix, reference, sets, measures=measures, seed=smk.params.seed,
                                    level=smk.params.level, reference_name="qrels", options=options, each=collect,
                                    ties=list(smk.params.ties))
    write_frame(rows, smk.output.rows, {"sets": sets, "seed": smk.params.seed})
    write_frame(collect.table(), smk.output.families, {"sets": sets, "seed": smk.params.family_seed})
    write_frame(collect.rank_frame(), smk.output.ranks, {"sets": sets})
    log.info("wrote %s (%d rows), %s and %s", smk.output.rows, len(rows), smk.output.families, smk.output.ranks)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
