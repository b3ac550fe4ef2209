# Figure 1: hypothetical systems retrieving rare or common relevant documents.


rule simulate_rare_common:
    """Figure 1: rank of hypothetical S_rare and S_common systems on one topic against D."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        table=report(
            "results/{collection}/tables/synthetic_rare_common.csv",
            caption="../report/synthetic_rare_common.rst",
            category="{collection}",
            subcategory="Synthetic rare/common systems",
            labels={"table": "synthetic_rare_common"},
        ),
    params:
        settings=EXPERIMENTS["synthetic"],
        rarity_depth=config["rarity_depth"],  # null: the measure's cutoff
        topic=lambda wildcards: COLLECTIONS[wildcards.collection].synthetic_topic,
    log:
        job_log("simulate_rare_common"),
    benchmark:
        job_benchmark("simulate_rare_common")
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=10,
    conda:
        IRMETA_ENV
    script:
        "../scripts/simulate_rare_common.py"
