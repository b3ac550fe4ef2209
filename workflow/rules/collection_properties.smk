# The properties of each collection that may explain its claims (issue 20): one row per
# collection, gathered into results/collection_properties.csv, and with three or more
# collections the claims plotted against the property that best orders each.


rule describe_collection:
    """One collection's properties: runs, groups, topics, judged and relevant documents
    per topic, the share of relevant documents one run (one group) alone finds, mean
    rarity, pool depth and how deep the runs are wholly judged (irmeta.campaign.properties);
    a pool depth most runs contradict is refused (irmeta.pipeline.properties)."""
    input:
        unpack(properties_input),
    output:
        row="results/{collection}/tables/collection_properties.csv",
    params:
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
        pool_depth=lambda wildcards: COLLECTIONS[wildcards.collection].pool_depth,
        pool_depth_origin=lambda wildcards: COLLECTIONS[wildcards.collection].pool_depth_origin,
        source=lambda wildcards: str(COLLECTIONS[wildcards.collection].source or wildcards.collection),
        threshold=lambda wildcards: COLLECTIONS[wildcards.collection].threshold,
        rarity_depth=PROPERTIES_RARITY_DEPTH,
    # the claims read the collections' properties: first among the jobs that can run
    priority: 10
    log:
        job_log("describe_collection"),
    benchmark:
        job_benchmark("describe_collection")
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/describe_collection.py"


rule tabulate_collection_properties:
    """results/collection_properties.csv: every collection's row, in the configured order."""
    input:
        rows=expand("results/{collection}/tables/collection_properties.csv", collection=list(COLLECTIONS)),
    output:
        table=report(
            "results/collection_properties.csv",
            caption="../report/collection_properties.rst",
            category="0. Claims",
            labels={"document": "collection properties"},
        ),
    # the claims read the collections' properties: first among the jobs that can run
    priority: 10
    log:
        job_log("tabulate_collection_properties", "properties"),
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.properties import gather_properties

        run_in_process(lambda: f"wrote {output.table} ({len(gather_properties(list(input.rows), output.table))} "
                               "collections)", rule=rule, wildcards=wildcards, log=log[0])


rule plot_claims_vs_properties:
    """Each claim's gain (tau) against the collection property that best orders it, one
    point per collection (three or more collections)."""
    input:
        claims="results/claims.csv",
        properties="results/collection_properties.csv",
    output:
        figure=report(
            "results/figures/claims_vs_properties.png",
            caption="../report/collection_properties.rst",
            category="0. Claims",
            labels={"document": "claims vs properties"},
        ),
        pdf="results/figures/claims_vs_properties.pdf",
    log:
        job_log("plot_claims_vs_properties", "claims"),
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/plot_claims_vs_properties.py"
