# Did the reproduction reproduce? (issue 28): Breuer et al.'s reproducibility measures for
# the runs a collection's reproductions file pairs with their reproductions.


rule tabulate_reproducibility:
    """KTU, RBO, RMSE, nRMSE, ER, Delta RI and t-tests of every baseline and advanced run
    against their reproductions: tables/reproducibility.csv and the ER-Delta RI figure."""
    input:
        unpack(reproducibility_input),
    output:
        table=collection_table("reproducibility"),
        figure=collection_figure("reproducibility"),
        pdf=figure_pdf("reproducibility"),
    params:
        measures=EXPERIMENTS["reproducibility"]["measures"],
        alphas=config["alphas"],
        baselines=EXPERIMENTS["reproducibility"]["baselines"],
        ktu_cutoff=EXPERIMENTS["reproducibility"]["ktu_cutoff"],
        rbo_p=EXPERIMENTS["reproducibility"]["rbo_p"],
        rbo_depth=EXPERIMENTS["reproducibility"]["rbo_depth"],
        ties=EXPERIMENTS["reproducibility"]["ties"],
        reading=ingest_options,
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("tabulate_reproducibility"),
    benchmark:
        job_benchmark("tabulate_reproducibility")
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_reproducibility.py"


rule tabulate_reproducibility_degradation:
    """Every run reproduced by degraded copies of itself: tables/reproducibility_degradation.csv,
    tables/reproducibility_trust.csv and the figure of each measure against the level."""
    input:
        # the qrels as the ingestion read them, after its checks of the runs and qrels
        judged="results/{collection}/judged.npz",
        # the rankings, kept by the ingestion at the degradations' depth
        ranked="results/{collection}/ranked.npz",
    output:
        table=collection_table("reproducibility_degradation"),
        trust=collection_table("reproducibility_trust"),
        figure=collection_figure("reproducibility_degradation"),
        pdf=figure_pdf("reproducibility_degradation"),
    params:
        measures=DEGRADATION_MEASURES,
        alphas=config["alphas"],
        rarity_depth=config["rarity_depth"],
        measure_options=config["measure_options"],
        baselines=EXPERIMENTS["reproducibility"]["baselines"],
        degradations=EXPERIMENTS["reproducibility"]["degradations"],
        ktu_cutoff=EXPERIMENTS["reproducibility"]["ktu_cutoff"],
        rbo_p=EXPERIMENTS["reproducibility"]["rbo_p"],
        rbo_depth=EXPERIMENTS["reproducibility"]["rbo_depth"],
        seed=EXPERIMENTS["seed"],
        threshold=relevance_threshold,
        reading=ingest_options,
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    threads: degradation_threads
    # among the longest jobs at 10^9 lines (one process there: copies fill a 4 GB slot)
    priority: 10
    log:
        job_log("tabulate_reproducibility_degradation"),
    benchmark:
        job_benchmark("tabulate_reproducibility_degradation")
    resources:
        mem_mb=degradation_memory_mb,
        runtime=60,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_reproducibility_degradation.py"
