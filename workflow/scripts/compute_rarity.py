"""Rule compute_rarity: S_d, R(d), R'(d) of every relevant document with irmeta.pipeline."""

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.steps import rarity_collection


def main(smk) -> None:
    log = log_to(smk.log[0])
    log.info("rarity of %s at depths %s", smk.input.judged, smk.params.depths)
    rarity_collection(matrix=smk.input.judged, out=smk.output.rarity, depths=list(smk.params.depths),
                      functions=list(smk.params.rarity_functions))
    log.info("wrote %s", smk.output.rarity)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
