"""Rule assess_reusability: leave-one-group-out with irmeta.pipeline.reusability."""

from pathlib import Path

from irmeta.pipeline.reusability import assess_reusability
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    assess_reusability(
        judged=smk.input.judged,
        scores=smk.input.scores,
        run_groups=smk.input.get("run_groups"),
        table_out=smk.output.table,
        summary_out=smk.output.summary,
        figure_stem=Path(smk.output.figure).with_suffix(""),
        measures=list(smk.params.measures),
        alphas=list(smk.params.alphas),
        rarity_depth=smk.params.rarity_depth,
        pool_depth=smk.params.pool_depth,
        pool_depth_origin=smk.params.pool_depth_origin,
        unit=smk.params.unit,
        rules=list(smk.params.rules),
        measure_options=dict(smk.params.measure_options),
        source=smk.params.source,
        label=smk.params.label,
    )
    log.info("wrote %s, %s and %s", smk.output.table, smk.output.summary, smk.output.figure)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
