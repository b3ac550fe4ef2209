"""The library's layers import one way only: support <- campaign <- measures <- metaeval
<- artefacts, with the workflow glue, the simulator and the CLI beside them, free to
import any layer and imported by none. Every ``import`` counts, also those inside
functions (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import irmeta

ROOT = Path(irmeta.__file__).parent
# Rank of each top-level package or module; a module may import only ranks at or below
# its own, and nothing imports the ones beside the layers (rank None).
RANK = {"support": 0, "campaign": 1, "measures": 2, "metaeval": 3, "artefacts": 4,
        "pipeline": None, "simulate": None, "api": None, "cli": None, "comparison": None, "cli_compare": None,
        "settings": None, "cli_args": None,
        "reproduction": None, "cli_repro": None, "agreement": None, "cli_agree": None,
        "error_rates": None, "cli_test_errors": None}


def _modules() -> list[tuple[str, Path]]:
    return sorted((".".join(("irmeta", *p.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__"), p)
                  for p in ROOT.rglob("*.py"))


def _imports(path: Path, me: str, tree: ast.AST | None = None) -> set[str]:
    """Every irmeta module ``path`` imports, absolute or relative, anywhere in the file
    (or in ``tree``, its syntax with some parts removed)."""
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text()) if tree is None else tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "irmeta"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "irmeta":
                found |= {target} | {f"{target}.{a.name}" for a in node.names}
    return found


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_module_is_in_a_known_layer():
    assert {_top(m) for m, _ in _modules()} - {""} == set(RANK)


@pytest.mark.parametrize("module,path", _modules(), ids=[m for m, _ in _modules()])
def test_imports_go_down_only(module, path):
    mine = RANK.get(_top(module))
    for target in _imports(path, module):
        theirs = _top(target)
        if mine is None or theirs not in RANK or theirs == _top(module):
            continue  # beside the layers, irmeta itself (the version), or within one package
        assert RANK[theirs] is not None, f"{module} imports {target}, which sits beside the layers"
        assert RANK[theirs] <= mine, f"{module} (layer {_top(module)}) imports {target}, a higher layer"


def test_the_registry_imports_no_measure():
    registry = ROOT / "measures" / "registry.py"
    assert not {t for t in _imports(registry, "irmeta.measures.registry") if _top(t) == "measures"}


def _runtime_imports(path: Path, me: str) -> set[str]:
    """:func:`_imports` less those under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = [ast.Pass()]
    return _imports(path, me, tree)


@pytest.mark.slow
def test_no_import_circle():
    """No module imports, even lazily, one that imports it back (a package's lazy
    attributes and annotation-only imports aside): each piece of code has one side."""
    modules = dict(_modules())
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for target in _runtime_imports(path, module):
            parts = target.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            # importing a package's submodule runs the package: not an edge back to it
            if parts and ".".join(parts) != module and not module.startswith(".".join(parts) + "."):
                targets.add(".".join(parts))
        graph[module] = targets
    graph["irmeta"] = set()  # irmeta/__init__.py's lazy __getattr__ only forwards to the API
    seen: dict[str, int] = {}
    path_stack: list[str] = []

    def visit(module: str) -> None:
        seen[module] = 1
        path_stack.append(module)
        for target in sorted(graph[module]):
            if seen.get(target) == 1:
                circle = path_stack[path_stack.index(target):] + [target]
                raise AssertionError(f"import circle: {' -> '.join(circle)}")
            if target not in seen:
                visit(target)
        path_stack.pop()
        seen[module] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module)


def test_the_test_registry_imports_no_test():
    # it names the shipped tests' functions as text, imported on first use
    registry = ROOT / "metaeval" / "stats" / "registry.py"
    assert not _imports(registry, "irmeta.metaeval.stats.registry")


def test_no_module_shadows_the_standard_library():
    import sys

    names = {p.stem for p in ROOT.rglob("*.py")} | {p.name for p in ROOT.rglob("*") if p.is_dir()}
    assert not names & set(sys.stdlib_module_names)


def test_the_checker_sees_a_violation(tmp_path):
    # The test above could pass by reading nothing: it must catch an upward import,
    # written either way.
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from irmeta.artefacts.tables import write_table\n")
    assert "irmeta.artefacts.tables" in _imports(bad, "irmeta.campaign.x")
    rel = tmp_path / "y.py"
    rel.write_text("from ..artefacts import labels\n")
    assert "irmeta.artefacts.labels" in _imports(rel, "irmeta.campaign.y")
