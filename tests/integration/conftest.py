"""End-to-end tests: Snakemake runs, the HTML report in a browser, a SLURM cluster.
Every test in this folder is marked ``integration`` (``pytest -m "not integration"``
runs the unit tests alone)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.integration)
