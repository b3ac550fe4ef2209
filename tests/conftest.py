"""Shared fixtures: the real campaign data in ../shared/data, read once per session.

The data is never skipped: a missing ../shared/data fails the run (in CI and locally),
because the exactness tests are the point of the suite.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("IRMETA_DATA_ROOT", ROOT.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "trec8_adhoc" / "qrels.txt").is_file():
        pytest.fail(f"campaign data not found at {SHARED_DATA} (set IRMETA_DATA_ROOT); it is required, never skipped")
    return SHARED_DATA


@pytest.fixture(scope="session")
def trec8_qrels(shared_data):
    from irmeta.campaign.qrels import read_qrels

    return read_qrels(shared_data / "trec8_adhoc" / "qrels.txt")


@pytest.fixture(scope="session")
def trec8_runs(shared_data):
    """All 129 TREC-8 runs at depth 1000, trec_eval order."""
    from irmeta.campaign.runs import read_runs

    return read_runs(shared_data / "trec8_adhoc" / "runs", depth=1000)


@pytest.fixture(scope="session")
def trec8_matrix(trec8_runs, trec8_qrels):
    from irmeta.campaign.judge import relevance_matrix

    return relevance_matrix(trec8_runs, trec8_qrels, depth=1000)


@pytest.fixture(scope="session")
def clef_qrels(shared_data):
    from irmeta.campaign.qrels import read_qrels

    return read_qrels(shared_data / "clef_tar2017" / "qrels.txt")


@pytest.fixture(scope="session")
def clef_runs(shared_data):
    """CLEF TAR 2017: official and extra runs, duplicates kept first (one run has 311)."""
    from irmeta.campaign.runs import read_runs

    return read_runs([shared_data / "clef_tar2017" / "runs", shared_data / "clef_tar2017" / "runs_extra"],
                        duplicates="first")


@pytest.fixture(scope="session")
def demo_workflow(tmp_path_factory, shared_data) -> Path:
    """The workflow's default config (the demo campaign) run once for the session, in a
    copy of the workflow, every figure with its facts (tests/session_workflows.py). Tests read
    it and leave it as it is (the report's test adds results/report.html)."""
    from session_workflows import run_demo

    return run_demo(tmp_path_factory.mktemp("demo"), shared_data)


@pytest.fixture(scope="session")
def paper_workflow(tmp_path_factory, shared_data) -> Path:
    """config/paper.yaml run once for the session on the collections the data holds
    (TREC-8), every figure with its facts (tests/session_workflows.py)."""
    from session_workflows import run_paper

    return run_paper(tmp_path_factory.mktemp("paper"), shared_data)
