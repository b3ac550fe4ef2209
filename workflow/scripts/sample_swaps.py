"""Rule sample_swaps: one shard of the swap method's trials (per-bin comparisons and swaps)."""

from irmeta.metaeval.swap_sensitivity import swap_shard
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import load_score_matrices, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    settings = dict(smk.params.settings)
    matrices = load_score_matrices(smk.input.scores, smk.params.measures, alphas=smk.params.alphas)
    log.info("swap %s for %d score matrices, %s", shard, len(matrices), settings)
    counts = swap_shard(matrices, trials=shard.trials, seed=shard.seed, sampling=settings["sampling"],
                        topic_set_size=settings["topic_set_size"], bin_width=settings["bin_width"])
    write_frame(counts, smk.output.counts, shard.settings)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
