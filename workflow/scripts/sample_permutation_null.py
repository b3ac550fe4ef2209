"""Rule sample_permutation_null: one shard of the randomised Tukey HSD's null distribution."""

from irmeta.metaeval.discriminative_power import randomised_null_shard
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import load_score_matrices, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    matrices = load_score_matrices(smk.input.scores, smk.params.measures)
    log.info("permutation %s for %d score matrices", shard, len(matrices))
    null = randomised_null_shard(matrices, shard.trials, shard.seed)
    write_frame(null, smk.output.null, shard.settings)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
