"""Rule simulate_campaign: write a synthetic campaign with irmeta.simulate."""

import json
from pathlib import Path

from irmeta.pipeline.scripts import log_to, run_script
from irmeta.simulate import simulate_campaign


def main(smk) -> None:
    log = log_to(smk.log[0])
    out_dir = Path(smk.output.qrels).parent
    made = simulate_campaign(out_dir, **smk.params.options)
    if Path(smk.output.runs) != out_dir / "runs" or Path(smk.output.run_groups) != out_dir / "run_groups.tsv":
        raise RuntimeError(f"outputs must be qrels.txt, runs/ and run_groups.tsv of one folder, not {smk.output}")
    log.info("simulated %s", json.dumps({
        "options": smk.params.options, "qrels": str(made["qrels"]), "runs": len(made["runs"]),
        "innovative": made["innovative"],
    }))


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
