"""New collections by config, public qrels downloaded by the workflow, the paper's config.

Downloads are tested against an HTTP server on 127.0.0.1 that the test starts itself.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest
from test_workflow import _copy_workflow, _ok, _snakemake

from irmeta.campaign.store import load_matrix
from irmeta.pipeline.download import DownloadError, download_qrels, sha256_of
from irmeta.simulate import simulate_campaign, simulated_pool_depth

QRELS = b"1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


@pytest.fixture()
def server(tmp_path):
    """Serves tmp_path/www on a free loopback port; yields the base URL."""
    root = tmp_path / "www"
    root.mkdir()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    httpd.shutdown()
    httpd.server_close()


def _tar_of_parts(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in parts.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def test_download_plain_gzip_and_tar_of_parts(server, tmp_path):
    url, www = server
    (www / "q.txt").write_bytes(QRELS)
    (www / "q.txt.gz").write_bytes(gzip.compress(QRELS))
    # NIST ships early ad hoc qrels as a tar.gz of parts (some gzipped): concatenated by name.
    parts = {"qrels.part2": QRELS[9:], "qrels.part1.gz": gzip.compress(QRELS[:9])}
    (www / "q.tar.gz").write_bytes(_tar_of_parts(parts))
    for name, fmt in (("q.txt", "plain"), ("q.txt.gz", "gzip"), ("q.tar.gz", "tar.gz")):
        dest = tmp_path / "data" / fmt / "qrels.txt"
        digest = download_qrels(f"{url}/{name}", dest, fmt=fmt, retries=1)
        assert dest.read_bytes() == QRELS and digest == sha256_of(QRELS)
        assert (dest.parent / "qrels.txt.sha256").read_text().startswith(digest)


def test_download_refuses_a_wrong_checksum_and_writes_nothing(server, tmp_path):
    url, www = server
    (www / "q.txt").write_bytes(QRELS)
    dest = tmp_path / "qrels.txt"
    with pytest.raises(DownloadError, match="SHA-256"):
        download_qrels(f"{url}/q.txt", dest, sha256="0" * 64, retries=1)
    assert not dest.exists() and list(tmp_path.iterdir()) == [tmp_path / "www"]


def test_download_without_network_says_so_after_retries(tmp_path):
    dest = tmp_path / "qrels.txt"
    with pytest.raises(DownloadError, match="after 2 attempts"):
        download_qrels("http://127.0.0.1:9/none.txt", dest, retries=2, timeout=2, pause=0)
    assert not dest.exists()


def _campaign_yaml(name: str, campaign: Path, **extra) -> str:
    lines = [f"name: {name}", f"label: {name.upper()}", f"qrels: \"{campaign / 'qrels.txt'}\"",
             f"runs: \"{campaign / 'runs'}\"", "depth: 100", "listing_topics: [\"101\"]"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.integration
# docs: collections.md: make run ARGS="--config collections=[mytrack] data_root=/data"
# docs: README.md: make run ARGS="--config collections=[mytrack] data_root=/data"
def test_a_new_campaign_is_one_yaml_file_and_its_qrels_download(server, tmp_path, shared_data):
    url, www = server
    campaign = tmp_path / "mycampaign"
    simulate_campaign(campaign, seed=3, n_runs=8, n_topics=6, depth=50)
    # The qrels are "public": served on the loopback server, absent locally.
    (www / "qrels.txt.gz").write_bytes(gzip.compress((campaign / "qrels.txt").read_bytes()))
    digest = sha256_of((campaign / "qrels.txt").read_bytes())
    (campaign / "qrels.txt").unlink()
    workdir = _copy_workflow(tmp_path / "work")
    (workdir / "config" / "collections" / "mycampaign.yaml").write_text(_campaign_yaml(
        "mycampaign", campaign, qrels_url=f"\"{url}/qrels.txt.gz\"", qrels_format="gzip", qrels_sha256=digest,
        pool_depth=simulated_pool_depth(50)))  # the campaign's pools: not the default 100, which its runs contradict
    _ok(_snakemake(workdir, "--cores", "2", "--config", f"data_root={shared_data}", "collections=[mycampaign]",
                   timeout=300))
    assert (campaign / "qrels.txt").is_file()  # downloaded into place
    tables = workdir / "results" / "mycampaign" / "tables"
    dp = pd.read_csv(tables / "discriminative_power.csv")
    assert (dp["total_pairs"] == 8 * 7 // 2).all()
    assert pd.read_csv(tables / "rarity_listing.csv", dtype={"qid": str})["qid"].eq("101").all()
    table1 = pd.read_csv(workdir / "results" / "paper" / "table1.csv")
    assert "MYCAMPAIGN 95%" in table1.columns


@pytest.mark.integration
def test_clef_tar_collection_runs_end_to_end(tmp_path, shared_data):
    """CLEF TAR 2017: NF/AF in column 2, 311 duplicates kept first, runs 12,800 deep."""
    workdir = _copy_workflow(tmp_path / "work")
    _ok(_snakemake(workdir, "--cores", "2", "--config", f"data_root={shared_data}", "collections=[clef_tar2017]",
                   timeout=600))
    results = workdir / "results" / "clef_tar2017"
    judged = load_matrix(results / "judged.npz")
    assert judged.n_runs == 19 and judged.length.max() > 10_000
    tau = pd.read_csv(results / "tables" / "kendall_tau.csv", dtype={"alpha": str})
    assert (tau.loc[tau["alpha"] == "0", "tau"] == 1.0).all()


def _errors(proc) -> str:
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("case", ["one_run", "no_shared_topic", "missing_qrels"])
def test_wrong_campaigns_fail_with_one_line_naming_the_file(case, tmp_path, shared_data):
    campaign = tmp_path / "bad"
    simulate_campaign(campaign, seed=1, n_runs=3, n_topics=3, depth=10, gzip_runs=False)
    if case == "one_run":
        for extra in sorted((campaign / "runs").iterdir())[1:]:
            extra.unlink()
    elif case == "no_shared_topic":
        (campaign / "qrels.txt").write_text("999 0 DOC-x 1\n")
    else:
        (campaign / "qrels.txt").unlink()
    workdir = _copy_workflow(tmp_path / "work")
    (workdir / "config" / "collections" / "bad.yaml").write_text(_campaign_yaml("bad", campaign))
    proc = _snakemake(workdir, "--cores", "1", "--config", f"data_root={shared_data}", "collections=[bad]")
    assert proc.returncode != 0
    text = _errors(proc)
    expected = {"one_run": "a campaign needs at least two", "no_shared_topic": "share no topic",
                "missing_qrels": "key 'qrels'"}[case]
    assert expected in text, text[-3000:]
    assert not (workdir / "results" / "bad" / "judged.npz").exists()


# docs: reproduce.md: make reproduce DATA=/path/to/data
# docs: README.md: make reproduce DATA=/path/to/data
# (planned here, as the Makefile's reproduce target calls snakemake; run in full by benchmarks/bench_reproduction.py)
def test_paper_config_runs_what_is_present_and_names_what_is_missing(tmp_path, shared_data):
    workdir = _copy_workflow(tmp_path / "work")
    proc = _ok(_snakemake(workdir, "-n", "--configfile", "config/paper.yaml", "--config", f"data_root={shared_data}"))
    text = _errors(proc)
    for skipped in ("trec5", "web2014", "dl2020"):
        assert f"skipping collection {skipped}" in text
    assert "password from NIST" in text  # says which archive to request
    planned = [line.split() for line in text.splitlines()]
    assert ["ingest_collection", "1"] in planned  # TREC-8 only


def test_missing_official_runs_are_named_before_work_starts(tmp_path, shared_data):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("INQ601", "ok8alx", "weaver1"):
        (runs / f"{name}.gz").write_bytes((shared_data / "trec8_adhoc" / "runs" / f"{name}.gz").read_bytes())
    workdir = _copy_workflow(tmp_path / "work")
    (workdir / "config" / "collections" / "three.yaml").write_text(
        f"name: three\nqrels: \"{{data_root}}/trec8_adhoc/qrels.txt\"\nruns: \"{runs}\"\ndepth: 1000\n"
        "expected_runs: \"{data_root}/trec8_adhoc/official_summary.csv\"\n")
    proc = _ok(_snakemake(workdir, "-n", "--config", f"data_root={shared_data}", "collections=[three]"))
    text = _errors(proc)
    assert "126 official run(s) missing" in text and "INQ602" in text and "uwmt8a0" in text
