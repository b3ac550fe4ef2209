"""Rule sample_swaps: one shard of the swap method's trials (per-bin comparisons and swaps)."""

from irmeta.api import swap_trials
from irmeta.metaeval import swap_sensitivity
from irmeta.pipeline.experiments import check_swap_topic_set_size
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    settings = dict(smk.params.settings)
    scores = load_scores(smk.input.scores, smk.params.measures, alphas=smk.params.alphas)
    check_swap_topic_set_size(settings, len(scores.topics), smk.wildcards.collection)
    log.info("swap %s for %d score blocks, %s", shard, len(scores.measures), settings)
    counts = swap_trials(scores, smk.params.measures, alphas=smk.params.alphas, trials=shard.trials,
                         sampling=settings["sampling"], topic_set_size=settings["topic_set_size"],
                         bin_width=settings["bin_width"], seed=shard.seed)
    write_frame(counts, smk.output.counts, shard.drawn_by(swap_sensitivity.SEED_OFFSET))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
