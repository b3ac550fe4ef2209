# Agreement on conclusions: per alternative judgment set, measure and alpha, the run
# pairs each paired test and correction of discriminative power calls significantly
# different (and in which direction) under the qrels and under the set
# (irmeta.metaeval.conclusion_agreement). The generated sets are left out: their scores
# live only inside the judgment_reduction shards, and the tests cost ~0.3 s a score
# matrix each (issue 27's budget).


rule tabulate_conclusion_agreement:
    """Same, lost, gained and reversed significant pairs of each alternative set."""
    input:
        reference="results/{collection}/scores.npz",
        alternatives=lambda wildcards: expand(
            "results/{{collection}}/judgments/{judgments}/scores.npz",
            judgments=JUDGED.get(wildcards.collection, []),
        ),
    output:
        table=collection_table("conclusion_agreement"),
    params:
        judgments=lambda wildcards: JUDGED.get(wildcards.collection, []),
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        methods=EXPERIMENTS["discriminative_power"]["methods"],
        corrections=EXPERIMENTS["discriminative_power"]["corrections"],
        levels=EXPERIMENTS["discriminative_power"]["levels"],
        permutations=EXPERIMENTS["discriminative_power"]["permutations"],
        seed=irsettings.experiment_seed(config, "pairwise_tests"),
    log:
        job_log("tabulate_conclusion_agreement"),
    benchmark:
        job_benchmark("tabulate_conclusion_agreement")
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_conclusion_agreement.py"
