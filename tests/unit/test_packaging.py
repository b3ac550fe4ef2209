"""pyproject.toml, environment.yml, workflow/envs/irmeta.yaml, the Makefile and the
Snakefile agree on what irmeta needs: the library's dependencies, the workflow's (an
extra), the tests'."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
import yaml

import irmeta
from campaigns import REPO

ROOT = REPO
WORKFLOW_ONLY = {"snakemake", "snakemake-executor-plugin-cluster-generic", "pygments"}


def _split(spec: str) -> tuple[str, str]:
    match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", spec.split("#")[0])
    assert match, spec
    return match.group(1).lower().replace("_", "-"), match.group(2).replace(" ", "")


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _specs(specs) -> dict[str, str]:
    return dict(_split(s) for s in specs)


def _pyproject() -> dict[str, str]:
    """What `make setup` installs: the library with its workflow, test, lint and docs extras."""
    project = _project()
    extras = project["optional-dependencies"]
    installed = [spec for extra in ("workflow", "test", "lint", "docs") for spec in extras[extra]]
    return _specs(list(project["dependencies"]) + installed)


def _environment() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    specs: list[str] = []
    for item in env["dependencies"]:
        if isinstance(item, dict):
            specs.extend(s for s in item["pip"] if not s.startswith("-e"))
        elif not item.startswith(("python", "pip")) or item.startswith("python-"):
            specs.append(item)
    return _specs(specs)


def test_same_packages_and_minimum_versions():
    assert _pyproject() == _environment()


def test_environment_python_matches_requires_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pythons = [d for d in env["dependencies"] if isinstance(d, str) and re.match(r"python[<>=]", d)]
    assert pythons == ["python" + _project()["requires-python"]]


def test_console_script_declared():
    assert _project()["scripts"]["irmeta"] == "irmeta.cli:main"


def test_the_workflow_tools_are_an_extra_the_library_never_imports():
    """Snakemake, its executor plugin and pygments serve the workflow: a plain `pip install
    irmeta` does without them, so no module of the library may import them."""
    project = _project()
    assert not WORKFLOW_ONLY & set(_specs(project["dependencies"]))
    assert set(_specs(project["optional-dependencies"]["workflow"])) == WORKFLOW_ONLY
    modules = {"snakemake", "snakemake_executor_plugin_cluster_generic", "pygments"}
    root = ROOT / "src" / "irmeta"
    assert root.resolve() == Path(irmeta.__file__).parent.resolve()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            assert not {n.split(".")[0] for n in names} & modules, f"{path} imports {names}"


def test_report_dependency_declared_for_the_workflow():
    """``snakemake --report`` imports pygments, which neither snakemake nor irmeta's other
    dependencies pull in (only pytest did): the workflow extra must get it."""
    assert "pygments" in _specs(_project()["optional-dependencies"]["workflow"])
    assert "pygments" in _environment()


def test_setup_installs_the_workflow_and_test_extras():
    """`make run` and `make test` on a fresh machine need snakemake and pytest, and the
    test of the documentation site (tests/unit/test_docs_site.py) needs MkDocs."""
    extras = set(_project()["optional-dependencies"])
    installs = re.findall(r"pip install .*-e '\.\[([a-z,]+)\]'", (ROOT / "Makefile").read_text())
    assert installs and {"workflow", "test", "lint", "docs"} <= set(installs[0].split(",")) <= extras


@pytest.mark.parametrize("where", ["pyproject.toml", "environment.yml", "workflow/envs/irmeta.yaml"])
def test_snakemake_minimum_is_the_snakefiles(where):
    minimum = re.search(r'min_version\("([0-9.]+)"\)', (ROOT / "Snakefile").read_text()).group(1)
    text = (ROOT / where).read_text()
    found = re.findall(r'snakemake(?:-minimal)?\s*(>=\s*[0-9.]+)', text)
    assert found and {f.replace(" ", "") for f in found} == {f">={minimum}"}, found
