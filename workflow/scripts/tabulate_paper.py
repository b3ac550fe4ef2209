"""Rule tabulate_paper: the paper's tables and Figure 2 across collections, and the
published-versus-reproduced comparison, with irmeta.artefacts and irmeta.artefacts.figures."""

from pathlib import Path

import pandas as pd


from irmeta.pipeline.scripts import log_to, run_script
from irmeta.artefacts.figures.collection import plot_kendall_tau
from irmeta.artefacts.paper.published_vs_reproduced import published_vs_reproduced
from irmeta.artefacts.paper.report import load_published
from irmeta.artefacts.paper.tables import paper_swap_table, paper_table1, paper_table2, paper_table3
from irmeta.artefacts.tables import write_table
from irmeta.support.atomic import atomic_write_bytes


def main(smk) -> None:
    log = log_to(smk.log[0])
    out = Path(smk.output.comparison).parent
    frames: dict[str, dict[str, pd.DataFrame]] = {}
    for name, label in zip(smk.params.names, smk.params.labels):
        frames[label] = {
            table: pd.read_csv(smk.input[f"{table}__{name}"], dtype={"alpha": str, "topic": str, "qid": str})
            for table in ("kendall_tau", "discriminative_power", "stability", "system_subsampling",
                          "rarity_listing")
        }
        frames[label]["synthetic_rare_common"] = pd.read_csv(smk.input[f"synthetic_rare_common__{name}"],
                                                             dtype={"topic": str})
        frames[label]["rarity"] = pd.read_parquet(smk.input[f"rarity__{name}"])

    def each(table: str) -> dict[str, pd.DataFrame]:
        return {label: f[table] for label, f in frames.items()}

    write_table(paper_table1(each("discriminative_power")), out / "table1",
                       caption="Table 1: run pairs significantly different (paper_pairwise: each pair "
                               "alone, Tukey HSD on two independent groups, as the authors' scripts).")
    for method in ("tukey_hsd", "randomised_tukey_hsd"):
        write_table(paper_table1(each("discriminative_power"), method=method),
                           out / f"table1_{method}",
                           caption=f"Table 1 with {method} (one test over all runs, topics as blocks).")
    write_table(paper_table2(each("stability")), out / "table2",
                       caption="Table 2: Buckley-Voorhees stability, absolute fuzziness 0.05 (the paper).")
    write_table(paper_table2(each("stability"), mode="relative"), out / "table2_relative",
                       caption="Table 2 with relative fuzziness (5% of the larger score, Buckley and Voorhees 2000).")
    table3 = [paper_table3(each("system_subsampling"), label).assign(collection=label)
              for label in frames]
    table3 = pd.concat(table3, ignore_index=True)
    sizes = sorted((c for c in table3.columns if c.startswith("N=")), key=lambda c: int(c[2:]))
    table3 = table3[["collection", "Metric", "alpha", *sizes]]
    write_table(table3, out / "table3",
                       caption="Table 3: mean Kendall tau between N sampled runs ranked with rarity from "
                               "all runs and from the N alone (alpha = 1).")
    if smk.params.swap:
        swap = {label: pd.read_csv(smk.input[f"swap_sensitivity__{name}"], dtype={"alpha": str})
                for name, label in zip(smk.params.names, smk.params.labels)}
        write_table(paper_swap_table(swap), out / "swap_sensitivity",
                           caption="Sensitivity by the swap method (as Sakai's Table 1): absolute difference "
                                   "required for a sure comparison, share of comparisons discriminated.")
    plot_kendall_tau(each("kendall_tau"), out / "figure2")
    published = load_published(smk.input.published)
    text = published_vs_reproduced(published, frames, dict(smk.params.settings))
    atomic_write_bytes(smk.output.comparison, text.encode("utf-8"))
    log.info("wrote the paper's tables for %s", ", ".join(frames))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
