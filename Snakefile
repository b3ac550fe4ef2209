# irmeta: meta-evaluation of IR metrics.
#
#   snakemake --cores 2                                   # the configured collections (demo)
#   snakemake --cores 2 --config collections=[trec8]      # TREC-8 from data_root
#   snakemake -n                                          # what would run
#
# Settings: config/config.yaml (schema: src/irmeta/pipeline/schemas/config.schema.yaml);
# collections: config/collections/<name>.yaml (src/irmeta/pipeline/schemas/collection.schema.yaml).
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/kendall_tau.smk"
include: "workflow/rules/discriminative_power.smk"
include: "workflow/rules/stability.smk"
include: "workflow/rules/system_subsampling.smk"
include: "workflow/rules/synthetic_rare_common.smk"
include: "workflow/rules/rarity_listing.smk"
include: "workflow/rules/swap_sensitivity.smk"
include: "workflow/rules/asl_analysis.smk"
include: "workflow/rules/judgment_agreement.smk"
include: "workflow/rules/label_agreement.smk"
include: "workflow/rules/reusability.smk"
include: "workflow/rules/variance.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/collection_properties.smk"
include: "workflow/rules/reproducibility.smk"
include: "workflow/rules/conclusion_agreement.smk"
include: "workflow/rules/test_error_rates.smk"


localrules:
    all,


# A job killed while it wrote leaves irmeta's temporary beside its output: remove those
# under results/ before this run's jobs start (no job runs yet; the lock keeps others out).
onstart:
    from irmeta.pipeline.summary import remove_killed_writes

    print(remove_killed_writes("results"), end="")


# Where the tables, figures and report are, and the headline numbers of each collection;
# the job listing stays in .snakemake/log (the default profile keeps it off the screen).
# The report: named only when it is as new as the tables, else the command that rebuilds
# it with this run's options; make's targets build it next (IRMETA_REPORT_NEXT=1).
onsuccess:
    import os

    from irmeta.pipeline.summary import cancel_pending_timers, rebuild_command, workflow_summary

    rebuild = rebuild_command(workflow.overwrite_configfiles, workflow.config_settings.config)
    print(workflow_summary(COLLECTIONS, skipped=SKIPPED, rebuild=rebuild,
                           report_follows=os.environ.get("IRMETA_REPORT_NEXT") == "1"))
    cancel_pending_timers()  # nothing is left to schedule: exit without waiting for them


# A failed job's one-line error (file, line, what is wrong), from its log.
onerror:
    from irmeta.pipeline.summary import job_errors

    print(job_errors("results/logs", since=RUN_STARTED), end="")


rule all:
    input:
        all_targets(),
    default_target: True
