"""The HTML report: built by snakemake --report, opened in headless Chromium.

Chromium comes from Debian's package; as root (CI) the test installs it when missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_workflow import _ok, _snakemake

pytestmark = pytest.mark.integration

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    if os.geteuid() != 0:
        pytest.fail("chromium is not installed and the test is not root: apt-get install chromium")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, capture_output=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env, capture_output=True)
    found = shutil.which("chromium")
    assert found, "apt-get installed chromium but it is not on PATH"
    return found


# docs: reproduce.md: make report ARGS="--configfile config/paper.yaml --config data_root=/path/to/data"
# (the report of the default config's run: the same rule, snakemake --report)
@pytest.fixture(scope="module")
def report(demo_workflow, shared_data) -> Path:
    workdir = demo_workflow  # the session's run of the default config (tests/conftest.py)
    _ok(_snakemake(workdir, "--report", "results/report.html", "--config", f"data_root={shared_data}"))
    return workdir / "results" / "report.html"


def test_report_is_self_contained_with_every_figure(report):
    html = report.read_text(errors="replace")
    assert report.stat().st_size > 500_000  # the figures are embedded
    for name in ("kendall_tau.png", "stability.png", "discriminative_power.png", "system_subsampling.png",
                 "synthetic_rare_common.png", "rarity_distribution.png", "figure2.png",
                 "published_vs_reproduced.md", "table1.csv", "claims.md", "claims.png", "experiments.md"):
        assert name in html, name
    assert html.count("data:image/png;base64") + html.count("image/png") > 0
    # No file is fetched from elsewhere at view time.
    assert "src=\"results/" not in html


def test_report_opens_in_headless_chromium(report, tmp_path):
    chromium = _chromium()
    profile = tmp_path / "profile"
    common = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=15000"]
    dom = subprocess.run([*common, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    # The app rendered: the workflow description (a caption stating the settings) and
    # both result categories are in the live DOM.
    assert "irmeta meta-evaluates" in dom.stdout
    assert "Seed 20230402" in dom.stdout
    # No reStructuredText system message anywhere (captions and the workflow description
    # are rendered by docutils; a bad one shows "System Message: WARNING/2 ...").
    for text in (dom.stdout, report.read_text(errors="replace")):
        for marker in ("System Message", "system-message"):
            at = text.find(marker)
            assert at < 0, text[max(0, at - 300):at + 300]
    for category in ("0. Claims", "demo", "Paper"):
        assert category in dom.stdout
    shot = tmp_path / "report.png"
    proc = subprocess.run([*common, "--window-size=1400,1000", f"--screenshot={shot}", report.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.stat().st_size > 20_000, proc.stderr[-2000:]
