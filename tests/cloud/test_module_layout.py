"""The simulators' module layout: no import circles, modules of a few hundred lines, event loops
that do not name the policies they run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mopt

ROOT = Path(mopt.__file__).resolve().parent
PACKAGES = ("mopt.cloud", "mopt.koala", "mopt.workloads")
#: the cloud simulator's loop and steps, and the policy codes they must not compare
CLOUD_LOOP = ("engine", "steps", "skipping", "window", "layout", "leasing")
POLICY_CODES = {"STARTUP", "ODS", "ODA", "ODB", "ODE", "ODM", "ODX", "ODG", "ODW", "FCFS", "SJF",
                "LXF", "WFP3", "UNICEF", "FIRSTFIT", "BESTFIT", "WORSTFIT", "MOD", "BINPACK"}
KOALA_LOOP = ("engine", "sites", "queueing", "heap", "tables")
KOALA_POLICIES = {"FF", "RR", "SJF", "SJFIdeal", "HSDF", "TagsChain", "TagsSets", "Policy"}


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The mopt module ``name`` is, or is in (``from pkg import obj`` imports ``pkg``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """Every mopt module ``module`` imports, at the top or inside a function (also
    ``importlib.import_module("...")`` with a literal name)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", ""))
              == "import_module" and node.args and isinstance(node.args[0], ast.Constant)):
            names = [node.args[0].value]
        for name in names:
            if isinstance(name, str) and name.startswith("mopt"):
                target = _resolve(name)
                if target and target != module:
                    found.add(target)
    return found


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {m: imports_of(m) for m in MODULES}
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_reads_function_level_imports():
    # CloudState.online_view used to import mopt.cloud.online inside the method, which imports
    # the engine back: the graph must see such imports
    assert "mopt.cloud.engine" in imports_of("mopt.cloud.online")
    assert "mopt.cloud.portfolios" in imports_of("mopt.cloud.simulate")  # inside _as_policy
    assert "mopt.workloads.prediction" in imports_of("mopt.koala.queueing")


def test_no_import_circle_through_the_simulators():
    circles = [c for c in _cycles() if any(m.startswith(PACKAGES) for m in c)]
    assert circles == []
    for module in MODULES:
        if module.startswith(PACKAGES):
            for other in imports_of(module):
                assert module not in imports_of(other), (module, other)


@pytest.mark.parametrize("package", PACKAGES)
def test_modules_are_a_few_hundred_lines(package):
    # the project's bound: a module over 500 lines wants a table of contents (STYLE 5)
    sizes = {m: len(p.read_text().splitlines()) for m, p in MODULES.items() if m.startswith(package)}
    assert max(sizes.values()) <= 500, sizes


def _names(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text())
    return ({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            | {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               for a in n.names})


@pytest.mark.parametrize("module", CLOUD_LOOP)
def test_cloud_loop_names_no_policy(module):
    """The loop asks mopt.cloud.policies' rules; it never compares a policy code itself."""
    assert _names(f"mopt.cloud.{module}") & POLICY_CODES == set()


@pytest.mark.parametrize("module", KOALA_LOOP)
def test_koala_loop_names_no_policy(module):
    """KOALA-C's engine sees a policy only as its queues (mopt.koala.tables.QueueTable)."""
    assert _names(f"mopt.koala.{module}") & KOALA_POLICIES == set()
