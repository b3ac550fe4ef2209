# Figure 1: hypothetical systems retrieving rare or common relevant documents.


rule simulate_rare_common:
    """Figure 1: rank of hypothetical S_rare and S_common systems on one topic against D, table and figure."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        table=collection_table("synthetic_rare_common"),
        figure=collection_figure("synthetic_rare_common"),
        pdf=figure_pdf("synthetic_rare_common"),
    params:
        settings=EXPERIMENTS["synthetic"],
        rarity_depth=config["rarity_depth"],  # null: the measure's cutoff
        topic=lambda wildcards: COLLECTIONS[wildcards.collection].synthetic_topic,
    log:
        job_log("simulate_rare_common"),
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import synthetic_rare_common_step

        run_in_process(lambda: synthetic_rare_common_step(input.judged, settings=params.settings,
                                                          rarity_depth=params.rarity_depth, topic=params.topic,
                                                          table_out=output.table, figure=output.figure),
                       rule=rule, wildcards=wildcards, log=log[0])
