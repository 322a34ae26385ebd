"""Layout rules: no import cycle in app, gpu_core, maps, osutil or resources (function-level
imports included); every SSSP strategy declared once and resolvable on both backends;
every CUDA source shipped as package data."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
import tomllib

from gpu_core.sssp import registry

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "gpu_core"
PACKAGES = ("app", "gpu_core", "maps", "osutil", "resources")


def _module_name(p: Path) -> str:
    name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _runtime_nodes(tree: ast.AST, annotations: bool = False) -> list[ast.AST]:
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (imports for
    annotations only, never run); ``annotations``: those too."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if (not annotations and isinstance(node, ast.If)
                and "TYPE_CHECKING" in ast.unparse(node.test)):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _import_graph(annotations: bool = False) -> dict[str, set[str]]:
    """Every import (module level or inside functions) between modules of PACKAGES;
    ``annotations``: the imports under ``if TYPE_CHECKING:`` too."""
    mods = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in _runtime_nodes(ast.parse(p.read_text(encoding="utf-8")), annotations):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = pkg
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                mod = node.module or ""
                mod = f"{base}.{mod}".rstrip(".") if node.level else mod
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            edges[m] |= {t for t in targets if t in mods and t != m}
    return edges


def _bound_names(tree: ast.Module) -> set[str]:
    """Names a module binds at its top level (defs, classes, assignments, imports), also
    inside top-level if/try blocks."""
    names: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for tgt in targets:
                names |= {n.id for n in ast.walk(tgt) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", [])
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    return names


def test_every_import_between_our_packages_resolves():
    """A relative import or an import of our packages names a module that exists and names
    it defines: after files move (maps by role), an import merged in from elsewhere that
    still points at the old place fails here, not at run time."""
    files = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in files.items()}
    bad = []
    for m, p in files.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(trees[m]):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").split(".")[0] in PACKAGES:
                target = node.module or ""
            else:
                continue
            if target not in files:
                bad.append(f"{p.relative_to(ROOT)}:{node.lineno}: no module {target}")
                continue
            defined = _bound_names(trees[target])
            for a in node.names:
                if a.name != "*" and a.name not in defined and f"{target}.{a.name}" not in files:
                    bad.append(f"{p.relative_to(ROOT)}:{node.lineno}: {target} has no {a.name}")
    assert not bad, "\n".join(bad)


def test_import_graph_sees_every_package_and_inner_imports():
    edges = _import_graph()
    assert {m.split(".")[0] for m in edges} == set(PACKAGES)
    # a function-level import counts: RoadNetwork.to_networkx imports its exporter inside
    assert "maps.model.gis_stack" in edges["maps.model.network"]
    # the exporter names what it reads of a network (a Protocol), not the network's module
    assert "maps.model.network" not in _import_graph(annotations=True)["maps.model.gis_stack"]
    # an import under TYPE_CHECKING counts only in the graph with annotations
    assert "app.gui.tools.base" not in edges["app.gui.loading"]
    assert "app.gui.tools.base" in _import_graph(annotations=True)["app.gui.loading"]


def _find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``edges`` (a list of nodes, first = last), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state and (found := visit(w)):
                return found
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(edges):
        if v not in state and (found := visit(v)):
            return found
    return None


def test_no_import_cycles():
    cycle = _find_cycle(_import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_back_references_in_annotations():
    """Imports under ``if TYPE_CHECKING:`` count too (issue 38): a lower module that
    annotates with a type of a module above it names the shape it uses (a Protocol: the
    tools' ``ToolHost``, ``gis_stack.RoadNetwork``) or takes the type from where it is
    defined below (``sssp.options``), so no annotation-only cycle comes back."""
    cycle = _find_cycle(_import_graph(annotations=True))
    assert cycle is None, "import cycle through TYPE_CHECKING: " + " -> ".join(cycle or [])


def _subpackage(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_subpackages_form_a_dag():
    """Inside each package, the sub-packages (and top-level modules) import each other
    without a loop, function-level and TYPE_CHECKING imports included (issue 38;
    pyproject's layer contracts then fix the order)."""
    edges: dict[str, set[str]] = {}
    for v, ws in _import_graph(annotations=True).items():
        for w in ws:
            if v.split(".")[0] == w.split(".")[0] and _subpackage(v) != _subpackage(w):
                edges.setdefault(_subpackage(v), set()).add(_subpackage(w))
    cycle = _find_cycle(edges)
    assert cycle is None, "sub-package cycle: " + " -> ".join(cycle or [])


def test_find_cycle_finds_one():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": {"c"}}) is None


def test_registry_is_the_one_list():
    names = [s.name for s in registry.REGISTRY]
    assert len(names) == len(set(names))
    assert registry.STRATEGIES == tuple(names)
    from gpu_core import STRATEGIES

    assert STRATEGIES == registry.STRATEGIES
    assert set(registry.COMPARE_STRATEGIES) <= set(names)
    assert {b.partition(":")[0] for b in registry.BENCH_STRATEGIES} == set(names)
    for s in registry.REGISTRY:
        assert s.name in registry.docs_table()


@pytest.mark.parametrize("strategy", registry.STRATEGIES)
def test_registry_entries_resolve(strategy):
    entry = registry.get(strategy)
    assert callable(entry.entry("cpu"))
    # the CUDA modules import CuPy only when a search runs
    assert callable(entry.entry("cupy"))


def test_unknown_strategy_names_the_choices():
    from gpu_core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="choose one of conventional"):
        registry.get("nosuch")


def test_cuda_sources_are_package_data():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = cfg["tool"]["setuptools"]["package-data"]["gpu_core"]
    shipped = {p for g in globs for p in CORE.glob(g)}
    sources = set(CORE.rglob("*.cu")) | set(CORE.rglob("*.cuh"))
    assert sources and sources <= shipped
    assert (CORE / "py.typed") in shipped
    for src in sources:  # every .cu sits in a package (an __init__.py beside it)
        assert (src.parent / "__init__.py").exists(), src


def test_capabilities_have_the_same_shape():
    caps = [d.name for d in CORE.iterdir() if (d / "__init__.py").exists()]
    shared = {"device", "host"}  # what capabilities share, not capabilities themselves
    assert {"sssp", "multi_source", "betweenness", "programs", "dynamic"} <= set(caps)
    for cap in sorted(set(caps) - shared):
        d = CORE / cap
        assert (d / "api.py").exists(), cap
        assert (d / "cpu.py").exists() or (d / "cpu").is_dir(), cap
        assert (d / "cuda.py").exists() or (d / "cuda").is_dir(), cap
        importlib.import_module(f"gpu_core.{cap}.api")
    assert not (CORE / "cuda").exists() and not (CORE / "cpu").exists()


def test_a_long_module_says_why_in_its_opening():
    """CONTRIBUTING: files in ``gpu_core``, ``app`` and ``maps`` stay under ~500 lines unless
    their opening comment says why ("Over 500 lines: ..."), issue 38."""
    long = []
    for pkg in ("app", "gpu_core", "maps"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > 500 and not re.search(
                    r"Over \d00 lines", "\n".join(text.splitlines()[:40])):
                long.append(str(path.relative_to(ROOT)))
    assert not long, f"over 500 lines without the reason in the opening comment: {long}"
