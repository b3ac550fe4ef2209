"""Rule sample_stability: one shard of Buckley-Voorhees trials (per-pair wins and ties)."""

from irmeta.api import stability_trials
from irmeta.metaeval import stability
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import load_scores


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    scores = load_scores(smk.input.scores, smk.params.measures)
    log.info("stability %s, %d score blocks", shard, len(scores.measures))
    counts = stability_trials(scores, smk.params.measures, trials=shard.trials,
                              topics_per_trial=smk.params.topics_per_trial, fuzziness=list(smk.params.fuzziness),
                              seed=shard.seed)
    counts.save(smk.output.counts, shard.drawn_by(stability.SEED_OFFSET))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
