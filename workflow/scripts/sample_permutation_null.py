"""Rule sample_permutation_null: one shard of the randomised Tukey HSD's null distribution."""

from irmeta.metaeval.discriminative_power import randomised_null_shard
from irmeta.metaeval.score_matrices import score_matrices
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    first, last = smk.params.trials
    matrices = score_matrices(load_scores(smk.input.scores, list(smk.params.measures)))
    log.info("permutation trials %d..%d for %d score matrices", first, last - 1, len(matrices))
    null = randomised_null_shard(matrices, range(first, last), smk.params.seed)
    write_frame(null, smk.output.null, {"trials": [first, last], "seed": smk.params.seed})


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
