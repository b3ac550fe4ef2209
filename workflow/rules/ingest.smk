rule ingest_collection:
    """Read qrels and runs with trec_eval's semantics into Parquet (runs cut at the collection's depth)."""
    input:
        unpack(ingest_input),
    output:
        runs="results/{collection}/runs.parquet",
        qrels="results/{collection}/qrels.parquet",
    params:
        options=ingest_options,
    log:
        "results/logs/ingest_collection/{collection}.log",
    benchmark:
        "results/benchmarks/ingest_collection/{collection}.tsv"
    threads: config["threads"]
    resources:
        # TREC-8 (64 MB of gzipped runs) peaks at about 1 GB.
        mem_mb=mem_mb_from_input(24),
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/ingest_collection.py"
