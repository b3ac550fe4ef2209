"""Rule ingest_collection: qrels and runs to Parquet with irmeta.pipeline.ingest_collection."""

import json
import logging
import os
import sys

from irmeta.pipeline import ingest_collection


def log_to(path: str) -> logging.Logger:
    """Send stderr (library progress, warnings, tracebacks) and logging to the rule's log."""
    with open(path, "w", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return logging.getLogger("irmeta")


def main(smk) -> None:
    log = log_to(smk.log[0])
    runs = smk.input.runs
    runs = [runs] if isinstance(runs, str) else list(runs)
    log.info("reading %s and %d run path(s) with %s", smk.input.qrels, len(runs), json.dumps(smk.params.options))
    ingest_collection(
        qrels=smk.input.qrels,
        runs=runs,
        runs_out=smk.output.runs,
        qrels_out=smk.output.qrels,
        threads=smk.threads,
        **smk.params.options,
    )


main(snakemake)  # noqa: F821 (defined by Snakemake)
