# Variance components and topic set size design (issue 21, parts 2 and 3; Sakai 2016);
# the figure is drawn by plot_collection (report.smk).


rule tabulate_variance:
    """Two-way ANOVA of every measure and alpha (anova.csv), the topics each design needs
    from its residual variance V_E (topic_set_size.csv) and the paired t-test's minimum
    detectable difference at the collection's own topic count."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        anova=report(
            "results/{collection}/tables/anova.csv",
            caption="../report/anova.rst",
            category="{collection}",
            subcategory="Variance components",
            labels={"table": "anova"},
        ),
        topic_set_size=report(
            "results/{collection}/tables/topic_set_size.csv",
            caption="../report/topic_set_size_table.rst",
            category="{collection}",
            subcategory="Topic set size",
            labels={"table": "topic_set_size"},
        ),
        minimum_detectable_difference=report(
            "results/{collection}/tables/minimum_detectable_difference.csv",
            caption="../report/minimum_detectable_difference.rst",
            category="{collection}",
            subcategory="Topic set size",
            labels={"table": "minimum_detectable_difference"},
        ),
    params:
        topic_set_size=EXPERIMENTS["topic_set_size"],
    log:
        job_log("tabulate_variance"),
    benchmark:
        job_benchmark("tabulate_variance")
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_variance.py"

