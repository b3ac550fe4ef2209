"""Rule tabulate_reproducibility: irmeta.pipeline.reproducibility."""

from pathlib import Path

from irmeta.metaeval.reproducibility_table import OrderSettings
from irmeta.pipeline.reproducibility import tabulate_reproducibility
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    runs = smk.input.runs
    tabulate_reproducibility(
        scores=smk.input.scores,
        reproductions=smk.input.reproductions,
        run_files=[runs] if isinstance(runs, str) else list(runs),
        other_scores=smk.input.get("other_scores"),
        measures=list(smk.params.measures),
        alphas=list(smk.params.alphas),
        baselines=list(smk.params.baselines),
        order=OrderSettings(smk.params.ktu_cutoff, smk.params.rbo_p, smk.params.rbo_depth, tuple(smk.params.ties)),
        reading=dict(smk.params.reading),
        table_out=smk.output.table,
        figure_stem=Path(smk.output.figure).with_suffix(""),
        label=smk.params.label,
    )
    log.info("wrote %s and %s", smk.output.table, smk.output.figure)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
