"""The experiment manifest changed how common.smk lists its targets, not what they are: for
each shipped config, a dry run (every job forced) writes every file the commit before the
manifest wrote (b563bdf, taken from this repository's history); experiments added since
(issues 27 and 28) add files of their own, named in the manifest."""

from __future__ import annotations

import io
import subprocess
import tarfile

import pytest

from campaigns import REPO
from dry_run import dry_run_outputs

BEFORE_MANIFEST = "b563bdf"


@pytest.fixture(scope="module")
def before(tmp_path_factory):
    """The repository as it was before the manifest, unpacked from git."""
    done = subprocess.run(["git", "-C", str(REPO), "archive", BEFORE_MANIFEST], capture_output=True, timeout=120)
    assert done.returncode == 0, f"git archive {BEFORE_MANIFEST}: {done.stderr.decode()[-500:]}"
    root = tmp_path_factory.mktemp("before_manifest")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(root, filter="data")
    return root


# docs: reproduce.md: make campaigns DATA=/path/to/data
# (planned here; run in full by benchmarks/bench_campaigns.py)
@pytest.mark.parametrize("configfile", ["config/config.yaml", "config/paper.yaml", "config/campaigns.yaml"])
def test_the_targets_are_the_same_files_as_before_the_manifest(before, configfile, shared_data):
    args = ("--configfile", configfile, "--config", f"data_root={shared_data}")
    then, now = dry_run_outputs(before, *args), dry_run_outputs(REPO, *args)
    # a shard's file exists once per experiments.shards, which config/paper.yaml has since
    # lowered to 1 (the tables are the same whatever the shards): compare its folders
    folders = {path.rsplit("/", 1)[0] for path in then if "/shards/" in path}
    assert folders and folders <= {path.rsplit("/", 1)[0] for path in now if "/shards/" in path}
    then = {path: rule for path, rule in then.items() if "/shards/" not in path}
    assert set(then) <= set(now), {"only before": sorted(set(then) - set(now))}
    # the figures plot_collection and plot_rankings drew are now drawn by their experiments' rules
    moved = {path for path, rule in then.items() if rule in ("plot_collection", "plot_rankings")}
    assert moved and all(now[path] not in ("plot_collection", "plot_rankings") for path in moved)
