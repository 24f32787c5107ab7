"""Comparing models with statistics: the paired bootstrap and the paired permutation test.

A difference between two models means little without its uncertainty. Rosset, Perlich & Zadrozny
(2005, Sect. 5.3 and Table 2; 2007, Sect. 6.3) resample the test set, estimate the standard
deviation of the difference between two models for each measure, and turn difference / SD into a
Gaussian p-value; their Figure 5 (2005, Sect. 5.4; 2007, Sect. 6.4) repeats this along the cutoff
AUC curve (:func:`ranklens.curve_bands`). This module does the first for any registered metric
and any number of models, with :func:`compare_models`:

* ``method="bootstrap"`` gives a :class:`ComparisonResult`: every model's value and confidence
  interval per metric, and per pair of models the difference, its bootstrap standard deviation,
  the Gaussian p-value (Table 2's layout) and a percentile or BCa interval;
* ``method="permutation"`` gives a :class:`PermutationTestResult`: per pair the difference, its
  permutation null distribution and the permutation p-values (no intervals).

Each method has its own result type, so no field changes meaning with the method.

How the resampling works
------------------------
A bootstrap replicate draws ``n`` rows with replacement. Instead of materialising the resampled
arrays, each replicate is a vector of *multiplicities* ``c_i`` (how often row ``i`` was drawn) and
every measure is evaluated with case weights ``c_i * sample_weight_i``; for every registered
weighted measure this equals the measure on the materialised resample (integer weights are repeated
rows). One multiplicity matrix serves every metric and every model, so the comparison is *paired*:
the difference of two models is computed on the same resample. Replicate ``b`` draws its row
indices with ``numpy.random.Generator.integers`` from a child of ``random_state``, one call per
replicate in replicate order, so the numbers depend only on ``random_state`` - neither on the
number of threads nor on how the replicates are grouped into blocks - and the first ``B``
replicates of a longer run are the same ``B`` replicates.

Fast paths come from what each measure declares when it registers (its
:class:`~ranklens.metrics.MetricSpec` ``capabilities.batched``); this module never names a measure.
A :class:`~ranklens._foundation.forms.RatioForm` ``finalize(sum w num / sum w den)`` (the mean
losses of :mod:`ranklens.residual`) is a product ``W @ L`` of the multiplicity matrix with per-row
values; a :class:`~ranklens._foundation.forms.RankSweepForm` (the rank correlations, Harrell's C,
Somers' D) is one output of the shared rank sweep: each model is sorted once with
:mod:`ranklens._compute.kernels.ranking`'s stage 1, then one lean O(n log n) weighted sweep per
replicate and model (:mod:`ranklens._compute.kernels.compare`) serves every such measure. Both loop
over the replicates of a block in numba (``prange`` when the block is large enough); a small first
bootstrap whose kernels are not compiled yet runs the same sums on NumPy instead (the same
multiplicities; exact pair sums from :mod:`ranklens._compute.xp.rank`;
:func:`ranklens._inference.resampling.prefer_numpy_twins`), so that it compiles nothing. Every other
metric is evaluated by calling its function with ``sample_weight`` once per replicate. A fast path
is used for a metric only after it reproduces the registered function on the full sample.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM)*, 370-377.

Rosset, S., Perlich, C. and Zadrozny, B. (2007). Ranking-based evaluation of regression models.
*Knowledge and Information Systems*, 12(3), 331-353.

Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American Statistical
Association*, 82(397), 171-185.

Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero: calculating exact
p-values when permutations are randomly drawn. *Statistical Applications in Genetics and
Molecular Biology*, 9(1), Article 39.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import numpy as np

from ranklens._compute.xp import host_product
from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.forms import RankSweepForm, RatioForm
from ranklens._foundation.interval_formulas import (
    MIN_CLASS_ROWS,
    RatioStudentizer,
    class_rows,
    mean_loss_flags,
    skewed_target_note,
    studentized_p_value,
    symmetric_p_value,
    symmetric_t_interval,
)
from ranklens._foundation.normal import ndtr_array
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.results import Result
from ranklens._foundation.shared import shared_results
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    check_positive_int,
    check_probability,
    check_random_state,
    check_sample_weight,
)
from ranklens._inference.device_engine import DeviceEngine, resolve_device
from ranklens._inference.evaluators import (
    Evaluator,
    block_group_counts,
    build_evaluators,
    compact_blocks,
    evaluate_all,
    memory_plan,
    point_value,
    studentizer,
)
from ranklens._inference.resampling import (
    BLOCK_SCHEMES,
    BootstrapMemoryError,
    Progress,
    Resampler,
    check_predictions,
    interval_from_replicates,
    jackknife_blocks,
    jackknife_rows,
    memory_budget,
    numpy_twins,
    prefer_numpy_twins,
    quiet,
    regression_influence,
    replicate_sd,
    resolve_block_length,
    run_rows,
    swap_blocks,
)
from ranklens.exceptions import FewEventsWarning, RanklensWarning, warn_undefined
from ranklens.metrics import get_metric

if TYPE_CHECKING:  # pandas is imported by the methods that build a DataFrame
    import pandas as pd

__all__ = [
    "DEFAULT_COMPARISON_METRICS",
    "ComparisonResult",
    "DeLongComparisonResult",
    "DieboldMarianoComparisonResult",
    "PermutationTestResult",
    "compare_models",
]

#: The measures of Table 2 of Rosset, Perlich & Zadrozny (2005), in its order.
DEFAULT_COMPARISON_METRICS: tuple[str, ...] = (
    "root_mean_squared_error",
    "mean_absolute_error",
    "kendall_tau",
    "spearman_rho",
)

_METHODS = ("bootstrap", "permutation", "delong", "diebold-mariano")
_INTERVALS = ("auto", "bca", "percentile", "studentized")


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class _PairwiseResult(Result):
    """What both comparison results share: lookups and the tidy per-pair frame.

    Holds no fields of its own (each result declares its fields, in its own order, so that its
    repr and ``to_dict()`` read in a sensible order); the names below are what the methods use.
    """

    if TYPE_CHECKING:
        # Read-only properties rather than annotations, so that the dataclass machinery of the
        # type checker does not take them for fields of this class (at run time there are none,
        # and each subclass declares its own, in its own order).
        @property
        def models(self) -> tuple[str, ...]: ...
        @property
        def metrics(self) -> tuple[str, ...]: ...
        @property
        def higher_is_better(self) -> tuple[bool | None, ...]: ...
        @property
        def values(self) -> np.ndarray: ...
        @property
        def pairs(self) -> tuple[tuple[str, str], ...]: ...
        @property
        def difference(self) -> np.ndarray: ...
        @property
        def targets(self) -> tuple[float | None, ...]: ...

    def value(self, metric: str, model: str) -> float:
        """The value of ``metric`` for ``model`` on the full sample."""
        return float(self.values[self._metric_index(metric), self._model_index(model)])

    def _pair_frame(self, columns: dict[str, np.ndarray]) -> pd.DataFrame:
        """One row per metric and pair: the models and values, ``columns[name][metric, pair]``
        in the order given, then ``better`` and ``higher_is_better``."""
        import pandas as pd

        rows = []
        for k, metric in enumerate(self.metrics):
            for p, (a, b) in enumerate(self.pairs):
                va = self.values[k, self._model_index(a)]
                vb = self.values[k, self._model_index(b)]
                row: dict[str, Any] = {
                    "metric": metric,
                    "model_a": a,
                    "model_b": b,
                    "value_a": va,
                    "value_b": vb,
                }
                row.update({name: array[k, p] for name, array in columns.items()})
                target = self.targets[k] if k < len(self.targets) else None
                row["better"] = _better(a, b, va, vb, self.higher_is_better[k], target)
                row["higher_is_better"] = self.higher_is_better[k]
                rows.append(row)
        order = ["metric", "model_a", "model_b", "value_a", "value_b", *columns]
        return pd.DataFrame(rows, columns=[*order, "better", "higher_is_better"])

    def _value_rows(self) -> list[dict[str, Any]]:
        """One dict per metric and model: ``metric, model, value``."""
        return [
            {"metric": metric, "model": model, "value": self.values[k, m]}
            for k, metric in enumerate(self.metrics)
            for m, model in enumerate(self.models)
        ]

    def _metric_index(self, metric: str) -> int:
        """The row of ``metric``, by its name in this comparison."""
        try:
            return self.metrics.index(metric)
        except ValueError:
            raise ValueError(
                f"metric {metric!r} is not in this comparison: {self.metrics}"
            ) from None

    def _model_index(self, model: str) -> int:
        try:
            return self.models.index(model)
        except ValueError:
            raise ValueError(f"model {model!r} is not in this comparison: {self.models}") from None


@dataclasses.dataclass(frozen=True, repr=False)
@shared_paragraphs
class ComparisonResult(_PairwiseResult):
    """The paired bootstrap: each model's value and interval, each pair's difference and test.

    What :func:`compare_models` returns with ``method="bootstrap"`` (the default). Arrays are
    indexed ``[metric, model]`` (in the order of :attr:`metrics` and :attr:`models`) or
    ``[metric, pair]`` (in the order of :attr:`pairs`). The paired permutation test has its own
    result, :class:`PermutationTestResult`.

    Attributes
    ----------
    models, metrics : tuple of str
        Model names (keys of ``predictions``) and registry names of the metrics.
    higher_is_better : tuple of bool or None
        Direction of each metric, from the registry (None for a measure best closest to a
        target, see ``targets``, or not ranked).
    values : ndarray, shape (n_metrics, n_models)
        The metric on the full sample (the registered function, with ``sample_weight``).
    std_error : ndarray, shape (n_metrics, n_models)
        Bootstrap standard deviation of each value.
    ci_lower, ci_upper : ndarray, shape (n_metrics, n_models)
        Percentile or BCa confidence interval of each value.
    pairs : tuple of (str, str)
        Every pair ``(a, b)`` of models, ``a`` before ``b`` in the order given.
    difference : ndarray, shape (n_metrics, n_pairs)
        ``value[a] - value[b]`` in the metric's units (Table 2's "Absolute Difference" is its
        absolute value).
    difference_sd : ndarray, shape (n_metrics, n_pairs)
        Bootstrap standard deviation of the paired difference (Table 2's "Std. Dev.").
    z : ndarray, shape (n_metrics, n_pairs)
        ``difference / difference_sd`` (0 for identical models: no difference, no variability).
    p_value : ndarray, shape (n_metrics, n_pairs)
        Two-sided bootstrap p-value for "no difference", by the test dual to the pair's
        interval method: where the difference's interval is studentized (``"bootstrap-
        studentized"``), the symmetric bootstrap-t test, ``(1 + #{|t*| >= |d| / se}) / (R +
        1)`` (:func:`ranklens._foundation.interval_formulas.studentized_p_value`); elsewhere the
        symmetric test of the centred replicates, ``(1 + #{|d* - d| >= |d|}) / (R + 1)`` (Hall &
        Wilson 1991; :func:`ranklens._foundation.interval_formulas.symmetric_p_value`). The Gaussian
        ``2 Phi(-|z|)`` of Rosset, Perlich & Zadrozny (2005, Sect. 5.3) rejected a true null in 8-9
        % of data sets at n = 30 (``docs/coverage.md``); it is ``2 * p_value_one_sided``.
    p_value_one_sided : ndarray, shape (n_metrics, n_pairs)
        ``Phi(-|z|)``, one-sided in the direction of the observed difference: the Gaussian
        convention of Table 2 of Rosset, Perlich & Zadrozny (2005), whose 0.14778 for RMSE is
        ``Phi(-96890 / 92649)``; chosen after seeing the data, so prefer ``p_value``.
    difference_ci_lower, difference_ci_upper : ndarray, shape (n_metrics, n_pairs)
        Percentile or BCa interval of the difference.
    variance_plug_in, variance_unbiased : ndarray, shape (n_metrics, n_models)
        Analytical variances of each value, for the metrics that declare them (Kendall's tau:
        Noether's plug-in variance and its unbiased U-statistic version), to set beside the
        bootstrap variance ``std_error ** 2``; Rosset, Perlich & Zadrozny (2005, Sect. 5.3)
        report 0.00103 (bootstrap) against 0.00097 (Noether) for a model at n = 500. NaN for the
        other metrics and with ``sample_weight``: they need a number of observations, which case
        weights do not define (:func:`ranklens.ranking.ranking_summary`).
    n_undefined : ndarray, shape (n_metrics, n_models)
        Bootstrap replicates in which the metric was undefined (e.g. a constant resample); they are
        left out of the standard errors and intervals (a warning says so).
    evaluation : tuple of str
        Per metric, ``"kernel"`` (a vectorised fast path) or ``"generic"`` (the registered
        function called once per replicate).
    method : str
        Always ``"bootstrap"``: names the test in ``to_dict()`` (and so in the report's
        ``results.json``) beside :class:`PermutationTestResult`'s ``"permutation"``.
    interval : str
        The ``interval`` asked for: ``"auto"``, ``"bca"``, ``"percentile"`` or
        ``"studentized"`` (``"percentile"`` where BCa fell back to it); each measure's own
        method is in ``interval_methods``.
    n_bootstrap : int
        Bootstrap replicates.
    confidence_level : float
    replicates : ndarray, shape (n_bootstrap, n_metrics, n_models)
        The bootstrap replicates of every value.
    targets : tuple of float or None
        Per metric, the value a ``direction="target"`` measure is best at (None otherwise);
        ``better`` then names the model closer to it.
    interval_methods, difference_interval_methods : tuple of str
        Per metric, how each model's interval and each pair's interval were made:
        ``"bootstrap-studentized"`` (Hall's symmetric bootstrap-t), ``"bootstrap-bca"``,
        ``"bootstrap-percentile"`` (and ``"delong-logit"``, ``"delong"`` for
        :class:`DeLongComparisonResult`).
    scheme : str
        How the replicates were drawn (the ``scheme`` asked for, ``"auto"`` resolved).
    block_length : float or None
        The block length of a block scheme (``"stationary"``: the mean; ``"circular"``: the
        length), chosen or given; None for the other schemes.
    n_units : int
        The independent units the standard errors rest on: the rows of positive weight, or with
        ``groups`` the groups that hold them; 0 where unknown (a result built by hand).
        :func:`ranklens.required_sample_size` scales the variances by it.
    n_events, n_non_events : tuple of int or None
        Per metric, the rows of positive weight in the larger and in the smaller class of the
        measure's binary response (``y_true`` when it has two values, else the events of a
        measure that declares a concordance form, the AUC's true top 10 %); None where the
        response is not binary.
    approximate : ndarray of bool, shape (n_metrics, n_models)
        The interval is given but does not hold its level reliably (``interval_notes`` says
        why): a mean loss whose per-row contributions are long-tailed (tail weight above
        :data:`ranklens._foundation.interval_formulas.TAIL_WEIGHT_LIMIT`) or whose target is too
        skewed for the sample's size (fewer rows than Cochran's ``28 + 25 g^2``, as refined by
        Sugden, Smith & Jones 2000, ``g`` the target's skewness:
        :func:`ranklens._foundation.interval_formulas.skewed_target_note`).
    difference_approximate : ndarray of bool, shape (n_metrics, n_pairs)
        The same for each pair's interval and test.
    interval_notes : tuple of str
        Per metric, why its intervals are approximate or not given (empty when neither): a
        binary response with fewer than
        :data:`ranklens._foundation.interval_formulas.MIN_CLASS_ROWS` rows in a class leaves the
        intervals, z and p-values NaN (a :class:`~ranklens.exceptions. FewEventsWarning` says so).
    difference_se : ndarray, shape (n_metrics, n_pairs)
        Where a pair's interval is studentized, the sandwich standard error of the difference
        on every case (the ``se`` of ``p_value``); NaN elsewhere.
    studentized_replicates : ndarray, shape (n_bootstrap, n_metrics, n_pairs)
        Where a pair's interval is studentized, its replicates ``t* = (d* - d) / se*``, from
        which the report makes the bootstrap-t interval at any level
        (:func:`ranklens._foundation.interval_formulas.studentized_interval_at`); NaN elsewhere.

    References
    ----------
    %(rosset2005)s

    Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
    *Biometrics* 47(2), 757-762.

    %(efron1987)s
    """

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    higher_is_better: tuple[bool, ...]
    values: np.ndarray
    std_error: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    difference: np.ndarray
    difference_sd: np.ndarray
    z: np.ndarray
    p_value: np.ndarray
    p_value_one_sided: np.ndarray
    difference_ci_lower: np.ndarray
    difference_ci_upper: np.ndarray
    variance_plug_in: np.ndarray
    variance_unbiased: np.ndarray
    n_undefined: np.ndarray
    evaluation: tuple[str, ...]
    # A constant, not an argument: the type already says which test ran.
    method: str = dataclasses.field(default="bootstrap", init=False)
    interval: str
    n_bootstrap: int
    confidence_level: float
    replicates: np.ndarray = dataclasses.field(repr=False)
    targets: tuple[float | None, ...] = dataclasses.field(default=(), repr=False)
    interval_methods: tuple[str, ...] = ()
    difference_interval_methods: tuple[str, ...] = ()
    approximate: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0), dtype=bool), repr=False
    )
    difference_approximate: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0), dtype=bool), repr=False
    )
    interval_notes: tuple[str, ...] = ()
    difference_se: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0)), repr=False
    )
    studentized_replicates: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0, 0)), repr=False
    )
    scheme: str = "multinomial"
    block_length: float | None = None
    n_units: int = 0
    n_events: tuple[int | None, ...] = ()
    n_non_events: tuple[int | None, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """Table 2 of Rosset, Perlich & Zadrozny (2005), tidy: one row per metric and pair.

        Columns: ``metric, model_a, model_b, value_a, value_b, difference, difference_sd, z,
        p_value, p_value_one_sided, difference_ci_lower, difference_ci_upper, approximate,
        interval_note, better, higher_is_better`` (``better`` names the model with the better
        value, or is empty when the values are equal; ``approximate`` and ``interval_note`` as
        :attr:`difference_approximate` and :attr:`interval_notes`).
        """
        return self._pair_frame(
            {
                "difference": self.difference,
                "difference_sd": self.difference_sd,
                "z": self.z,
                "p_value": self.p_value,
                "p_value_one_sided": self.p_value_one_sided,
                "difference_ci_lower": self.difference_ci_lower,
                "difference_ci_upper": self.difference_ci_upper,
                "approximate": _flags(self.difference_approximate, self.difference.shape),
                "interval_note": self._notes(self.difference.shape),
            }
        )

    def _notes(self, shape: tuple[int, ...]) -> np.ndarray:
        """:attr:`interval_notes` repeated along each metric's row (empty where none)."""
        notes = np.full(shape, "", dtype=object)
        for k, note in enumerate(self.interval_notes[: shape[0]]):
            notes[k] = note
        return notes

    def values_frame(self) -> pd.DataFrame:
        """One row per metric and model: ``metric, model, value, std_error, ci_lower, ci_upper,
        interval_method, approximate, n_undefined, higher_is_better``."""
        import pandas as pd

        rows = self._value_rows()
        approximate = _flags(self.approximate, self.values.shape)
        for row in rows:
            k, m = self._metric_index(row["metric"]), self._model_index(row["model"])
            row["std_error"] = self.std_error[k, m]
            row["ci_lower"] = self.ci_lower[k, m]
            row["ci_upper"] = self.ci_upper[k, m]
            methods = self.interval_methods
            own = methods[k] if k < len(methods) else ""
            row["interval_method"] = own or f"bootstrap-{self.interval}"
            row["approximate"] = bool(approximate[k, m])
            row["n_undefined"] = int(self.n_undefined[k, m])
            row["higher_is_better"] = self.higher_is_better[k]
        return pd.DataFrame(rows, columns=_VALUE_COLUMNS)

    def _repr_html_(self) -> str:
        """The notebook view in the layout of Table 2 of Rosset, Perlich & Zadrozny (2005).

        One row per measure; per model its value with the interval, then per pair the
        difference, z and the two-sided p-value.
        """
        title = (
            f"Paired bootstrap comparison: value [{self.confidence_level:.0%} {self.interval} "
            f"interval] per model, difference, z and two-sided p per pair "
            f"({self.n_bootstrap:,} replicates)"
        )
        return self._table_html(title)

    def _table_html(self, title: str, methods: Sequence[str] = ()) -> str:
        """The notebook table: one row per measure (first its ``methods`` cell, when given), each
        model's value with its interval, then each pair's difference, z and two-sided p."""
        from ranklens._foundation.format import format_number as fmt
        from ranklens._foundation.format import table_html

        header = ["measure", *(["interval / test"] if methods else []), *self.models]
        for a, b in self.pairs:
            header += [f"{a} − {b}", "z", "p"]
        rows: list[tuple[str, list[tuple[str, str]]] | str] = []
        for k, metric in enumerate(self.metrics):
            cells = [(methods[k], "")] if methods else []
            cells += [
                (
                    f"{fmt(self.values[k, m])} [{fmt(self.ci_lower[k, m])}, "
                    f"{fmt(self.ci_upper[k, m])}]",
                    "",
                )
                for m in range(len(self.models))
            ]
            for p in range(len(self.pairs)):
                cells += [
                    (fmt(self.difference[k, p]), ""),
                    (fmt(self.z[k, p]), ""),
                    (fmt(self.p_value[k, p]), ""),
                ]
            rows.append((metric, cells))
        return table_html(title, header, rows)


_VALUE_COLUMNS = [
    "metric",
    "model",
    "value",
    "std_error",
    "ci_lower",
    "ci_upper",
    "interval_method",
    "approximate",
    "n_undefined",
    "higher_is_better",
]


def _flags(flags: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``flags`` as a bool array of ``shape`` (all False where a result has none)."""
    flags = np.asarray(flags, dtype=bool)
    return flags if flags.shape == tuple(shape) else np.zeros(shape, dtype=bool)


@dataclasses.dataclass(frozen=True, repr=False)
class PermutationTestResult(_PairwiseResult):
    """The paired permutation test: each pair's difference against its permutation null.

    What :func:`compare_models` returns with ``method="permutation"``. For each pair ``(a, b)``,
    each of ``n_permutations`` random swaps exchanges the two models' predictions for every
    observation independently with probability 1/2 and recomputes the difference. Under "the two
    models are exchangeable" the observed difference is one draw of that distribution, so the
    test is exact without a Gaussian approximation; it gives p-values, not intervals. Arrays are
    indexed ``[metric, model]`` or ``[metric, pair]`` as in :class:`ComparisonResult`.

    Attributes
    ----------
    models, metrics : tuple of str
        Model names (keys of ``predictions``) and registry names of the metrics.
    higher_is_better : tuple of bool or None
        Direction of each metric, from the registry (None for a measure best closest to a
        target, see ``targets``, or not ranked).
    values : ndarray, shape (n_metrics, n_models)
        The metric on the full sample (the registered function, with ``sample_weight``).
    pairs : tuple of (str, str)
        Every pair ``(a, b)`` of models, ``a`` before ``b`` in the order given.
    difference : ndarray, shape (n_metrics, n_pairs)
        The observed ``value[a] - value[b]``, in the metric's units.
    null_sd : ndarray, shape (n_metrics, n_pairs)
        Standard deviation of the permutation null distribution of the difference (of
        ``null_differences`` over the swaps in which it is defined). It measures how far
        differences reach when the models are exchangeable; it is not a standard error of
        ``difference`` (use the bootstrap's ``difference_sd`` for that).
    z : ndarray, shape (n_metrics, n_pairs)
        ``difference / null_sd``, the observed difference in units of the null's spread (0 for
        identical models). Descriptive only: the p-values come from the permutation distribution
        itself, not from a Gaussian reading of ``z``.
    p_value : ndarray, shape (n_metrics, n_pairs)
        Two-sided permutation p-value ``(1 + #{|d*| >= |d|}) / (1 + B)`` over the ``B`` swaps in
        which the difference is defined (Phipson & Smyth 2010: never 0, and exact when the swaps
        are drawn at random). NaN where the observed difference is undefined.
    p_value_one_sided : ndarray, shape (n_metrics, n_pairs)
        One-sided in the direction of the observed difference,
        ``(1 + #{d* sign(d) >= |d|}) / (1 + B)``. Chosen after seeing the data, so prefer
        ``p_value``.
    n_undefined : ndarray, shape (n_metrics, n_pairs)
        Swaps in which the difference was undefined (NaN); they are left out of ``null_sd`` and
        the p-values.
    evaluation : tuple of str
        Per metric, ``"kernel"`` (a vectorised fast path) or ``"generic"`` (the registered
        function called once per swap).
    method : str
        Always ``"permutation"``: names the test in ``to_dict()``.
    n_permutations : int
        Random swaps per pair (``n_bootstrap`` of :func:`compare_models`).
    null_differences : ndarray, shape (n_permutations, n_metrics, n_pairs)
        The permuted differences ``d*``. Each pair has its own random stream, so a pair's test
        does not depend on the other models.
    targets : tuple of float or None
        Per metric, the value a ``direction="target"`` measure is best at (None otherwise);
        ``better`` then names the model closer to it.

    References
    ----------
    Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero: calculating
    exact p-values when permutations are randomly drawn. *Statistical Applications in Genetics
    and Molecular Biology*, 9(1), Article 39.
    """

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    higher_is_better: tuple[bool, ...]
    values: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    difference: np.ndarray
    null_sd: np.ndarray
    z: np.ndarray
    p_value: np.ndarray
    p_value_one_sided: np.ndarray
    n_undefined: np.ndarray
    evaluation: tuple[str, ...]
    # A constant, not an argument: the type already says which test ran.
    method: str = dataclasses.field(default="permutation", init=False)
    n_permutations: int
    null_differences: np.ndarray = dataclasses.field(repr=False)
    targets: tuple[float | None, ...] = dataclasses.field(default=(), repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per metric and pair, the layout of :meth:`ComparisonResult.to_frame`.

        Columns: ``metric, model_a, model_b, value_a, value_b, difference, null_sd, z, p_value,
        p_value_one_sided, better, higher_is_better`` (no interval columns: the test gives
        none).
        """
        return self._pair_frame(
            {
                "difference": self.difference,
                "null_sd": self.null_sd,
                "z": self.z,
                "p_value": self.p_value,
                "p_value_one_sided": self.p_value_one_sided,
            }
        )

    def values_frame(self) -> pd.DataFrame:
        """One row per metric and model: ``metric, model, value, higher_is_better``."""
        import pandas as pd

        rows = self._value_rows()
        for row in rows:
            row["higher_is_better"] = self.higher_is_better[self._metric_index(row["metric"])]
        return pd.DataFrame(rows, columns=["metric", "model", "value", "higher_is_better"])


def _better(
    a: str, b: str, va: float, vb: float, higher_is_better: bool | None, target: float | None = None
) -> str:
    """The model with the better value: by size, or (a target measure, ``higher_is_better``
    None) by the distance to ``target``; empty when equal, undefined or not ranked."""
    if not (np.isfinite(va) and np.isfinite(vb)) or va == vb:
        return ""
    if higher_is_better is None:
        if target is None or not np.isfinite(target):
            return ""
        da, db = abs(va - target), abs(vb - target)
        return "" if da == db else (a if da < db else b)
    return a if (va > vb) == higher_is_better else b


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------


def _resolve_metrics(metrics: Any, *, weighted: bool) -> list[MetricSpec]:
    if isinstance(metrics, str | MetricSpec):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or len(metrics) == 0:
        raise ValueError(f"metrics must be a non-empty sequence of metric names; got {metrics!r}")
    specs = [m if isinstance(m, MetricSpec) else get_metric(m) for m in metrics]
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"metrics has duplicate names: {names}")
    for spec in specs:
        if spec.order_dependent:
            raise ValueError(
                f"metric {spec.name!r} depends on the order of the rows, so resampling or "
                "permuting rows would change what it measures; it cannot be compared here"
            )
        if spec.inputs != "point":
            raise ValueError(
                f"metric {spec.name!r} needs {spec.inputs} predictions (lower and upper bounds); "
                "compare_models takes point predictions"
            )
        if weighted and not spec.supports_sample_weight:
            raise ValueError(f"metric {spec.name!r} does not accept sample_weight")
    return specs


# --------------------------------------------------------------------------------------------
# memory: what the evaluators and the blocks hold, against the budget
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# compare_models
# --------------------------------------------------------------------------------------------


# The overloads let a type checker see which result a literal ``method`` gives; the last one
# covers a method only known at run time.
@overload
def compare_models(
    y_true: ArrayLike,
    predictions: Any,
    *,
    metrics: Sequence[str] | str = ...,
    n_bootstrap: int = ...,
    confidence_level: float = ...,
    method: Literal["bootstrap"] = ...,
    interval: str = ...,
    random_state: Any = ...,
    sample_weight: ArrayLike | None = ...,
    show_progress: bool | None = ...,
    scheme: str = ...,
    groups: ArrayLike = ...,
    device: str | None = ...,
    horizon: int = ...,
    block_length: float | str = ...,
) -> ComparisonResult: ...


@overload
def compare_models(
    y_true: ArrayLike,
    predictions: Any,
    *,
    metrics: Sequence[str] | str = ...,
    n_bootstrap: int = ...,
    confidence_level: float = ...,
    method: Literal["permutation"],
    interval: str = ...,
    random_state: Any = ...,
    sample_weight: ArrayLike | None = ...,
    show_progress: bool | None = ...,
    scheme: str = ...,
    groups: ArrayLike = ...,
    device: str | None = ...,
    horizon: int = ...,
    block_length: float | str = ...,
) -> PermutationTestResult: ...


@overload
def compare_models(
    y_true: ArrayLike,
    predictions: Any,
    *,
    metrics: Sequence[str] | str = ...,
    n_bootstrap: int = ...,
    confidence_level: float = ...,
    method: str = ...,
    interval: str = ...,
    random_state: Any = ...,
    sample_weight: ArrayLike | None = ...,
    show_progress: bool | None = ...,
    scheme: str = ...,
    groups: ArrayLike = ...,
    device: str | None = ...,
    horizon: int = ...,
    block_length: float | str = ...,
) -> ComparisonResult | PermutationTestResult: ...


@raises_input_errors(
    "y_true",
    "predictions",
    probabilities=("confidence_level",),
    counts=("n_bootstrap",),
    also=("if ``groups`` has another length or missing labels",),
)
@shared_paragraphs
def compare_models(
    y_true: ArrayLike,
    predictions: Any,
    *,
    metrics: Sequence[str] | str = DEFAULT_COMPARISON_METRICS,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    method: str = "bootstrap",
    interval: str = "auto",
    random_state: Any = None,
    sample_weight: ArrayLike | None = None,
    show_progress: bool | None = None,
    scheme: str = "multinomial",
    groups: ArrayLike | None = None,
    device: str | None = None,
    horizon: int = 1,
    block_length: float | str = "auto",
) -> ComparisonResult | PermutationTestResult:
    """Compare models on any registered metrics with a paired bootstrap or a permutation test.

    Rosset, Perlich & Zadrozny (2005, Sect. 5.3 and Table 2; 2007, Sect. 6.3): resample the test
    set, take the standard deviation of the paired difference ``d = value(A) - value(B)`` over
    the resamples, and report ``z = d / SD`` with its Gaussian p-value. Here every model also gets
    a confidence interval, the difference a percentile or BCa interval, and every pair of models
    is compared. ``method="permutation"`` runs a paired permutation test instead.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    predictions : mapping of str to array-like of shape (n,), or DataFrame
        One prediction vector per model (a DataFrame: one column per model).
    metrics : sequence of str, default :data:`DEFAULT_COMPARISON_METRICS`
        ``("root_mean_squared_error", "mean_absolute_error", "kendall_tau", "spearman_rho")``.
        Registry names (:func:`ranklens.metrics.available_metrics`). Metrics that depend on the
        row order (``pmap``) or need interval predictions are refused with a ``ValueError``.
    n_bootstrap : int, default 1000
        Bootstrap replicates (``method="bootstrap"``) or random swaps per pair
        (``method="permutation"``, the result's ``n_permutations``). Rosset, Perlich & Zadrozny
        (2005) used 100; 1000 makes the p-value's second digit and the interval ends stable.
    confidence_level : float, default 0.95
        Of the bootstrap intervals (the permutation test gives none).
    method : {"bootstrap", "permutation"}, default "bootstrap"
        ``"bootstrap"``: paired nonparametric bootstrap of the rows (one multiplicity vector per
        replicate shared by all models and metrics); returns a :class:`ComparisonResult`.
        ``"permutation"``: for each pair, a paired randomisation test that swaps the two models'
        predictions for each observation with probability 1/2 (exact under "the two models are
        exchangeable"), p-value ``(1 + #{|d*| >= |d|}) / (B + 1)`` (Phipson & Smyth 2010);
        returns a :class:`PermutationTestResult`, with p-values and no intervals.
        ``"delong"``: no resampling; DeLong's analytic (co)variances (DeLong, DeLong &
        Clarke-Pearson 1988; :mod:`ranklens.delong`) for the measures that declare a concordance
        form (the AUC, Harrell's C, Somers' D; others are refused with a ``ValueError`` naming
        them); returns a :class:`DeLongComparisonResult`, a :class:`ComparisonResult` whose
        standard errors, z, p-values and Wald intervals are analytic (no replicates).
        ``"diebold-mariano"``: no resampling; for rows in time order and measures that are the
        mean of a per-row loss (the mean absolute and squared errors, the lin-lin and
        epsilon-insensitive losses; others are refused with a ``ValueError`` naming them), the
        Diebold & Mariano (1995) test of each pair with the variance at ``horizon`` and Harvey,
        Leybourne & Newbold's (1997) correction (:func:`ranklens.diebold_mariano_test`); returns
        a :class:`DieboldMarianoComparisonResult`. No ``sample_weight``, ``scheme`` or
        ``groups``.
    interval : {"auto", "bca", "percentile", "studentized"}, default "auto"
        Bootstrap interval type. ``"auto"``, what the Monte Carlo study of
        ``benchmarks/coverage_study.py`` supports (``docs/coverage.md``): for the mean losses (the
        measures declared as a :class:`~ranklens._foundation.forms.RatioForm`: RMSE, MAE, ...)
        Hall's (1988) symmetric bootstrap-t, ``"studentized"``, for the values and the differences
        (each replicate studentized by its own sandwich standard error; up to
        :data:`STUDENTIZED_MAX_UNITS` resampled units and on the CPU, BCa above); for the other
        measures BCa for the values and percentile for the paired differences (BCa's
        acceleration made the intervals of differences of rank measures reject a true null
        9-13 % of the time with a binary response, the percentile interval 5 %).
        ``"studentized"`` asks for the bootstrap-t wherever it exists (BCa elsewhere);
        ``"bca"`` and ``"percentile"`` give that interval throughout (the only two before).
        The result's ``interval_methods`` and ``difference_interval_methods`` name each
        measure's. BCa (bias-corrected and accelerated, Efron 1987) takes its acceleration from
        a grouped jackknife (``min(n, 100)`` random groups of rows;
        the ordinary jackknife when n <= 100), as in Efron & Narasimhan's ``bcajack``. From
        :data:`ranklens._inference.resampling.BCA_JACKKNIFE_BELOW` (one million) rows or units on,
        where 100 extra evaluations would cost more than the intervals are worth, it comes from a
        regression of the replicates on their weight in each of the 100 groups (their
        ``bcajack2``; no extra evaluation); with fewer than 200 replicates there it falls back
        to percentile intervals with a warning, and the result's ``interval`` says so. Not used
        by the permutation test.
    random_state : None, int, SeedSequence or numpy Generator
        Seed of the resampling. The same seed gives the same numbers on any number of threads.
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights. Rows are resampled with equal probability and keep their
        weight: replicate weights are ``multiplicity * sample_weight`` (the permutation test
        keeps each row's weight and swaps only the predictions).
    show_progress : bool or None, default None
        Report progress as lines on stderr: ``None`` when the run is projected to take more than
        about a second, ``True`` always, ``False`` never.
    scheme : {"multinomial", "poisson", "stratified", "stationary", "circular", "auto"}, \
default "multinomial"
        How the bootstrap draws its replicates (:class:`ranklens._inference.resampling.Resampler`).
        ``"multinomial"``: ``n`` rows (or, with ``groups``, ``G`` units) drawn with replacement.
        ``"poisson"``: independent Poisson(1) weights per row or unit from a counter-based hash
        of (row or unit key, replicate), so the weights do not depend on how the data are split
        into pieces (Chamandy et al. 2012); the total weight varies around ``n``.
        ``"stratified"``: for a binary ``y_true``, rows drawn with replacement within each class,
        so every replicate keeps the sample's event count (rare events: no replicate without
        events). ``"auto"``: ``"poisson"`` from
        :data:`ranklens._inference.resampling.POISSON_ABOVE` (one million) rows or units on, else
        ``"multinomial"``. Bootstrap only.
    groups : array-like of shape (n,), optional
        A unit id per row (customer, account, day): the clustered bootstrap resamples whole
        units, so rows of one unit stay together and their correlation is kept (a row
        bootstrap understates the uncertainty of clustered data; Davison & Hinkley 1997,
        Sect. 3.8). With BCa, the jackknife behind the acceleration deletes whole units. Labels
        of any type (integers, strings); not with ``scheme="stratified"``. Bootstrap only.
        ``"stationary"`` and ``"circular"``: for rows in time order whose errors are serially
        dependent, blocks of consecutive rows (Politis & Romano 1994; 1992), of mean or fixed
        length ``block_length``, so the dependence within a block is kept (a row bootstrap
        understates the variance of a mean of autocorrelated losses). Their intervals are BCa
        for the values and percentile for the differences (``interval="auto"``), BCa's
        acceleration from a jackknife that deletes contiguous stretches of rows: the
        bootstrap-t's sandwich standard error assumes independent rows, so it is not used.
    device : {"cpu", "gpu"} or None, default None (where the inputs live)
        None computes on a CUDA device when an input lives there (CuPy arrays, DLPack tensors
        of torch or JAX on a GPU), else on the CPU; ``"cpu"`` copies device inputs to the host.
        ``"gpu"`` (aliases ``"cuda"``, ``"cupy"``) runs the bootstrap on a CUDA device through
        CuPy (``pip install "ranklens[gpu]"``; :mod:`ranklens._inference.device_engine`): the
        measures that declare a rank-sweep form (tau-b, rho, Harrell's C, AUC-type) with exact
        integer pair counts, the mean losses as one matrix product, and the targeting measures (AUC,
        KS, gain area, accuracy ratio, lifts) through their replicate sweep's array-namespace form
        (:mod:`ranklens._compute.xp.targeting`, int64 sums); other measures are refused with a
        ``ValueError`` naming them. Multinomial replicates are drawn on the device (reproducible
        from ``random_state``, not the CPU's draws). Inputs may be CuPy arrays or DLPack
        tensors (torch, JAX), which stay on the device. Bootstrap only.
    block_length : float or "auto", default "auto"
        The mean (``"stationary"``) or fixed (``"circular"``) block length of a block scheme:
        ``"auto"`` takes Politis & White's (2004) automatic length with Patton, Politis &
        White's (2009) correction, the largest over every model's absolute errors and every
        pair's differences of absolute errors (a longer block keeps more of the dependence);
        a number in [1, n] is used as given. The other schemes take none (a number is a
        ``ValueError``).
    horizon : int, default 1
        The forecast horizon ``h`` of ``method="diebold-mariano"`` (its variance sums the
        autocovariances of the loss differential up to lag ``h - 1``); the other methods
        take none (another value is a ``ValueError``).

    Returns
    -------
    ComparisonResult or PermutationTestResult
        A :class:`ComparisonResult` for the bootstrap: ``to_frame()`` gives Table 2's layout,
        ``values_frame()`` each model's interval. A :class:`PermutationTestResult` for the
        permutation test: ``to_frame()`` in the same layout, with the null distribution's SD
        (``null_sd``) and the permutation p-values, and no interval columns.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    *p-values.* Table 2's p-values are Gaussian and one-sided: 0.14778 = Phi(-96,890 / 92,649)
    for RMSE and 0.00007 = Phi(-0.1154 / 0.0304) for tau; ``p_value_one_sided`` reproduces
    them. ``p_value`` is two-sided - the right test for "do the models differ?" - and made by
    the bootstrap itself, by the test dual to each pair's interval: the symmetric bootstrap-t
    test where the interval is studentized (a mean loss), the symmetric test of the centred
    replicates elsewhere (Hall & Wilson 1991). The Gaussian ``2 Phi(-|z|)`` rejected a true
    null in 8-9 % of data sets at n = 30 with normal errors (``docs/coverage.md``).

    *Both variances of tau.* For the metrics that declare an analytical variance (Kendall's tau),
    the bootstrap result holds it beside the bootstrap variance ``std_error ** 2``: Noether's
    plug-in (``variance_plug_in``; 0.00097 against a bootstrap 0.00103 in Rosset, Perlich &
    Zadrozny 2005, Sect. 5.3) and its unbiased U-statistic version (``variance_unbiased``);
    Noether's plug-in is biased low for small n.

    *Undefined replicates.* A resample can make a measure undefined (a constant resampled
    ``y_true`` for a rank correlation). Such replicates are counted in ``n_undefined``, left out
    of the standard deviations and intervals, and reported with an ``UndefinedMetricWarning``.
    Swaps of the permutation test in which a difference is undefined are counted in its
    ``n_undefined`` and left out of its p-values.

    References
    ----------
    %(rosset2005)s

    %(efron1987)s

    Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero: calculating
    exact p-values when permutations are randomly drawn. *Statistical Applications in Genetics
    and Molecular Biology*, 9(1), Article 39.

    Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
    Cambridge University Press (Sect. 3.7, stratified; Sect. 3.8, clustered data).

    Chamandy, N., Muralidharan, O., Najmi, A. and Naidu, S. (2012). Estimating uncertainty for
    massive data streams. Google technical report.

    Politis, D. N. and Romano, J. P. (1994). The stationary bootstrap. *Journal of the American
    Statistical Association* 89(428), 1303-1313.

    Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
    bootstrap. *Econometric Reviews* 23(1), 53-70; corrected by Patton, A., Politis, D. N. and
    White, H. (2009), *Econometric Reviews* 28(4), 372-375.

    Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of
    Business & Economic Statistics* 13(3), 253-263.

    Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
    squared errors. *International Journal of Forecasting* 13(2), 281-291.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.lognormal(size=500)
    >>> preds = {"m1": y * rng.lognormal(0, 0.6, 500), "m2": y * rng.lognormal(0, 0.9, 500)}
    >>> res = compare_models(
    ...     y, preds, metrics=["mean_absolute_error"], n_bootstrap=200, random_state=0
    ... )
    >>> res.to_frame()[["metric", "model_a", "model_b", "better"]].iloc[0].tolist()
    ['mean_absolute_error', 'm1', 'm2', 'm1']
    >>> test = compare_models(
    ...     y,
    ...     preds,
    ...     metrics=["mean_absolute_error"],
    ...     n_bootstrap=199,
    ...     method="permutation",
    ...     random_state=0,
    ... )
    >>> type(test).__name__, float(test.p_value[0, 0])
    ('PermutationTestResult', 0.005)
    """
    # on the device (asked for, or where the inputs live): the resampling runs on the GPU
    # (ranklens._inference.device_engine); validation and the point estimates use host copies.
    engine = None
    if resolve_device(device, y_true, predictions, sample_weight) == "gpu":
        engine = DeviceEngine(y_true, predictions, sample_weight)
        y_true, predictions, sample_weight = engine.host()
    y, names, preds = check_predictions(y_true, predictions)
    n = y.shape[0]
    # The user's weights, unscaled: the registered functions (and so the generic evaluator) see
    # exactly what a direct call would; the fast paths rescale them (see build_evaluators).
    sw = check_sample_weight(sample_weight, n, normalize=False)
    specs = _resolve_metrics(metrics, weighted=sw is not None)
    n_boot = check_positive_int(n_bootstrap, "n_bootstrap", minimum=2)
    random_state = check_random_state(random_state)
    level = check_probability(confidence_level, "confidence_level")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {_INTERVALS}; got {interval!r}")
    progress = show_progress
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"show_progress must be True, False or None; got {progress!r}")
    if method == "permutation" and (scheme != "multinomial" or groups is not None):
        raise ValueError(
            "scheme and groups choose how the bootstrap resamples; the permutation test swaps "
            "predictions row by row and takes neither"
        )
    resampler = Resampler.resolve(
        scheme, groups, y, resolve_block_length(block_length, scheme, y, preds)
    )
    if engine is not None:
        resampler = engine.resampler(resampler, method)

    n_metrics, n_models = len(specs), len(names)
    pair_index = list(itertools.combinations(range(n_models), 2))
    if method in ("delong", "diebold-mariano") and (scheme != "multinomial" or groups is not None):
        raise ValueError(f"scheme and groups choose a resampling; method={method!r} takes neither")
    if method == "diebold-mariano" and sw is not None:
        raise ValueError(
            "sample_weight: the Diebold-Mariano test compares unweighted mean losses over time; "
            "it takes no case weights"
        )
    if horizon != 1 and method != "diebold-mariano":
        raise ValueError(f"horizon is the Diebold-Mariano test's; method={method!r} takes none")
    if method == "bootstrap":
        rows = n_boot + jackknife_rows(n, "bca" if interval != "percentile" else interval)
    else:
        rows = n_boot * len(pair_index)
    # A small multinomial bootstrap whose kernels are not compiled runs on NumPy (the same
    # multiplicities; see ranklens._inference.resampling.prefer_numpy_twins).
    forms = [spec.capabilities.batched for spec in specs]
    twins = (
        engine is None
        and method == "bootstrap"
        and resampler.scheme == "multinomial"
        and resampler.unit_of_row is None
        and prefer_numpy_twins(
            n,
            rows,
            n_models if any(isinstance(f, RankSweepForm) for f in forms) else 0,
            any(isinstance(f, RatioForm) for f in forms),
        )
    )
    if method == "diebold-mariano":
        return dataclasses.replace(
            _diebold_mariano(specs, y, preds, names, pair_index, level, horizon),
            **_sizes(specs, y, preds, sw, resampler),
        )
    if method == "delong":
        # One sort (and sweep) of a model's data for its point values of tau, rho and C, kept
        # only while that model's values are computed: DeLong's components need none of it, and
        # every model's at once would hold about 70 bytes a row per model through the tests.
        values = np.empty((n_metrics, n_models))
        for m, pred in enumerate(preds):
            with shared_results():
                for k, spec in enumerate(specs):
                    values[k, m] = point_value(spec, y, pred, sw)
        return dataclasses.replace(
            _delong(specs, y, preds, sw, names, values, pair_index, level),
            **_sizes(specs, y, preds, sw, resampler),
        )
    # The memory the evaluators and the blocks take, fitted to the budget (the loss columns in
    # chunks, fewer level-sweep tasks at once) or refused in one line before anything is sorted.
    memory = None
    if engine is None:
        memory = memory_plan(n, n_models, forms, memory_budget())
        memory.check(n, n_models)
    # One sort (and sweep) of each model's data for the point values of tau, rho and C, tau's
    # variances and the bootstrap's ranks; released once the evaluators hold what they need.
    with shared_results(), _memory_guard(n, n_models):
        values = np.array([[point_value(spec, y, pred, sw) for pred in preds] for spec in specs])
        values = values.reshape(n_metrics, n_models)
        variances = (
            _analytical_variances(specs, y, preds, weighted=sw is not None)
            if method == "bootstrap"
            else None
        )
        with run_rows(rows), numpy_twins(twins):
            evaluators = (
                build_evaluators(specs, y, preds, sw, values, memory)
                if engine is None
                else engine.evaluators(specs, y, preds, sw, values)
            )
    with run_rows(rows), numpy_twins(twins), _memory_guard(n, n_models):
        evaluation = ["generic"] * n_metrics
        for evaluator in evaluators:
            for k in evaluator.positions:
                evaluation[k] = evaluator.path
        difference = np.array(
            [[values[k, a] - values[k, b] for a, b in pair_index] for k in range(n_metrics)]
        ).reshape(n_metrics, len(pair_index))
        # The fields both results share (each result declares them itself).
        common: dict[str, Any] = {
            "models": names,
            "metrics": tuple(s.name for s in specs),
            "higher_is_better": tuple(s.higher_is_better for s in specs),
            "targets": tuple(s.target_value() for s in specs),
            "values": values,
            "pairs": tuple((names[a], names[b]) for a, b in pair_index),
            "difference": difference,
            "evaluation": tuple(evaluation),
        }
        rng = np.random.default_rng(random_state)
        if method == "permutation":
            return _permutation_test(evaluators, common, pair_index, n, n_boot, rng, progress)
        boot = _bootstrap(
            evaluators,
            specs,
            y,
            preds,
            sw,
            common,
            pair_index,
            n_boot,
            level,
            interval,
            rng,
            progress,
            resampler,
            variances,
        )
    return dataclasses.replace(boot, **_sizes(specs, y, preds, sw, resampler))


@contextlib.contextmanager
def _memory_guard(n: int, n_models: int) -> Iterator[None]:
    """Within the block, running out of memory raises
    :class:`ranklens._inference.resampling.BootstrapMemoryError` with one line that says so and
    points to the Dask engine (never NumPy's bare ``MemoryError``)."""
    try:
        yield
    except BootstrapMemoryError:
        raise
    except MemoryError as exc:
        raise BootstrapMemoryError(
            f"the in-memory bootstrap of {n_models} models on {n:,} rows ran out of memory "
            f"({_first_line(exc)}): run it on Dask (ranklens evaluate --engine dask, or "
            "ranklens.evaluate_models(..., engine='dask')), or on fewer rows"
        ) from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: Rows the tail weight of a ratio-form measure reads at most (every k-th row above).
_TAIL_ROWS = 200_000


def _interval_plan(
    specs: Sequence[MetricSpec], interval: str, studentize: bool
) -> list[tuple[str, str]]:
    """Per metric ``(interval of each value, interval of each difference)``.

    ``"auto"``: Hall's symmetric bootstrap-t (``"studentized"``) for the ratio-form measures
    (mean losses) where it can be computed, else BCa for the values and percentile for the
    differences, as the Monte Carlo study of ``benchmarks/coverage_study.py`` chose
    (``docs/coverage.md``). ``"studentized"`` asks for it wherever it exists (BCa elsewhere);
    ``"bca"`` and ``"percentile"`` give that interval throughout.
    """
    plan = []
    for spec in specs:
        ratio = studentize and isinstance(spec.capabilities.batched, RatioForm)
        if interval in ("auto", "studentized") and ratio:
            plan.append(("studentized", "studentized"))
        elif interval == "auto":
            plan.append(("bca", "percentile"))
        elif interval == "studentized":
            plan.append(("bca", "bca"))
        else:
            plan.append((interval, interval))
    return plan


def _smallest_class(
    spec: MetricSpec, y: np.ndarray, preds: np.ndarray, sw: np.ndarray | None
) -> int | None:
    """Rows in the smaller class of the measure's binary response (None: not binary).

    The response is ``y_true``, or the events of a measure that declares a concordance form
    (the AUC of a continuous ``y_true`` takes its true top 10 %); read from the registry entry,
    never the name.
    """
    rows = _class_rows(spec, y, preds, sw)
    return None if rows is None else min(rows)


def _class_rows(
    spec: MetricSpec, y: np.ndarray, preds: np.ndarray, sw: np.ndarray | None
) -> tuple[int, int] | None:
    """``(non-events, events)``: the rows of positive weight in the smaller and the larger
    value of the measure's binary response (as :func:`_smallest_class` finds it), or None."""
    form = spec.capabilities.delong
    response, weight = y, sw
    if form is not None:
        try:
            response, _, weight = form.prepare(y, preds[0], sw)
        except ValueError:
            return None
    return class_rows(np.asarray(response), weight)


def _sizes(
    specs: Sequence[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sw: np.ndarray | None,
    resampler: Resampler,
) -> dict[str, Any]:
    """The comparison's ``n_units``, ``n_events`` and ``n_non_events`` (see
    :class:`ComparisonResult`)."""
    units = getattr(resampler, "unit_of_row", None)
    keep = np.ones(y.shape[0], dtype=bool) if sw is None else sw > 0
    n_units = int(np.count_nonzero(keep) if units is None else np.unique(units[keep]).shape[0])
    by_form: dict[int, tuple[int, int] | None] = {}  # one count per response
    rows = []
    for spec in specs:
        key = id(spec.capabilities.delong)
        if key not in by_form:
            by_form[key] = _class_rows(spec, y, preds, sw)
        rows.append(by_form[key])
    return {
        "n_units": n_units,
        "n_events": tuple(None if r is None else r[1] for r in rows),
        "n_non_events": tuple(None if r is None else r[0] for r in rows),
    }


def _tail_flags(
    specs: Sequence[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sw: np.ndarray | None,
    pair_index: list[tuple[int, int]],
    student: RatioStudentizer | None,
) -> dict[int, tuple[np.ndarray, ...]]:
    """Per ratio-form measure, the tail weights and the largest one-row shares of each model's
    and each pair's per-row contributions
    (:meth:`ranklens._foundation.interval_formulas.RatioStudentizer. tail_weights`; at most
    :data:`_TAIL_ROWS` rows)."""
    out = {}
    for k, spec in enumerate(specs):
        form = spec.capabilities.batched
        if not isinstance(form, RatioForm):
            continue
        if student is not None and k in student.forms:
            out[k] = student.tail_weights(k)
            continue
        step = max(1, -(-y.shape[0] // _TAIL_ROWS))
        rows = slice(None, None, step)
        w = None if sw is None else sw[rows]
        part = RatioStudentizer(
            {k: form}, y[rows], preds[:, rows], w, None, pair_index, 0, columns=False
        )
        out[k] = part.tail_weights(k)
    return out


def _bounded(spec: MetricSpec) -> bool:
    """Whether ``spec`` is a mean of bounded per-row contributions (:attr:`RatioForm.bounded`)."""
    form = spec.capabilities.batched
    return isinstance(form, RatioForm) and form.bounded


def _bootstrap_intervals(
    reps: np.ndarray,
    values: np.ndarray,
    difference: np.ndarray,
    jack: np.ndarray | None,
    plan: list[tuple[str, str]],
    student: RatioStudentizer | None,
    pair_index: list[tuple[int, int]],
    level: float,
) -> dict[str, np.ndarray]:
    """Every model's and pair's interval by the plan's method, with the replicates' SDs."""
    n_metrics, n_models = values.shape
    n_pairs = len(pair_index)
    out = {
        "std_error": np.full((n_metrics, n_models), math.nan),
        "ci": np.full((2, n_metrics, n_models), math.nan),
        "difference_sd": np.full((n_metrics, n_pairs), math.nan),
        "difference_ci": np.full((2, n_metrics, n_pairs), math.nan),
        "p_value": np.full((n_metrics, n_pairs), math.nan),
        "difference_se": np.full((n_metrics, n_pairs), math.nan),
        "studentized": np.full((reps.shape[0], n_metrics, n_pairs), math.nan),
    }
    for k, (single, paired) in enumerate(plan):
        se_hat = se_reps = d_hat = d_reps_se = None
        if "studentized" in (single, paired) and student is not None:
            se_hat, d_hat = student.standard_errors(k, replicates=False)
            se_reps, d_reps_se = student.standard_errors(k, replicates=True)
        for m in range(n_models):
            out["std_error"][k, m] = replicate_sd(reps[:, k, m])
            if single == "studentized" and student is not None and se_reps is not None:
                assert se_hat is not None
                with np.errstate(all="ignore"):
                    t = (reps[:, k, m] - values[k, m]) / se_reps[:, m]
                low, high = symmetric_t_interval(values[k, m], se_hat[m], t, level)
                # a mean of non-negative losses is not below finalize(0)
                out["ci"][:, k, m] = max(low, student.floor(k)), high
            else:
                j = None if jack is None else jack[:, k, m]
                out["ci"][:, k, m] = interval_from_replicates(
                    reps[:, k, m], values[k, m], j, level, single
                )
        for p, (a, b) in enumerate(pair_index):
            d_reps = reps[:, k, a] - reps[:, k, b]
            out["difference_sd"][k, p] = replicate_sd(d_reps)
            if paired == "studentized" and d_hat is not None and d_reps_se is not None:
                with np.errstate(all="ignore"):
                    t = (d_reps - difference[k, p]) / d_reps_se[:, p]
                interval = symmetric_t_interval(difference[k, p], d_hat[p], t, level)
                out["p_value"][k, p] = studentized_p_value(t, difference[k, p], d_hat[p])
                out["studentized"][:, k, p] = t
                out["difference_se"][k, p] = d_hat[p]
            else:
                d_jack = None if jack is None else jack[:, k, a] - jack[:, k, b]
                interval = interval_from_replicates(d_reps, difference[k, p], d_jack, level, paired)
                finite = d_reps[np.isfinite(d_reps)]
                out["p_value"][k, p] = symmetric_p_value(finite, difference[k, p])
            out["difference_ci"][:, k, p] = interval
    return out


def _qualify(
    specs: Sequence[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sw: np.ndarray | None,
    pair_index: list[tuple[int, int]],
    student: RatioStudentizer | None,
    out: dict[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Leave out the intervals and tests of a binary response with a class of fewer than
    :data:`ranklens._foundation.interval_formulas.MIN_CLASS_ROWS` rows (with a
    :class:`FewEventsWarning`), and flag approximate those of long-tailed per-row contributions or
    of a target too skewed for the sample's size (Cochran's rule). Returns the flags and the
    notes."""
    n_metrics = len(specs)
    approximate = np.zeros((n_metrics, preds.shape[0]), dtype=bool)
    difference_approximate = np.zeros((n_metrics, len(pair_index)), dtype=bool)
    notes = [""] * n_metrics
    tails = _tail_flags(specs, y, preds, sw, pair_index, student)
    skew_note: str | None = None  # the target's (Cochran's rule), computed once if needed
    for k, spec in enumerate(specs):
        smallest = _smallest_class(spec, y, preds, sw)
        if smallest is not None and smallest < MIN_CLASS_ROWS:
            notes[k] = (
                f"not given: the binary response has {smallest} row(s) in its smaller class, "
                f"fewer than {MIN_CLASS_ROWS}; the paired bootstrap's intervals and tests cover "
                "far less than their level there (docs/coverage.md)"
            )
            warnings.warn(
                f"{spec.name}: intervals and paired tests {notes[k]}",
                FewEventsWarning,
                stacklevel=4,
            )
            for name in ("ci", "difference_ci"):
                out[name][:, k] = math.nan
            for name in ("z", "p_value", "p_value_one_sided"):
                out[name][k] = math.nan
            continue
        if k in tails:
            if skew_note is None:
                skew_note = skewed_target_note(y, sw)
            approximate[k], difference_approximate[k], notes[k] = mean_loss_flags(
                tails[k], skew_note, bounded=_bounded(spec)
            )
    return approximate, difference_approximate, notes


def _bootstrap(
    evaluators: list[Evaluator],
    specs: list[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sw: np.ndarray | None,
    common: dict[str, Any],
    pair_index: list[tuple[int, int]],
    n_boot: int,
    level: float,
    interval: str,
    rng: np.random.Generator,
    progress: bool | None,
    resampler: Resampler | None = None,
    variances: tuple[np.ndarray, np.ndarray] | None = None,
) -> ComparisonResult:
    """Replicates, jackknife (for BCa) and every bootstrap statistic of the result
    (``variances``: the plug-in and unbiased analytic variances, computed here if None). The
    studentized intervals read each block's weights where they were drawn (the device's
    too: :func:`ranklens._compute.xp.host_product`)."""
    n = y.shape[0]
    names, values, difference = common["models"], common["values"], common["difference"]
    n_metrics, n_models = values.shape
    boot_rng, jack_rng = rng.spawn(2)
    reps = np.empty((n_boot, n_metrics, n_models))
    jack = None
    if resampler is None:
        resampler = Resampler("multinomial", n, None, y)
    student = None
    # the bootstrap-t's sandwich standard error assumes independent rows: not for blocks
    if interval in ("auto", "studentized") and resampler.scheme not in BLOCK_SCHEMES:
        student = studentizer(specs, y, preds, sw, resampler, pair_index, n_boot)
    plan = _interval_plan(specs, interval, student is not None)
    needs_bca = any("bca" in methods for methods in plan)
    jack_rows = jackknife_rows(resampler.n_units, "bca" if needs_bca else "percentile")
    # BCa at large n: the acceleration from a regression of the replicates on their weight per
    # group (no jackknife evaluations), see ranklens._inference.resampling.regression_influence.
    regress = needs_bca and jack_rows == 0
    counts = None
    if regress:
        groups, n_groups = resampler.jackknife_groups(jack_rng)
        counts = np.empty((n_boot, n_groups))
    total = n_boot + jack_rows
    with Progress(total, "bootstrap", progress) as bar:
        start = 0
        for block in resampler.blocks(boot_rng, n_boot, compact=compact_blocks(n)):
            read = evaluate_all(evaluators, block, reps[start : start + block.shape[0]], bar)
            if counts is not None:
                counts[start : start + block.shape[0]] = block_group_counts(read, groups, n_groups)
            if student is not None:  # the weights as drawn (uint8 counts or float64)
                student.add(read.weights, start, host_product)
            start += block.shape[0]
            del block, read  # (released before the next block is drawn: one in memory)
        if jack_rows:
            groups, n_groups = resampler.jackknife_groups(jack_rng)
            jack = np.empty((n_groups, n_metrics, n_models))
            start = 0
            for block in jackknife_blocks(groups, n_groups):
                evaluate_all(evaluators, block, jack[start : start + block.shape[0]])
                start += block.shape[0]
                bar.advance(block.shape[0])
    n_undefined = _warn_undefined_replicates(reps, values, specs, names)
    if counts is not None:
        jack = np.full((counts.shape[1], n_metrics, n_models), math.nan)
        for k in range(n_metrics):
            for m in range(n_models):
                influence = regression_influence(reps[:, k, m], counts)
                if influence is None:
                    jack = None
                    break
                jack[:, k, m] = influence
            if jack is None:
                break
        if jack is None:
            warnings.warn(
                f"BCa intervals at n = {n} take their acceleration from a regression of the "
                f"replicates on {counts.shape[1]} groups and need at least "
                f"{2 * counts.shape[1]} defined replicates; percentile intervals are given "
                "instead (interval='percentile' in the result)",
                RanklensWarning,
                stacklevel=3,
            )
            interval = "percentile" if interval == "bca" else interval
    if jack is None:  # no BCa without the jackknife (or its regression): percentile
        plan = [(_no_bca(single), _no_bca(paired)) for single, paired in plan]
    out = _bootstrap_intervals(reps, values, difference, jack, plan, student, pair_index, level)
    z = _standardise(difference, out["difference_sd"])
    out.update(z=z, p_value_one_sided=ndtr_array(-np.abs(z)))
    approximate, difference_approximate, notes = _qualify(
        specs, y, preds, sw, pair_index, student, out
    )
    if variances is None:
        variances = _analytical_variances(specs, y, preds, weighted=sw is not None)
    plug_in, unbiased = variances
    return ComparisonResult(
        **common,
        std_error=out["std_error"],
        ci_lower=out["ci"][0],
        ci_upper=out["ci"][1],
        difference_sd=out["difference_sd"],
        z=out["z"],
        p_value=out["p_value"],
        p_value_one_sided=out["p_value_one_sided"],
        difference_ci_lower=out["difference_ci"][0],
        difference_ci_upper=out["difference_ci"][1],
        variance_plug_in=plug_in,
        variance_unbiased=unbiased,
        n_undefined=n_undefined,
        interval=interval,
        n_bootstrap=n_boot,
        confidence_level=level,
        replicates=reps,
        difference_se=out["difference_se"],
        studentized_replicates=out["studentized"],
        interval_methods=tuple(f"bootstrap-{single}" for single, _ in plan),
        difference_interval_methods=tuple(f"bootstrap-{paired}" for _, paired in plan),
        approximate=approximate,
        difference_approximate=difference_approximate,
        interval_notes=tuple(notes),
        scheme=resampler.scheme,
        block_length=resampler.block_length,
    )


def _no_bca(method: str) -> str:
    return "percentile" if method == "bca" else method


@dataclasses.dataclass(frozen=True, repr=False)
class DeLongComparisonResult(ComparisonResult):
    """:class:`ComparisonResult` of ``compare_models(..., method="delong")``: analytic fields.

    ``std_error`` and ``difference_sd`` are DeLong's standard errors (DeLong, DeLong &
    Clarke-Pearson 1988), ``z = difference / difference_sd`` with ``p_value = 2 Phi(-|z|)``;
    each model's interval is the logit interval of the concordance probability
    (``interval_methods`` ``"delong-logit"``, :func:`ranklens.delong_interval`) mapped to the
    measure, each difference's the Wald interval ``difference -+ z sd`` (``"delong"``), flagged
    ``difference_approximate`` with fewer than 10 rows in a class of a binary response.
    ``variance_plug_in`` holds ``std_error ** 2``, ``variance_unbiased`` NaN; there are no
    replicates (``n_bootstrap`` 0, ``replicates`` of length 0), ``interval`` and ``method`` are
    ``"delong"`` and ``evaluation`` is ``"analytic"``.
    """

    method: str = dataclasses.field(default="delong", init=False)


#: A comparison result without replicates (:func:`_analytic_result` builds each kind).
_AnalyticResult = TypeVar("_AnalyticResult", bound=ComparisonResult)


def _delong(
    specs: list[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sw: np.ndarray | None,
    names: tuple[str, ...],
    values: np.ndarray,
    pair_index: list[tuple[int, int]],
    level: float,
) -> DeLongComparisonResult:
    """The analytic comparison (:func:`ranklens.delong.comparison_arrays`)."""
    from ranklens.delong import comparison_arrays

    arrays = comparison_arrays(specs, y, preds, sw, values, pair_index, level)
    return _analytic_result(DeLongComparisonResult, specs, names, values, pair_index, arrays, level)


def _analytic_result(
    result_type: type[_AnalyticResult],
    specs: list[MetricSpec],
    names: tuple[str, ...],
    values: np.ndarray,
    pair_index: list[tuple[int, int]],
    arrays: dict[str, Any],
    level: float,
    **fields: Any,
) -> _AnalyticResult:
    """A comparison without replicates (DeLong's, Diebold-Mariano's) from its analytic
    ``arrays``: the fields every such result shares, and ``fields`` of its own."""
    n_metrics, n_models = values.shape
    # as the ``common`` fields of compare_models (directions may be None: target measures)
    shared: dict[str, Any] = {
        "higher_is_better": tuple(s.higher_is_better for s in specs),
        "targets": tuple(s.target_value() for s in specs),
        **arrays,
    }
    return result_type(
        models=names,
        metrics=tuple(s.name for s in specs),
        values=values,
        pairs=tuple((names[a], names[b]) for a, b in pair_index),
        difference=np.array(
            [[values[k, a] - values[k, b] for a, b in pair_index] for k in range(n_metrics)]
        ).reshape(n_metrics, len(pair_index)),
        evaluation=("analytic",) * n_metrics,
        **shared,
        variance_plug_in=arrays["std_error"] ** 2,
        variance_unbiased=np.full((n_metrics, n_models), math.nan),
        n_undefined=np.zeros((n_metrics, n_models), dtype=np.int64),
        interval=result_type.method,
        n_bootstrap=0,
        confidence_level=level,
        replicates=np.empty((0, n_metrics, n_models)),
        **fields,
    )


@dataclasses.dataclass(frozen=True, repr=False)
class DieboldMarianoComparisonResult(ComparisonResult):
    """:class:`ComparisonResult` of ``compare_models(..., method="diebold-mariano")``.

    For rows in time order and measures that are the mean of a per-row loss: ``difference_sd``
    is the standard error of the mean loss differential at the forecast horizon and ``z`` the
    Diebold & Mariano (1995) statistic with Harvey, Leybourne & Newbold's (1997) correction,
    ``p_value`` its two-sided p-value against Student's t with ``n - 1`` degrees of freedom
    (:func:`ranklens.diebold_mariano_test`); each difference's interval is the dual
    ``difference -+ t sd`` and each model's the same t interval of its mean loss
    (``interval_methods`` ``"diebold-mariano-t"``). No replicates (``n_bootstrap`` 0);
    ``interval`` and ``method`` are ``"diebold-mariano"``, ``evaluation`` ``"analytic"``,
    ``horizon`` the horizon asked for.
    """

    method: str = dataclasses.field(default="diebold-mariano", init=False)
    horizon: int = 1


def _diebold_mariano(
    specs: list[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    names: tuple[str, ...],
    pair_index: list[tuple[int, int]],
    level: float,
    horizon: int,
) -> DieboldMarianoComparisonResult:
    """The comparison by the Diebold-Mariano test
    (``ranklens._inference.diebold_mariano.comparison_arrays``)."""
    from ranklens._inference.diebold_mariano import comparison_arrays

    n = y.shape[0]
    if (
        isinstance(horizon, bool)
        or not isinstance(horizon, int | np.integer)
        or not 1 <= horizon < n
    ):
        raise ValueError(f"horizon must be an integer in [1, {n - 1}]; got {horizon!r}")
    values = np.array([[point_value(spec, y, pred, None) for pred in preds] for spec in specs])
    values = values.reshape(len(specs), len(names))
    arrays = comparison_arrays(specs, y, preds, values, pair_index, level, int(horizon))
    return _analytic_result(
        DieboldMarianoComparisonResult,
        specs,
        names,
        values,
        pair_index,
        arrays,
        level,
        horizon=int(horizon),
    )


def _permutation_test(
    evaluators: list[Evaluator],
    common: dict[str, Any],
    pair_index: list[tuple[int, int]],
    n: int,
    n_boot: int,
    rng: np.random.Generator,
    progress: bool | None,
) -> PermutationTestResult:
    """The permutation null distribution of every pair's difference and its p-values."""
    difference = common["difference"]
    n_metrics, n_pairs = difference.shape
    null = np.empty((n_boot, n_metrics, n_pairs))
    pair_rngs = rng.spawn(max(n_pairs, 1))  # one stream per pair: a pair's test ignores the rest
    with Progress(n_boot * n_pairs, "permutation", progress) as bar:
        for p, (a, b) in enumerate(pair_index):
            start = 0
            for block in swap_blocks(pair_rngs[p], n, n_boot):
                rows = slice(start, start + block.shape[0])
                for evaluator in evaluators:
                    both = evaluator.evaluate_swapped(block, a, b)
                    null[rows, evaluator.positions, p] = both[:, :, 0] - both[:, :, 1]
                start += block.shape[0]
                bar.advance(block.shape[0])
    null_sd = np.array(
        [[replicate_sd(null[:, k, p]) for p in range(n_pairs)] for k in range(n_metrics)]
    ).reshape(n_metrics, n_pairs)
    p_two, p_one = _permutation_p_values(null, difference)
    return PermutationTestResult(
        **common,
        null_sd=null_sd,
        z=_standardise(difference, null_sd),
        p_value=p_two,
        p_value_one_sided=p_one,
        n_undefined=(~np.isfinite(null)).sum(axis=0),
        n_permutations=n_boot,
        null_differences=null,
    )


def _standardise(difference: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``difference / sd``; identical models (no difference, no variability) give 0, not NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((sd == 0) & (difference == 0), 0.0, difference / sd)


def _permutation_p_values(
    null: np.ndarray, difference: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided and observed-direction one-sided permutation p-values, ``(1 + k) / (B + 1)``."""
    # A relative tolerance so that the identity permutation, which reproduces the observed
    # difference up to rounding, always counts as "at least as extreme".
    observed = np.abs(difference) * (1 - 1e-10)
    valid = np.isfinite(null)
    n_valid = valid.sum(axis=0)
    with np.errstate(invalid="ignore"):
        extreme = (np.abs(null) >= observed[None]) & valid
        same_side = (null * np.sign(difference)[None] >= observed[None]) & valid
    p_two = (1.0 + extreme.sum(axis=0)) / (1.0 + n_valid)
    p_one = (1.0 + same_side.sum(axis=0)) / (1.0 + n_valid)
    undefined = ~np.isfinite(difference)
    p_two[undefined] = math.nan
    p_one[undefined] = math.nan
    return p_two, p_one


def _warn_undefined_replicates(
    reps: np.ndarray, values: np.ndarray, specs: list[MetricSpec], names: tuple[str, ...]
) -> np.ndarray:
    n_undefined = (~np.isfinite(reps)).sum(axis=0)
    for k, spec in enumerate(specs):
        for m, name in enumerate(names):
            count = int(n_undefined[k, m])
            if count and np.isfinite(values[k, m]):
                warn_undefined(
                    f"{spec.name} of model {name!r} is undefined in {count} of {reps.shape[0]} "
                    "bootstrap replicates (e.g. a resample with constant y_true); they are left "
                    "out of its standard error and intervals",
                    # warn_undefined <- this <- _bootstrap <- compare_models <- the user's call
                    stacklevel=5,
                )
    return n_undefined


def _analytical_variances(
    specs: list[MetricSpec], y: np.ndarray, preds: np.ndarray, *, weighted: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``(n_metrics, n_models)`` plug-in and unbiased variances the metrics declare, else NaN."""
    out = np.full((2, len(specs), preds.shape[0]), math.nan)
    if weighted:  # case weights define no number of observations
        return out[0], out[1]
    for k, spec in enumerate(specs):
        variance = spec.capabilities.variance
        if variance is None:
            continue
        for m, pred in enumerate(preds):
            with quiet():  # an undefined value was already reported by its point estimate
                out[:, k, m] = variance(y, pred)
    return out[0], out[1]


# --------------------------------------------------------------------------------------------
