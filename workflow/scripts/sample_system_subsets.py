"""Rule sample_system_subsets: one shard of Algorithm 1's trials (tau per trial)."""

from irmeta.campaign.store import load_matrix
from irmeta.metaeval.system_subsampling import subsampling_shard, subsampling_sizes
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    first, last = smk.params.trials
    matrix = load_matrix(smk.input.judged)
    sizes = subsampling_sizes(len(matrix.runs), smk.params.largest)
    log.info("system subsampling trials %d..%d, N in %s, alpha %s", first, last - 1, sizes, smk.params.alpha)
    taus = subsampling_shard(matrix, list(smk.params.measures), sizes=sizes, trials=range(first, last),
                             seed=smk.params.seed, alpha=smk.params.alpha)
    write_frame(taus, smk.output.taus, {"trials": [first, last], "seed": smk.params.seed})


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
