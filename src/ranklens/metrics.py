"""The registries: every scalar measure and every curve by name, with what engines may use.

>>> from ranklens.metrics import get_metric, available_metrics
>>> get_metric("kendall_tau").higher_is_better
True

Measures register themselves where they are defined
(``ranklens._foundation.registry.register_metric``); importing this module imports every module that
registers a measure, so the registry is complete, and nothing else (the engines above it are not
imported).
"""

from __future__ import annotations

from ranklens import (  # noqa: F401  (imported for their registrations)
    calibration,
    classification,
    extremes,
    intervals,
    listwise,
    ranking,
    residual,
    targeting,
)
from ranklens._foundation.curve_registry import (
    CURVE_FAMILIES,
    CurveSpec,
    available_curves,
    get_curve,
)
from ranklens._foundation.registry import (
    DIRECTIONS,
    FAMILIES,
    REGISTRY,
    MetricSpec,
)

__all__ = [
    "CURVE_FAMILIES",
    "DIRECTIONS",
    "FAMILIES",
    "CurveSpec",
    "MetricSpec",
    "available_curves",
    "available_metrics",
    "get_curve",
    "get_metric",
]


def get_metric(name: str) -> MetricSpec:
    """The :class:`MetricSpec` registered under ``name``; ``ValueError`` lists the valid names.

    The keys are the functions' names (``"mean_squared_error"``, ``"ndcg_score"``).

    Parameters
    ----------
    name : str
        A registry name (the function's name).

    Returns
    -------
    MetricSpec
        The function, its direction and its capabilities.

    Raises
    ------
    ValueError
        If ``name`` is not a registered metric; the message lists the registered names.

    Notes
    -----
    A measure registers itself where it is defined
    (``ranklens._foundation.registry.register_metric``), with its direction (higher, lower, closest
    to a target, or not ranked) and the capabilities the engines read (a vectorised bootstrap form,
    a breakdown bound, DeLong's variance); the engines never look a function up by its name in code,
    only through this registry.

    References
    ----------
    Buitinck, L., Louppe, G., Blondel, M., et al. (2013). API design for machine learning
    software: experiences from the scikit-learn project. *ECML PKDD Workshop: Languages for
    Data Mining and Machine Learning*, 108-122. arXiv:1309.0238 (metric look-up by name, as
    scikit-learn's ``get_scorer``).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown metric {name!r}; available: {', '.join(sorted(REGISTRY))}"
        ) from None


def available_metrics(family: str | None = None, *, inputs: str | None = None) -> tuple[str, ...]:
    """Names of registered metrics, optionally restricted to a family and an input kind.

    Parameters
    ----------
    family : str, optional
        Keep only the metrics of this family (one of :data:`FAMILIES`).
    inputs : str, optional
        Keep only the metrics that take this kind of input (e.g. ``"point"`` or ``"interval"``).

    Returns
    -------
    tuple of str
        The registry names, in alphabetical order.

    Raises
    ------
    ValueError
        If ``family`` is not one of :data:`FAMILIES`.

    Notes
    -----
    The names are the keys :func:`get_metric` accepts, which are the functions' own names.

    References
    ----------
    Buitinck, L., Louppe, G., Blondel, M., et al. (2013). API design for machine learning
    software: experiences from the scikit-learn project. *ECML PKDD Workshop: Languages for
    Data Mining and Machine Learning*, 108-122. arXiv:1309.0238 (the naming and direction
    conventions: ``*_score`` higher is better, ``*_error``/``*_loss`` lower).
    """
    if family is not None and family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}")
    return tuple(
        name
        for name, spec in sorted(REGISTRY.items())
        if (family is None or spec.family == family) and (inputs is None or spec.inputs == inputs)
    )
