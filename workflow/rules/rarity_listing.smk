# Every relevant document's rarity; Table 4, that of the configured topics' relevant
# documents, and its distribution.


from irmeta.measures.rareness import configured_rarity_functions


rule list_rarity:
    """S_d, R(d) and R'(d) of every relevant document at the rarity depth and at the runs'
    full depth (rarity.parquet); Table 4, those of the configured topics' relevant
    documents; and the distribution of every relevant document's rarity
    (figures/rarity_distribution)."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        rarity="results/{collection}/rarity.parquet",
        table=collection_table("rarity_listing"),
        figure=collection_figure("rarity_distribution"),
        pdf=figure_pdf("rarity_distribution"),
    params:
        depths=rarity_listing_depths,
        rarity_functions=configured_rarity_functions(MEASURES_READ),
        topics=lambda wildcards: list(COLLECTIONS[wildcards.collection].listing_topics),
    log:
        job_log("list_rarity"),
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import rarity_listing_step

        run_in_process(lambda: rarity_listing_step(input.judged, depths=params.depths,
                                                   functions=params.rarity_functions, topics=params.topics,
                                                   rarity_out=output.rarity, table_out=output.table,
                                                   figure=output.figure),
                       rule=rule, wildcards=wildcards, log=log[0])
