# Table 2: Buckley-Voorhees stability over random topic subsets, sampled in shards.


rule sample_stability:
    """Buckley-Voorhees: per-pair wins and ties over one shard of topic-subset trials."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        counts="results/{collection}/shards/stability/{shard}.npz",
    params:
        measures=COMPARISON_MEASURES,
        trials=lambda wildcards: shard_range(EXPERIMENTS["stability"]["trials"], wildcards),
        topics_per_trial=EXPERIMENTS["stability"]["topics_per_trial"],
        fuzziness=EXPERIMENTS["stability"]["fuzziness"],
        seed=EXPERIMENTS["seed"],  # irmeta.api adds the experiment's SEED_OFFSET
    log:
        job_log("sample_stability", SHARD),
    benchmark:
        job_benchmark("sample_stability", SHARD)
    # the claims wait for it: first among the jobs that can run, with the others they read
    priority: 10
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/sample_stability.py"


rule tabulate_stability:
    """Table 2: stability of every measure and alpha, absolute and relative fuzziness, and its figure."""
    input:
        counts=shard_files("stability", "npz"),
    output:
        table=collection_table("stability"),
        figure=collection_figure("stability"),
        pdf=figure_pdf("stability"),
    params:
        trials=EXPERIMENTS["stability"]["trials"],
        seed=EXPERIMENTS["seed"],  # irmeta.api adds the experiment's SEED_OFFSET
    log:
        job_log("tabulate_stability"),
    # The shards' per-pair counts of every score matrix, summed.
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import stability_step

        run_in_process(lambda: stability_step(input.counts, trials=params.trials, seed=params.seed,
                                              table_out=output.table, figure=output.figure),
                       rule=rule, wildcards=wildcards, log=log[0])
