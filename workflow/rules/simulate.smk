rule simulate_campaign:
    """A synthetic TREC campaign (qrels, gzipped runs, run groups) for a collection with `simulate`."""
    output:
        qrels="results/{collection}/campaign/qrels.txt",
        runs=directory("results/{collection}/campaign/runs"),
        run_groups="results/{collection}/campaign/run_groups.tsv",
    params:
        options=simulate_options,
    log:
        "results/logs/simulate_campaign/{collection}.log",
    benchmark:
        "results/benchmarks/simulate_campaign/{collection}.tsv"
    wildcard_constraints:
        collection=alternatives(SIMULATED),
    threads: 1
    resources:
        mem_mb=1024,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/simulate_campaign.py"
