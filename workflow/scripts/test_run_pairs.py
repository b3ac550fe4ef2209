"""Rule test_run_pairs: one shard of tables/pairwise_tests.parquet with irmeta.metaeval.pairwise_tests."""

from irmeta.api import matrices_of
from irmeta.metaeval import pairwise_tests
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_pairwise import write_pairwise_shard
from irmeta.pipeline.stored_scores import load_scores


def main(smk) -> None:
    log = log_to(smk.log[0])
    scores = load_scores(smk.input.scores, smk.params.measures)
    matrices = matrices_of(scores, smk.params.measures)
    seed = smk.params.seed + pairwise_tests.SEED_OFFSET
    methods = pairwise_tests.paired_methods(smk.params.methods)
    shard, shards = smk.params.shard, smk.params.shards
    log.info("%s on every run pair of shard %d of %d of %d score matrices", ", ".join(methods), shard + 1, shards,
             len(matrices))
    blocks = pairwise_tests.pairwise_test_blocks(matrices, methods, smk.params.permutations, seed, shard, shards)
    write_pairwise_shard(blocks, smk.output.table,  # one matrix's pairs at a time
                         {"methods": methods, "permutations": smk.params.permutations, "seed": seed})
    log.info("wrote %s", smk.output.table)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
