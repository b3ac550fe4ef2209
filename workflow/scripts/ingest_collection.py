"""Rule ingest_collection: qrels and runs to judged.npz with irmeta.pipeline.steps.ingest_collection."""

import json

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.steps import ingest_collection


def main(smk) -> None:
    log = log_to(smk.log[0])
    runs = smk.input.runs
    runs = [runs] if isinstance(runs, str) else list(runs)
    log.info("reading %s and %d run path(s) with %s, relevance threshold %s", smk.input.qrels, len(runs),
             json.dumps(smk.params.options), smk.params.threshold)
    ingest_collection(qrels=smk.input.qrels, runs=runs, out=smk.output.judged, threshold=smk.params.threshold,
                      threads=smk.threads, **smk.params.options)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
