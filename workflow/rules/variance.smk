# Variance components and topic set size design (issue 21, parts 2 and 3; Sakai 2016),
# and the topic set size figure.


rule tabulate_variance:
    """Two-way ANOVA of every measure and alpha (anova.csv), the topics each design needs
    from its residual variance V_E (topic_set_size.csv) and the paired t-test's minimum
    detectable difference at the collection's own topic count; the figure."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        anova=collection_table("anova"),
        topic_set_size=collection_table("topic_set_size"),
        minimum_detectable_difference=collection_table("minimum_detectable_difference"),
        figure=collection_figure("topic_set_size"),
        pdf=figure_pdf("topic_set_size"),
    params:
        topic_set_size=EXPERIMENTS["topic_set_size"],
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("tabulate_variance"),
    benchmark:
        job_benchmark("tabulate_variance")
    # nothing waits for it, but it is among the longest such jobs: before the short ones,
    # which then fill both cores at the end
    priority: 5
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_variance.py"

