rule ingest_shard:
    """One shard of a sharded ingestion (config's ingest_shards > 1): its slice of the run
    files read once, with trec_eval's semantics, into its runs' judged postings."""
    input:
        unpack(ingest_input),
    output:
        part=temp("results/{collection}/ingest/{shard}.npz"),
    params:
        options=ingest_options,
        threshold=relevance_threshold,
        shards=lambda wildcards: ingest_shard_count(wildcards.collection),
        ranked_depth=ranked_depth,
    log:
        job_log("ingest_shard", SHARD),
    benchmark:
        job_benchmark("ingest_shard", SHARD)
    threads: ingest_shard_threads
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
    every ranking down to their depth). With ingest_shards > 1, the shards' parts
    merged instead: the same bytes."""
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
    log:
        job_log("ingest_collection"),
    benchmark:
        job_benchmark("ingest_collection")
    threads: config["threads"]
    resources:
        # One run file per thread in memory, then the judged postings: TREC-8 (64 MB of
        # gzipped runs) peaks at 0.4 GB, 1,000 runs x 1,000 topics x 100 (1.1 GB) at 1 GB.
        # Merging parts holds the postings once (the parts' size).
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/ingest_collection.py"
