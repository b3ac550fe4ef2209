"""Rule ingest_collection: qrels and runs (or the parts of ingest_shard) to judged.npz with
irmeta.pipeline.steps.ingest_collection (or merge_ingested)."""

import json

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.steps import ingest_collection, merge_ingested


def main(smk) -> None:
    log = log_to(smk.log[0])
    # ranked.npz too when the degraded reproductions are on (rule ingest_judgments keeps none)
    ranked = dict(ranked_depth=getattr(smk.params, "ranked_depth", None), ranked_out=smk.output.get("ranked"))
    if "parts" in smk.input.keys():  # ingest_shards > 1: the shards read the runs
        parts = list(smk.input.parts)
        log.info("merging %d part(s) with %s, relevance threshold %s", len(parts), json.dumps(smk.params.options),
                 smk.params.threshold)
        merge_ingested(qrels=smk.input.qrels, parts=parts, out=smk.output.judged, threshold=smk.params.threshold,
                       **ranked, **smk.params.options)
        return
    runs = smk.input.runs
    runs = [runs] if isinstance(runs, str) else list(runs)
    log.info("reading %s and %d run path(s) with %s, relevance threshold %s", smk.input.qrels, len(runs),
             json.dumps(smk.params.options), smk.params.threshold)
    ingest_collection(qrels=smk.input.qrels, runs=runs, out=smk.output.judged, threshold=smk.params.threshold,
                      threads=smk.threads, memory_budget=smk.params.memory_budget, **ranked,
                      **smk.params.options)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
