# Figure 2: rank correlation of each measure against its baseline, per alpha.


rule tabulate_kendall_tau:
    """Figure 2: Kendall tau-b and tau_AP of each measure and alpha against its baseline,
    tau's bootstrap interval over topics and rank-biased overlap."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        table=report(
            "results/{collection}/tables/kendall_tau.csv",
            caption="../report/kendall_tau_table.rst",
            category="{collection}",
            subcategory="Kendall tau vs alpha",
            labels={"table": "kendall_tau"},
        ),
    params:
        comparisons=EXPERIMENTS["comparisons"],
        tau_ap=EXPERIMENTS["kendall_tau"]["tau_ap"],
        bootstrap_samples=EXPERIMENTS["kendall_tau"]["bootstrap_samples"],
        rbo_p=EXPERIMENTS["kendall_tau"]["rbo_p"],
        seed=EXPERIMENTS["seed"],  # kendall_tau_table adds the bootstrap's SEED_OFFSET
    log:
        job_log("tabulate_kendall_tau"),
    benchmark:
        job_benchmark("tabulate_kendall_tau")
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_kendall_tau.py"
