"""Rule simulate_error_rates: one shard of the error-rate trials, every measure
(irmeta.pipeline.error_rate_steps.shard_step)."""

from irmeta.pipeline.error_rate_steps import shard_step
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    log.info("%s", shard_step(list(smk.input.models), smk.params.settings, smk.params.seed, smk.params.shard,
                              smk.params.shards, smk.output.counts))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
