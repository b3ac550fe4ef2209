# Figures per collection, and the paper's tables across the configured collections.


rule plot_collection:
    """Figures every collection gets, from its scores: tau vs alpha, discriminative power,
    stability, topic set size (PNG and PDF)."""
    input:
        kendall_tau="results/{collection}/tables/kendall_tau.csv",
        discriminative_power="results/{collection}/tables/discriminative_power.csv",
        stability="results/{collection}/tables/stability.csv",
        topic_set_size="results/{collection}/tables/topic_set_size.csv",
        minimum_detectable_difference="results/{collection}/tables/minimum_detectable_difference.csv",
    output:
        kendall_tau=collection_figure("kendall_tau", "kendall_tau", "Kendall tau vs alpha"),
        discriminative_power=collection_figure(
            "discriminative_power", "discriminative_power", "Discriminative power"
        ),
        stability=collection_figure("stability", "stability", "Stability"),
        topic_set_size=collection_figure("topic_set_size", "topic_set_size", "Topic set size"),
        pdfs=expand("results/{{collection}}/figures/{figure}.pdf", figure=SCORE_FIGURES),
    params:
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("plot_collection"),
    benchmark:
        job_benchmark("plot_collection")
    # Figures are drawn in forked processes, one figure each (same bytes as one by one).
    threads: 2
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/plot_collection.py"


rule plot_rankings:
    """Figures of the experiments that read the runs' rankings: Figure 1, system
    subsampling, rarity distribution (PNG and PDF)."""
    input:
        system_subsampling="results/{collection}/tables/system_subsampling.csv",
        synthetic_rare_common="results/{collection}/tables/synthetic_rare_common.csv",
        rarity="results/{collection}/rarity.parquet",
    output:
        synthetic_rare_common=collection_figure(
            "synthetic_rare_common", "synthetic_rare_common", "Synthetic rare/common systems"
        ),
        system_subsampling=collection_figure(
            "system_subsampling", "system_subsampling", "Number of systems"
        ),
        rarity_distribution=collection_figure("rarity_distribution", "rarity", "Rarity"),
        pdfs=expand("results/{{collection}}/figures/{figure}.pdf", figure=RANKING_FIGURES),
    params:
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("plot_rankings"),
    benchmark:
        job_benchmark("plot_rankings")
    threads: 2
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/plot_collection.py"


rule list_experiments:
    """experiments.md: what ran on a collection, and what was skipped and why."""
    input:
        tables=lambda wildcards: expand(
            "results/{{collection}}/tables/{table}.csv", table=collection_tables(wildcards.collection)
        ),
    output:
        listing=report(
            "results/{collection}/experiments.md",
            caption="../report/experiments.rst",
            category="{collection}",
            subcategory="Experiments",
            labels={"document": "experiments"},
        ),
    params:
        skipped=lambda wildcards: SKIPPED.get(wildcards.collection, {}),
        label=lambda wildcards: COLLECTIONS[wildcards.collection].label,
    log:
        job_log("list_experiments"),
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/list_experiments.py"


rule tabulate_claims:
    """Do the paper's claims hold? Each claim per collection, under the paper's protocol
    and the alternatives (claims.csv, .md, .tex and a figure)."""
    input:
        unpack(claims_inputs),
        properties="results/collection_properties.csv",
    output:
        csv="results/claims.csv",
        md=report(
            "results/claims.md",
            caption="../report/claims.rst",
            category="0. Claims",
            labels={"document": "claims"},
        ),
        tex="results/claims.tex",
        figure=report(
            "results/claims.png",
            caption="../report/claims.rst",
            category="0. Claims",
            labels={"document": "figure"},
        ),
        pdf="results/claims.pdf",
    params:
        collections={name: COLLECTIONS[name].label for name in COLLECTIONS},
        comparisons=EXPERIMENTS["comparisons"],
        tau_threshold=EXPERIMENTS["claims"]["tau_threshold"],
    log:
        job_log("tabulate_claims", "claims"),
    benchmark:
        job_benchmark("tabulate_claims", "claims")
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_claims.py"


rule tabulate_paper:
    """Tables 1-3 laid out as in the paper (CSV, Markdown, LaTeX), Figure 2 with every
    collection, and published_vs_reproduced.md."""
    input:
        unpack(paper_inputs),
        published="config/published.yaml",
    output:
        csv=[
            report(
                f"results/paper/{table}.csv",
                caption="../report/paper_tables.rst",
                category="Paper",
                subcategory="Tables",
                labels={"table": table},
            )
            for table in PAPER_TABLES
        ],
        tables=expand("results/paper/{table}.{ext}", table=PAPER_TABLES, ext=["md", "tex"]),
        figure2=report(
            "results/paper/figure2.png",
            caption="../report/kendall_tau.rst",
            category="Paper",
            subcategory="Figure 2",
            labels={"figure": "Figure 2"},
        ),
        figure2_pdf="results/paper/figure2.pdf",
        comparison=report(
            "results/paper/published_vs_reproduced.md",
            caption="../report/published_vs_reproduced.rst",
            category="Paper",
            subcategory="Published vs reproduced",
            labels={"document": "published_vs_reproduced"},
        ),
    params:
        labels=[COLLECTIONS[name].label for name in RANKED],
        names=RANKED,
        settings=irsettings.paper_settings(config, {name: COLLECTIONS[name] for name in RANKED}),
        swap=bool(EXPERIMENTS["swap"]["measures"]),
        synthetic_measure=EXPERIMENTS["synthetic"]["measure"],
    log:
        job_log("tabulate_paper", "paper"),
    benchmark:
        job_benchmark("tabulate_paper", "paper")
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/tabulate_paper.py"
