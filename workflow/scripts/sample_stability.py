"""Rule sample_stability: one shard of Buckley-Voorhees trials (per-pair wins and ties)."""

from irmeta.experiments import score_matrices, stability_shard
from irmeta.pipeline import load_scores, log_to, run_script
from irmeta.statistics import topics_per_trial_default


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
