"""Rule sample_system_subsets: one shard of Algorithm 1's trials (tau per trial)."""

from irmeta.campaign.store import load_matrix
from irmeta.metaeval.system_subsampling import subsampling_shard, subsampling_sizes
from irmeta.pipeline.scripts import Shard, log_to, run_script
from irmeta.pipeline.stored_scores import write_frame


def main(smk) -> None:
    log = log_to(smk.log[0])
    shard = Shard.of(smk)
    matrix = load_matrix(smk.input.judged)
    sizes = subsampling_sizes(len(matrix.runs), smk.params.largest)
    log.info("system subsampling %s, N in %s, alpha %s, S_d at %s", shard, sizes, smk.params.alpha,
             smk.params.rarity_depth or "the cutoff")
    taus = subsampling_shard(matrix, list(smk.params.measures), sizes=sizes, trials=shard.trials, seed=shard.seed,
                             alpha=smk.params.alpha, rarity_depth=smk.params.rarity_depth)
    write_frame(taus, smk.output.taus, shard.drawn_by())


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
