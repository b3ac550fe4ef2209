"""Rule tabulate_test_error_rates: the rates, the models' table and the three figures
(irmeta.pipeline.error_rate_steps.tabulate_step)."""

from irmeta.pipeline.error_rate_steps import tabulate_step
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    outputs = {key: getattr(smk.output, key) for key in ("table", "models", "type_1", "power", "familywise")}
    log.info("%s", tabulate_step(list(smk.input.counts), list(smk.input.models), smk.params.settings, outputs,
                                 smk.params.label))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
