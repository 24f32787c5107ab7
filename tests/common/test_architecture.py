"""The import graph of ``src/ranklens``, read from the source: no cycle, no upward import.

The layers, bottom to top (a module may import its own layer or any layer below):

0. foundations: validation, results, formatting, the registries, the computational forms, the
   interval formulas, the performance policy, the disk cache's configuration; and the flat
   ``exceptions`` and ``_version``;
1. computation: the numba kernels (``_compute/kernels``), pure functions importing nothing of
   ranklens but each other and the disk cache's configuration (``_foundation/cache``); the
   array-API forms (``_compute/xp``), which also choose between a kernel and its NumPy form;
2. measures: the public measure modules (one per family) and what a measure shares with the
   engines (``_measures``: the rank sweep, a ranked target, the relevance functions);
3. ``metrics``: the registry's public face, importing the measure modules that register;
4. inference: the public ``compare``, ``bands``, ``robustness``, ``agreement``, ``delong`` and
   the resampling, the bootstrap's evaluators and the device path (``_inference``);
5. engines: the in-memory pipeline (``evaluation``), the Dask engine (``dask``), the bootstrap's
   budget and ``evaluate_models`` (``_engines``);
6. presentation: ``plot``, ``report``, the command line, the demo, warmup, datasets, scorers;
7. the package's ``__init__`` (the public namespace).

A private module's layer is its folder's: each layer keeps its private modules in one private
package (:data:`LAYER_PACKAGES`), so the source tree is the diagram and a new private module
gets its layer by where it is put. The public modules, whose import paths are the library's API
and so cannot move into a folder, are listed one by one (:data:`FLAT_MODULES`); a module in
neither has no layer and fails :func:`test_every_module_has_a_layer`.

Function-local imports count like module-level ones: a lazy import still runs upward. No module
is imported by its name in a string (``importlib.import_module``, ``__import__``), which this
graph could not see, except by the public namespace's lazy loader in ``ranklens/__init__.py``.

No module reaches for another module's private name (one leading underscore): a helper that
two modules need is shared under a public name in a module of its layer or a lower one.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "ranklens"

#: The private package of each layer: every module in it (at any depth) has its layer.
LAYER_PACKAGES = {
    "ranklens._foundation": 0,
    "ranklens._compute": 1,
    "ranklens._measures": 2,
    "ranklens._inference": 4,
    "ranklens._engines": 5,
}

#: The public measure modules (the public functions of one family and their registration): the
#: measure layer without ``_measures``, which holds what the measures share with the engines.
MEASURE_MODULES = {
    "ranklens.calibration",
    "ranklens.classification",
    "ranklens.extremes",
    "ranklens.intervals",
    "ranklens.listwise",
    "ranklens.ranking",
    "ranklens.relevance",
    "ranklens.residual",
    "ranklens.targeting",
}

#: The modules and packages outside the layer packages (a package stands for all its modules):
#: the public ones, whose import paths users import, and the few private modules that stay flat
#: beside them (``_version``, read by the build; the demo and warmup, which the command line,
#: the examples and the benchmarks import without the command line's extra).
FLAT_MODULES = {
    "ranklens._version": 0,
    "ranklens.exceptions": 0,
    **dict.fromkeys(MEASURE_MODULES, 2),
    "ranklens.metrics": 3,
    "ranklens.agreement": 4,
    "ranklens.bands": 4,
    "ranklens.compare": 4,
    "ranklens.delong": 4,
    "ranklens.planning": 4,
    "ranklens.robustness": 4,
    "ranklens.segments": 4,
    "ranklens.timeseries": 4,
    "ranklens.evaluation": 5,
    "ranklens.dask": 5,  # the Dask engine: the package and its private modules
    "ranklens.__main__": 6,
    "ranklens.cli": 6,
    "ranklens.plot": 6,
    "ranklens.report": 6,
    "ranklens.datasets": 6,
    "ranklens.scorers": 6,
    "ranklens._demo": 6,
    "ranklens._warmup": 6,
}


def layer(module: str) -> int:
    """The layer of ``module``: its layer package's, else its flat module's or package's."""
    if module == "ranklens":
        return 7
    top = ".".join(module.split(".")[:2])  # ranklens._compute.kernels.ranking -> ranklens._compute
    if top in LAYER_PACKAGES:
        return LAYER_PACKAGES[top]
    if top in FLAT_MODULES:
        return FLAT_MODULES[top]
    raise AssertionError(
        f"{module} has no layer: put a private module in the package of its layer "
        f"({', '.join(LAYER_PACKAGES)}); list a public one in tests/common/test_architecture.py"
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


def test_the_route_policy_imports_nothing_of_ranklens():
    """Every layer reads the performance policy, so it sits below all of them."""
    assert import_graph()["ranklens._foundation.route"] == set()


def test_kernels_import_only_foundations_and_kernels():
    for module, targets in import_graph().items():
        if module.startswith("ranklens._compute.kernels"):
            assert all(layer(t) <= 1 for t in targets), (module, targets)


def test_the_dask_engine_and_the_device_path_import_no_measure_module():
    """An engine (the Dask engine, the device path) reads what a measure declares on its spec
    and the forms shared under public names in the private modules below the measures; it never
    imports a measure module (whose helpers it would then copy or reach into)."""
    engines = {
        module: sorted(targets & MEASURE_MODULES)
        for module, targets in import_graph().items()
        if module.startswith("ranklens.dask") or module == "ranklens._inference.device_engine"
    }
    assert {m: t for m, t in engines.items() if t} == {}


#: What a kernel module may import of ranklens besides other kernel modules.
KERNEL_IMPORTS = {"ranklens._foundation.cache"}


def test_kernels_import_only_each_other_and_the_cache():
    """A kernel module holds numba kernels only: no routing policy, no array-API form, nothing
    that could import it back (function-local imports count)."""
    outside = {
        module: sorted(t for t in targets if not t.startswith("ranklens._compute.kernels"))
        for module, targets in import_graph().items()
        if module.startswith("ranklens._compute.kernels")
    }
    assert {m: t for m, t in outside.items() if set(t) - KERNEL_IMPORTS} == {}


#: The one module that may import a module of ranklens by its name in a string: the public
#: namespace's lazy loader (PEP 562).
STRING_IMPORTERS = {"ranklens"}


def _names_a_ranklens_module(arg: ast.expr, constants: dict[str, str]) -> bool:
    """Whether the argument of an import call may name a ranklens module: a string or f-string
    starting with ``ranklens``, a module-level string constant that does, or anything whose
    value the source does not show (a variable, an expression)."""
    if isinstance(arg, ast.Constant):
        return not isinstance(arg.value, str) or arg.value.split(".")[0] == "ranklens"
    if isinstance(arg, ast.JoinedStr):
        head = arg.values[0] if arg.values else None
        return not (isinstance(head, ast.Constant) and not str(head.value).startswith("ranklens"))
    if isinstance(arg, ast.Name) and arg.id in constants:
        return constants[arg.id].split(".")[0] == "ranklens"
    return True


def string_imports() -> list[str]:
    """Every call of ``importlib.import_module`` (or ``import_module``) and ``__import__`` in
    ``src/ranklens`` whose argument may name a ranklens module, outside
    :data:`STRING_IMPORTERS`, as ``module:line``."""
    found = []
    for module, path in sorted(_modules().items()):
        if module in STRING_IMPORTERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called in ("import_module", "__import__") and _names_a_ranklens_module(
                node.args[0], constants
            ):
                found.append(f"{module}:{node.lineno}")
    return found


def test_no_module_is_imported_by_a_string():
    """Kernel modules (and every other module of ranklens) are imported by ``import``
    statements, which :func:`import_graph` sees: a module loaded by its name in a string could
    close an import cycle or run upward unseen."""
    assert string_imports() == []


def test_the_check_of_string_imports_sees_each_form(tmp_path, monkeypatch):
    """The check finds ``importlib.import_module`` of a literal, an f-string, a module-level
    constant or a variable, and ``__import__``; it lets other packages' names through, and the
    package's ``__init__``."""
    package = tmp_path / "ranklens"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import importlib\n"
        "def _module(name):\n"
        "    return importlib.import_module(f'ranklens.{name}')\n"
    )
    (package / "user.py").write_text(
        "import importlib\n"
        "from importlib import import_module\n"
        "_KERNELS = 'ranklens._compute.kernels.curves'\n"
        "def f(name):\n"
        "    importlib.import_module('ranklens._compute.kernels.ranking')\n"
        "    importlib.import_module(f'ranklens._compute.kernels.{name}')\n"
        "    import_module(_KERNELS)\n"
        "    __import__(name)\n"
        "    importlib.import_module('cupy')\n"
        "    importlib.import_module(f'numba.{name}')\n"
        "    return importlib.util.find_spec('ranklens.plot')\n"
    )
    monkeypatch.setitem(globals(), "SRC", package)
    assert string_imports() == [
        "ranklens.user:5",
        "ranklens.user:6",
        "ranklens.user:7",
        "ranklens.user:8",
    ]


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
         "--output-format", "concise", str(SRC / "_compute" / "kernels")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("module", ["ranklens.compare", "ranklens.bands", "ranklens.robustness"])
def test_engines_import_no_measure_module(module):
    """Engines read what a measure can do from its MetricSpec, never from the measure's module."""
    graph = import_graph()
    if module not in graph:
        pytest.skip(f"{module} does not exist")
    measures = {m for m in graph if layer(m) == 2}
    assert not (graph[module] & measures), graph[module] & measures


# --------------------------------------------------------------------------------------------
# Private names stay in their module: a helper two modules need is shared under a public name
# in a lower layer, never reached for under its private one.


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _imported_from(node: ast.ImportFrom, module: str, path: pathlib.Path) -> str:
    """The module a ``from ... import`` reads (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _module_objects(
    tree: ast.Module, module: str, path: pathlib.Path, modules: dict[str, pathlib.Path]
) -> dict[str, str]:
    """``local name -> ranklens module`` for every name the source binds to a module object:
    ``import ranklens.x [as y]``, ``from ranklens import x`` (x a module) and the lazy form
    ``importlib.import_module("ranklens.x")`` (the module named by a string literal or by a
    module-level string constant)."""
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ranklens"):
                    name = alias.asname or alias.name.split(".")[0]
                    bound[name] = alias.name if alias.asname else "ranklens"
        elif isinstance(node, ast.ImportFrom):
            source = _imported_from(node, module, path)
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            func = node.value.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called == "import_module" and node.value.args:
                arg = node.value.args[0]
                named = arg.value if isinstance(arg, ast.Constant) else None
                if isinstance(arg, ast.Name):
                    named = constants.get(arg.id)
                if isinstance(target, ast.Name) and named in modules:
                    bound[target.id] = named
    return bound


def _module_of(expr: ast.expr, bound: dict[str, str], modules: dict[str, pathlib.Path]) -> str:
    """The ranklens module an expression stands for (``x``, ``x.sub``), or ``""``."""
    if isinstance(expr, ast.Name):
        return bound.get(expr.id, "")
    if isinstance(expr, ast.Attribute):
        base = _module_of(expr.value, bound, modules)
        if base and f"{base}.{expr.attr}" in modules:
            return f"{base}.{expr.attr}"
    return ""


def _private_definitions(trees: dict[str, ast.Module]) -> dict[str, set[str]]:
    """``private name -> the modules that define it`` (functions, classes, assignments)."""
    defined: dict[str, set[str]] = {}
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                targets = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                found = node.targets if isinstance(node, ast.Assign) else [node.target]
                targets = [t.id for t in found if isinstance(t, ast.Name)]
            else:
                continue
            for name in filter(_private, targets):
                defined.setdefault(name, set()).add(module)
    return defined


def private_reaches() -> list[str]:
    """Every place a module of ``src/ranklens`` takes a private name (one leading underscore)
    defined in another ranklens module: ``from ranklens.m import _name``, ``m._name`` on a
    module object (imported, or a lazy kernel module), ``getattr(m, "_name")``, and a call
    that names another module's private function, class or constant in a string (a kernel
    looked up by name: ``_kernel_ready("_sweep")``).

    A private *submodule* is a module, not a name: ``from ranklens.dask import _passes`` is
    allowed, and so is a private name of the module itself.
    """
    modules = _modules()
    trees = {m: ast.parse(path.read_text(encoding="utf-8")) for m, path in modules.items()}
    defined = _private_definitions(trees)
    found: set[tuple[str, int, str]] = set()
    for module, path in sorted(modules.items()):
        tree = trees[module]
        bound = _module_objects(tree, module, path, modules)
        for node in ast.walk(tree):
            owner, name, how = "", "", ""
            if isinstance(node, ast.ImportFrom):
                source = _imported_from(node, module, path)
                for alias in node.names:
                    if (
                        source.startswith("ranklens")
                        and source != module
                        and _private(alias.name)
                        and f"{source}.{alias.name}" not in modules
                    ):
                        found.add((module, node.lineno, f"imports {source}.{alias.name}"))
                continue
            if isinstance(node, ast.Attribute):
                owner, name, how = _module_of(node.value, bound, modules), node.attr, "reads"
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                owner = _module_of(node.args[0], bound, modules)
                name, how = node.args[1].value, f"{node.func.id}s"
            if owner and owner != module and _private(name) and f"{owner}.{name}" not in modules:
                found.add((module, node.lineno, f"{how} {owner}.{name}"))
            elif isinstance(node, ast.Call) and not owner:
                for arg in node.args:
                    named = arg.value if isinstance(arg, ast.Constant) else None
                    if isinstance(named, str) and module not in defined.get(named, {module}):
                        owners = ", ".join(sorted(defined[named]))
                        found.add((module, node.lineno, f"names {named} of {owners}"))
    return [f"{module}:{line} {what}" for module, line, what in sorted(found)]


def test_no_module_reaches_for_another_modules_private_names():
    assert private_reaches() == []


def test_the_check_of_private_names_sees_each_way_in(tmp_path, monkeypatch):
    """The check finds an import, an attribute of a module object (imported or lazy), a
    ``getattr`` and a lookup by name of another module's private name, and lets private
    submodules and the module's own private names through."""
    package = tmp_path / "ranklens"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_helpers.py").write_text("def _one():\n    pass\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "_impl.py").write_text("_TWO = 2\n")
    (package / "user.py").write_text(
        "from ranklens import _helpers\n"
        "from ranklens._helpers import _one\n"
        "from ranklens.sub import _impl\n"
        "import importlib\n"
        "_KERNELS = 'ranklens._helpers'\n"
        "_k = importlib.import_module(_KERNELS)\n"
        "def f():\n"
        "    _impl._TWO\n"
        "    _k._one()\n"
        "    _own('_KERNELS')\n"
        "    _own('_one')\n"
        "    return getattr(_helpers, '_one')\n"
        "def _own(name):\n"
        "    return name\n"
    )
    monkeypatch.setitem(globals(), "SRC", package)
    assert private_reaches() == [
        "ranklens.user:2 imports ranklens._helpers._one",
        "ranklens.user:8 reads ranklens.sub._impl._TWO",
        "ranklens.user:9 reads ranklens._helpers._one",
        "ranklens.user:11 names _one of ranklens._helpers",
        "ranklens.user:12 getattrs ranklens._helpers._one",
    ]
