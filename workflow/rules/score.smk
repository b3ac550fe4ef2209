rule score_runs:
    """Every run on every qrels topic with the configured measures: the long table
    (per-topic rows and means) and the score matrices the experiments read; measures a
    scores file gives are read from it (all of them, for a collection of scores only)."""
    input:
        unpack(score_input),
    output:
        scores="results/{collection}/scores.parquet",
        arrays="results/{collection}/scores.npz",
    params:
        measures=config["measures"],
        averaging=config["averaging"],
        alphas=config["alphas"],
        rarity_depth=config["rarity_depth"],
        measure_options=config["measure_options"],
        imported_options=lambda wildcards: COLLECTIONS[wildcards.collection].scores_options(),
        imported_measures=IMPORTED_MEASURES,
    # every experiment waits for the scores: first when several jobs are ready
    priority: 20
    log:
        job_log("score_runs"),
    benchmark:
        job_benchmark("score_runs")
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/score_runs.py"
