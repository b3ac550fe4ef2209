"""Rule plot_p_value_curves: figures/p_value_curves with irmeta.artefacts.figures.pairwise."""

from pathlib import Path

from irmeta.artefacts.figures.pairwise import curve_blocks, plot_p_value_curves
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.pipeline.stored_pairwise import read_p_values, stored_keys


def main(smk) -> None:
    log = log_to(smk.log[0])
    # only the blocks the curves draw: a 1,000-run campaign's table has 55 M p-values
    tests = read_p_values(smk.input.table, curve_blocks((m, a) for m, a, _ in stored_keys(smk.input.table)))
    written = plot_p_value_curves(tests, Path(smk.output.png).with_suffix(""), levels=list(smk.params.levels))
    log.info("wrote %s", ", ".join(map(str, written)))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
