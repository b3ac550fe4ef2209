# Agreement on labels: each alternative judgment set's grades against the qrels' on the
# (topic, document) pairs both judged, and the assessors of a folder with each other
# (irmeta.metaeval.label_agreement); the generated assessors error_<q>_trial_<t> too.


rule tabulate_label_agreement:
    """Label agreement per set and topic, the grade confusion, the assessors' agreement."""
    input:
        unpack(label_agreement_input),
    output:
        table=collection_table("label_agreement"),
        confusion=collection_table("label_confusion"),
        assessors=collection_table("assessor_agreement"),
    params:
        judgments=lambda wildcards: list(JUDGMENT_SETS.get(wildcards.collection, {}).values()),
        folders=lambda wildcards: assessor_folders(JUDGMENT_SETS.get(wildcards.collection, {})),
        threshold=relevance_threshold,
        generated=lambda wildcards: GENERATED_JUDGMENTS if wildcards.collection in REDUCED else [],
        seed=irsettings.experiment_seed(config, "judgment_reduction"),
    log:
        job_log("tabulate_label_agreement"),
    benchmark:
        job_benchmark("tabulate_label_agreement")
    resources:
        **MATRIX_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_label_agreement.py"


rule plot_label_agreement:
    """The grade confusion of each set as heatmaps, and kappa against Kendall's tau."""
    input:
        confusion=collection_table("label_confusion"),
        labels=collection_table("label_agreement"),
        agreement=collection_table("judgment_agreement"),
    output:
        confusion=collection_figure("label_confusion"),
        confusion_pdf=figure_pdf("label_confusion"),
        kappa_tau=collection_figure("kappa_tau"),
        kappa_tau_pdf=figure_pdf("kappa_tau"),
    params:
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("plot_label_agreement"),
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import label_agreement_figures_step

        run_in_process(lambda: label_agreement_figures_step(confusion=input.confusion, labels=input.labels,
                                                            agreement=input.agreement, outputs=dict(output.items()),
                                                            title=params.label),
                       rule=rule, wildcards=wildcards, log=log[0])
