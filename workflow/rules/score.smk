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
        rarity_depth=config["rarity_depth"],
        measure_options=config["measure_options"],
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


rule compute_rarity:
    """S_d, R(d) and R'(d) of every relevant document, at the rarity depth and at the runs' full depth."""
    input:
        runs="results/{collection}/runs.parquet",
        qrels="results/{collection}/qrels.parquet",
    output:
        rarity="results/{collection}/rarity.parquet",
    params:
        depths=rarity_listing_depths,
        threshold=relevance_threshold,
    log:
        "results/logs/compute_rarity/{collection}.log",
    benchmark:
        "results/benchmarks/compute_rarity/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=mem_mb_from_input(20),
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/compute_rarity.py"
