"""pyproject.toml and environment.yml must name the same packages at the same minimum versions."""

from __future__ import annotations

import re
import tomllib

import yaml
from campaigns import REPO

ROOT = REPO


def _split(spec: str) -> tuple[str, str]:
    match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", spec)
    assert match, spec
    return match.group(1).lower().replace("_", "-"), match.group(2).replace(" ", "")


def _pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"]) + list(project["optional-dependencies"]["test"])
    return dict(_split(s) for s in specs)


def _environment() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    specs: list[str] = []
    for item in env["dependencies"]:
        if isinstance(item, dict):
            specs.extend(s for s in item["pip"] if not s.startswith("-e"))
        elif not item.startswith(("python", "pip")) or item.startswith("python-"):
            specs.append(item)
    return dict(_split(s) for s in specs)


def test_same_packages_and_minimum_versions():
    assert _pyproject() == _environment()


def test_environment_python_matches_requires_python():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pythons = [d for d in env["dependencies"] if isinstance(d, str) and re.match(r"python[<>=]", d)]
    assert pythons == ["python" + project["requires-python"]]


def test_console_script_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["irmeta"] == "irmeta.cli:main"


def test_report_dependency_declared_for_a_plain_install():
    """``snakemake --report`` imports pygments, which neither snakemake nor irmeta's other
    dependencies pull in (only pytest did): a plain ``pip install`` must get it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "pygments" in dict(_split(s) for s in project["dependencies"])
    assert "pygments" in _environment()
