"""Rule plot_family_ranks: each run's rank under the qrels against its rank under each
judgment set (irmeta.pipeline.family_steps), coloured by family when the collection has them."""

from irmeta.artefacts.figures.judgment_sets import plot_family_ranks, shown_sets
from irmeta.pipeline.family_steps import FamilyCollector, run_families
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import load_scores, read_shards


def main(smk) -> None:
    log = log_to(smk.log[0])
    reference = load_scores(smk.input.reference, list(smk.params.measures))
    collect = FamilyCollector(reference, run_families(smk.input.get("families"), reference.runs),
                              permutations=1, seed=0)  # ranks only: the table's draws are not redone
    shown = set(shown_sets(smk.params.judgments))
    for name, path in zip(smk.params.judgments, smk.input.alternatives):
        if name in shown:
            collect.add({name: load_scores(path, list(reference.measures))})
    collect.ranks.extend(read_shards(smk.input.rank_shards))
    plot_family_ranks(collect.rank_frame(), smk.output.figure, smk.output.pdf, title=smk.params.label)
    log.info("wrote %s and %s", smk.output.figure, smk.output.pdf)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
