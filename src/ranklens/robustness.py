"""Evaluation robustness: the most influential observation and breakdown under corruption.

Rosset, Perlich & Zadrozny (2005), Sect. 4 and 5.2 (journal version: Rosset, Perlich & Zadrozny
2007, Sect. 4 and 6.2). An evaluation measure is robust when corrupting a few test observations
cannot move it much:

* :func:`most_influential` finds, by exact search over every observation, the one whose removal
  changes a measure most (the "Excl. one" column of their Table 1).
* :func:`robustness_table` lays that out for several measures, as Table 1 does.
* :func:`breakdown_curve` corrupts k observations, adversarially and at random, and reports the
  value reached next to the bounds of Proposition 1 (additive losses break down at 1/n) and
  Proposition 2 (tau~ and rho~ move by O(k/n); one corrupted point moves T by at most n - 1
  and R by at most n(n - 1)/2, both tight).

Everything measure-specific comes from the measure's registration (its
:class:`~ranklens.metrics.MetricSpec` capabilities), never from its name: the exact leave-one-out
rule a measure declares (O(n) for means of per-observation losses, one sort for the median,
O(n log n) in total for the rank correlations) and the breakdown bound it declares. A measure
that declares no leave-one-out is recomputed n times; one that declares no bound reports
"none known".
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.format import percent_change
from ranklens._foundation.registry import BreakdownBound, MetricSpec
from ranklens._foundation.results import Result
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import FloatArray, check_pair, check_positive_int
from ranklens.exceptions import UndefinedMetricWarning, warn_undefined
from ranklens.metrics import available_metrics, get_metric

__all__ = [
    "BreakdownResult",
    "InfluenceResult",
    "RobustnessTableResult",
    "breakdown_curve",
    "most_influential",
    "proposition2_bound",
    "robustness_table",
]

IntArray = NDArray[np.int64]

TABLE1_METRICS: tuple[str, ...] = (
    "root_mean_squared_error",
    "mean_absolute_error",
    "kendall_tau",
    "spearman_rho",
)


# --------------------------------------------------------------------------------------------
# Resolving metrics
# --------------------------------------------------------------------------------------------


def _resolve(metric: str | MetricSpec) -> MetricSpec:
    if isinstance(metric, MetricSpec):
        spec = metric
    elif isinstance(metric, str):
        spec = get_metric(metric)
    else:
        raise ValueError(
            f"metric must be a registered metric name or a MetricSpec; got {type(metric).__name__}"
        )
    if spec.inputs != "point":
        raise ValueError(
            f"metric {spec.name!r} needs prediction intervals (inputs={spec.inputs!r}); "
            "robustness is defined here for point predictions"
        )
    return spec


def _scalar_params(metric_params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Extra keyword arguments for the measure; per-row arrays cannot follow a removed row."""
    params = dict(metric_params or {})
    for key, value in params.items():
        if key == "sample_weight" or np.ndim(value) > 0:
            raise ValueError(
                f"metric_params may hold scalar parameters only (e.g. epsilon); got {key!r} "
                "with one value per row, which the leave-one-out and corruption samples cannot "
                "carry (robustness is evaluated unweighted and without intervals)"
            )
    return params


def _leave_one_out_by_recomputation(
    func: Callable[..., float], y: FloatArray, p: FloatArray, params: Mapping[str, Any]
) -> FloatArray:
    """Recompute ``func`` on each of the n leave-one-out samples: exact, O(n * cost)."""
    n = y.shape[0]
    out = np.empty(n)
    keep = np.ones(n, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for i in range(n):
            keep[i] = False
            out[i] = func(y[keep], p[keep], **params)
            keep[i] = True
    return out


def _leave_one_out(
    spec: MetricSpec, y: FloatArray, p: FloatArray, params: Mapping[str, Any]
) -> tuple[FloatArray, str]:
    """The metric on every leave-one-out sample, and the name of the method used."""
    exact = spec.capabilities.leave_one_out
    if exact is not None:
        return exact(y, p, **params), "exact update"
    return _leave_one_out_by_recomputation(spec.func, y, p, params), "recomputation"


# --------------------------------------------------------------------------------------------
# most_influential
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class InfluenceResult(Result):
    """The observation whose removal changes a measure most.

    Attributes
    ----------
    metric : str
        Registry name of the measure.
    index : int or None
        Row (0-based, original order) of the most influential observation; None when no
        leave-one-out value is defined.
    value : float
        The measure on all n observations ("Entire set").
    value_without : float
        The measure without row ``index`` ("Excl. one").
    change : float
        ``value_without - value`` (signed).
    percent_change : float
        ``100 |change| / |value|`` (Rosset et al.'s "%Change"; ``inf`` when ``value`` is 0).
    leave_one_out : ndarray of shape (n,)
        The measure without row i, for every i (NaN where undefined).
    method : str
        ``"exact update"`` (closed-form leave-one-out), ``"recomputation"`` (n evaluations) or
        ``"not computed"`` (two rows: no leave-one-out sample has enough rows).
    """

    metric: str
    index: int | None
    value: float
    value_without: float
    change: float
    percent_change: float
    leave_one_out: FloatArray
    method: str


#: Rows needed for a leave-one-out sample on which a measure is defined (two rows at least).
_MIN_ROWS = 3


@raises_input_errors("y_true", "y_pred", weights=False)
@shared_paragraphs
def most_influential(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    metric: str | MetricSpec,
    *,
    metric_params: Mapping[str, Any] | None = None,
) -> InfluenceResult:
    """Exact search for the observation whose removal changes ``metric`` most (Rosset et al. 2005).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 2
        With two rows, removing one leaves a single row, on which no measure is defined: the
        result is then undefined (NaN, ``index`` None, with an ``UndefinedMetricWarning``).
    metric : str or MetricSpec
        A registered point measure (see :func:`ranklens.available_metrics`).
    metric_params : mapping, optional
        Extra keyword arguments for the measure (e.g. ``{"epsilon": 0.5}``).

    Returns
    -------
    InfluenceResult

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    For every row i the measure is evaluated on the other n - 1 rows; the row with the largest
    ``|value_without_i - value|`` is returned (the first such row on a tie; rows whose removal
    leaves the measure undefined, e.g. a constant ``y_true``, are skipped). Rosset et al. (2005)
    take "the company whose estimated wallet is the furthest from the actual wallet" for additive
    measures; the exact search agrees with that for means of a monotone loss and also covers RMSPE,
    the median and pmap, for which the largest residual is not necessarily the most influential.

    Cost (all exact): a measure that declares an exact leave-one-out rule when it registers
    (:attr:`~ranklens.metrics.MetricSpec.capabilities`) is searched with it (``method`` is
    ``"exact update"``); the registered ones are

    * means of per-observation losses (``mean_squared_error``, ``root_mean_squared_error``,
      ``mean_absolute_error``, ``epsilon_insensitive_loss``,
      ``linlin_loss``, ``log_rmse``) and ``rmspe``: O(n), from prefix and suffix sums (no
      subtraction, so no cancellation when one row carries almost all of the loss);
    * ``median_absolute_error``: one sort, then the median of the other n - 1 values in O(1) per
      row;
    * ``pmap``: O(n) (deleting row i joins rows i - 1 and i + 1 in the lag-1 scale);
    * ``kendall_tau`` (tau-b), ``tau_normalized`` (Harrell's C) and ``somers_d``: O(n log n) in
      total, from the per-observation concordant, discordant and tied counts of
      :func:`ranklens.ranking.per_observation_pair_counts` (removing row i changes T by exactly its
      discordant count);
    * ``spearman_rho`` and ``rho_normalized`` (midranks): O(n log n) in total by an exact update of
      the midrank sums derived in the docs (``docs/robustness.md``).

    Any other point measure (``method`` is ``"recomputation"``) is recomputed n times,
    O(n * cost): exact but meant for small n (a few thousand rows).

    References
    ----------
    %(rosset2005)s

    Examples
    --------
    >>> r = most_influential([1.0, 2.0, 3.0, 4.0], [1.1, 2.1, 2.9, 9.0], "root_mean_squared_error")
    >>> r.index, round(r.value, 4), round(r.value_without, 4), round(r.percent_change, 1)
    (3, 2.5015, 0.1, 96.0)
    """
    spec = _resolve(metric)
    params = _scalar_params(metric_params)
    y, p = check_pair(y_true, y_pred, min_n=2)
    value = float(spec.func(y, p, **params))
    if y.shape[0] < _MIN_ROWS:
        warn_undefined(
            f"most_influential is undefined for {spec.name!r} on {y.shape[0]} rows: removing "
            f"one leaves a single row, too few for the measure (at least {_MIN_ROWS} rows are "
            "needed); value_without, change and percent_change are NaN"
        )
        nan = float("nan")
        loo = np.full(y.shape[0], nan)
        return InfluenceResult(spec.name, None, value, nan, nan, nan, loo, "not computed")
    loo, method = _leave_one_out(spec, y, p, params)
    loo = np.asarray(loo, dtype=np.float64)
    distance = np.abs(loo - value)
    if math.isnan(value) or not np.isfinite(distance).any():
        warn_undefined(
            f"most_influential is undefined for {spec.name!r}: the measure is NaN on the full data "
            "or on every leave-one-out sample"
        )
        nan = float("nan")
        return InfluenceResult(spec.name, None, value, nan, nan, nan, loo, method)
    index = int(np.nanargmax(np.where(np.isfinite(distance), distance, -np.inf)))
    without = float(loo[index])
    change = without - value
    return InfluenceResult(
        metric=spec.name,
        index=index,
        value=value,
        value_without=without,
        change=change,
        percent_change=percent_change(change, value),
        leave_one_out=loo,
        method=method,
    )


# --------------------------------------------------------------------------------------------
# robustness_table (Rosset, Perlich & Zadrozny 2005, Table 1)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class RobustnessTableResult(Result):
    """Table 1 of Rosset et al. (2005): each measure, on all rows and without the most influential.

    Attributes
    ----------
    metrics : tuple of str
    entire_set : ndarray
        The measure on all rows.
    excluding_one : ndarray
        The measure without the most influential row (for that measure).
    percent_change : ndarray
        ``100 |excluding_one - entire_set| / |entire_set|``.
    index : ndarray of int
        The most influential row for each measure (-1 where undefined).
    higher_is_better : ndarray of bool
    """

    metrics: tuple[str, ...]
    entire_set: FloatArray
    excluding_one: FloatArray
    percent_change: FloatArray
    index: IntArray
    higher_is_better: NDArray[np.bool_]

    def to_frame(self) -> Any:
        """A pandas DataFrame in Table 1's layout: Measure, Entire set, Excl. one, % change, row."""
        import pandas as pd

        return pd.DataFrame(
            {
                "Entire set": self.entire_set,
                "Excl. one": self.excluding_one,
                "% change": self.percent_change,
                "row": self.index,
            },
            index=pd.Index(list(self.metrics), name="Measure"),
        )


@raises_input_errors("y_true", "y_pred", weights=False)
@shared_paragraphs
def robustness_table(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    metrics: Sequence[str | MetricSpec] = TABLE1_METRICS,
) -> RobustnessTableResult:
    """Table 1 of Rosset et al. (2005) for any measures: entire set, excluding one, % change.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Observed values.
    y_pred : array-like of shape (n,)
        Predictions of one model.
    metrics : sequence of str or MetricSpec, default Table 1's four
        Registered measures to tabulate.

    Returns
    -------
    RobustnessTableResult
        Per measure: the value on the entire set, without its most influential row, the % change
        and that row.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    For each measure :func:`most_influential` finds its own most influential row (Table 1 removes
    a possibly different company per measure) and the table reports the value with and without
    it. The default measures are Table 1's: RMSE, MAE, Kendall's tau and Spearman's rho.

    % change = 100 |excluding_one - entire_set| / |entire_set| (Rosset et al. 2005, Table 1).

    References
    ----------
    %(rosset2005)s

    Examples
    --------
    >>> t = robustness_table([1.0, 2.0, 3.0, 4.0, 5.0], [1.2, 1.9, 3.3, 3.8, 12.0])
    >>> t.to_frame().round(3)  # doctest: +NORMALIZE_WHITESPACE
                             Entire set  Excl. one  % change  row
    Measure
    root_mean_squared_error       3.136      0.212    93.236    4
    mean_absolute_error           1.560      0.200    87.179    4
    kendall_tau                   1.000      1.000     0.000    0
    spearman_rho                  1.000      1.000     0.000    0
    """
    if isinstance(metrics, str | MetricSpec):
        metrics = (metrics,)
    if len(metrics) == 0:
        raise ValueError("metrics must name at least one registered measure; got none")
    rows = [most_influential(y_true, y_pred, m) for m in metrics]
    specs = [_resolve(m) for m in metrics]
    return RobustnessTableResult(
        metrics=tuple(r.metric for r in rows),
        entire_set=np.array([r.value for r in rows]),
        excluding_one=np.array([r.value_without for r in rows]),
        percent_change=np.array([r.percent_change for r in rows]),
        index=np.array([-1 if r.index is None else r.index for r in rows], dtype=np.int64),
        higher_is_better=np.array([s.higher_is_better for s in specs], dtype=bool),
    )


# --------------------------------------------------------------------------------------------
# breakdown_curve (Propositions 1 and 2)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class BreakdownResult(Result):
    """A measure under corruption of k observations' ``y_true``.

    Attributes
    ----------
    metric : str
    n_corrupted : ndarray of int
        k, the number of corrupted observations.
    fractions : ndarray
        ``k / n``.
    clean : float
        The measure on the uncorrupted data.
    adversarial : ndarray
        The measure after the adversarial corruption of k observations.
    random : ndarray
        Mean of the measure over ``n_random`` random corruptions of k observations.
    max_change : ndarray
        The largest ``|value - clean|`` any corruption of k observations can cause: Proposition 2's
        tight bound for Kendall's tau, Spearman's rho and their [0, 1] forms (data without ties),
        ``inf`` for means of unbounded losses (Proposition 1), NaN where no bound is known.
    bound : str
        ``"proposition 2"``, ``"proposition 1 (unbounded)"`` or ``"none known"``.
    corruption : str
        ``"additive"`` (gross errors beyond the range of y) or ``"multiplicative"`` (used when the
        measure needs a positive response).
    higher_is_better : bool or None
        None for a measure that is best at a target value.
    """

    metric: str
    n_corrupted: IntArray
    fractions: FloatArray
    clean: float
    adversarial: FloatArray
    random: FloatArray
    max_change: FloatArray
    bound: str
    corruption: str
    higher_is_better: bool | None


@shared_paragraphs
def proposition2_bound(metric: str | MetricSpec, n: int, k: IntArray | int) -> FloatArray:
    """Largest change of a rank measure when k of n observations are corrupted (no ties).

    Parameters
    ----------
    metric : str or MetricSpec
        A registered rank measure (e.g. ``"kendall_tau"``, ``"spearman_rho"``).
    n : int
        Number of observations.
    k : int or array-like of int
        Number of corrupted observations (0 <= k <= n).

    Returns
    -------
    ndarray of float
        The largest possible change of the measure for each k (no ties).

    Raises
    ------
    ValueError
        If an argument is outside its documented range. The message names the argument.

    Notes
    -----
    The bound the measure declares when it registers (its
    :attr:`~ranklens.metrics.MetricSpec.capabilities` ``breakdown``). For the registered rank
    measures, Rosset, Perlich & Zadrozny's Proposition 2 in its tight form:

    Kendall: only the ``k(n-1) - k(k-1)/2`` pairs that involve a corrupted observation can change,
    so ``|dT| <= k(n-1) - k(k-1)/2`` and ``|d tau~| <= 2 |dT| / (n(n-1))`` (``2/n`` for k = 1).
    Spearman: one corrupted observation changes R by at most ``n(n-1)/2`` (tight), so
    ``|dR| <= k n(n-1)/2`` and ``|d rho~| <= 6 |dR| / (n(n^2-1)) = 3k/(n+1)``. tau, rho and
    Somers' D move twice as much as tau~ (Harrell's C) and rho~. Capped at the measure's range.
    The paper states the looser ``2k/(n-1)`` and ``(6k/(n-1))(1/(n+1) + 1/2)``.

    Raises ``ValueError`` for a measure that declares no finite bound.

    References
    ----------
    %(rosset2005)s
    """
    spec = _resolve(metric)
    bound = _finite_bound(spec)
    if bound is None:
        covered = sorted(
            name for name in _registered_names() if _finite_bound(_resolve(name)) is not None
        )
        raise ValueError(f"Proposition 2 covers {covered}; got {spec.name!r}")
    return np.asarray(bound.max_change(n, np.asarray(k)), dtype=np.float64)


def _finite_bound(spec: MetricSpec) -> BreakdownBound | None:
    """The declared bound when it is finite (a mean of an unbounded loss has none to state)."""
    bound = spec.capabilities.breakdown
    if bound is None or not np.all(np.isfinite(bound.max_change(3, np.ones(1)))):
        return None
    return bound


def _registered_names() -> tuple[str, ...]:
    return available_metrics(inputs="point")


def _corrupt_values(
    y: FloatArray, count: int, magnitude: float, *, low: bool, multiplicative: bool
) -> FloatArray:
    """``count`` distinct values beyond the range of y: ``low`` below the minimum, else above.

    The first value is the most extreme. Additive: ``magnitude`` times the range of y (1 to 2
    times) beyond it. Multiplicative (for positive responses whose measure needs them positive,
    e.g. ``log_rmse``): divided or multiplied by ``magnitude`` (to the power 1 to 2).
    """
    steps = 2.0 - np.arange(count) / max(count, 1)  # 2 down to just above 1
    if multiplicative:
        return y.min() / magnitude**steps if low else y.max() * magnitude**steps
    spread = float(y.max() - y.min()) or max(float(np.abs(y).max()), 1.0)
    return y.min() - magnitude * spread * steps if low else y.max() + magnitude * spread * steps


def _adversarial_corruption(
    y: FloatArray, p: FloatArray, k: int, magnitude: float, multiplicative: bool
) -> FloatArray:
    """Move the k most extreme predictions' responses beyond the opposite end of y.

    Rows are taken alternately from the top and the bottom of the prediction order. Top-predicted
    rows get values below min(y) (the highest prediction the lowest value), bottom-predicted rows
    values above max(y): every pair involving a corrupted row becomes discordant, which attains the
    Kendall bound from a perfect ranking, and each residual becomes huge (Proposition 1).
    """
    order = np.argsort(-p, kind="stable")
    n_top = (k + 1) // 2
    top, bottom = order[:n_top], order[::-1][: k - n_top]
    out = y.copy()
    out[top] = _corrupt_values(y, n_top, magnitude, low=True, multiplicative=multiplicative)
    out[bottom] = _corrupt_values(y, k - n_top, magnitude, low=False, multiplicative=multiplicative)
    return out


def _random_corruption(
    y: FloatArray, k: int, magnitude: float, multiplicative: bool, rng: np.random.Generator
) -> FloatArray:
    """Gross errors of random direction in the responses of k rows drawn at random."""
    rows = rng.choice(y.shape[0], size=k, replace=False)
    low = rng.random(k) < 0.5
    out = y.copy()
    for side in (True, False):
        chosen = rows[low == side]
        values = _corrupt_values(
            y, chosen.shape[0], magnitude, low=side, multiplicative=multiplicative
        )
        out[chosen] = rng.permutation(values)
    return out


def _has_ties(x: FloatArray) -> bool:
    return bool(np.unique(x).shape[0] < x.shape[0])


@raises_input_errors("y_true", "y_pred", weights=False, counts=("n_random",))
@shared_paragraphs
def breakdown_curve(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    metric: str | MetricSpec,
    *,
    fractions: Sequence[float] | None = None,
    n_random: int = 20,
    magnitude: float = 1e3,
    random_state: int | np.random.Generator | None = None,
    metric_params: Mapping[str, Any] | None = None,
) -> BreakdownResult:
    """Evaluation breakdown (Rosset et al. 2005, Sect. 4): a measure after corrupting k rows.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 3
    metric : str or MetricSpec
        A registered point measure.
    fractions : sequence of float in (0, 1], optional
        Fractions of rows to corrupt; ``k = max(1, round(f n))``, duplicates dropped. Default
        ``(1/n, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)``.
    n_random : int, default 20
        Random corruptions per k.
    magnitude : float > 1, default 1e3
        Size of the gross errors (see above).
    random_state : int or Generator, optional
    metric_params : mapping, optional
        Extra keyword arguments for the measure.

    Returns
    -------
    BreakdownResult

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    For each k the responses ``y_true`` of k rows are replaced by gross errors and the measure is
    recomputed:

    * **adversarial**: the k rows with the most extreme predictions (alternately top and bottom)
      get values far beyond the opposite end of ``y_true`` (1 to 2 times ``magnitude`` times its
      range beyond it; when the measure rejects such values, as ``log_rmse`` rejects values
      <= 0, and ``y_true`` is positive, ``min(y) / magnitude^(1..2)`` and
      ``max(y) * magnitude^(1..2)`` instead). Every pair involving a corrupted row becomes
      discordant: for a perfect ranking and k = 1 this attains the tight one-point bound.
    * **random**: k rows drawn at random get gross errors of random direction; the mean over
      ``n_random`` draws is reported.

    The result shows Proposition 1 (a mean of an unbounded loss is driven arbitrarily far by a
    single row: at k = 1 it already grows with ``magnitude``; ``max_change`` is ``inf``) and
    Proposition 2 (tau~ and rho~ cannot move by more than ``max_change`` = O(k/n), see
    :func:`proposition2_bound`; the bound is proven for data without ties and is NaN when
    ``y_true`` or ``y_pred`` has ties).

    References
    ----------
    %(rosset2005)s

    %(rosset2007)s

    Examples
    --------
    From a perfect ranking of 20 rows, one corrupted row costs tau~ exactly the bound 2/n:

    >>> import numpy as np
    >>> y = np.arange(20.0)
    >>> b = breakdown_curve(y, y, "tau_normalized", fractions=[0.05], random_state=0)
    >>> change = b.clean - float(b.adversarial[0])
    >>> b.n_corrupted.tolist(), round(change, 4), round(float(b.max_change[0]), 4)
    ([1], 0.1, 0.1)
    """
    spec = _resolve(metric)
    params = _scalar_params(metric_params)
    y, p = check_pair(y_true, y_pred, min_n=3)
    n = y.shape[0]
    n_random = check_positive_int(n_random, "n_random")
    if not (isinstance(magnitude, int | float) and math.isfinite(magnitude) and magnitude > 1):
        raise ValueError(f"magnitude must be a finite number > 1; got {magnitude!r}")
    if fractions is None:
        fractions = (1.0 / n, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
    f = np.asarray(fractions, dtype=np.float64).reshape(-1)
    if f.size == 0 or not np.all((f > 0) & (f <= 1)):
        raise ValueError(f"fractions must be numbers in (0, 1]; got {list(fractions)!r}")
    ks = np.unique(np.clip(np.round(f * n).astype(np.int64), 1, n))
    rng = np.random.default_rng(random_state)

    def evaluate(y_corrupt: FloatArray) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            return float(spec.func(y_corrupt, p, **params))

    clean = float(spec.func(y, p, **params))
    # Additive gross errors, unless the measure rejects them (a positive-scale measure such as
    # log_rmse): then multiplicative ones that keep a positive response positive.
    multiplicative = False
    try:
        evaluate(_adversarial_corruption(y, p, int(ks[-1]), magnitude, False))
    except ValueError:
        if not (y > 0).all():
            raise
        multiplicative = True
    adversarial = np.array(
        [evaluate(_adversarial_corruption(y, p, int(k), magnitude, multiplicative)) for k in ks]
    )
    random = np.array(
        [
            np.mean(
                [
                    evaluate(_random_corruption(y, int(k), magnitude, multiplicative, rng))
                    for _ in range(n_random)
                ]
            )
            for k in ks
        ]
    )
    declared = spec.capabilities.breakdown
    if declared is None:
        bound, max_change = "none known", np.full(ks.shape[0], np.nan)
    elif declared.requires_distinct and (_has_ties(y) or _has_ties(p)):
        bound, max_change = declared.reference, np.full(ks.shape[0], np.nan)
    else:
        bound, max_change = declared.reference, declared.max_change(n, ks)
    return BreakdownResult(
        metric=spec.name,
        n_corrupted=ks,
        fractions=ks / n,
        clean=clean,
        adversarial=adversarial,
        random=random,
        max_change=np.asarray(max_change, dtype=np.float64),
        bound=bound,
        corruption="multiplicative" if multiplicative else "additive",
        higher_is_better=spec.higher_is_better,
    )
