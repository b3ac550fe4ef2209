"""Rule score_runs: the scores of every run with irmeta.pipeline.steps.score_collection."""

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.steps import score_collection


def main(smk) -> None:
    log = log_to(smk.log[0])
    measures, averaging = list(smk.params.measures), list(smk.params.averaging)
    log.info("scoring %s: measures %s, averaging %s", list(smk.input), measures, averaging)
    score_collection(
        matrix=smk.input.get("judged"),
        out=smk.output.scores,
        arrays_out=smk.output.arrays,
        measures=measures,
        averaging=averaging,
        # Only measures that take a rarity weight read the grid; P and AP ignore it.
        alphas=list(smk.params.alphas),
        rarity_depth=smk.params.rarity_depth,
        measure_options=dict(smk.params.measure_options),
        imported=smk.input.get("scores_file"),
        imported_options=dict(smk.params.imported_options),
        imported_measures=list(smk.params.imported_measures),
    )
    log.info("wrote %s and %s", smk.output.scores, smk.output.arrays)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
