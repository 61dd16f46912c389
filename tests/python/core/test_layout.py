"""The package layout: no import cycles among schedlab's modules, the core imports nothing above
it, and the module names of earlier releases still work, with a DeprecationWarning."""
from __future__ import annotations

import ast
import importlib
import pathlib
import warnings

import pytest

import schedlab as sl

PACKAGE = pathlib.Path(sl.__file__).resolve().parent


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


EXTENSION = "schedlab._core"  # the compiled core: a leaf


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def import_graph() -> dict:
    """Every import of a schedlab module by another, at module level or inside functions. An
    import of a package's attribute that is a module counts as an import of that module."""
    modules = _modules()
    graph = {name: set() for name in modules} | {EXTENSION: set()}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = _resolve(name, path.name == "__init__.py", node.level, node.module)
                for a in node.names:
                    full = f"{base}.{a.name}"
                    targets.append(full if full in modules or full == EXTENSION else base)
            for t in targets:
                if (t in modules or t == EXTENSION) and t != name:
                    graph[name].add(t)
    return graph


def _cycles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_is_read():
    g = import_graph()
    assert "schedlab.core.cluster" in g["schedlab.core.simulate"]
    assert "schedlab.core.catalogue" in g["schedlab.schedulers.base"]  # an import inside a function


def test_no_import_cycles():
    # the package root imports everything to offer it by name; below the command line (the top
    # layer, which the root loads only on demand) nothing imports the root back
    graph = import_graph()
    assert _cycles({k: v - {"schedlab"} for k, v in graph.items()}) == []
    assert sorted(k for k, v in graph.items() if "schedlab" in v and not k.startswith("schedlab.cli")) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


LAYERS = {
    "schedlab.core": {"schedlab._core", "schedlab._version"},
    "schedlab.workloads": {"schedlab._core", "schedlab.core"},
    "schedlab.engines": {"schedlab._core", "schedlab.core", "schedlab.workloads"},
    "schedlab.schedulers": {"schedlab._core", "schedlab.core"},
}


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layers_import_only_below(layer):
    allowed = LAYERS[layer] | {layer}
    bad = {(k, t) for k, v in import_graph().items() if k == layer or k.startswith(layer + ".")
           for t in v if not any(t == a or t.startswith(a + ".") for a in allowed)}
    assert bad == set()


@pytest.mark.parametrize("old,attr,new", [
    ("hybrid", "preset", "schedlab.engines.worker.preset"),
    ("hybrid", "dice_params", "schedlab.papers.zhou2019.dice_params"),
    ("sharing", "micro_cluster", "schedlab.papers.zhou2019.micro_cluster"),
    ("sharing", "dispersion", "schedlab.engines.share.dispersion"),
    ("mapreduce", "fresh_static_split", "schedlab.papers.wang2017.fresh_static_split"),
    ("mapreduce", "eas_experiment", "schedlab.papers.zhao2013.eas_experiment"),
    ("speculation_experiments", "run", "schedlab.papers.wang2017.run_esplash"),
    ("speculation_experiments", "run_sepb", "schedlab.papers.tang2014.run_sepb"),
    ("wordcount", "cluster", "schedlab.papers.lim2015.cluster"),
    ("pyscheduler", "FifoInPython", "schedlab.schedulers.base.FifoInPython"),
])
def test_earlier_names_forward_with_a_warning(old, attr, new):
    module_name, _, new_attr = new.rpartition(".")
    expected = getattr(importlib.import_module(module_name), new_attr)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        assert getattr(getattr(sl, old), attr) is expected
    with pytest.warns(DeprecationWarning):
        assert getattr(importlib.import_module(f"schedlab.{old}"), attr) is expected


def test_public_names_need_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ["simulate", "Cluster", "Workload", "Result", "read_trace", "sweep", "grid", "Scheduler"]:
            assert callable(getattr(sl, name))
        sl.datasets.load("demo_mix")
        sl.schedulers.get("fair")
        from schedlab.faults import Slowdown  # noqa: F401
        from schedlab.store import Store  # noqa: F401
        import schedlab.stats  # noqa: F401
        import schedlab.plot  # noqa: F401
        from schedlab.sweep import SweepResult  # the module of earlier releases ...
        assert SweepResult is sl.study.sweep.SweepResult and callable(sl.sweep)  # ... sl.sweep the function
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        sl.hybrid.nonexistent
