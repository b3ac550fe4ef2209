"""Rule plot_claims_vs_properties: irmeta.artefacts.figures.properties on the claims and properties."""

from irmeta.artefacts.claims import filled_claims
from irmeta.artefacts.figures.properties import plot_claims_vs_properties
from irmeta.pipeline.properties import read_properties
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import read_table


def main(smk) -> None:
    log = log_to(smk.log[0])
    chosen = plot_claims_vs_properties(filled_claims(read_table(smk.input.claims, "claims")),
                                       read_properties(smk.input.properties),
                                       smk.output.figure, smk.output.pdf)
    log.info("wrote %s: %s", smk.output.figure, chosen.to_dict("records"))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
