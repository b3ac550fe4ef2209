"""Rule sample_permutation_null: one shard of the randomised Tukey HSD's null distribution."""

from irmeta.api import permutation_null
from irmeta.metaeval import discriminative_power
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    scores = load_scores(smk.input.scores, smk.params.measures)
    log.info("permutation %s for %d score blocks", shard, len(scores.measures))
    null = permutation_null(scores, smk.params.measures, trials=shard.trials, seed=shard.seed)
    write_frame(null, smk.output.null, shard.drawn_by(discriminative_power.SEED_OFFSET))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
