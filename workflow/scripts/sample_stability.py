"""Rule sample_stability: one shard of Buckley-Voorhees trials (per-pair wins and ties)."""

from irmeta.metaeval.score_matrices import score_matrices
from irmeta.metaeval.stability import stability_shard
from irmeta.metaeval.stats.stability_trials import topics_per_trial_default
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores


def main(smk) -> None:
    log = log_to(smk.log[0])
    first, last = smk.params.trials
    matrices = score_matrices(load_scores(smk.input.scores, list(smk.params.measures)))
    per_trial = smk.params.topics_per_trial or topics_per_trial_default(len(matrices[0].topics))
    log.info("stability trials %d..%d, %d topics per trial, %d score matrices", first, last - 1, per_trial,
             len(matrices))
    counts = stability_shard(matrices, topics_per_trial=per_trial, trials=range(first, last),
                             seed=smk.params.seed, fuzziness=list(smk.params.fuzziness))
    counts.save(smk.output.counts, {"trials": [first, last], "seed": smk.params.seed})


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
