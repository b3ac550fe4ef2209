"""Rule tabulate_paper: the paper's tables and Figure 2 across collections, and the
published-versus-reproduced comparison, with irmeta.artefacts.paper."""

from pathlib import Path

from irmeta.artefacts.figures.collection import plot_kendall_tau
from irmeta.artefacts.paper.outputs import write_paper_tables
from irmeta.artefacts.paper.published_vs_reproduced import published_vs_reproduced
from irmeta.artefacts.paper.report import load_published
from irmeta.pipeline.paper_inputs import read_paper_frames, read_swap_tables
from irmeta.pipeline.scripts import log_to, run_script
from irmeta.support.atomic import atomic_write_bytes


def main(smk) -> None:
    log = log_to(smk.log[0])
    out = Path(smk.output.comparison).parent
    collections = dict(zip(smk.params.names, smk.params.labels))
    frames = read_paper_frames(smk.input, collections)
    write_paper_tables(frames, out, swap=read_swap_tables(smk.input, collections) if smk.params.swap else None)
    plot_kendall_tau({label: f["kendall_tau"] for label, f in frames.items()}, out / "figure2", notation="paper")
    text = published_vs_reproduced(load_published(smk.input.published), frames, dict(smk.params.settings),
                                   synthetic_measure=smk.params.synthetic_measure)
    atomic_write_bytes(smk.output.comparison, text.encode("utf-8"))
    log.info("wrote the paper's tables for %s", ", ".join(frames))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
