# Table 1: significant run pairs by the paper's three methods and the paired tests; the
# randomised Tukey HSD's null distribution is sampled in shards, the paired tests run in
# shards of score matrices gathered into tables/pairwise_tests.parquet, which the table
# (one family at a time) and the p-value curves read.


rule sample_permutation_null:
    """Randomised Tukey HSD: max mean difference of permuted matrices, one shard of trials."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        null="results/{collection}/shards/permutation_null/{shard}.parquet",
    params:
        measures=COMPARISON_MEASURES,
        trials=lambda wildcards: shard_range(EXPERIMENTS["discriminative_power"]["permutations"], wildcards),
        seed=EXPERIMENTS["seed"],  # irmeta.api adds the experiment's SEED_OFFSET
    # feeds discriminative power, which the claims wait for: the longest chain, so first
    priority: 15
    log:
        job_log("sample_permutation_null", SHARD),
    benchmark:
        job_benchmark("sample_permutation_null", SHARD)
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/sample_permutation_null.py"


rule test_run_pairs:
    """The paired tests on every run pair of a shard's score matrices, one at a time."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        table="results/{collection}/shards/pairwise_tests/{shard}.parquet",
    params:
        measures=COMPARISON_MEASURES,
        methods=EXPERIMENTS["discriminative_power"]["methods"],
        permutations=EXPERIMENTS["discriminative_power"]["permutations"],
        seed=EXPERIMENTS["seed"],  # the script adds irmeta.metaeval.pairwise_tests.SEED_OFFSET
        shard=lambda wildcards: int(wildcards.shard),
        shards=len(SHARDS),
    log:
        job_log("test_run_pairs", SHARD),
    benchmark:
        job_benchmark("test_run_pairs", SHARD)
    # the battery's longest chain (the tests, their gathering, discriminative power, the
    # claims): started first, so the short jobs fill the other cores instead of waiting
    # for it at the end; the other jobs the claims read have 10
    priority: 15
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/test_run_pairs.py"


rule gather_pairwise_tests:
    """tables/pairwise_tests.parquet: the shards' rows in one file, streamed."""
    input:
        shard_files("pairwise_tests", "parquet"),
    output:
        table="results/{collection}/tables/pairwise_tests.parquet",
    log:
        job_log("gather_pairwise_tests"),
    benchmark:
        job_benchmark("gather_pairwise_tests")
    priority: 15
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/gather_pairwise_tests.py"


rule tabulate_discriminative_power:
    """Table 1: significant run pairs by the paper's three methods and the paired tests, and its figure."""
    input:
        scores="results/{collection}/scores.npz",
        pairwise="results/{collection}/tables/pairwise_tests.parquet" if PAIRED_TESTS else [],
        # Without the randomised method there is no null distribution to sample.
        null=(
            shard_files("permutation_null", "parquet")
            if "randomised_tukey_hsd" in EXPERIMENTS["discriminative_power"]["methods"]
            else []
        ),
    output:
        table=collection_table("discriminative_power"),
        figure=collection_figure("discriminative_power"),
        pdf=figure_pdf("discriminative_power"),
    params:
        measures=COMPARISON_MEASURES,
        methods=EXPERIMENTS["discriminative_power"]["methods"],
        levels=EXPERIMENTS["discriminative_power"]["levels"],
        randomised_p=EXPERIMENTS["discriminative_power"]["randomised_p"],
        corrections=EXPERIMENTS["discriminative_power"]["corrections"],
        permutations=EXPERIMENTS["discriminative_power"]["permutations"],
    log:
        job_log("tabulate_discriminative_power"),
    benchmark:
        job_benchmark("tabulate_discriminative_power")
    priority: 15
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_discriminative_power.py"


rule plot_p_value_curves:
    """Sakai's achieved significance level curves, a panel per paired test (PNG and PDF)."""
    input:
        table="results/{collection}/tables/pairwise_tests.parquet",
    output:
        png=collection_figure("p_value_curves"),
        pdf=figure_pdf("p_value_curves"),
    params:
        levels=EXPERIMENTS["discriminative_power"]["levels"],
    log:
        job_log("plot_p_value_curves"),
    benchmark:
        job_benchmark("plot_p_value_curves")
    # nothing waits for it, but it is among the longest such jobs: before the short ones,
    # which then fill both cores at the end
    priority: 5
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/plot_p_value_curves.py"
