"""Every public function, registered measure and Display on the containers users really have.

The reference is the same data as a writable float64 NumPy array. Each other container (read-only,
strided, Fortran, big-endian, float16/32, int, bool arrays; pandas 3 Series read from a CSV, with
nullable, Arrow-backed and categorical dtypes; polars; pyarrow; lists; one-column frames) must
give exactly the same result. Functions are discovered from ``ranklens.__all__``, the metric
registry and ``ranklens.plot``, so a new function is covered without editing this file; the few
that cannot be driven generically are listed in ``SKIPPED`` with the reason.

The data are small integers (with ties), so every dtype above represents them exactly and "the
same result" means bit-for-bit equality, not a tolerance.
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import math
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ranklens as rl
from ranklens.exceptions import RanklensWarning, RowAlignmentWarning
from ranklens.metrics import available_metrics, get_metric

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

N = 40
_rng = np.random.default_rng(20261123)
Y = _rng.integers(1, 25, N).astype(np.float64)  # positive (rmspe, log_rmse), with ties
PRED = np.clip(Y + _rng.integers(-6, 7, N), 1, None).astype(np.float64)
PRED_B = np.clip(Y + _rng.integers(-9, 10, N), 1, None).astype(np.float64)
LOWER = np.clip(PRED - _rng.integers(0, 4, N), 0, None)  # >= 0: unsigned dtypes too
UPPER = PRED + _rng.integers(0, 4, N)
WEIGHT = _rng.integers(0, 4, N).astype(np.float64)
WEIGHT[0] = 1.0  # a positive total
BINARY = (Y >= 15).astype(np.float64)
PROBABILITY = (PRED >= 13).astype(np.float64)  # probabilities that every container holds
#: Measures of probability scores for a 0/1 target: driven with BINARY and PROBABILITY.
PROBABILITY_MEASURES = {"brier_score_loss", "log_loss"}

# ------------------------------------------------------------------------------------------------
# Containers: name -> function of a float64 array (integer-valued) returning the user's object.


def _readonly(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out.flags.writeable = False
    return out


def _strided(a: np.ndarray) -> np.ndarray:
    wide = np.empty(2 * a.shape[0])
    wide[::2] = a
    return wide[::2]


def _csv_series(a: np.ndarray) -> pd.Series:
    """A column as pandas reads it from a file (read-only ``to_numpy`` under pandas 3)."""
    text = pd.DataFrame({"v": a}).to_csv(index=False)
    return pd.read_csv(io.StringIO(text))["v"]


CONTAINERS: dict[str, Callable[[np.ndarray], Any]] = {
    "read-only": _readonly,
    "strided": _strided,
    "fortran-column": lambda a: np.asfortranarray(np.column_stack([a, a]))[:, :1],
    "big-endian": lambda a: a.astype(">f8"),
    "float32": lambda a: a.astype(np.float32),
    "float16": lambda a: a.astype(np.float16),
    "int64": lambda a: a.astype(np.int64),
    "uint8": lambda a: a.astype(np.uint8),
    "list": lambda a: a.tolist(),
    "pandas-csv": _csv_series,
    "pandas-Float64": lambda a: pd.Series(a, dtype="Float64"),
    "pandas-Int64": lambda a: pd.Series(a.astype(np.int64), dtype="Int64"),
    "pandas-arrow-double": lambda a: pd.Series(a, dtype="double[pyarrow]"),
    "pandas-arrow-int": lambda a: pd.Series(a.astype(np.int64), dtype="int64[pyarrow]"),
    "pandas-categorical": lambda a: pd.Series(a, dtype="category"),
    "pandas-frame": lambda a: pd.DataFrame({"v": a}),
    "polars-f64": lambda a: pl.Series("v", a),
    "polars-i64": lambda a: pl.Series("v", a.astype(np.int64)),
    "polars-frame": lambda a: pl.DataFrame({"v": a}),
    "pyarrow": lambda a: pa.array(a),
    "pyarrow-chunked": lambda a: pa.chunked_array([a[: N // 2], a[N // 2 :]]),
}

#: The containers Displays are checked on (drawing is slow; these are the ones users have).
DISPLAY_CONTAINERS = ("read-only", "pandas-csv", "pandas-arrow-double", "polars-f64")

# ------------------------------------------------------------------------------------------------
# Arguments by parameter name. Arrays are wrapped by the container; the rest are passed as is.

ARRAYS: dict[str, np.ndarray] = {
    "y_true": Y,
    "y_pred": PRED,
    "y_score": PRED,
    "y": Y,
    "lower": LOWER,
    "upper": UPPER,
    "pred_a": PRED,
    "pred_b": PRED_B,
    "y_pred_a": PRED,
    "y_pred_b": PRED_B,
    "true_rank": np.argsort(np.argsort(-Y, kind="stable"), kind="stable") + 1.0,
    "pred_rank": np.argsort(np.argsort(-PRED, kind="stable"), kind="stable") + 1.0,
}
PREDICTION_DICTS = {"predictions"}
SCALARS: dict[str, Any] = {
    "alpha": 0.2,
    "metric": "mean_squared_error",
    "metrics": ("mean_squared_error", "kendall_tau"),
    "percentiles": (0.25, 0.5),
    "n": N,
    "n_bootstrap": 20,
    "random_state": 0,
    "groups": np.repeat(np.arange(4), N // 4),
    "levels": (0.1, 0.5, 0.9),
}

#: Keyword arguments a function needs beyond the data (a task it cannot run without).
EXTRA_KWARGS: dict[str, dict[str, Any]] = {
    "profit_curve": {"value_margin": 1.0, "cost_per_target": 2.0, "budget": 30.0},
    "ProfitCurveDisplay": {"value_margin": 1.0, "cost_per_target": 2.0, "budget": 30.0},
    "CurveBandsDisplay": {"n_bootstrap": 20, "random_state": 0},
    "ReliabilityDisplay": {"n_bootstrap": 20, "random_state": 0},
    "compare_metric_rankings": {"metrics": ("mean_squared_error", "kendall_tau")},
    # windows of 10 rows in the order given, each large enough for an interval
    "by_window": {"window": 10, "min_rows": 10},
}

#: Public names not driven here, and why.
SKIPPED: dict[str, str] = {
    "binary_target": "returns y_true as given without positive_label (the container itself); "
    "its labels are checked in tests/measures/test_classification.py",
    "event_label": "takes a target's distinct values (a short list, as the Dask engine finds "
    "them), not data; its checks are binary_target's (tests/engines/test_dask_binary.py)",
    "available_metrics": "takes no data",
    "tau_confidence_interval": "takes tau and n (numbers), not data",
    "concordance_interval": "takes an estimate and its variance parts (numbers), not data",
    "get_metric": "takes no data",
    "proposition2_bound": "takes no data (a theoretical bound of n and k)",
    "step_accuracy": "a factory of accuracy functions; takes no data",
    "smooth_accuracy": "a factory of accuracy functions; takes no data",
    "weighted_interval_score_from_quantiles": "2-D quantiles: covered by test_2d_containers",
    "evaluate_models": "runs every function checked here; its result records timings, and the "
    "CLI tests feed it CSV and Parquet columns (tests/presentation/test_cli_field.py)",
    "evaluation_to_json": "takes a ModelEvaluation, not data",
    "by_segment": "its labels name the slicing after the container's column name; its "
    "containers (pandas from read_csv, Arrow, polars, read-only and non-contiguous arrays) are "
    "compared number for number in tests/inference/test_segments.py",
    "scan_segments": "as by_segment (tests/inference/test_segments.py)",
    "required_sample_size": "takes a compare_models result (driven here), not data",
    "detectable_difference": "takes a compare_models result (driven here), not data",
    "roc_auc_sample_size": "takes an AUC and a ratio of controls to cases (numbers), not data",
}


def _quantiles() -> np.ndarray:
    return np.column_stack([LOWER, PRED, UPPER])


def _public_functions() -> list[Any]:
    out = []
    for name in rl.__all__:
        obj = getattr(rl, name)
        if inspect.isfunction(obj) and name not in SKIPPED:
            out.append(pytest.param(name, obj, id=name))
    return out


def _call(func: Callable[..., Any], wrap: Callable[[np.ndarray], Any], weighted: bool) -> Any:
    """Call ``func`` with every data argument wrapped by ``wrap``."""
    params = inspect.signature(func).parameters
    owner = getattr(func, "__self__", None)
    extra = EXTRA_KWARGS.get(owner.__name__ if owner is not None else func.__name__, {})
    args, kwargs = [], {}
    arrays = ARRAYS
    if func.__name__ in PROBABILITY_MEASURES:
        arrays = {**ARRAYS, "y_true": BINARY, "y_pred": PROBABILITY}
    for p in params.values():
        if p.name in extra:
            continue
        if p.name in arrays and p.default is p.empty:
            value: Any = wrap(arrays[p.name])
        elif p.name in PREDICTION_DICTS:
            value = {"a": wrap(PRED), "b": wrap(PRED_B)}
        elif p.name == "sample_weight" and weighted:
            value = wrap(WEIGHT)
        elif p.name in SCALARS and (p.default is p.empty or p.name in ("n_bootstrap",)):
            value = SCALARS[p.name]
        elif p.name == "random_state":
            value = 0
        elif p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise AssertionError(
                f"{func.__name__}: no test value for required parameter {p.name!r}; add it to "
                "ARRAYS/SCALARS in tests/common/test_containers.py (or to SKIPPED with a reason)"
            )
        else:
            continue
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(value)
        else:
            kwargs[p.name] = value
    kwargs.update(extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)  # the same data warn the same way
        try:
            return func(*args, **kwargs)
        except (ValueError, TypeError) as exc:
            return ("raised", type(exc).__name__, str(exc))


def _canonical(value: Any) -> Any:
    """A structure that compares equal exactly when two results are identical (NaN == NaN)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)},
        )
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            return ("array", value.shape, tuple(_canonical(float(v)) for v in value.ravel()))
        return ("array", value.shape, tuple(value.ravel().tolist()))
    if isinstance(value, float | np.floating):
        return "nan" if math.isnan(value) else float(value)
    if isinstance(value, int | np.integer | Fraction):
        return value
    if isinstance(value, pd.DataFrame):
        return _canonical(value.to_dict(orient="list"))
    return repr(value)


def _assert_same(reference: Any, got: Any, label: str) -> None:
    ref, other = _canonical(reference), _canonical(got)
    assert ref == other, f"{label}: result differs from the float64 NumPy result"


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("container", list(CONTAINERS))
@pytest.mark.parametrize(("name", "func"), _public_functions())
def test_public_function_same_result_on_every_container(name, func, container):
    wrap = CONTAINERS[container]
    weighted = "sample_weight" in inspect.signature(func).parameters
    reference = _call(func, np.array, weighted)
    assert not (isinstance(reference, tuple) and reference[:1] == ("raised",)), (
        f"{name} raised on the reference data: {reference}"
    )
    _assert_same(reference, _call(func, wrap, weighted), f"{name} on {container}")


@pytest.mark.parametrize("container", list(CONTAINERS))
@pytest.mark.parametrize("metric", available_metrics())
def test_registered_measure_same_result_on_every_container(metric, container):
    spec = get_metric(metric)
    wrap = CONTAINERS[container]
    arrays = (Y, LOWER, UPPER) if spec.inputs == "interval" else (Y, PRED)
    if metric in PROBABILITY_MEASURES:
        arrays = (BINARY, PROBABILITY)
    kwargs: dict[str, Any] = {"alpha": 0.2} if spec.inputs == "interval" else {}
    for weighted in (False, True) if spec.supports_sample_weight else (False,):

        def run(convert: Callable[[np.ndarray], Any], weighted: bool = weighted) -> Any:
            extra = {"sample_weight": convert(WEIGHT)} if weighted else {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RanklensWarning)
                return spec.func(*(convert(a) for a in arrays), **kwargs, **extra)

        _assert_same(run(np.array), run(wrap), f"{metric} (weighted={weighted}) on {container}")


def _displays() -> list[tuple[str, Any]]:
    import ranklens.plot as rp

    out = []
    for name in sorted(dir(rp)):
        obj = getattr(rp, name)
        if name.endswith("Display") and inspect.isclass(obj):
            out.append(pytest.param(name, obj, id=name))
    return out


#: Displays whose ``from_predictions`` is not the data entry point, and why.
DISPLAY_SKIPPED = {
    "RelevanceDisplay": "depends on the target only: covered through relevance_from_boxplot",
    "BeatProbabilityDisplay": "draws a curve_bands result: covered through curve_bands",
}


@pytest.mark.parametrize("container", DISPLAY_CONTAINERS)
@pytest.mark.parametrize(("name", "display"), _displays())
def test_display_same_result_on_containers(name, display, container):
    if name in DISPLAY_SKIPPED:
        pytest.skip(DISPLAY_SKIPPED[name])
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    wrap = CONTAINERS[container]
    method = display.from_predictions
    try:
        reference = _call(method, np.array, False)
        got = _call(method, wrap, False)
    finally:
        plt.close("all")
    assert not (isinstance(reference, tuple) and reference[:1] == ("raised",)), reference
    _assert_same(reference.result, got.result, f"{name} on {container}")


def test_2d_containers():
    q = _quantiles()
    ref = rl.weighted_interval_score_from_quantiles(Y, q, levels=(0.1, 0.5, 0.9))
    for frame in (
        pd.DataFrame(q, columns=["a", "b", "c"]),
        pd.DataFrame(q).astype("Float64"),
        pl.DataFrame({f"c{j}": q[:, j] for j in range(3)}),
        np.asfortranarray(q),
        _readonly(q),
        q.astype(np.float32),
    ):
        got = rl.weighted_interval_score_from_quantiles(Y, frame, levels=(0.1, 0.5, 0.9))
        assert got == ref


def test_binary_labels_in_every_container_give_sklearns_auc():
    from sklearn.metrics import roc_auc_score

    expected = roc_auc_score(BINARY, PRED)
    labels = [
        BINARY.astype(bool),
        pd.Series(BINARY.astype(bool), dtype="boolean"),
        pd.Series(BINARY.astype(bool)).astype("bool[pyarrow]"),
        pl.Series(BINARY.astype(bool)),
    ]
    for y in labels:
        assert rl.roc_auc(y, PRED) == pytest.approx(expected, abs=1e-15)
    for convert in CONTAINERS.values():
        assert rl.roc_auc(convert(BINARY), convert(PRED)) == pytest.approx(expected, abs=1e-15)


def test_inputs_are_never_modified():
    """No public function writes into the caller's arrays (kernels only read what they get)."""
    for param in _public_functions():
        name, func = param.values
        originals = {k: v.copy() for k, v in ARRAYS.items()}
        weights = WEIGHT.copy()
        _call(func, lambda a: a, True)  # the very arrays, writable
        for key, before in originals.items():
            np.testing.assert_array_equal(ARRAYS[key], before, err_msg=f"{name} wrote {key}")
        np.testing.assert_array_equal(WEIGHT, weights, err_msg=f"{name} wrote sample_weight")


# ------------------------------------------------------------------------------------------------
# Missing values, wrong kinds of data, misaligned indexes


@pytest.mark.parametrize(
    "convert",
    [
        lambda a: pd.Series(a, dtype="Float64"),
        lambda a: pd.Series(a, dtype="double[pyarrow]"),
        lambda a: pl.Series(a),
        lambda a: pa.array(a, from_pandas=True),
        lambda a: pd.Series(a).astype("category"),
        lambda a: [None if np.isnan(v) else v for v in a],
    ],
    ids=["Float64", "arrow", "polars", "pyarrow", "categorical", "list-None"],
)
def test_missing_values_behave_like_nan(convert):
    a = Y.copy()
    a[3] = np.nan
    pattern = r"y_true contains 1 NaN or missing value\(s\) \(first at position 3\)"
    with pytest.raises(ValueError, match=pattern):
        rl.mean_squared_error(convert(a), PRED)


def test_masked_array_is_refused():
    # The mask used to be ignored: this gave 3.3e17.
    with pytest.raises(TypeError, match=r"y_true is a masked array with 1 masked value"):
        rl.mean_squared_error(np.ma.masked_array([1.0, 2, 1e9], mask=[0, 0, 1]), [1.0, 2, 3])
    # nothing masked: the data are used
    assert rl.mean_squared_error(np.ma.masked_array([1.0, 2, 3]), [1.0, 2, 3]) == 0.0


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (pd.Series(["1.5", "2", "3"]), "y_true must be numeric"),  # str (3) or object (2)
        (pd.Series(["1.5", "2", "3"], dtype=object), "y_true must be numeric.*str"),
        (pl.Series(["1.5", "2", "3"]), "y_true must be numeric.*polars Series of dtype String"),
        (pa.array(["1.5", "2", "3"]), "y_true must be numeric.*Arrow array of type string"),
        (np.array(["1.5", "2", "3"]), "y_true must be numeric.*strings"),
        (np.array([1 + 1j, 2, 3]), "y_true must be numeric.*complex"),
        (pd.Series(pd.to_datetime(["2020-01-01"] * 3)), "y_true must be numeric.*datetime"),
        (np.array(["2020-01-01"] * 3, dtype="datetime64[D]"), "y_true must be numeric.*dates"),
        (np.array([1, "a", 3], dtype=object), "y_true must be numeric.*str 'a' at position 1"),
        (pd.Series(["a", "b", "a"], dtype="category"), "y_true must be numeric.*categorical"),
    ],
    ids=range(10),
)
def test_wrong_kind_of_data_is_a_type_error(value, pattern):
    with pytest.raises(TypeError, match=pattern):
        rl.mean_squared_error(value, [1.0, 2.0, 3.0])


def test_wrong_kind_in_2d_bounds_and_relevance():
    with pytest.raises(TypeError, match="quantiles"):
        rl.weighted_interval_score_from_quantiles(
            [1.0, 2.0], np.array([["a", "b"], ["c", "d"]]), levels=(0.25, 0.75)
        )
    with pytest.raises(TypeError, match="quantiles"):
        rl.weighted_interval_score_from_quantiles(
            [1.0, 2.0], np.array([[1 + 1j, 2], [1, 2]]), levels=(0.25, 0.75)
        )
    phi = rl.relevance_from_boxplot(Y, extremes="both")
    with pytest.raises(TypeError, match="must be numeric"):
        phi(pd.Series(["1", "2"]))
    with pytest.raises(TypeError, match="must be numeric"):
        phi(np.array(["2020-01-01"], dtype="datetime64[D]"))


def test_misaligned_pandas_indexes_warn():
    y = pd.Series(Y, index=np.arange(N))
    p = pd.Series(PRED, index=np.arange(N)[::-1])
    with pytest.warns(RowAlignmentWarning, match="matches rows by position"):
        value = rl.mean_squared_error(y, p)
    assert value == rl.mean_squared_error(Y, PRED)  # by position, as documented
    with pytest.warns(RowAlignmentWarning, match="y_true and lower"):
        rl.interval_score(y, p - 3, p + 3, alpha=0.1)
    with pytest.warns(RowAlignmentWarning, match=r"y_true and predictions\['b'\]"):
        rl.compare_models(y, {"a": y * 2, "b": p}, metrics=["mean_squared_error"], n_bootstrap=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rl.mean_squared_error(y, pd.Series(PRED, index=np.arange(N)))  # same index: silent
        rl.mean_squared_error(y, PRED)  # one side NumPy: silent


def test_public_namespace_is_explicit():
    assert len(rl.__all__) == len(set(rl.__all__))
    for name in rl.__all__:
        assert hasattr(rl, name), name
    assert "annotations" not in rl.__all__
