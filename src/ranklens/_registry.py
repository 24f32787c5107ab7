"""The metric registry's storage and decorator (the public face is :mod:`ranklens.metrics`).

Each module registers its own scalar measures with :func:`register_metric`, so no list of names is
kept by hand anywhere. Consumers (the comparison engine, the CLI, the report) look up direction and
family here; they never guess them from a metric's name.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, Literal, TypeVar

__all__ = ["FAMILIES", "INPUTS", "MetricSpec", "register_metric"]

Family = Literal["residual", "ranking", "utility", "interval", "listwise", "curve", "business"]
FAMILIES: tuple[str, ...] = (
    "residual",
    "ranking",
    "utility",
    "interval",
    "listwise",
    "curve",
    "business",
)
Inputs = Literal["point", "interval"]
INPUTS: tuple[str, ...] = ("point", "interval")

F = TypeVar("F", bound=Callable[..., Any])


@dataclasses.dataclass(frozen=True)
class MetricSpec:
    """What the rest of ranklens needs to know about a registered scalar measure.

    Attributes
    ----------
    name : str
        Registry name, also the key in ``results.json``.
    func : callable
        ``func(y_true, y_pred, *, sample_weight=None, **params) -> float`` for ``inputs="point"``;
        ``func(y_true, lower, upper, *, alpha, sample_weight=None) -> float`` for
        ``inputs="interval"``.
    higher_is_better : bool
        Direction; ``*_score`` measures are higher-is-better, ``*_error``/``*_loss`` lower.
    family : str
        One of :data:`FAMILIES`.
    inputs : str
        ``"point"`` (needs a point prediction) or ``"interval"`` (needs lower and upper bounds).
    supports_sample_weight : bool
        Whether ``func`` takes ``sample_weight``; derived from its signature.
    order_dependent : bool
        True when the value depends on the row order (e.g. ``pmap``), so resampling rows is invalid.
    description : str
        One line for tables and the report.
    """

    name: str
    func: Callable[..., float]
    higher_is_better: bool
    family: str
    inputs: str = "point"
    supports_sample_weight: bool = True
    order_dependent: bool = False
    description: str = ""

    def __call__(self, *args: Any, **kwargs: Any) -> float:
        return self.func(*args, **kwargs)


_REGISTRY: dict[str, MetricSpec] = {}


def register_metric(
    name: str,
    *,
    higher_is_better: bool,
    family: str,
    inputs: str = "point",
    order_dependent: bool = False,
    description: str | None = None,
) -> Callable[[F], F]:
    """Decorator registering a scalar measure under ``name`` (the function itself is unchanged)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}")
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}; got {inputs!r}")

    def decorator(func: F) -> F:
        if name in _REGISTRY and _REGISTRY[name].func is not func:
            raise ValueError(f"metric {name!r} is registered twice")
        doc = (inspect.getdoc(func) or "").strip().splitlines()
        _REGISTRY[name] = MetricSpec(
            name=name,
            func=func,
            higher_is_better=higher_is_better,
            family=family,
            inputs=inputs,
            supports_sample_weight="sample_weight" in inspect.signature(func).parameters,
            order_dependent=order_dependent,
            description=description if description is not None else (doc[0] if doc else ""),
        )
        return func

    return decorator
