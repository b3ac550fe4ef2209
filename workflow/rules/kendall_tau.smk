# Figure 2: rank correlation of each measure against its baseline, per alpha.


rule tabulate_kendall_tau:
    """Figure 2 and its table: Kendall tau-b and tau_AP of each measure and alpha against its baseline,
    tau-b's bootstrap interval over topics, rank-biased overlap, and the tie-aware variants named."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        table=collection_table("kendall_tau"),
        figure=collection_figure("kendall_tau"),
        pdf=figure_pdf("kendall_tau"),
    params:
        comparisons=EXPERIMENTS["comparisons"],
        tau_ap=EXPERIMENTS["kendall_tau"]["tau_ap"],
        bootstrap_samples=EXPERIMENTS["kendall_tau"]["bootstrap_samples"],
        rbo_p=EXPERIMENTS["kendall_tau"]["rbo_p"],
        ties=EXPERIMENTS["kendall_tau"]["ties"],
        seed=EXPERIMENTS["seed"],  # kendall_tau_table adds the bootstrap's SEED_OFFSET
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("tabulate_kendall_tau"),
    benchmark:
        job_benchmark("tabulate_kendall_tau")
    # the claims wait for it: first among the jobs that can run, with the others they read
    priority: 10
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_kendall_tau.py"
