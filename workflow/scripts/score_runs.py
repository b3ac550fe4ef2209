"""Rule score_runs: the long scores table with irmeta.pipeline.score_collection."""

import logging
import os
import sys

from irmeta.pipeline import score_collection


def log_to(path: str) -> logging.Logger:
    """Send stderr (library progress, warnings, tracebacks) and logging to the rule's log."""
    with open(path, "w", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return logging.getLogger("irmeta")


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
    )
    log.info("wrote %s", smk.output.scores)


main(snakemake)  # noqa: F821 (defined by Snakemake)
