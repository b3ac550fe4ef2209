"""Rule sample_swaps: one shard of the swap method's trials (per-bin comparisons and swaps)."""

from irmeta.metaeval.score_matrices import score_matrices
from irmeta.metaeval.swap_sensitivity import swap_shard
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    first, last = smk.params.trials
    settings = dict(smk.params.settings)
    matrices = score_matrices(load_scores(smk.input.scores, list(smk.params.measures),
                                       alphas=list(smk.params.alphas)))
    log.info("swap trials %d..%d for %d score matrices, %s", first, last - 1, len(matrices), settings)
    counts = swap_shard(matrices, trials=range(first, last), seed=smk.params.seed, sampling=settings["sampling"],
                        topic_set_size=settings["topic_set_size"], bin_width=settings["bin_width"])
    write_frame(counts, smk.output.counts, {"trials": [first, last], "seed": smk.params.seed})


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
