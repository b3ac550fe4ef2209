"""Rule analyse_asl: Alex, Hall and Metzler's analyses with irmeta.measures.asl."""

from pathlib import Path

from irmeta.artefacts.figures.asl import plot_asl_difference_histogram, plot_asl_histogram
from irmeta.campaign.store import load_matrix
from irmeta.metaeval.asl_analysis import asl_analysis
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_scores import write_csv


def main(smk) -> None:
    log = log_to(smk.log[0])
    settings = dict(smk.params.settings)
    matrix = load_matrix(smk.input.judged)
    out = asl_analysis(matrix, unretrieved=settings["unretrieved"], pair=settings["pair"])
    write_csv(out["reordering"], smk.output.reordering)
    write_csv(out["rrie"], smk.output.rrie)
    name_a, values_a, name_b, values_b = out["per_document"]
    plot_asl_histogram(values_a, Path(smk.output.histogram).with_suffix(""), title=f"ASL per document, {name_a}")
    plot_asl_difference_histogram(values_a, values_b, Path(smk.output.difference).with_suffix(""),
                                      labels=(name_a, name_b), title=f"ASL difference, {name_a} - {name_b}")
    log.info("ASL analyses of %d runs; RRIE from %s to %s", len(matrix.runs), name_a, name_b)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
