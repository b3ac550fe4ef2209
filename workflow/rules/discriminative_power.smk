# Table 1: significant run pairs by three methods; the randomised Tukey HSD's null
# distribution is sampled in shards.


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


rule tabulate_discriminative_power:
    """Table 1: significant run pairs by paper_pairwise, tukey_hsd and randomised_tukey_hsd."""
    input:
        scores="results/{collection}/scores.npz",
        # Without the randomised method there is no null distribution to sample.
        null=(
            shard_files("permutation_null", "parquet")
            if "randomised_tukey_hsd" in EXPERIMENTS["discriminative_power"]["methods"]
            else []
        ),
    output:
        table=report(
            "results/{collection}/tables/discriminative_power.csv",
            caption="../report/discriminative_power.rst",
            category="{collection}",
            subcategory="Discriminative power",
            labels={"table": "discriminative_power"},
        ),
    params:
        measures=COMPARISON_MEASURES,
        methods=EXPERIMENTS["discriminative_power"]["methods"],
        levels=EXPERIMENTS["discriminative_power"]["levels"],
        randomised_p=EXPERIMENTS["discriminative_power"]["randomised_p"],
    log:
        job_log("tabulate_discriminative_power"),
    benchmark:
        job_benchmark("tabulate_discriminative_power")
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_discriminative_power.py"
