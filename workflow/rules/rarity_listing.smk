# Table 4: the rarity of the configured topics' relevant documents, and its distribution.


rule list_rarity:
    """Table 4: relevant documents of the configured topics with S_d, R(d), R'(d) at each depth, and the
    distribution of every relevant document's rarity (figures/rarity_distribution)."""
    input:
        rarity="results/{collection}/rarity.parquet",
    output:
        table=collection_table("rarity_listing"),
        figure=collection_figure("rarity_distribution"),
        pdf=figure_pdf("rarity_distribution"),
    params:
        topics=lambda wildcards: list(COLLECTIONS[wildcards.collection].listing_topics),
    log:
        job_log("list_rarity"),
    benchmark:
        job_benchmark("list_rarity")
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/list_rarity.py"
