"""Rule fit_simulation_models: one measure's simulation models of a collection
(irmeta.pipeline.error_rate_steps.fit_step)."""

from irmeta.pipeline.error_rate_steps import fit_step
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    log.info("%s", fit_step(smk.input.scores, smk.params.measure, smk.wildcards.collection, smk.params.settings,
                            smk.params.seed, smk.output.models, workers=smk.threads))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
