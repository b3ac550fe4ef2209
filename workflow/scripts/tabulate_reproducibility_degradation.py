"""Rule tabulate_reproducibility_degradation: irmeta.pipeline.reproducibility."""

from pathlib import Path

from irmeta.metaeval.reproducibility_table import OrderSettings
from irmeta.pipeline.reproducibility import tabulate_degradation
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    tabulate_degradation(
        qrels=smk.input.judged,  # the qrels as the ingestion read them (format, grades)
        ranked=smk.input.ranked,  # the rankings as the ingestion kept them at the degradations' depth
        measures=list(smk.params.measures),
        alphas=list(smk.params.alphas),
        rarity_depth=smk.params.rarity_depth,
        measure_options=dict(smk.params.measure_options or {}),
        baselines=list(smk.params.baselines),
        degradations=dict(smk.params.degradations),
        order=OrderSettings(smk.params.ktu_cutoff, smk.params.rbo_p, smk.params.rbo_depth),
        seed=smk.params.seed,
        threshold=smk.params.threshold,
        reading=dict(smk.params.reading),
        table_out=smk.output.table,
        trust_out=smk.output.trust,
        figure_stem=Path(smk.output.figure).with_suffix(""),
        label=smk.params.label,
        processes=smk.threads,
        memory_mb=smk.resources.mem_mb,  # fewer processes when copies would not fit
    )
    log.info("wrote %s, %s and %s", smk.output.table, smk.output.trust, smk.output.figure)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
