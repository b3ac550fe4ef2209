"""Rule list_experiments: experiments.md with irmeta.pipeline.experiments.experiments_listing."""

from pathlib import Path

from irmeta.pipeline.experiments import experiments_listing
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.support.atomic import atomic_write_text


def main(smk) -> None:
    log = log_to(smk.log[0])
    ran = {Path(path).stem: path for path in smk.input.tables}
    atomic_write_text(smk.output.listing, experiments_listing(smk.params.label, ran, dict(smk.params.skipped)))
    log.info("wrote %s: %d ran, %d skipped", smk.output.listing, len(ran), len(smk.params.skipped))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
