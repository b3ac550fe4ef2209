"""Workflow glue, beside the library's layers: the config and collection files
(:mod:`.config`), the steps the Snakemake rules run (:mod:`.steps`), scores on disk
(:mod:`.stored_scores`), what every script shares (:mod:`.scripts`), qrels downloads
(:mod:`.download`)."""
