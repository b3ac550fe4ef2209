# Public qrels fetched from their official address when absent locally (runs are not
# public: NIST distributes them behind a password; see README). One rule per collection,
# since the qrels live under the data root at the collection's own path.

for _name, _collection in qrels_downloads().items():

    rule:
        name:
            f"download_qrels_{_name}"
        output:
            qrels=str(_collection.qrels),
        params:
            url=_collection.qrels_url,
            sha256=_collection.qrels_sha256,
            fmt=_collection.qrels_format,
        log:
            job_log("download_qrels", _name),
        retries: 1
        resources:
            mem_mb=1024,
            runtime=30,
        conda:
            IRMETA_ENV
        script:
            "../scripts/download_qrels.py"
