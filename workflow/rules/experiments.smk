# The paper's experiments, per collection: results/{collection}/tables/*.csv.
# Randomised experiments run as shards (separate jobs, e.g. on a cluster) merged by a
# tabulate rule; trial t always draws from default_rng([seed + offset, t]).


rule tabulate_kendall_tau:
    """Figure 2: Kendall tau-b and tau_AP of each measure and alpha against its baseline."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        table=report(
            "results/{collection}/tables/kendall_tau.csv",
            caption="../report/kendall_tau_table.rst",
            category="{collection}",
            subcategory="Kendall tau vs alpha",
            labels={"table": "kendall_tau"},
        ),
    params:
        comparisons=EXPERIMENTS["comparisons"],
    log:
        "results/logs/tabulate_kendall_tau/{collection}.log",
    benchmark:
        "results/benchmarks/tabulate_kendall_tau/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=1024,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/tabulate_kendall_tau.py"


rule sample_permutation_null:
    """Randomised Tukey HSD: max mean difference of permuted matrices, one shard of trials."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        null="results/{collection}/shards/permutation_null/{shard}.parquet",
    params:
        measures=experiment_measures(),
        trials=lambda wildcards: shard_range(EXPERIMENTS["discriminative_power"]["permutations"], wildcards),
        seed=EXPERIMENTS["seed"] + 1,
    log:
        "results/logs/sample_permutation_null/{collection}.{shard}.log",
    benchmark:
        "results/benchmarks/sample_permutation_null/{collection}.{shard}.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/sample_permutation_null.py"


rule tabulate_discriminative_power:
    """Table 1: significant run pairs by paper_pairwise, tukey_hsd and randomised_tukey_hsd."""
    input:
        scores="results/{collection}/scores.npz",
        null=permutation_null_shards,
    output:
        table=report(
            "results/{collection}/tables/discriminative_power.csv",
            caption="../report/discriminative_power.rst",
            category="{collection}",
            subcategory="Discriminative power",
            labels={"table": "discriminative_power"},
        ),
    params:
        measures=experiment_measures(),
        methods=EXPERIMENTS["discriminative_power"]["methods"],
        levels=EXPERIMENTS["discriminative_power"]["levels"],
    log:
        "results/logs/tabulate_discriminative_power/{collection}.log",
    benchmark:
        "results/benchmarks/tabulate_discriminative_power/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/tabulate_discriminative_power.py"


rule sample_stability:
    """Buckley-Voorhees: per-pair wins and ties over one shard of topic-subset trials."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        counts="results/{collection}/shards/stability/{shard}.npz",
    params:
        measures=experiment_measures(),
        trials=lambda wildcards: shard_range(EXPERIMENTS["stability"]["trials"], wildcards),
        topics_per_trial=EXPERIMENTS["stability"]["topics_per_trial"],
        fuzziness=EXPERIMENTS["stability"]["fuzziness"],
        seed=EXPERIMENTS["seed"],
    log:
        "results/logs/sample_stability/{collection}.{shard}.log",
    benchmark:
        "results/benchmarks/sample_stability/{collection}.{shard}.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/sample_stability.py"


rule tabulate_stability:
    """Table 2: stability of every measure and alpha, absolute and relative fuzziness."""
    input:
        counts=stability_shards,
    output:
        table=report(
            "results/{collection}/tables/stability.csv",
            caption="../report/stability.rst",
            category="{collection}",
            subcategory="Stability",
            labels={"table": "stability"},
        ),
    params:
        trials=EXPERIMENTS["stability"]["trials"],
        seed=EXPERIMENTS["seed"],
    log:
        "results/logs/tabulate_stability/{collection}.log",
    benchmark:
        "results/benchmarks/tabulate_stability/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/tabulate_stability.py"


rule sample_system_subsets:
    """Algorithm 1: tau per trial with rarity from N sampled runs alone, one shard of trials."""
    input:
        judged="results/{collection}/judged.npz",
    output:
        taus="results/{collection}/shards/system_subsampling/{shard}.parquet",
    params:
        measures=EXPERIMENTS["system_subsampling"]["measures"],
        alpha=EXPERIMENTS["system_subsampling"]["alpha"],
        largest=EXPERIMENTS["system_subsampling"]["largest"],
        trials=lambda wildcards: shard_range(EXPERIMENTS["system_subsampling"]["trials"], wildcards),
        seed=EXPERIMENTS["seed"] + 2,
    log:
        "results/logs/sample_system_subsets/{collection}.{shard}.log",
    benchmark:
        "results/benchmarks/sample_system_subsets/{collection}.{shard}.tsv"
    threads: 1
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/sample_system_subsets.py"


rule tabulate_system_subsampling:
    """Table 3: mean and sd of tau per number of systems N (undefined trials counted)."""
    input:
        taus=system_subsampling_shards,
    output:
        table=report(
            "results/{collection}/tables/system_subsampling.csv",
            caption="../report/system_subsampling.rst",
            category="{collection}",
            subcategory="Number of systems",
            labels={"table": "system_subsampling"},
        ),
    log:
        "results/logs/tabulate_system_subsampling/{collection}.log",
    benchmark:
        "results/benchmarks/tabulate_system_subsampling/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=1024,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/tabulate_system_subsampling.py"


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
        topic=lambda wildcards: COLLECTIONS[wildcards.collection].synthetic_topic,
    log:
        "results/logs/simulate_rare_common/{collection}.log",
    benchmark:
        "results/benchmarks/simulate_rare_common/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/simulate_rare_common.py"


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
        "results/logs/list_rarity/{collection}.log",
    benchmark:
        "results/benchmarks/list_rarity/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=1024,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/list_rarity.py"


rule sample_swaps:
    """Swap method: per-bin comparisons and swaps of two topic sets, one shard of trials."""
    input:
        scores="results/{collection}/scores.npz",
    output:
        counts="results/{collection}/shards/swap/{shard}.parquet",
    params:
        measures=swap_measures(),
        alphas=EXPERIMENTS["swap"]["alphas"],
        trials=lambda wildcards: shard_range(EXPERIMENTS["swap"]["trials"], wildcards),
        settings=EXPERIMENTS["swap"],
        seed=EXPERIMENTS["seed"] + 3,
    log:
        "results/logs/sample_swaps/{collection}.{shard}.log",
    benchmark:
        "results/benchmarks/sample_swaps/{collection}.{shard}.tsv"
    threads: 1
    resources:
        mem_mb=2048,
        runtime=30,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/sample_swaps.py"


rule tabulate_swap_sensitivity:
    """Sakai's Table 1: difference required for a 95% sure comparison, share discriminated."""
    input:
        counts=swap_shards,
        scores="results/{collection}/scores.npz",
    output:
        table=report(
            "results/{collection}/tables/swap_sensitivity.csv",
            caption="../report/swap_sensitivity.rst",
            category="{collection}",
            subcategory="Swap method",
            labels={"table": "swap_sensitivity"},
        ),
    params:
        settings=EXPERIMENTS["swap"],
        seed=EXPERIMENTS["seed"] + 3,
    log:
        "results/logs/tabulate_swap_sensitivity/{collection}.log",
    benchmark:
        "results/benchmarks/tabulate_swap_sensitivity/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=1024,
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/tabulate_swap_sensitivity.py"


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
        "results/logs/analyse_asl/{collection}.log",
    benchmark:
        "results/benchmarks/analyse_asl/{collection}.tsv"
    threads: 1
    resources:
        mem_mb=mem_mb_from_input(2),
        runtime=10,
    conda:
        "../envs/irmeta.yaml"
    script:
        "../scripts/analyse_asl.py"
