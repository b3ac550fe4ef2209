# What ran on each collection, the claims across collections and the paper's tables.


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
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.experiments import write_experiments_listing

        run_in_process(lambda: write_experiments_listing(output.listing, params.label, input.tables, params.skipped),
                       rule=rule, wildcards=wildcards, log=log[0])


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
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import claims_step

        run_in_process(lambda: claims_step(input, collections=params.collections, comparisons=params.comparisons,
                                           tau_threshold=params.tau_threshold, csv_out=output.csv,
                                           figure=output.figure, pdf=output.pdf),
                       rule=rule, wildcards=wildcards, log=log[0])


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
    localrule: True
    threads: IN_PROCESS_THREADS
    run:
        from irmeta.pipeline.summary_steps import paper_step

        run_in_process(lambda: paper_step(input, names=params.names, labels=params.labels, swap=params.swap,
                                          settings=params.settings, synthetic_measure=params.synthetic_measure,
                                          comparison_out=output.comparison),
                       rule=rule, wildcards=wildcards, log=log[0])
