# Configuration, collections, input functions and what every job shares; parsed before
# the rules (one file per experiment beside this one).
#
# Paths: the working directory (the repository root, or --directory) is the base of
# every relative path: config/config.yaml, config/collections/<name>.yaml, data_root,
# results/. A collection's {data_root} is replaced by the resolved data root.

import re
import time
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from irmeta.pipeline import collection_config as ircollections
from irmeta.pipeline import config_checks as irconfig
from irmeta.pipeline.config_schema import check_config_files, read_exponent_numbers, load_schema, schema_path
from irmeta.pipeline import error_rate_config as irerrors
from irmeta.pipeline import experiment_settings as irsettings
from irmeta.pipeline import manifest as irmanifest
from irmeta.pipeline import report_front as irfront
from irmeta.metaeval.generated_set_names import generated_set_names
from irmeta.pipeline.judgment_config import assessor_folders, collection_judgment_sets
from irmeta.pipeline.scripts import run_in_process


RUN_STARTED = time.time()  # job logs written after this are this run's (onerror reads them)
COLLECTIONS_DIR = Path("config/collections")

# One validation of the schema (the library's package data), Snakemake's, which fills in
# its defaults; numbers YAML 1.1 reads as text (1e-9) read as numbers first. Its error is
# a many-line dump, so on failure irmeta.pipeline.config_checks finds the same fault and
# names its key on one line. Then what a schema cannot say (measure names, alphas, tests,
# experiments on unscored measures), and measure_options become parameters of the names.
CONFIG_SOURCE = " + ".join(map(str, workflow.configfiles)) or "config"
try:  # Snakemake keeps the last of a key named twice: read as irmeta reads YAML, it is refused
    check_config_files(workflow.configfiles)
except ValueError as exc:
    raise WorkflowError(str(exc)) from None
read_exponent_numbers(config, load_schema("config.schema.yaml"))
try:
    validate(config, schema=str(schema_path("config.schema.yaml")))
except WorkflowError:
    try:
        irconfig.validate_config(config, CONFIG_SOURCE)
    except ValueError as exc:
        raise WorkflowError(str(exc)) from None
    raise
try:
    config.update(irconfig.check_config(config, CONFIG_SOURCE))  # in place: the report's captions read it
except ValueError as exc:
    raise WorkflowError(str(exc)) from None


# Every configured collection, by name. A bad collection file or a missing qrels or run
# path stops the workflow here, at parse time, on one line naming the file and the key;
# with missing_data: skip, a collection whose data is absent is skipped with a warning.
try:
    COLLECTIONS, DATA_WARNINGS = ircollections.available_collections(
        config, COLLECTIONS_DIR, base_dir=Path.cwd(), source=CONFIG_SOURCE
    )
except (ValueError, FileNotFoundError) as exc:
    raise WorkflowError(str(exc)) from None
for warning in DATA_WARNINGS:
    logger.warning(f"irmeta: {warning}")
if not COLLECTIONS:
    raise WorkflowError("no configured collection has its data; nothing to do")


def alternatives(names):
    """A regex matching exactly the given names (none: matches nothing)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


SIMULATED = [name for name, c in COLLECTIONS.items() if c.simulated]
# Collections with rankings (runs, or simulated) run every experiment; a collection of
# per-topic scores only runs those that read scores (irmeta.pipeline.manifest).
RANKED = [name for name, c in COLLECTIONS.items() if c.has_runs]
SCORES_ONLY = [name for name in COLLECTIONS if name not in RANKED]
# config's measures as read, once, here where the config enters; jobs get the canonical names
# (params stay text: Snakemake compares them to rerun) and read them once where they start.
MEASURES_READ = irconfig.config_measures(config)
IMPORTED_MEASURES = [name for name, m in zip(config["measures"], MEASURES_READ) if irconfig.imported_only(m)]
# Generated judgment sets (shallower pools, sampled judgments) of every collection with
# rankings, compared with its qrels beside its alternative_qrels (judgment_agreement.smk).
JUDGMENT_SETTINGS = config["experiments"]["judgment_agreement"]
try:
    GENERATED_JUDGMENTS = generated_set_names(
        JUDGMENT_SETTINGS["pool_depths"], JUDGMENT_SETTINGS["judgment_fractions"], JUDGMENT_SETTINGS["trials"],
        JUDGMENT_SETTINGS["assessor_errors"],
    )
except ValueError as exc:
    raise WorkflowError(f"{CONFIG_SOURCE}: experiments.judgment_agreement.{exc}") from None
# Each collection's judgment sets of any origin (irmeta.pipeline.judgment_config): files,
# folders of assessors, fused sets, each checked against the qrels before any job.
JUDGMENT_SETS = {}
for name, c in COLLECTIONS.items():
    if c.judgment_specs:
        try:
            JUDGMENT_SETS[name] = collection_judgment_sets(
                c.judgment_specs, None if c.simulated else c.qrels, str(c.source or name), GENERATED_JUDGMENTS
            )
        except ValueError as exc:
            raise WorkflowError(str(exc)) from None
JUDGED = {name: list(sets) for name, sets in JUDGMENT_SETS.items()}
REDUCED = RANKED if GENERATED_JUDGMENTS else []


wildcard_constraints:
    collection=alternatives(COLLECTIONS),
    shard=r"\d+",


EXPERIMENTS = config["experiments"]
SHARDS = list(range(EXPERIMENTS["shards"]))
# Discriminative power and stability test every measure the comparisons name.
COMPARISON_MEASURES = irsettings.comparison_measures(config)
# The paired tests among the discriminative-power methods: one job tests every run pair.
PAIRED_TESTS = irsettings.paired_tests(config)
# What each collection runs, its tables, figures and report entries: the experiment
# manifest (irmeta.pipeline.manifest) read with the collection's facts.
FACTS = {
    name: irmanifest.Facts(
        has_runs=c.has_runs,
        alternative_judgments=bool(c.alternative_qrels),
        generated_judgments=bool(GENERATED_JUDGMENTS),
        paired_tests=bool(PAIRED_TESTS),
        reproductions=c.reproductions is not None,
        run_families=c.run_families is not None,
        name=name,
    )
    for name, c in COLLECTIONS.items()
}
SKIPPED = {name: irmanifest.skipped(EXPERIMENTS, FACTS[name]) for name in SCORES_ONLY}
for name, skipped in SKIPPED.items():
    for experiment, reason in skipped.items():
        logger.warning(f"irmeta: collection {name}: skipping {experiment} ({reason})")
# The report's first page (workflow/report/workflow.rst) reads this when the report is
# built: what ran, what did not and why, then the claims and the headline figures.
config["report_front"] = irfront.FrontPage.of(
    config["collections"], {name: c.label for name, c in COLLECTIONS.items()}, DATA_WARNINGS, SKIPPED
)


PAPER_TABLES = [
    "table1",
    "table1_tukey_hsd",
    "table1_randomised_tukey_hsd",
    "table2",
    "table2_relative",
    "table3",
]
if EXPERIMENTS["swap"]["measures"]:
    PAPER_TABLES.append("swap_sensitivity")


def collection_tables(name, paper=False):
    """The experiment tables a collection gets (paper: those published_vs_reproduced reads)."""
    return irmanifest.collection_tables(EXPERIMENTS, FACTS[name], paper=paper)


def all_targets():
    """Every output of every configured collection, the claims across them, and the
    paper's tables and figures (over the collections with runs)."""
    targets = [
        *expand("results/claims.{ext}", ext=["csv", "md", "tex", "png", "pdf"]),
        *expand("results/{collection}/experiments.md", collection=list(COLLECTIONS)),
        "results/collection_properties.csv",
    ]
    if len(COLLECTIONS) >= 3:  # one point per collection: fewer orders nothing
        targets += expand("results/figures/claims_vs_properties.{ext}", ext=["png", "pdf"])
    if RANKED:
        targets += [
            "results/paper/published_vs_reproduced.md",
            *expand("results/paper/{table}.{ext}", table=PAPER_TABLES, ext=["csv", "md", "tex"]),
            *expand("results/paper/figure2.{ext}", ext=["png", "pdf"]),
        ]
    for name in COLLECTIONS:
        outputs = ["scores.parquet", "scores.npz"]
        if name in RANKED:
            outputs += ["judged.npz", "rarity.parquet"]
        targets += expand("results/{c}/{o}", c=name, o=outputs)
        targets += expand("results/{c}/tables/{t}.csv", c=name, t=collection_tables(name))
        figures = irmanifest.collection_figures(EXPERIMENTS, FACTS[name])
        targets += expand("results/{c}/figures/{f}.{ext}", c=name, f=figures, ext=["png", "pdf"])
    return targets


def collection_table(name):
    """A table's CSV, in the report under its collection and experiment (as the manifest says)."""
    entry = irmanifest.output("tables", name)
    path = f"results/{{collection}}/tables/{name}.csv"
    if entry.caption is None:
        return path
    return report(
        path,
        caption=f"../report/{entry.caption}.rst",
        category="{collection}",
        subcategory=entry.subcategory,
        labels={"table": name},
    )


def collection_figure(name):
    """A figure's PNG, in the report under its collection and experiment (as the manifest says)."""
    entry = irmanifest.output("figures", name)
    return report(
        f"results/{{collection}}/figures/{name}.png",
        caption=f"../report/{entry.caption}.rst",
        category="{collection}",
        subcategory=entry.subcategory,
        labels={"figure": name},
    )


def figure_pdf(name):
    """A figure's PDF, beside its PNG."""
    return f"results/{{collection}}/figures/{name}.pdf"


# Jobs. Every rule runs in the same software and on one core unless it says otherwise
# (Snakemake's default threads: 1). A job's log and benchmark are named by its rule and
# wildcards, results/logs/<rule>/<collection>[.<shard>].log, one file per job, so no two
# jobs write to the same log.
IRMETA_ENV = "../envs/irmeta.yaml"  # relative to workflow/rules/, where every rule lives
SHARD = "{collection}.{shard}"

# What a job asks a cluster for (SLURM: --mem in MB, --time in minutes): a table job
# reads scores or tables and writes a table; a matrix job holds the score matrices of its
# measures through many trials or tests.
TABLE_JOB = {"mem_mb": 1024, "runtime": 10}
MATRIX_JOB = {"mem_mb": 2048, "runtime": 30}


def job_log(rule, wildcards="{collection}"):
    return f"results/logs/{rule}/{wildcards}.log"


def job_benchmark(rule, wildcards="{collection}"):
    return f"results/benchmarks/{rule}/{wildcards}.tsv"


# Randomised experiments run as shards (separate jobs, side by side on a cluster), merged
# by a tabulate rule. Each trial draws from its own stream, seeded by the experiment's
# seed (irmeta.pipeline.experiment_settings.experiment_seed) and the trial's index, so the merged table
# is the same however the trials are split.
def shard_range(total, wildcards):
    """[first, last) trial indices of the wildcard's shard, as a list of two ints."""
    from irmeta.pipeline.scripts import shard_trials

    trials = shard_trials(total, len(SHARDS), int(wildcards.shard))
    return [trials.start, trials.stop]


def shard_files(experiment, ext):
    """Every shard's output of an experiment, for the rule that merges them."""
    return expand(
        "results/{{collection}}/shards/{experiment}/{shard}.{ext}",
        experiment=experiment,
        shard=SHARDS,
        ext=ext,
    )


def qrels_downloads():
    """Collections whose qrels are missing locally but have an official address."""
    return {
        name: c
        for name, c in COLLECTIONS.items()
        if not c.simulated and c.qrels_url and not c.qrels.is_file()
    }


def simulate_options(wildcards):
    """Keyword arguments of irmeta.simulate.simulate_campaign for the collection."""
    return dict(COLLECTIONS[wildcards.collection].simulate)


def ingest_input(wildcards):
    """The qrels file and the run files (the campaign's runs folder when simulated)."""
    collection = COLLECTIONS[wildcards.collection]
    if collection.simulated:
        return {
            "qrels": f"results/{collection.name}/campaign/qrels.txt",
            "runs": f"results/{collection.name}/campaign/runs",
        }
    return {
        "qrels": str(collection.qrels),
        "runs": [str(path) for path in collection.run_files()],
    }


def ingest_shard_count(name):
    """Jobs the collection's run files are read in: config's ingest_shards, at most one
    per run file (a simulated collection's runs are counted from its simulate options)."""
    collection = COLLECTIONS[name]
    if collection.simulated:
        import inspect
        from irmeta.simulate import simulate_campaign

        default = inspect.signature(simulate_campaign).parameters["n_runs"].default
        files = collection.simulate.get("n_runs", default)
    else:
        files = len(collection.run_files())
    return max(1, min(config["ingest_shards"], files))


def ingested_input(wildcards):
    """What judged.npz is made of: the qrels and the run files read in this job (one
    shard), or the qrels and the parts of the ingest_shard jobs, in shard order."""
    shards = ingest_shard_count(wildcards.collection)
    if shards == 1:
        return ingest_input(wildcards)
    parts = expand("results/{c}/ingest/{shard}.npz", c=wildcards.collection, shard=range(shards))
    return {"qrels": ingest_input(wildcards)["qrels"], "parts": parts}


def input_size_mb(input):
    """The input files' size in MB, what Snakemake's size_mb of the input gives (each
    file's os.path.getsize), read here without a coroutine: size_mb starts one, which
    Snakemake cannot run inside its own event loop (--report builds the DAG in one) and
    then leaves never awaited, one RuntimeWarning per job on the screen."""
    return sum(Path(f).stat().st_size for f in input) / 2**20


def ingest_shard_memory(wildcards, input):
    """A shard holds one run file per thread and its runs' judged postings: twice its
    slice of the runs (the input is every run file; each shard reads its slice), at most
    its memory budget (ingestion_memory)."""
    return ingestion_memory(max(1024, int(2 * input_size_mb(input) / ingest_shard_count(wildcards.collection))))


# An ingestion job keeps within config's memory_budget (irmeta.campaign.ingest_parts),
# interpreter included; it asks for that and this margin at most (3 GB: a 4 GB slot).
INGESTION_MARGIN_MB = 1024


def ingestion_memory(wanted_mb):
    """mem_mb of an ingestion job: what its input suggests, at most its budget and the margin."""
    return min(int(wanted_mb), config["memory_budget"] + INGESTION_MARGIN_MB)


def ingestion_memory_from_input(factor):
    """mem_mb_from_input(factor) for an ingestion job (ingestion_memory)."""
    wanted = mem_mb_from_input(factor)

    def mem_mb(wildcards, input):
        return ingestion_memory(wanted(wildcards, input))

    return mem_mb


def memory_budget(wildcards):
    """The memory (MB) an ingestion job keeps within (config's memory_budget)."""
    return config["memory_budget"]


# The degraded reproductions read the runs' rankings, which the ingestion keeps then.
DEGRADATIONS = EXPERIMENTS["reproducibility"]["degradations"]
RANKED_OUTPUT = {"ranked": "results/{collection}/ranked.npz"} if DEGRADATIONS["enabled"] else {}


def ranked_depth(wildcards):
    """The depth ranked.npz keeps the rankings to (the degradations'), None when not kept."""
    return int(DEGRADATIONS["depth"]) if DEGRADATIONS["enabled"] else None


# Jobs run in the workflow's process (localrules whose run: calls
# irmeta.pipeline.scripts.run_in_process) hold none of the cores the scripts run on: they
# take turns on a lock of their own, so a job waiting for its turn keeps no core idle.
IN_PROCESS_THREADS = 0


DEGRADATION_MEASURES = EXPERIMENTS["reproducibility"]["measures"] or [
    m for m in config["measures"] if m not in IMPORTED_MEASURES]


def degradation_memory(stored_mb):
    """The degradations' memory: three times the stored campaign, a cluster slot (4 GB) at
    most; the copies are made in as many processes as it holds."""
    return min(4096, max(1024, int(3 * stored_mb)))


def degradation_memory_mb(wildcards, input):
    return degradation_memory(input_size_mb(input))


def degradation_threads(wildcards, input):
    """The degradations' threads: the processes the job will make its copies in, known
    from the stored campaign's sizes (irmeta.metaeval.degradation_memory). One for a small
    campaign: a job asking for every core waits until no other job runs."""
    from irmeta.metaeval.degradation_memory import stored_degradation_processes

    if not all(Path(f).exists() for f in input):  # not ingested yet
        return config["threads"]
    try:
        return stored_degradation_processes(
            judged=input.judged, ranked=input.ranked, degradations=DEGRADATIONS,
            blocks=len(DEGRADATION_MEASURES) * max(1, len(config["alphas"])),
            memory_mb=degradation_memory(input_size_mb(input)),
            processes=config["threads"])
    except ValueError:  # a damaged store: the job refuses it on one line (here it would be a traceback)
        return config["threads"]


def ingest_threads(wildcards, input):
    """An ingestion job's threads: the config's, fewer when half of what its memory
    budget leaves beside the qrels holds fewer run files in flight (the job's own plan,
    irmeta.campaign.ingest_parts.reading_plan), so that jobs of a few large files (an
    MS MARCO-sized leaderboard: 7 M lines a file) run side by side, a file each. A
    merge of parts reads no run: the config's."""
    from irmeta.campaign.files import resolve_paths
    from irmeta.campaign.ingest_parts import MemoryBudgetError, reading_plan
    from irmeta.support.memory import qrels_held_mb

    if "runs" not in input.keys():
        return config["threads"]
    runs = [input.runs] if isinstance(input.runs, str) else list(input.runs)
    if not runs or not all(Path(p).exists() for p in [*runs, input.qrels]):  # a simulated campaign not made yet
        return config["threads"]
    try:
        return reading_plan(resolve_paths(runs), input.qrels, budget_mb=config["memory_budget"],
                            fixed_mb=qrels_held_mb(input.qrels), threads=config["threads"]).threads
    except MemoryBudgetError:  # the job says so on one line when it starts
        return 1


def ingest_options(wildcards):
    """depth, duplicates and run_name: how irmeta.campaign.judge.judge_runs reads the collection."""
    return COLLECTIONS[wildcards.collection].ingest_options()


def relevance_threshold(wildcards):
    """Grade at or above which a judged document counts as relevant."""
    return COLLECTIONS[wildcards.collection].threshold


def rarity_listing_depths(wildcards):
    """Depths S_d is listed at: the rarity depth (default: the deepest measure cutoff)
    and the runs' full depth (None), as the paper's Table 4 counted it."""
    cutoffs = [m.cutoff for m in MEASURES_READ]
    depth = config["rarity_depth"] or max((c for c in cutoffs if c), default=None)
    return [depth, None]


def mem_mb_from_input(factor, minimum=1024):
    """Memory in MB: ``factor`` times the input size, at least ``minimum``. Jobs hold the
    judged postings, about the size of the gzipped runs or of judged.npz (measured:
    1,000 runs x 1,000 topics x depth 100 peaks at 1.4 GB with 0.8 GB of judged.npz)."""

    def mem_mb(wildcards, input):
        return max(minimum, int(factor * input_size_mb(input)))

    return mem_mb


def paper_inputs(wildcards):
    """Every collection's experiment tables (swap_sensitivity too, when configured) and
    rarity, named as the paper's script reads them: the collections with runs."""
    from irmeta.pipeline.paper_inputs import paper_inputs

    return {k: v for name in RANKED for k, v in paper_inputs([name], collection_tables(name, paper=True)).items()}


def claims_inputs(wildcards):
    """Every collection's Kendall tau, discriminative power and stability tables, the
    reusability summary and judgment agreement of those with rankings, and the test error
    rates (each when on)."""
    from irmeta.pipeline.paper_inputs import paper_inputs

    inputs = paper_inputs(COLLECTIONS, ["kendall_tau", "discriminative_power", "stability"], rarity=False)
    assessed = [name for name in RANKED if "reusability_summary" in collection_tables(name)]
    inputs |= paper_inputs(assessed, ["reusability_summary"], rarity=False)
    rejudged = [name for name in RANKED if "judgment_agreement" in collection_tables(name)]
    inputs |= paper_inputs(rejudged, ["judgment_agreement"], rarity=False)
    simulated = [name for name in COLLECTIONS if "test_error_rates" in collection_tables(name)]
    inputs |= paper_inputs(simulated, ["test_error_rates"], rarity=False)
    return inputs


def score_input(wildcards):
    """What score_runs reads: judged.npz when the collection has runs, its scores file when it gives one."""
    collection = COLLECTIONS[wildcards.collection]
    inputs = {}
    if collection.has_runs:
        inputs["judged"] = f"results/{collection.name}/judged.npz"
    if collection.scores is not None:
        inputs["scores_file"] = str(collection.scores)
    return inputs


# The depth the properties read rarity at: rarity_depth, else the first rareness measure's cutoff.
PROPERTIES_RARITY_DEPTH = irsettings.properties_rarity_depth(MEASURES_READ, config["rarity_depth"])


def properties_input(wildcards):
    """What describe_collection reads: judged.npz with rankings, else scores.npz and the
    qrels when the collection names one; its run groups when it has them."""
    collection = COLLECTIONS[wildcards.collection]
    name = collection.name
    inputs = {}
    if collection.has_runs:
        inputs["judged"] = f"results/{name}/judged.npz"
    else:
        inputs["scores"] = f"results/{name}/scores.npz"
        if collection.qrels is not None and collection.qrels.is_file():
            inputs["qrels"] = str(collection.qrels)
    if collection.simulated:
        inputs["run_groups"] = f"results/{name}/campaign/run_groups.tsv"
    elif collection.run_groups is not None:
        inputs["run_groups"] = str(collection.run_groups)
    return inputs


def judgments_qrels(wildcards):
    """The qrels file of one of a collection's alternative judgment sets."""
    return judgment_set_qrels(wildcards.collection, wildcards.judgments)


def judgment_set_qrels(collection, name):
    """A judgment set's qrels file: its own when it is read as it is, else the one rule
    prepare_judgments writes."""
    judgment_set = JUDGMENT_SETS[collection][name]
    if judgment_set.read_as_is:
        return str(judgment_set.files[0])
    return f"results/{collection}/judgments/{name}/qrels.txt"


def prepared_judgments_input(wildcards):
    """A set's files, and the reference qrels when its holes take the reference's grades."""
    judgment_set = JUDGMENT_SETS[wildcards.collection][wildcards.judgments]
    inputs = {"files": [str(path) for path in judgment_set.files]}
    if judgment_set.unjudged == "reference":
        inputs["reference"] = ingest_input(wildcards)["qrels"]
    return inputs


def judgment_scores(wildcards):
    """Scores under the reference qrels and under each alternative judgment set, and the
    generated sets' rows of the agreement table (one file per shard)."""
    return {
        "reference": f"results/{wildcards.collection}/scores.npz",
        "alternatives": expand(
            "results/{{collection}}/judgments/{judgments}/scores.npz",
            judgments=JUDGED.get(wildcards.collection, []),
        ),
        "generated": shard_files("judgment_reduction", "parquet") if wildcards.collection in REDUCED else [],
    }


def label_agreement_input(wildcards):
    """The reference qrels and the files of every alternative set (their own labels, not
    the reference's grades an ``unjudged: reference`` set is scored with)."""
    sets = JUDGMENT_SETS.get(wildcards.collection, {})
    inputs = {
        "reference": ingest_input(wildcards)["qrels"],
        "judgments": sorted({str(path) for judgment_set in sets.values() for path in judgment_set.files}),
    }
    if wildcards.collection in REDUCED:  # the generated assessors' grades of its qrels rows
        inputs["judged"] = f"results/{wildcards.collection}/judged.npz"
    return inputs


def generated_judgments_of_shard(wildcards):
    """The generated judgment sets one shard of compare_reduced_judgments scores."""
    first, last = shard_range(len(GENERATED_JUDGMENTS), wildcards)
    return GENERATED_JUDGMENTS[first:last]


def reusability_input(wildcards):
    """judged.npz, scores.npz and the run groups file (the simulated campaign's, or the
    collection's run_groups; none when it has no groups file or unit is run)."""
    collection = COLLECTIONS[wildcards.collection]
    inputs = {
        "judged": f"results/{collection.name}/judged.npz",
        "scores": f"results/{collection.name}/scores.npz",
    }
    if EXPERIMENTS["reusability"]["unit"] == "group":
        if collection.simulated:
            inputs["run_groups"] = f"results/{collection.name}/campaign/run_groups.tsv"
        elif collection.run_groups is not None:
            inputs["run_groups"] = str(collection.run_groups)
    return inputs


def reproducibility_input(wildcards):
    """scores.npz, the reproductions file, the run files (their rankings) and, for
    reproductions on another collection, that collection's scores.npz."""
    collection = COLLECTIONS[wildcards.collection]
    inputs = {
        "scores": f"results/{collection.name}/scores.npz",
        "reproductions": str(collection.reproductions),
        "runs": ingest_input(wildcards)["runs"],
    }
    if collection.reproductions_collection is not None:
        inputs["other_scores"] = f"results/{collection.reproductions_collection}/scores.npz"
    return inputs


def run_families_input(wildcards):
    """The collection's run_families file, when it names one (family_bias.csv, the rank figure's colours)."""
    collection = COLLECTIONS[wildcards.collection]
    return {"families": str(collection.run_families)} if collection.run_families is not None else {}


def family_bias_input(wildcards):
    """The scores under the reference and each alternative set, the generated sets' shards
    of family rows and ranks, and the run families."""
    inputs = {key: value for key, value in judgment_scores(wildcards).items() if key != "generated"}
    reduced = wildcards.collection in REDUCED
    inputs["family_shards"] = shard_files("family_bias", "parquet") if reduced else []
    inputs["rank_shards"] = shard_files("judgment_ranks", "parquet") if reduced else []
    return {**inputs, **run_families_input(wildcards)}


# The error rates of the paired tests (test_error_rates.smk): the section, each measure's
# models file name -> the measure as the table names it (AP@100, AP_rareness(alpha=1)@100),
# and the shards of chunks of trials.
ERROR_RATES = EXPERIMENTS["test_error_rates"]
ERROR_RATE_MEASURES = irerrors.measure_files(config)
ERROR_RATE_SHARDS = list(range(irerrors.shards(config)))
if irerrors.active(config):
    for line in irerrors.unsimulated_measures(config):
        logger.warning(f"irmeta: experiments.test_error_rates: {line}; not simulated")


def error_rate_models(wildcards):
    """Every measure's models file of the collection."""
    return expand("results/{c}/simulation/{m}.models", c=wildcards.collection, m=list(ERROR_RATE_MEASURES))
