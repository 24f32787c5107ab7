"""The import graph of ``src/ranklens``, read from the source: no cycle, no upward import.

The layers, bottom to top (a module may import its own layer or any layer below):

0. foundations: validation, results, formatting, the registries, exceptions, the version;
1. numba kernels (``_kernels``): pure functions, importing nothing of ranklens above layer 0;
2. measures (one module per family) and the relevance functions they use;
3. ``metrics``: the registry's public face, importing the measure modules that register;
4. inference: resampling, comparison, bands, robustness, agreement;
5. the evaluation pipeline;
6. presentation: ``plot``, ``report``, the command line, the demo, datasets, scorers;
7. the package's ``__init__`` (the public namespace).

Function-local imports count like module-level ones: a lazy import still runs upward.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src" / "ranklens"

FOUNDATIONS = {
    "ranklens._cache",
    "ranklens._curve_registry",
    "ranklens._deprecation",
    "ranklens._exact_null",
    "ranklens._extras",
    "ranklens._normal",
    "ranklens._progress",
    "ranklens._extras",
    "ranklens._progress",
    "ranklens._format",
    "ranklens._inference",  # interval formulas over NumPy: used by measures and inference
    "ranklens._registry",
    "ranklens._results",
    "ranklens._typing",
    "ranklens._scaling",
    "ranklens._shared",
    "ranklens._validation",
    "ranklens._version",
    "ranklens.exceptions",
}
MEASURES = {
    "ranklens.curves",  # deprecated alias of targeting
    "ranklens.error_curves",  # deprecated alias of residual
    "ranklens.extremes",
    "ranklens.intervals",
    "ranklens.listwise",
    "ranklens.ranking",
    "ranklens.relevance",
    "ranklens.residual",
    "ranklens.targeting",
    "ranklens.utility",  # deprecated alias of extremes
}
INFERENCE = {
    "ranklens._budget",
    "ranklens._gpu_engine",
    "ranklens._resampling",
    "ranklens.agreement",
    "ranklens.bands",
    "ranklens.compare",
    "ranklens.delong",
    "ranklens.robustness",
}
PIPELINE = {
    "ranklens._budget",
    "ranklens.evaluation",
    "ranklens.dask",
    "ranklens.dask._curve_sums",
    "ranklens.dask._curves",
    "ranklens.dask._boot_pairs",
    "ranklens.dask._bucket_passes",
    "ranklens.dask._combining",
    "ranklens.dask._delong",
    "ranklens.dask._engine",
    "ranklens.dask._listwise",
    "ranklens.dask._evaluate",
    "ranklens.dask._gather",
    "ranklens.dask._inputs",
    "ranklens.dask._lagged",
    "ranklens.dask._magnitude",
    "ranklens.dask._noether",
    "ranklens.dask._partition_passes",
    "ranklens.dask._passes",
    "ranklens.dask._planning",
    "ranklens.dask._profile",
    "ranklens.dask._quantiles",
    "ranklens.dask._robustness",
    "ranklens.dask._row_plots",
    "ranklens.dask._sums",
    "ranklens.dask._watch",
}
PRESENTATION_PREFIXES = ("ranklens.plot", "ranklens.report", "ranklens._cli")
PRESENTATION = {
    "ranklens.__main__",
    "ranklens.cli",
    "ranklens._demo",
    "ranklens._warmup",
    "ranklens.datasets",
    "ranklens.scorers",
}


def layer(module: str) -> int:
    if module in FOUNDATIONS:
        return 0
    if module.startswith(("ranklens._kernels", "ranklens._xp")):  # numba / array-API kernels
        return 1
    if module in MEASURES:
        return 2
    if module == "ranklens.metrics":
        return 3
    if module in INFERENCE:
        return 4
    if module in PIPELINE:
        return 5
    if module in PRESENTATION or module.startswith(PRESENTATION_PREFIXES):
        return 6
    if module == "ranklens":
        return 7
    raise AssertionError(
        f"{module} has no layer: add it to tests/test_architecture.py where it belongs"
    )


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """``module -> modules of ranklens it imports`` (module level and function level alike)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                submodules = [f"{source}.{alias.name}" for alias in node.names]
                # "from pkg import sub" imports the submodule; "from pkg import name", the package
                targets = [t for t in submodules if t in modules]
                if len(targets) < len(submodules):
                    targets.append(source)
            else:
                continue
            graph[module].update(t for t in targets if t in modules and t != module)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer():
    for module in import_graph():
        layer(module)


def test_no_import_cycle():
    assert _cycles(import_graph()) == []


def test_nothing_imports_upward():
    upward = [
        f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
        for m, targets in sorted(import_graph().items())
        for t in sorted(targets)
        if layer(t) > layer(m)
    ]
    assert upward == []


def test_kernels_import_only_foundations_and_kernels():
    for module, targets in import_graph().items():
        if module.startswith("ranklens._kernels"):
            assert all(layer(t) <= 1 for t in targets), (module, targets)


#: The largest cyclomatic complexity of a numba kernel: a kernel's loop nest is one thing and
#: cannot call helpers cheaply, so it gets more than the rest of the code's 25 (ruff's C901,
#: pyproject.toml), which has no per-folder limit.
KERNEL_COMPLEXITY = 40


def test_kernels_stay_within_their_complexity():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "C901",
         "--config", f"lint.mccabe.max-complexity={KERNEL_COMPLEXITY}",
         "--output-format", "concise", str(SRC / "_kernels")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("module", ["ranklens.compare", "ranklens.bands", "ranklens.robustness"])
def test_engines_import_no_measure_module(module):
    """Engines read what a measure can do from its MetricSpec, never from the measure's module."""
    graph = import_graph()
    if module not in graph:
        pytest.skip(f"{module} does not exist")
    assert not (graph[module] & MEASURES), graph[module] & MEASURES


def test_moved_pipeline_names_are_deprecated_aliases():
    import ranklens.evaluation
    import ranklens.report.evaluation

    with pytest.warns(DeprecationWarning, match="moved to ranklens.evaluation"):
        old = ranklens.report.evaluation.evaluate_models
    assert old is ranklens.evaluation.evaluate_models
    import ranklens.report

    assert ranklens.report.evaluate_models is ranklens.evaluation.evaluate_models  # no warning


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("ranklens.curves", "ranklens.targeting", "roc_curve"),
        ("ranklens.utility", "ranklens.extremes", "utility_f1"),
        ("ranklens.error_curves", "ranklens.residual", "rec_curve"),
        ("ranklens.plot.error_curves", "ranklens.plot.residual", "RECCurveDisplay"),
    ],
)
def test_renamed_modules_are_deprecated_aliases(old, new, name):
    import importlib

    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    with pytest.warns(DeprecationWarning, match=f"moved to {new}"):
        value = getattr(old_module, name)
    assert value is getattr(new_module, name)
