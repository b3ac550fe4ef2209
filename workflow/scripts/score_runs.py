"""Rule score_runs: the long scores table with irmeta.pipeline.score_collection."""


from irmeta.pipeline import log_to, run_script, score_collection


def main(smk) -> None:
    log = log_to(smk.log[0])
    measures, averaging = list(smk.params.measures), list(smk.params.averaging)
    log.info("scoring %s: measures %s, threshold %s, averaging %s",
             smk.input.runs, measures, smk.params.threshold, averaging)
    score_collection(
        runs=smk.input.runs,
        qrels=smk.input.qrels,
        out=smk.output.scores,
        measures=measures,
        threshold=smk.params.threshold,
        averaging=averaging,
        # Only measures that take a rarity weight read the grid; P and AP ignore it.
        alphas=list(smk.params.alphas),
        rarity_depth=smk.params.rarity_depth,
        measure_options=dict(smk.params.measure_options),
    )
    log.info("wrote %s", smk.output.scores)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
