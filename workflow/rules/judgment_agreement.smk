# Bring your own judgments: every run scored again under each of a collection's
# alternative_qrels, and the systems' rankings and significant pairs compared with those
# under its qrels (the reference). Every collection with rankings also gets generated
# sets, shallower pools and sampled judgments (irmeta.metaeval.judgment_reduction),
# compared the same way in shards and tabulated with them.


rule ingest_judgments:
    """The runs read again, judged by an alternative judgment set."""
    input:
        qrels=judgments_qrels,
        runs=lambda wildcards: ingest_input(wildcards)["runs"],
    output:
        judged="results/{collection}/judgments/{judgments}/judged.npz",
    params:
        options=ingest_options,
        threshold=relevance_threshold,
    log:
        job_log("ingest_judgments", "{collection}.{judgments}"),
    benchmark:
        job_benchmark("ingest_judgments", "{collection}.{judgments}")
    threads: config["threads"]
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/ingest_collection.py"


rule score_judgments:
    """Every run under an alternative judgment set, with the measures irmeta computes."""
    input:
        judged="results/{collection}/judgments/{judgments}/judged.npz",
    output:
        scores="results/{collection}/judgments/{judgments}/scores.parquet",
        arrays="results/{collection}/judgments/{judgments}/scores.npz",
    params:
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        averaging=config["averaging"],
        alphas=config["alphas"],
        rarity_depth=config["rarity_depth"],
        measure_options=config["measure_options"],
        imported_options={},
        imported_measures=[],
    log:
        job_log("score_judgments", "{collection}.{judgments}"),
    benchmark:
        job_benchmark("score_judgments", "{collection}.{judgments}")
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/score_runs.py"


rule compare_reduced_judgments:
    """One shard of the generated judgment sets (pool_depth_<d>, fraction_<f>_trial_<t>):
    every run scored under each set, one set at a time, and compared with the qrels."""
    input:
        unpack(run_families_input),
        judged="results/{collection}/judged.npz",
        reference="results/{collection}/scores.npz",
    output:
        rows="results/{collection}/shards/judgment_reduction/{shard}.parquet",
        families="results/{collection}/shards/family_bias/{shard}.parquet",
        ranks="results/{collection}/shards/judgment_ranks/{shard}.parquet",
    params:
        sets=generated_judgments_of_shard,
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        alphas=config["alphas"],
        rarity_depth=config["rarity_depth"],
        measure_options=config["measure_options"],
        level=JUDGMENT_SETTINGS["level"],
        ties=JUDGMENT_SETTINGS["ties"],
        seed=irsettings.experiment_seed(config, "judgment_reduction"),
        family_seed=irsettings.experiment_seed(config, "family_bias"),
        family_permutations=JUDGMENT_SETTINGS["family_permutations"],
    wildcard_constraints:
        collection=alternatives(REDUCED),
    # among the longest jobs, and the judgment agreement and the claims wait for it: with
    # the discriminative power's chain, first
    priority: 15
    log:
        job_log("compare_reduced_judgments", SHARD),
    benchmark:
        job_benchmark("compare_reduced_judgments", SHARD)
    # The campaign, the reference scores and one set's campaign and scores (measured:
    # 0.6 GB at 500 runs x 500 topics x depth 100, 0.25 GB of inputs).
    resources:
        mem_mb=mem_mb_from_input(2.5),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/compare_reduced_judgments.py"


rule tabulate_judgment_agreement:
    """Per measure and alpha: Kendall's tau-b, tau_AP (and the tie-aware variants named) and swapped significant pairs between
    the systems under the reference qrels and under each alternative and generated
    judgment set; the generated sets' summary per depth and fraction, and its curves."""
    input:
        unpack(judgment_scores),
    output:
        table=collection_table("judgment_agreement"),
        figure=collection_figure("judgment_agreement"),
        pdf=figure_pdf("judgment_agreement"),
        reduction=collection_table("judgment_reduction"),
        reduction_figure=collection_figure("judgment_reduction"),
        reduction_pdf=figure_pdf("judgment_reduction"),
    params:
        judgments=lambda wildcards: JUDGED.get(wildcards.collection, []),
        generated=lambda wildcards: GENERATED_JUDGMENTS if wildcards.collection in REDUCED else [],
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        level=EXPERIMENTS["judgment_agreement"]["level"],
        ties=EXPERIMENTS["judgment_agreement"]["ties"],
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("tabulate_judgment_agreement"),
    benchmark:
        job_benchmark("tabulate_judgment_agreement")
    # the claims wait for it: first among the jobs that can run, with the others they read
    priority: 10
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_judgment_agreement.py"


rule prepare_judgments:
    """A judgment set not read as it is (irmeta.pipeline.judgment_config): a folder's
    assessors fused, or a set whose unjudged documents take the reference's grades."""
    input:
        unpack(prepared_judgments_input),
    output:
        qrels="results/{collection}/judgments/{judgments}/qrels.txt",
    params:
        judgment_set=lambda wildcards: JUDGMENT_SETS[wildcards.collection][wildcards.judgments],
    log:
        job_log("prepare_judgments", "{collection}.{judgments}"),
    benchmark:
        job_benchmark("prepare_judgments", "{collection}.{judgments}")
    resources:
        mem_mb=mem_mb_from_input(4),
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/prepare_judgments.py"


rule tabulate_family_bias:
    """Per judgment set, measure and alpha: each run family's mean rank and score change
    from the qrels to the set, with a permutation test of the family labels
    (irmeta.metaeval.family_bias); the generated sets' rows come from the shards."""
    input:
        unpack(family_bias_input),
    output:
        table=collection_table("family_bias"),
    params:
        judgments=lambda wildcards: JUDGED.get(wildcards.collection, []),
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        permutations=JUDGMENT_SETTINGS["family_permutations"],
        seed=irsettings.experiment_seed(config, "family_bias"),
    log:
        job_log("tabulate_family_bias"),
    benchmark:
        job_benchmark("tabulate_family_bias")
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_family_bias.py"


rule plot_family_ranks:
    """Each run's rank under the qrels against its rank under a judgment set, per measure,
    coloured by its family when the collection names run_families."""
    input:
        unpack(family_bias_input),
    output:
        figure=collection_figure("family_ranks"),
        pdf=figure_pdf("family_ranks"),
    params:
        judgments=lambda wildcards: JUDGED.get(wildcards.collection, []),
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("plot_family_ranks"),
    benchmark:
        job_benchmark("plot_family_ranks")
    # nothing waits for it, but it is among the longest such jobs: before the short ones,
    # which then fill both cores at the end
    priority: 5
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/plot_family_ranks.py"
