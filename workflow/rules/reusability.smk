# Leave-one-group-out (issue 19): every run scored with the judgments only its group's
# runs pooled removed, against the other runs' full scores.


rule assess_reusability:
    """Each run scored with its group's solely pooled judgments removed: tables/reusability.csv,
    its summary per measure, alpha and rarity rule, and the figure."""
    input:
        unpack(reusability_input),
    output:
        table=collection_table("reusability"),
        summary=collection_table("reusability_summary"),
        figure=collection_figure("reusability"),
        pdf=figure_pdf("reusability"),
    params:
        measures=[m for m in config["measures"] if m not in IMPORTED_MEASURES],
        alphas=config["alphas"],
        rarity_depth=config["rarity_depth"],
        measure_options=config["measure_options"],
        pool_depth=lambda wildcards: COLLECTIONS[wildcards.collection].pool_depth,
        pool_depth_origin=lambda wildcards: COLLECTIONS[wildcards.collection].pool_depth_origin,
        unit=EXPERIMENTS["reusability"]["unit"],
        rules=EXPERIMENTS["reusability"]["rules"],
        source=lambda wildcards: str(COLLECTIONS[wildcards.collection].source or wildcards.collection),
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("assess_reusability"),
    benchmark:
        job_benchmark("assess_reusability")
    # the claims wait for it: first among the jobs that can run, with the others they read
    priority: 10
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        IRMETA_ENV
    script:
        "../scripts/assess_reusability.py"
