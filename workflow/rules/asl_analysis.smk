# Alex, Hall and Metzler's Atomized Search Length analyses, at the runs' full depth.


rule analyse_asl:
    """Atomized Search Length analyses: MAP-to-ASL re-ordering (Table 2 of Alex et al.),
    RRIE between two runs, per-document ASL histograms (Figures 5 and 6)."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        reordering=collection_table("asl_reordering"),
        rrie=collection_table("asl_rrie"),
        histogram=collection_figure("asl_histogram"),
        difference=collection_figure("asl_difference"),
        histogram_pdf=figure_pdf("asl_histogram"),
        difference_pdf=figure_pdf("asl_difference"),
    params:
        settings=EXPERIMENTS["asl"],
    log:
        job_log("analyse_asl"),
    benchmark:
        job_benchmark("analyse_asl")
    # nothing waits for it, but it is among the longest such jobs: before the short ones,
    # which then fill both cores at the end
    priority: 5
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/analyse_asl.py"
