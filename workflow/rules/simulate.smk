rule simulate_campaign:
    """A synthetic TREC campaign (qrels, gzipped runs, run groups) for a collection with `simulate`."""
    output:
        qrels="results/{collection}/campaign/qrels.txt",
        runs=directory("results/{collection}/campaign/runs"),
        run_groups="results/{collection}/campaign/run_groups.tsv",
    params:
        options=simulate_options,
    log:
        job_log("simulate_campaign"),
    benchmark:
        job_benchmark("simulate_campaign")
    wildcard_constraints:
        collection=alternatives(SIMULATED),
    resources:
        **TABLE_JOB,
    conda:
        IRMETA_ENV
    script:
        "../scripts/simulate_campaign.py"
