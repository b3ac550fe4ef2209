# Sensitivity by the swap method (Voorhees and Buckley 2002, as Sakai 2006 uses it),
# its trials sampled in shards; the table, milliseconds of work, in the workflow's process.


rule sample_swaps:
    """Swap method: per-bin comparisons and swaps of two topic sets, one shard of trials."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        counts="results/{collection}/shards/swap/{shard}.parquet",
    params:
        measures=EXPERIMENTS["swap"]["measures"],
        alphas=EXPERIMENTS["swap"]["alphas"],
        trials=lambda wildcards: shard_range(EXPERIMENTS["swap"]["trials"], wildcards),
        settings=EXPERIMENTS["swap"],
        seed=EXPERIMENTS["seed"],  # irmeta.api adds the experiment's SEED_OFFSET
    log:
        job_log("sample_swaps", SHARD),
    benchmark:
        job_benchmark("sample_swaps", SHARD)
    # the paper's tables wait for it: first among the jobs that can run, with the others they read
    priority: 10
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/sample_swaps.py"


rule tabulate_swap_sensitivity:
    """Sakai's Table 1: difference required for a 95% sure comparison, share discriminated."""
    input:
        counts=shard_files("swap", "parquet"),
        scores="results/{collection}/scores.npz",
    output:
        table=collection_table("swap_sensitivity"),
    params:
        settings=EXPERIMENTS["swap"],
        # Written beside the numbers, so the table says which draws made it.
        seed=EXPERIMENTS["seed"],  # irmeta.api adds the experiment's SEED_OFFSET
    log:
        job_log("tabulate_swap_sensitivity"),
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.steps import swap_sensitivity_step

        run_in_process(lambda: swap_sensitivity_step(input.scores, input.counts, params.settings, params.seed,
                                                     output.table), rule=rule, wildcards=wildcards, log=log[0])
