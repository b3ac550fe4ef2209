"""Rule prepare_judgments: a judgment set's qrels file, fused and filled as its config
entry says (irmeta.pipeline.judgment_config.set_qrels)."""

from irmeta.campaign.qrels import read_qrels
from irmeta.pipeline.judgment_config import set_qrels, write_trec_qrels
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    judgment_set = smk.params.judgment_set
    reference = read_qrels(smk.input.reference) if judgment_set.unjudged == "reference" else None
    qrels = set_qrels(judgment_set, reference)
    write_trec_qrels(qrels, smk.output.qrels)
    log.info("wrote %s: %d judgments (%s, unjudged: %s)", smk.output.qrels, len(qrels),
             judgment_set.fusion or "as given", judgment_set.unjudged)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
