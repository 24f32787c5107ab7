"""How a stored comparison's intervals and paired tests were made, in the report's words.

The evaluation pipeline and the Dask engine both describe a comparison's methods in the
``settings`` of their result (:func:`methods_settings`), the report names each method with its
reference (:func:`method_name`), and ``results.json`` records each measure's methods
(:func:`interval_methods`, :func:`paired_test_methods`).
"""

from __future__ import annotations

from typing import Any

from ranklens.compare import PermutationTestResult

__all__ = [
    "METHOD_NAMES",
    "interval_methods",
    "method_name",
    "methods_settings",
    "paired_test_methods",
]


#: How the report names each interval or test method (``interval_method`` and ``test_method`` in
#: ``results.json``), with its reference.
METHOD_NAMES: dict[str, str] = {
    "delong": "DeLong (DeLong, DeLong & Clarke-Pearson 1988)",
    "delong-logit": (
        "DeLong on the logit scale (DeLong, DeLong & Clarke-Pearson 1988; Pohar Perme & "
        "Manevski 2019), Student's t with Satterthwaite's degrees of freedom (Brunner & Munzel "
        "2000)"
    ),
    "bootstrap": "paired bootstrap",
    "bootstrap-bca": "paired bootstrap, BCa (Efron 1987)",
    "bootstrap-percentile": "paired bootstrap, percentile",
    "bootstrap-studentized": "paired bootstrap, symmetric bootstrap-t (Hall 1988)",
    "fisher-z": "Fisher's z (Fieller, Hartley & Pearson 1957; Bonett & Wright 2000)",
    "permutation": "paired permutation test",
}


def interval_methods(comparison: Any) -> tuple[str, ...]:
    """Per measure of a stored comparison, the method of each model's interval.

    ``"delong"``, an analytic variance's name (``"noether"``), ``"bootstrap-bca"`` or
    ``"bootstrap-percentile"``; ``""`` for a permutation test (no interval). Empty for None.

    Parameters
    ----------
    comparison : ComparisonResult, PermutationTestResult or None
        The stored comparison.

    Returns
    -------
    tuple of str
        One method per measure.
    """
    if comparison is None:
        return ()
    own = getattr(comparison, "interval_methods", ())
    if own:
        return tuple(own)
    n = len(comparison.metrics)
    if isinstance(comparison, PermutationTestResult):
        return ("",) * n
    interval = str(getattr(comparison, "interval", ""))
    return (interval if interval == "delong" else f"bootstrap-{interval}",) * n


def paired_test_methods(comparison: Any) -> tuple[str, ...]:
    """Per measure of a stored comparison, the method of its paired tests.

    ``"delong"``, ``"bootstrap"``, ``"permutation"``, or ``""`` where the measure was not
    tested. Empty for None.

    Parameters
    ----------
    comparison : ComparisonResult, PermutationTestResult or None
        The stored comparison.

    Returns
    -------
    tuple of str
        One method per measure.
    """
    if comparison is None:
        return ()
    own = getattr(comparison, "test_methods", ())
    if own:
        return tuple(own)
    return (str(comparison.method),) * len(comparison.metrics)


def method_name(method: str) -> str:
    """The words the report uses for an interval or test method (:data:`METHOD_NAMES`).

    Parameters
    ----------
    method : str
        The method, as :func:`interval_methods` or :func:`paired_test_methods` name it.

    Returns
    -------
    str
        Its name with its reference (the method itself, capitalised, when not listed).
    """
    return METHOD_NAMES.get(method, method.capitalize())


def methods_settings(comparison: Any) -> dict[str, str]:
    """The ``settings`` sentences saying where each interval and each p-value came from.

    Parameters
    ----------
    comparison : ComparisonResult, PermutationTestResult or None
        The stored comparison.

    Returns
    -------
    dict of str to str
        ``"intervals"`` and, with pairs of models, ``"paired tests"``: which method served which
        measures (empty for None).
    """
    if comparison is None:
        return {}
    out = {}
    sentences = [("intervals", interval_methods(comparison))]
    if comparison.pairs:  # one model: no pair to test
        sentences.append(("paired tests", paired_test_methods(comparison)))
    for label, methods in sentences:
        groups: dict[str, list[str]] = {}
        for metric, method in zip(comparison.metrics, methods, strict=True):
            groups.setdefault(method, []).append(metric)
        # the bootstrap's most common method last ("elsewhere"), the others named
        boot = sorted(
            (m for m in groups if m.startswith("bootstrap")), key=lambda m: len(groups[m])
        )
        parts = []
        # DeLong first, then the other analytic methods, then the bootstrap ("elsewhere").
        delong_first = sorted(groups.items(), key=lambda item: not item[0].startswith("delong"))
        for method, metrics in delong_first:
            if method.startswith("bootstrap") or not method:
                continue
            parts.append(f"{_reference_name(comparison, method)} for {_listed(metrics)}")
        for i, method in enumerate(boot):
            words = method_name(method)
            if comparison.n_bootstrap:
                words += f", {comparison.n_bootstrap} resamples"
            last = i == len(boot) - 1
            parts.append(
                f"{words}, " + ("elsewhere" if parts and last else f"for {_listed(groups[method])}")
            )
        if "" in groups and label == "paired tests":
            parts.append(f"none for {_listed(groups[''])} (not resampled)")
        if parts:
            out[label] = "; ".join(parts)
    return out


def _reference_name(comparison: Any, method: str) -> str:
    """A method's name with its reference (an analytic variance names its own)."""
    references = getattr(comparison, "references", {}) or {}
    return references.get(method) or method_name(method)


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
