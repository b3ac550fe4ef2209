"""Rule sample_stability: one shard of Buckley-Voorhees trials (per-pair wins and ties)."""

from irmeta.metaeval.stability import stability_shard
from irmeta.pipeline.experiments import stability_topics_per_trial
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import load_score_matrices


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    matrices = load_score_matrices(smk.input.scores, smk.params.measures)
    per_trial = stability_topics_per_trial(smk.params.topics_per_trial, len(matrices[0].topics))
    log.info("stability %s, %d topics per trial, %d score matrices", shard, per_trial, len(matrices))
    counts = stability_shard(matrices, topics_per_trial=per_trial, trials=shard.trials, seed=shard.seed,
                             fuzziness=list(smk.params.fuzziness))
    counts.save(smk.output.counts, shard.settings)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
