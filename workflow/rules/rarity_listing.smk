# Table 4: the rarity of the configured topics' relevant documents.


rule list_rarity:
    """Table 4: relevant documents of the configured topics with S_d, R(d), R'(d) at each depth."""
    input:
        rarity="results/{collection}/rarity.parquet",
    output:
        table=report(
            "results/{collection}/tables/rarity_listing.csv",
            caption="../report/rarity.rst",
            category="{collection}",
            subcategory="Rarity",
            labels={"table": "rarity_listing"},
        ),
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
