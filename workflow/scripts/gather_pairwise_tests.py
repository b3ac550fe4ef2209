"""Rule gather_pairwise_tests: the shards of test_run_pairs in tables/pairwise_tests.parquet."""

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import concatenate_parquet


def main(smk) -> None:
    log = log_to(smk.log[0])
    rows = concatenate_parquet(list(smk.input), smk.output.table)
    log.info("wrote %s (%d rows from %d shards)", smk.output.table, rows, len(smk.input))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
