"""Rule describe_collection: one collection's properties with irmeta.pipeline.properties."""

from irmeta.pipeline.properties import describe_collection
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    given = dict(smk.input.items())
    row = describe_collection(out=smk.output.row, collection=smk.params.label, pool_depth=smk.params.pool_depth,
                              rarity_depth=smk.params.rarity_depth, judged=given.get("judged"),
                              scores=given.get("scores"), qrels=given.get("qrels"),
                              run_groups=given.get("run_groups"), threshold=smk.params.threshold,
                              pool_depth_origin=smk.params.pool_depth_origin, source=smk.params.source)
    log.info("wrote %s: %s", smk.output.row, row)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
