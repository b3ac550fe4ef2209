rule score_runs:
    """Every run on every qrels topic with the configured measures: per-topic rows and means."""
    input:
        runs="results/{collection}/runs.parquet",
        qrels="results/{collection}/qrels.parquet",
    output:
        scores="results/{collection}/scores.parquet",
    params:
        measures=config["measures"],
        averaging=config["averaging"],
        alphas=config["alphas"],
        threshold=relevance_threshold,
    log:
        "results/logs/score_runs/{collection}.log",
    benchmark:
        "results/benchmarks/score_runs/{collection}.tsv"
    # The dense (runs, topics, depth) arrays are numpy reductions on one core.
    threads: 1
    resources:
        # TREC-8 at depth 100 (63 MB runs.parquet) peaks at about 0.9 GB.
        mem_mb=mem_mb_from_input(20),
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/score_runs.py"
