# Alex, Hall and Metzler's Atomized Search Length analyses, at the runs' full depth.


rule analyse_asl:
    """Atomized Search Length analyses: MAP-to-ASL re-ordering (Table 2 of Alex et al.),
    RRIE between two runs, per-document ASL histograms (Figures 5 and 6)."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        reordering=report(
            "results/{collection}/tables/asl_reordering.csv",
            caption="../report/asl.rst",
            category="{collection}",
            subcategory="Atomized Search Length",
            labels={"table": "asl_reordering"},
        ),
        rrie="results/{collection}/tables/asl_rrie.csv",
        histogram=report(
            "results/{collection}/figures/asl_histogram.png",
            caption="../report/asl.rst",
            category="{collection}",
            subcategory="Atomized Search Length",
            labels={"figure": "asl_histogram"},
        ),
        difference=report(
            "results/{collection}/figures/asl_difference.png",
            caption="../report/asl.rst",
            category="{collection}",
            subcategory="Atomized Search Length",
            labels={"figure": "asl_difference"},
        ),
        pdfs=expand("results/{{collection}}/figures/{figure}.pdf", figure=["asl_histogram", "asl_difference"]),
    params:
        settings=EXPERIMENTS["asl"],
    log:
        job_log("analyse_asl"),
    benchmark:
        job_benchmark("analyse_asl")
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/analyse_asl.py"
