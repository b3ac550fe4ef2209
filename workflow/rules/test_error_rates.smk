# Which test can I trust (issue 41; Urbano, Lima and Hanjalic, SIGIR 2019): each
# measure's simulation models fitted once per collection, the error rates of every
# paired test counted in shards of chunks of simulated trials, gathered into
# tables/test_error_rates.csv with tables/simulation_models.csv and three figures.


rule fit_simulation_models:
    """One measure's models: the protocol's drops, every kept run's margin and every kept
    pair's copula; every delta checked reachable before any trial."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        models="results/{collection}/simulation/{measure}.models",
    wildcard_constraints:
        measure=alternatives(ERROR_RATE_MEASURES),
    params:
        measure=lambda wildcards: ERROR_RATE_MEASURES[wildcards.measure],
        settings=ERROR_RATES,
        seed=EXPERIMENTS["seed"],  # irmeta.metaeval.error_rate_models adds test_error_rates' SEED_OFFSET
    log:
        job_log("fit_simulation_models", "{collection}.{measure}"),
    benchmark:
        job_benchmark("fit_simulation_models", "{collection}.{measure}")
    threads: config["threads"]
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/fit_simulation_models.py"


rule simulate_error_rates:
    """One shard: each measure's error counts over its chunks of trials (every shards-th)."""
    input:
        models=error_rate_models,
    output:
        counts="results/{collection}/shards/test_error_rates/{shard}.parquet",
    params:
        settings=ERROR_RATES,
        seed=EXPERIMENTS["seed"],  # irmeta.metaeval.error_rate_models adds test_error_rates' SEED_OFFSET
        shard=lambda wildcards: int(wildcards.shard),
        shards=len(ERROR_RATE_SHARDS),
    log:
        job_log("simulate_error_rates", SHARD),
    benchmark:
        job_benchmark("simulate_error_rates", SHARD)
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/simulate_error_rates.py"


rule tabulate_test_error_rates:
    """The shards' counts summed into the rates, the models' table, and the figures: type I
    against alpha, power against delta, the familywise error per correction."""
    input:
        counts=expand("results/{{collection}}/shards/test_error_rates/{shard}.parquet", shard=ERROR_RATE_SHARDS),
        models=error_rate_models,
    output:
        table=collection_table("test_error_rates"),
        models=collection_table("simulation_models"),
        type_1=collection_figure("test_error_rates_type_1"),
        type_1_pdf=figure_pdf("test_error_rates_type_1"),
        power=collection_figure("test_error_rates_power"),
        power_pdf=figure_pdf("test_error_rates_power"),
        familywise=collection_figure("test_error_rates_familywise"),
        familywise_pdf=figure_pdf("test_error_rates_familywise"),
    params:
        settings=ERROR_RATES,
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("tabulate_test_error_rates"),
    benchmark:
        job_benchmark("tabulate_test_error_rates")
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_test_error_rates.py"
