# Table 3 / Algorithm 1: tau between rankings with rarity from all runs and from N
# sampled runs alone, sampled in shards.


rule sample_system_subsets:
    """Algorithm 1: tau per trial with rarity from N sampled runs alone, one shard of trials."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        taus="results/{collection}/shards/system_subsampling/{shard}.parquet",
    params:
        measures=EXPERIMENTS["system_subsampling"]["measures"],
        alpha=EXPERIMENTS["system_subsampling"]["alpha"],
        largest=EXPERIMENTS["system_subsampling"]["largest"],
        rarity_depth=config["rarity_depth"],  # null: each measure's cutoff
        trials=lambda wildcards: shard_range(EXPERIMENTS["system_subsampling"]["trials"], wildcards),
        seed=irsettings.experiment_seed(config, "system_subsampling"),
    log:
        job_log("sample_system_subsets", SHARD),
    benchmark:
        job_benchmark("sample_system_subsets", SHARD)
    # the paper's tables wait for it: first among the jobs that can run, with the others they read
    priority: 10
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/sample_system_subsets.py"


rule tabulate_system_subsampling:
    """Table 3: mean and sd of tau per number of systems N (undefined trials counted), and its figure."""
    input:
        taus=shard_files("system_subsampling", "parquet"),
    output:
        table=collection_table("system_subsampling"),
        figure=collection_figure("system_subsampling"),
        pdf=figure_pdf("system_subsampling"),
    log:
        job_log("tabulate_system_subsampling"),
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import system_subsampling_step

        run_in_process(lambda: system_subsampling_step(input.taus, table_out=output.table, figure=output.figure),
                       rule=rule, wildcards=wildcards, log=log[0])
