"""Rule download_qrels_<collection>: fetch public qrels with irmeta.pipeline.download."""

from irmeta.pipeline.download import download_qrels
from irmeta.pipeline.scripts import log_to, run_script


def main(smk) -> None:
    log = log_to(smk.log[0])
    log.info("downloading %s (%s)", smk.params.url, smk.params.fmt)
    digest = download_qrels(smk.params.url, smk.output.qrels, fmt=smk.params.fmt, sha256=smk.params.sha256)
    log.info("stored %s, sha256 %s", smk.output.qrels, digest)


run_script(main, snakemake)  # noqa: F821 (defined by Snakemake)
