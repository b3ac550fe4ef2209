"""Rule ingest_shard: one slice of the run files to a part with irmeta.pipeline.steps.ingest_shard."""

import json

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.steps import ingest_shard


def main(smk) -> None:
    log = log_to(smk.log[0])
    runs = smk.input.runs
    runs = [runs] if isinstance(runs, str) else list(runs)
    shard, shards = int(smk.wildcards.shard), int(smk.params.shards)
    log.info("shard %d of %d: reading %s and its slice of %d run path(s) with %s, relevance threshold %s", shard,
             shards, smk.input.qrels, len(runs), json.dumps(smk.params.options), smk.params.threshold)
    ingest_shard(qrels=smk.input.qrels, runs=runs, out=smk.output.part, shard=shard, shards=shards,
                 threshold=smk.params.threshold, threads=smk.threads, ranked_depth=smk.params.ranked_depth,
                 memory_budget=smk.params.memory_budget, **smk.params.options)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
