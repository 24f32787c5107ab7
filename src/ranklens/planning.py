"""How much more data would settle it: sample sizes and detectable differences of a comparison.

A comparison of two models (:func:`ranklens.compare_models`) says how large their difference is
and how uncertain: its standard error on the ``n`` rows at hand. Read the other way, the same
standard error says how large a difference these rows could detect, and how many rows it would
take to detect the difference seen (or any other):

* :func:`required_sample_size`: per measure and pair of models, the rows (and, for a binary
  response, the events) that a test at level ``alpha`` needs to detect a difference with
  probability ``power``, and the power the rows at hand have;
* :func:`detectable_difference`: the smallest difference such a test detects at the rows at hand
  (or at any ``n``);
* :func:`roc_auc_sample_size`: the cases one AUC needs to be told from 1/2 before any data, by
  Obuchowski's binormal variance, as pROC's ``power.roc.test(auc =, kappa =, power =)``.

Assumptions
-----------
The comparison is paired (both models scored on the same rows), the difference is
approximately normal, and its variance falls as ``1/n`` with the data's mix kept: the share of
events of a binary response, the clusters' sizes, the models. A test at level ``alpha``
(two-sided: ``z_a = z_{1 - alpha/2}``) then detects a difference ``delta`` with probability
``Phi(|delta| / SE_a - z_a SE_0 / SE_a)``, the other tail neglected, and

``n' = n (z_a SE_0 + z_b SE_a)^2 / delta^2`` and
``delta_min(n') = (z_a SE_0 + z_b SE_a) sqrt(n / n')``

with ``z_b = z_power``, ``SE_a`` the standard error of the difference (under the alternative) and
``SE_0`` its value under the null. For the bootstrap's and the Diebold-Mariano comparisons
``SE_0 = SE_a``, so that ``n' = n (z_a + z_b)^2 SE^2 / delta^2``. Where the
difference is of two AUCs (or Harrell's C) with DeLong's variances, the null's variance is that
of pROC's ``power.roc.test(roc1, roc2)`` (Robin et al. 2011; Obuchowski, Lieber & Wians 2004):
``V_0 = 2 Var(A) - 2 Cov(A, B)``, the variance of the difference if model B were as variable as
model A, and ``V_a = Var(A) + Var(B) - 2 Cov(A, B)``, so that the cases needed equal pROC's
``ncases``. That null variance is the variance of model A's AUC taken for both: where A is the
more precise model (the better one, usually) it is smaller than the variance of the difference
that DeLong's test estimates from the data, and the ``n`` planned is optimistic for that test;
``null_variance="alternative"`` plans with ``SE_0 = SE_a`` for every comparison, the test
:func:`ranklens.compare_models` runs (``benchmarks/power_simulation.py``, 80 % asked: 64 %
achieved at pROC's ``n`` with the better model as A, 78 % with ``"alternative"``, each with a
Monte Carlo standard error of about 3 points).

References
----------
Obuchowski, N. A., Lieber, M. L. and Wians, F. H. (2004). ROC curves in Clinical Chemistry:
uses, misuses, and possible solutions. *Clinical Chemistry* 50(7), 1118-1125.

Obuchowski, N. A. and McClish, D. K. (1997). Sample size determination for diagnostic accuracy
studies involving binormal ROC curve indices. *Statistics in Medicine* 16(13), 1529-1542.

Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze and compare ROC
curves. *BMC Bioinformatics* 12, 77.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.normal import ndtr, ndtri
from ranklens._foundation.registry import goodness
from ranklens._foundation.results import Result
from ranklens._foundation.validation import check_finite_number, check_probability
from ranklens.compare import ComparisonResult, PermutationTestResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PowerAnalysisResult",
    "RocSampleSizeResult",
    "detectable_difference",
    "required_sample_size",
    "roc_auc_sample_size",
]

#: The tests planned for: two-sided at level ``alpha``, or one-sided in the direction of the
#: difference (pROC's ``alternative = "one.sided"``).
_ALTERNATIVES: tuple[str, ...] = ("two-sided", "one-sided")

#: The variances of the difference under the null that the plans take: ``"auto"``, pROC's for
#: DeLong's AUCs and the difference's own elsewhere; ``"alternative"``, the difference's own.
_NULL_VARIANCES: tuple[str, ...] = ("auto", "alternative")

#: Obuchowski's (1997; 2004) variance of the AUC under the null, per case: ``0.0792 (1 + 1/kappa)``.
_NULL_VARIANCE = 0.0792

_NO_ZERO = "no finite n detects a zero difference"


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
@shared_paragraphs
class PowerAnalysisResult(Result):
    """What a comparison's data could detect, and how many rows a difference would need.

    What :func:`required_sample_size` and :func:`detectable_difference` return: one entry per
    measure and pair of models (``model_a`` against ``model_b``, the difference ``value(a) -
    value(b)``). ``to_frame()`` gives one row each.

    Attributes
    ----------
    metrics, model_a, model_b : tuple of str
        The measure and the two models of each entry.
    n : ndarray of int
        The rows now (the comparison's independent units: with groups, the groups).
    n_events : ndarray
        The events now (rows in the larger class of a binary response); NaN where the response
        is not binary.
    std_error : ndarray
        The standard error of the difference now (``SE_a``: the bootstrap's, or the analytic
        one's).
    null_std_error : ndarray
        Its value under the null (``SE_0``): ``std_error`` but for DeLong's AUCs, where it is
        ``sqrt(2 Var(A) - 2 Cov(A, B))`` (pROC's ``power.roc.test``).
    difference : ndarray
        The observed ``value(a) - value(b)``.
    planned_difference : ndarray
        The difference planned for, ``|difference|`` unless one was given.
    power_at_n : ndarray
        The probability that the test detects ``planned_difference`` at the rows now:
        ``Phi((|delta| - z_a SE_0) / SE_a)`` (pROC's ``power.roc.test(roc1, roc2)$power`` for
        DeLong's AUCs).
    at_n : ndarray
        The rows at which ``detectable_difference`` holds (``n`` unless another was given).
    detectable_difference : ndarray
        The smallest difference the test detects with probability ``power`` at ``at_n`` rows:
        ``(z_a SE_0 + z_b SE_a) sqrt(n / at_n)``.
    required_n : ndarray
        The rows that detect ``planned_difference`` with probability ``power``:
        ``n (z_a SE_0 + z_b SE_a)^2 / delta^2`` (a real number: round it up); inf for a zero
        difference, NaN without a standard error.
    required_events : ndarray
        The events among them, ``required_n`` times the share of events now (pROC's ``ncases``
        for DeLong's AUCs); NaN where the response is not binary.
    methods : tuple of str
        How each entry's standard errors were made, in words.
    notes : tuple of str
        Why an entry is NaN or infinite (empty where it is not).
    power, alpha : float
        The power asked for and the test's level.
    alternative : str
        ``"two-sided"`` or ``"one-sided"``.
    null_variance : str
        ``"auto"`` or ``"alternative"`` (:func:`required_sample_size`).

    References
    ----------
    %(obuchowski2004)s

    %(robin2011)s
    """

    metrics: tuple[str, ...]
    model_a: tuple[str, ...]
    model_b: tuple[str, ...]
    n: np.ndarray
    n_events: np.ndarray
    std_error: np.ndarray
    null_std_error: np.ndarray
    difference: np.ndarray
    planned_difference: np.ndarray
    power_at_n: np.ndarray
    at_n: np.ndarray
    detectable_difference: np.ndarray
    required_n: np.ndarray
    required_events: np.ndarray
    methods: tuple[str, ...]
    notes: tuple[str, ...]
    power: float
    alpha: float
    alternative: str
    null_variance: str = "auto"

    def to_frame(self) -> pd.DataFrame:
        """One row per measure and pair of models.

        Columns: ``metric, model_a, model_b, n, n_events, std_error, null_std_error,
        difference, planned_difference, power_at_n, at_n, detectable_difference, required_n,
        required_events, method, note``; ``power``, ``alpha``, ``alternative`` and
        ``null_variance`` in ``frame.attrs``.

        Returns
        -------
        pandas.DataFrame
            The table.
        """
        import pandas as pd

        columns = {
            "metric": list(self.metrics),
            "model_a": list(self.model_a),
            "model_b": list(self.model_b),
            **{
                name: getattr(self, name)
                for name in (
                    "n",
                    "n_events",
                    "std_error",
                    "null_std_error",
                    "difference",
                    "planned_difference",
                    "power_at_n",
                    "at_n",
                    "detectable_difference",
                    "required_n",
                    "required_events",
                )
            },
            "method": list(self.methods),
            "note": list(self.notes),
        }
        frame = pd.DataFrame(columns)
        frame.attrs.update(
            power=self.power,
            alpha=self.alpha,
            alternative=self.alternative,
            null_variance=self.null_variance,
        )
        return frame


# --------------------------------------------------------------------------------------------
# reading the comparison
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Entry:
    """One measure and pair of a comparison, oriented ``a`` against ``b``."""

    metric: str
    a: str
    b: str
    n: int
    n_events: float
    se: float  # under the alternative
    se_null: float
    difference: float
    method: str
    note: str


def _check_comparison(comparison: Any) -> ComparisonResult:
    if isinstance(comparison, PermutationTestResult):
        raise ValueError(
            "comparison: a permutation test gives no standard error of the difference (its "
            "null_sd is the spread of differences under exchangeable models); compare with "
            "method='bootstrap' (or 'delong', 'diebold-mariano')"
        )
    if not isinstance(comparison, ComparisonResult):
        raise TypeError(
            "comparison must be the result of ranklens.compare_models (a ComparisonResult); "
            f"got {type(comparison).__name__}"
        )
    if not comparison.n_units > 0:
        raise ValueError(
            "comparison: the number of rows it was made on is unknown (n_units is 0); make it "
            "with ranklens.compare_models, which records it"
        )
    return comparison


def _kind(comparison: ComparisonResult, k: int) -> str:
    """How measure ``k``'s paired differences were tested: ``"bootstrap"``, ``"delong"``,
    ``"diebold-mariano"`` (a pipeline's comparison says it per measure), or ``""``."""
    tests = getattr(comparison, "test_methods", ())
    if tests:
        return str(tests[k]) if k < len(tests) else ""
    return str(comparison.method)


def _method_text(comparison: ComparisonResult, kind: str) -> str:
    if kind == "delong":
        return (
            "DeLong's variances: 2 Var(A) - 2 Cov(A, B) under the null, Var(A) + Var(B) - "
            "2 Cov(A, B) under the alternative (pROC's power.roc.test); variance as 1/n"
        )
    if kind == "delong-alternative":
        return (
            "normal approximation, DeLong's standard error of the paired difference under "
            "the null and the alternative (the test compare_models runs); variance as 1/n"
        )
    kind = kind.removesuffix("-alternative")
    if kind == "diebold-mariano":
        horizon = getattr(comparison, "horizon", 1)
        return (
            f"normal approximation, the Diebold-Mariano standard error of the mean loss "
            f"differential (horizon {horizon}); variance as 1/n"
        )
    return (
        f"normal approximation, the bootstrap standard error of the paired difference "
        f"({comparison.n_bootstrap} replicates, {comparison.scheme}); variance as 1/n"
    )


def _pick(comparison: ComparisonResult, k: int, exclude: str | None = None) -> str:
    """The model best on measure ``k`` (the first where none is ranked), ``exclude`` left out."""
    models = [m for m in comparison.models if m != exclude]
    hib = comparison.higher_is_better[k]
    target = comparison.targets[k] if k < len(comparison.targets) else None
    if hib is None:
        direction = "neutral" if target is None else "target"
    else:
        direction = "higher" if hib else "lower"
    good = goodness([comparison.value(comparison.metrics[k], m) for m in models], direction, target)
    finite = np.isfinite(good)
    return models[int(np.argmax(np.where(finite, good, -np.inf)))] if finite.any() else models[0]


def _entry(comparison: ComparisonResult, k: int, a: str, b: str, null: str) -> _Entry:
    """Measure ``k``'s pair ``(a, b)`` read off the comparison, its null variance by its method
    (pROC's for DeLong's AUCs, with ``null`` ``"auto"``)."""
    metric = comparison.metrics[k]
    if (a, b) in comparison.pairs:
        p, sign = comparison.pairs.index((a, b)), 1.0
    else:
        p, sign = comparison.pairs.index((b, a)), -1.0
    se = abs(float(comparison.difference_sd[k, p]))
    kind = _kind(comparison, k)
    se_null, note = se, ""
    if kind == "delong" and null == "auto":
        var_a = float(comparison.std_error[k, comparison.models.index(a)]) ** 2
        var_b = float(comparison.std_error[k, comparison.models.index(b)]) ** 2
        # Cov(A, B) = (Var(A) + Var(B) - Var(A - B)) / 2, so 2 Var(A) - 2 Cov = Var(A) - Var(B)
        # + Var(A - B)
        se_null = math.sqrt(max(var_a - var_b + se * se, 0.0))
    if not math.isfinite(se) or (kind == "bootstrap" and comparison.n_bootstrap == 0) or not kind:
        note = (
            f"no standard error of the difference: {metric} was compared without bootstrap "
            "replicates and without an analytic variance"
        )
        se = se_null = math.nan
    events = comparison.n_events[k] if k < len(comparison.n_events) else None
    return _Entry(
        metric=metric,
        a=a,
        b=b,
        n=int(comparison.n_units),
        n_events=math.nan if events is None else float(events),
        se=se,
        se_null=se_null,
        difference=sign * float(comparison.difference[k, p]),
        method=_method_text(comparison, kind if null == "auto" else f"{kind}-alternative"),
        note=note,
    )


def _entries(
    comparison: ComparisonResult,
    metric: str | None,
    model_a: str | None,
    model_b: str | None,
    null: str,
) -> list[_Entry]:
    """The entries asked for: per measure, ``model_a`` (default the pick) against ``model_b``
    (default every other model)."""
    if len(comparison.models) < 2 or not comparison.pairs:
        raise ValueError("comparison: it holds fewer than two models, so no difference")
    if metric is not None and metric not in comparison.metrics:
        raise ValueError(f"metric {metric!r} is not in this comparison: {comparison.metrics}")
    ks = range(len(comparison.metrics)) if metric is None else [comparison.metrics.index(metric)]
    for name, model in (("model_a", model_a), ("model_b", model_b)):
        if model is not None and model not in comparison.models:
            raise ValueError(f"{name} {model!r} is not in this comparison: {comparison.models}")
    if model_a is not None and model_a == model_b:
        raise ValueError(f"model_a and model_b are the same model, {model_a!r}: no difference")
    out: list[_Entry] = []
    for k in ks:
        a = model_a if model_a is not None else _pick(comparison, k, exclude=model_b)
        others = [model_b] if model_b is not None else [m for m in comparison.models if m != a]
        out.extend(_entry(comparison, k, a, b, null) for b in others)
    if not any(math.isfinite(e.se) for e in out):
        raise ValueError(f"comparison: {out[0].note}")
    return out


# --------------------------------------------------------------------------------------------
# the two functions
# --------------------------------------------------------------------------------------------


def _check_null(null_variance: Any) -> str:
    if null_variance not in _NULL_VARIANCES:
        raise ValueError(f"null_variance must be one of {_NULL_VARIANCES}; got {null_variance!r}")
    return str(null_variance)


def _z_values(power: Any, alpha: Any, alternative: Any) -> tuple[float, float, float, float]:
    """``(power, alpha, z_a, z_b)`` checked."""
    power = check_probability(power, "power")
    alpha = check_probability(alpha, "alpha")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}; got {alternative!r}")
    size = alpha / 2.0 if alternative == "two-sided" else alpha
    if not power > size:
        raise ValueError(
            f"power must exceed the test's level in one tail ({size:g} for alpha={alpha:g}, "
            f"{alternative}); got {power!r}"
        )
    return power, alpha, float(ndtri(1.0 - size)), float(ndtri(power))


def _analysis(
    entries: list[_Entry],
    planned: list[float],
    at_n: list[float],
    power: float,
    alpha: float,
    alternative: str,
    z_a: float,
    z_b: float,
    null_variance: str,
) -> PowerAnalysisResult:
    """The result's arrays from the entries, the differences planned for and the n asked."""
    rows: dict[str, list[float]] = {
        k: [] for k in ("power_at_n", "detectable", "required_n", "required_events", "planned")
    }
    notes = []
    for e, delta, n_at in zip(entries, planned, at_n, strict=True):
        margin = z_a * e.se_null + z_b * e.se  # the detectable difference at n
        note = e.note
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (margin / delta) ** 2 if delta > 0 else math.inf
        if delta == 0 and not note:
            note = f"{_NO_ZERO} (the models' {e.metric} are equal)"
        rows["planned"].append(delta)
        rows["power_at_n"].append(
            float(ndtr((delta - z_a * e.se_null) / e.se)) if e.se > 0 else math.nan
        )
        rows["detectable"].append(margin * math.sqrt(e.n / n_at))
        rows["required_n"].append(e.n * ratio if math.isfinite(e.se) else math.nan)
        rows["required_events"].append(e.n_events * ratio if math.isfinite(e.se) else math.nan)
        notes.append(note)
    return PowerAnalysisResult(
        metrics=tuple(e.metric for e in entries),
        model_a=tuple(e.a for e in entries),
        model_b=tuple(e.b for e in entries),
        n=np.array([e.n for e in entries], dtype=np.int64),
        n_events=np.array([e.n_events for e in entries]),
        std_error=np.array([e.se for e in entries]),
        null_std_error=np.array([e.se_null for e in entries]),
        difference=np.array([e.difference for e in entries]),
        planned_difference=np.array(rows["planned"]),
        power_at_n=np.array(rows["power_at_n"]),
        at_n=np.array(at_n, dtype=np.float64),
        detectable_difference=np.array(rows["detectable"]),
        required_n=np.array(rows["required_n"]),
        required_events=np.array(rows["required_events"]),
        methods=tuple(e.method for e in entries),
        notes=tuple(notes),
        power=power,
        alpha=alpha,
        alternative=alternative,
        null_variance=null_variance,
    )


@shared_paragraphs
def required_sample_size(
    comparison: ComparisonResult,
    *,
    metric: str | None = None,
    model_a: str | None = None,
    model_b: str | None = None,
    difference: float | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    null_variance: str = "auto",
) -> PowerAnalysisResult:
    """The rows a comparison would need to detect a difference, from its standard errors.

    Parameters
    ----------
    comparison : ComparisonResult
        A result of :func:`ranklens.compare_models` with standard errors of the differences:
        the bootstrap's (``method="bootstrap"``), DeLong's (``"delong"``) or Diebold and
        Mariano's (``"diebold-mariano"``).
    metric : str, optional
        One measure of the comparison; default every one.
    model_a : str, optional
        The model compared; default, per measure, the pick (the best on it).
    model_b : str, optional
        The model it is compared with; default every other model.
    difference : float, optional
        The difference ``value(a) - value(b)`` to detect, in the measure's units (its sign
        does not matter); default the one observed. Needs ``metric`` when the comparison holds
        several measures.
    %(power_alpha)s
    alternative : {"two-sided", "one-sided"}, default "two-sided"
        The test planned for: two-sided, or one-sided in the direction of the difference.
    null_variance : {"auto", "alternative"}, default "auto"
        The variance of the difference under the null: ``"auto"``, pROC's ``2 Var(A) - 2
        Cov(A, B)`` for DeLong's AUCs (its ``power.roc.test``) and the difference's own
        elsewhere; ``"alternative"``, the difference's own everywhere, the variance DeLong's
        test estimates (see Notes).

    Returns
    -------
    PowerAnalysisResult
        Per measure and pair: ``required_n`` (and ``required_events`` for a binary
        response), the power the rows have now (``power_at_n``) and the smallest difference
        they detect (``detectable_difference``).

    Raises
    ------
    ValueError
        A permutation test's result or one made without ``n``, a comparison with no
        bootstrap replicates and no analytic variance, an unknown ``metric`` or model,
        ``power`` or ``alpha`` outside (0, 1) (or ``power`` not above the level), an unknown
        ``alternative`` or ``null_variance``, a ``difference`` that is 0 or not finite ("no
        finite n detects a zero difference"), or a ``difference`` without ``metric`` for several
        measures.
    TypeError
        If ``comparison`` is not a comparison result.

    Notes
    -----
    With ``z_a = z_{1 - alpha/2}`` (two-sided; ``z_{1 - alpha}`` one-sided), ``z_b =
    z_power``, the standard error ``SE_a`` of the difference at the ``n`` rows now and
    ``SE_0`` under the null,

    ``n' = n (z_a SE_0 + z_b SE_a)^2 / delta^2``,

    the normal approximation for a paired comparison whose variance falls as ``1/n`` with the
    data's mix kept (the share of events of a binary response stays, so ``required_events =
    n' n_events / n``). ``SE_0 = SE_a`` for the bootstrap and Diebold-Mariano comparisons:
    ``n' = n (z_a + z_b)^2 SE^2 / delta^2``. For DeLong's AUCs (``method="delong"``, or a
    measure the pipeline compared by DeLong's test) ``SE_0^2 = 2 Var(A) - 2 Cov(A, B)`` and
    ``SE_a^2 = Var(A) + Var(B) - 2 Cov(A, B)``, from each model's and the pair's DeLong
    variances: ``required_events`` is then pROC's ``power.roc.test(roc1, roc2, power =
    )$ncases`` and ``power_at_n`` its ``power.roc.test(roc1, roc2)$power`` (Robin et al. 2011;
    Obuchowski, Lieber & Wians 2004), ``roc1`` being ``model_a``. The power at ``n`` is
    ``Phi((|delta| - z_a SE_0) / SE_a)``, the far tail of a two-sided test neglected, as pROC.

    pROC's null variance is model A's variance taken for both models. DeLong's test, as
    :func:`ranklens.compare_models` runs it, divides the difference by its standard error
    estimated from the data, ``SE_a``: where model A is the more precise one (the pick, by
    default) ``SE_0 < SE_a`` and the ``n`` planned is optimistic for that test (in
    ``benchmarks/power_simulation.py``, 80 % asked, 64 % achieved); with model A the less
    precise one it is conservative. ``null_variance="alternative"`` plans for the test that is
    run (``SE_0 = SE_a``), and achieved 78 % there (Monte Carlo standard error 3 points).

    A zero observed difference gives ``required_n = inf`` with a note ("no finite n detects a
    zero difference"); asked for one pair of one measure, it is refused.

    References
    ----------
    %(obuchowski2004)s

    %(obuchowski1997)s

    %(robin2011)s

    Examples
    --------
    >>> import numpy as np
    >>> from ranklens import compare_models
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=400)
    >>> preds = {"a": y + rng.normal(0, 1.0, 400), "b": y + rng.normal(0, 1.2, 400)}
    >>> cmp = compare_models(
    ...     y, preds, metrics=["mean_absolute_error"], n_bootstrap=200, random_state=0
    ... )
    >>> plan = required_sample_size(cmp)
    >>> plan.model_a, plan.model_b, int(plan.n[0])
    (('a',), ('b',), 400)
    >>> round(float(plan.difference[0]), 4), round(float(plan.power_at_n[0]), 2)
    (-0.0702, 0.36)
    >>> int(np.ceil(plan.required_n[0]))
    1211
    """
    comparison = _check_comparison(comparison)
    power, alpha, z_a, z_b = _z_values(power, alpha, alternative)
    null = _check_null(null_variance)
    entries = _entries(comparison, metric, model_a, model_b, null)
    if difference is None:
        planned = [abs(e.difference) for e in entries]
        if len(entries) == 1 and planned[0] == 0.0:
            raise ValueError(
                f"difference: the observed difference of {entries[0].metric} between "
                f"{entries[0].a!r} and {entries[0].b!r} is 0 and {_NO_ZERO}; give the "
                "difference to plan for"
            )
    else:
        if len({e.metric for e in entries}) > 1:
            raise ValueError(
                "difference is in one measure's units: give metric= too (the comparison holds "
                f"{comparison.metrics})"
            )
        delta = check_finite_number(difference, "difference")
        if delta == 0.0:
            raise ValueError(f"difference: {_NO_ZERO}")
        planned = [abs(delta)] * len(entries)
    at = [float(e.n) for e in entries]
    return _analysis(entries, planned, at, power, alpha, alternative, z_a, z_b, null)


@shared_paragraphs
def detectable_difference(
    comparison: ComparisonResult,
    *,
    metric: str | None = None,
    model_a: str | None = None,
    model_b: str | None = None,
    n: float | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    null_variance: str = "auto",
) -> PowerAnalysisResult:
    """The smallest difference a comparison's data (or ``n`` rows) would detect.

    Parameters
    ----------
    comparison : ComparisonResult
        A result of :func:`ranklens.compare_models` with standard errors of the differences
        (see :func:`required_sample_size`).
    metric : str, optional
        One measure of the comparison; default every one.
    model_a : str, optional
        The model compared; default, per measure, the pick (the best on it).
    model_b : str, optional
        The model it is compared with; default every other model.
    n : float, optional
        The rows (with groups: the groups) at which to read it; default those of the
        comparison.
    %(power_alpha)s
    alternative : {"two-sided", "one-sided"}, default "two-sided"
        The test: two-sided, or one-sided in the direction of the difference.
    null_variance : {"auto", "alternative"}, default "auto"
        As :func:`required_sample_size`.

    Returns
    -------
    PowerAnalysisResult
        Per measure and pair: ``detectable_difference`` at ``at_n`` rows, in the measure's
        units, beside the observed difference, the power now (``power_at_n``) and the rows
        that the observed difference would need (``required_n``).

    Raises
    ------
    ValueError
        As :func:`required_sample_size`, and for an ``n`` that is not a positive number.
    TypeError
        If ``comparison`` is not a comparison result.

    Notes
    -----
    ``delta_min(n') = (z_a SE_0 + z_b SE_a) sqrt(n / n')`` with the quantities of
    :func:`required_sample_size` (at the rows now: ``(z_{1 - alpha/2} + z_power) SE`` where
    ``SE_0 = SE_a = SE``). A difference smaller than this is, at that many rows, more often
    missed than found (at ``power = 0.5``) or found with less than ``power``.

    References
    ----------
    %(obuchowski2004)s

    %(obuchowski1997)s

    %(robin2011)s

    Examples
    --------
    >>> import numpy as np
    >>> from ranklens import compare_models
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=400)
    >>> preds = {"a": y + rng.normal(0, 1.0, 400), "b": y + rng.normal(0, 1.2, 400)}
    >>> cmp = compare_models(
    ...     y, preds, metrics=["mean_absolute_error"], n_bootstrap=200, random_state=0
    ... )
    >>> now, four_times = detectable_difference(cmp), detectable_difference(cmp, n=1600)
    >>> round(float(now.detectable_difference[0] / four_times.detectable_difference[0]), 6)
    2.0
    """
    comparison = _check_comparison(comparison)
    power, alpha, z_a, z_b = _z_values(power, alpha, alternative)
    null = _check_null(null_variance)
    entries = _entries(comparison, metric, model_a, model_b, null)
    at = [float(e.n) for e in entries]
    if n is not None:
        value = check_finite_number(n, "n")
        if not value > 0:
            raise ValueError(f"n must be a positive number of rows; got {n!r}")
        at = [value] * len(entries)
    planned = [abs(e.difference) for e in entries]
    return _analysis(entries, planned, at, power, alpha, alternative, z_a, z_b, null)


# --------------------------------------------------------------------------------------------
# one AUC, before any data
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
@shared_paragraphs
class RocSampleSizeResult(Result):
    """The cases and controls one AUC needs to be told from 1/2 (:func:`roc_auc_sample_size`).

    Attributes
    ----------
    auc : float
        The AUC to detect.
    kappa : float
        Controls per case.
    n_cases, n_controls : float
        The events and non-events needed (real numbers: round them up), pROC's ``ncases`` and
        ``ncontrols``.
    n_total : float
        ``n_cases + n_controls``.
    null_variance, alternative_variance : float
        Obuchowski's variances per case, ``0.0792 (1 + 1/kappa)`` under the null and
        ``V(auc, kappa)`` under the alternative.
    power, alpha : float
    alternative : str
    method : str
        The method, in words.

    References
    ----------
    %(obuchowski2004)s

    %(obuchowski1997)s

    %(robin2011)s
    """

    auc: float
    kappa: float
    n_cases: float
    n_controls: float
    n_total: float
    null_variance: float
    alternative_variance: float
    power: float
    alpha: float
    alternative: str
    method: str


@shared_paragraphs
def roc_auc_sample_size(
    auc: float,
    *,
    kappa: float = 1.0,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> RocSampleSizeResult:
    """The cases (events) and controls a study needs to tell an AUC from 1/2.

    Before any data: Obuchowski's binormal approximation of the AUC's variance, as pROC's
    ``power.roc.test(auc = , kappa = , power = , sig.level = )`` (Robin et al. 2011).

    Parameters
    ----------
    auc : float
        The AUC expected, in (0, 1), not 1/2.
    kappa : float, default 1.0
        Controls (non-events) per case (event), positive.
    %(power_alpha)s
    alternative : {"two-sided", "one-sided"}, default "two-sided"

    Returns
    -------
    RocSampleSizeResult
        ``n_cases``, ``n_controls`` and ``n_total``.

    Raises
    ------
    ValueError
        An ``auc`` outside (0, 1) or equal to 1/2 ("no finite n detects a zero difference"),
        a ``kappa`` that is not positive, ``power`` or ``alpha`` outside (0, 1) or an unknown
        ``alternative``.

    Notes
    -----
    ``n_cases = (z_a sqrt(V_0) + z_b sqrt(V_a))^2 / (auc - 1/2)^2`` with ``V_0 = 0.0792 (1 +
    1/kappa)``, the variance per case of the AUC of a useless test (Obuchowski, Lieber & Wians
    2004), ``V_a = 0.0099 exp(-A^2/2) ((5 A^2 + 8) + (A^2 + 8) / kappa)`` with ``A = 1.414
    Phi^-1(auc)``, the binormal variance of the AUC with equal variances (Obuchowski & McClish
    1997), ``z_a = z_{1 - alpha/2}`` (two-sided) and ``z_b = z_power``; ``n_controls = kappa
    n_cases``. The constants are those of pROC's ``var.theta.obuchowski``.

    References
    ----------
    %(obuchowski2004)s

    %(obuchowski1997)s

    %(robin2011)s

    Examples
    --------
    >>> res = roc_auc_sample_size(0.8, kappa=2.0)
    >>> round(res.n_cases, 3), round(res.n_controls, 3)
    (9.755, 19.51)
    """
    value = check_finite_number(auc, "auc")
    if not 0.0 < value < 1.0:
        raise ValueError(f"auc must be in (0, 1); got {auc!r}")
    if value == 0.5:
        raise ValueError(f"auc: an AUC of 1/2 is no difference from chance and {_NO_ZERO}")
    ratio = check_finite_number(kappa, "kappa")
    if not ratio > 0:
        raise ValueError(f"kappa must be a positive number of controls per case; got {kappa!r}")
    power, alpha, z_a, z_b = _z_values(power, alpha, alternative)
    a = float(ndtri(value)) * 1.414
    v_null = _NULL_VARIANCE * (1.0 + 1.0 / ratio)
    v_alt = 0.0099 * math.exp(-a * a / 2.0) * ((5.0 * a * a + 8.0) + (a * a + 8.0) / ratio)
    cases = (z_a * math.sqrt(v_null) + z_b * math.sqrt(v_alt)) ** 2 / (value - 0.5) ** 2
    return RocSampleSizeResult(
        auc=value,
        kappa=ratio,
        n_cases=cases,
        n_controls=ratio * cases,
        n_total=cases * (1.0 + ratio),
        null_variance=v_null,
        alternative_variance=v_alt,
        power=power,
        alpha=alpha,
        alternative=alternative,
        method=(
            "Obuchowski's binormal variances of the AUC (null 0.0792 (1 + 1/kappa)); normal "
            "approximation, as pROC's power.roc.test(auc, kappa, power)"
        ),
    )
