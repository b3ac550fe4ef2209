# Figures per collection, and the paper's tables across the configured collections.


rule plot_collection:
    """Figures of one collection: tau vs alpha, Figure 1, discriminative power, stability,
    system subsampling, rarity distribution (PNG and PDF)."""
    input:
        kendall_tau="results/{collection}/tables/kendall_tau.csv",
        discriminative_power="results/{collection}/tables/discriminative_power.csv",
        stability="results/{collection}/tables/stability.csv",
        system_subsampling="results/{collection}/tables/system_subsampling.csv",
        synthetic_rare_common="results/{collection}/tables/synthetic_rare_common.csv",
        rarity="results/{collection}/rarity.parquet",
    output:
        figures=expand(
            "results/{{collection}}/figures/{figure}.{ext}",
            figure=COLLECTION_FIGURES,
            ext=["png", "pdf"],
        ),
    params:
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        "results/logs/plot_collection/{collection}.log",
    benchmark:
        "results/benchmarks/plot_collection/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/plot_collection.py"


rule tabulate_paper:
    """Tables 1-3 laid out as in the paper (CSV, Markdown, LaTeX), Figure 2 with every
    collection, and published_vs_reproduced.md."""
    input:
        unpack(paper_inputs),
        published="config/published.yaml",
    output:
        tables=expand("results/paper/{table}.{ext}", table=PAPER_TABLES, ext=["csv", "md", "tex"]),
        figure2=expand("results/paper/figure2.{ext}", ext=["png", "pdf"]),
        comparison="results/paper/published_vs_reproduced.md",
    params:
        labels=[COLLECTIONS[name].label for name in COLLECTIONS],
        names=list(COLLECTIONS),
        settings=paper_settings(),
    log:
        "results/logs/tabulate_paper/paper.log",
    benchmark:
        "results/benchmarks/tabulate_paper/paper.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/tabulate_paper.py"
