"""Rule gather_pairwise_tests: the shards of test_run_pairs in tables/pairwise_tests.parquet, in matrix order."""

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_pairwise import gather_pairwise_shards


def main(smk) -> None:
    log = log_to(smk.log[0])
    rows = gather_pairwise_shards(list(smk.input), smk.output.table)
    log.info("wrote %s (%d rows from %d shards)", smk.output.table, rows, len(smk.input))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
