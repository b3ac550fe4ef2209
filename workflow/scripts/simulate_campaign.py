"""Rule simulate_campaign: write a synthetic campaign with irmeta.simulate."""

import json
import logging
import os
import sys
from pathlib import Path

from irmeta.simulate import simulate_campaign


def log_to(path: str) -> logging.Logger:
    """Send stderr (library progress, warnings, tracebacks) and logging to the rule's log."""
    with open(path, "w", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), sys.stderr.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return logging.getLogger("irmeta")


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


main(snakemake)  # noqa: F821 (defined by Snakemake)
