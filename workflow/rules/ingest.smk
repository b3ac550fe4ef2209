rule ingest_shard:
    """One shard of a sharded ingestion (config's ingest_shards > 1): its slice of the run
    files read once, with trec_eval's semantics, into its runs' judged postings, a block
    at a time within config's memory_budget."""
    input:
        unpack(ingest_input),
    output:
        part=temp("results/{collection}/ingest/{shard}.npz"),
    params:
        options=ingest_options,
        threshold=relevance_threshold,
        shards=lambda wildcards: ingest_shard_count(wildcards.collection),
        ranked_depth=ranked_depth,
        memory_budget=memory_budget,
    log:
        job_log("ingest_shard", SHARD),
    benchmark:
        job_benchmark("ingest_shard", SHARD)
    threads: ingest_threads
    resources:
        mem_mb=ingest_shard_memory,
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/ingest_shard.py"


rule ingest_collection:
    """Read qrels and runs once, with trec_eval's semantics (runs cut at the collection's
    depth), into judged.npz: the judged documents each run retrieved, which every later
    step loads in a fraction of a second (and, for the degraded reproductions, ranked.npz:
    every ranking down to their depth), a block at a time within config's memory_budget.
    With ingest_shards > 1, the shards' parts merged instead: the same bytes."""
    input:
        unpack(ingested_input),
    output:
        judged="results/{collection}/judged.npz",
        # the rankings the degraded reproductions degrade, read in the same pass
        **RANKED_OUTPUT,
    params:
        options=ingest_options,
        threshold=relevance_threshold,
        ranked_depth=ranked_depth,
        memory_budget=memory_budget,
    log:
        job_log("ingest_collection"),
    benchmark:
        job_benchmark("ingest_collection")
    threads: ingest_threads
    resources:
        # Reading the runs: a block at a time within memory_budget (TREC-8, 64 MB of
        # gzipped runs, peaks at 0.4 GB). Merging parts holds the pools of the rankings
        # and one array of one block at a time.
        mem_mb=ingestion_memory_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/ingest_collection.py"
