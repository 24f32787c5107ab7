"""Properties every registered measure must have, checked over whatever is registered.

The lists of metrics come from the registry at collection time, so a measure registered by any
module is covered without editing this file. The only exceptions are derived from the spec
(``order_dependent``, ``supports_sample_weight``) or from the measure itself (a ``ValueError`` on
the generic data states its domain and skips the measure with that message).
"""

from __future__ import annotations

import inspect
import math
import re
import warnings

import numpy as np
import pytest

import ranklens
from ranklens.exceptions import RanklensWarning
from ranklens.metrics import (
    DIRECTIONS,
    FAMILIES,
    MetricSpec,
    available_metrics,
    get_metric,
)

POINT = available_metrics(inputs="point")
INTERVAL = available_metrics(inputs="interval")
ALL = available_metrics()
ALPHA = 0.2

# The rows of exchangeable data can be repeated, dropped and shuffled; an order-dependent measure
# (e.g. pmap's lag-1 scale) has no such rows.
ORDER_DEPENDENT_REASON = "order-dependent: rows are not exchangeable (spec.order_dependent)"


def _data(seed: int = 0, n: int = 40):
    """Positive, continuous, skewed y (no zeros) with a few ties in y and in the prediction."""
    rng = np.random.default_rng(seed)
    y = np.round(rng.lognormal(mean=1.0, sigma=0.8, size=n), 3)
    y[[3, 17, 29]] = y[8]  # ties in y_true
    y[[30, 33]] = np.round(y.max() * np.array([9.0, 12.0]), 3)  # rare extremes (box-plot outliers)
    p = np.round(y * rng.lognormal(sigma=0.35, size=n), 3)
    p[[5, 6]] = p[21]  # ties in y_pred
    half = 0.3 * np.abs(p) + 0.1
    return y, p, p - half, p + half


def _call(spec: MetricSpec, y, p, lo, hi, **kwargs) -> float:
    if spec.inputs == "interval":
        return float(spec.func(y, lo, hi, alpha=ALPHA, **kwargs))
    return float(spec.func(y, p, **kwargs))


def _value_or_skip(spec: MetricSpec, y, p, lo, hi, **kwargs) -> float:
    """The measure on the generic data; skip (with the measure's own reason) outside its domain."""
    required = [
        name
        for name, param in inspect.signature(spec.func).parameters.items()
        if param.kind is param.KEYWORD_ONLY
        and param.default is param.empty
        and name not in ("alpha", "sample_weight")
    ]
    if required:
        pytest.skip(f"{spec.name} needs keyword argument(s) {required} without a default")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RanklensWarning)
            value = _call(spec, y, p, lo, hi, **kwargs)
    except RanklensWarning as exc:
        pytest.skip(f"{spec.name} warns on the generic data: {exc}")
    except ValueError as exc:
        pytest.skip(f"{spec.name} does not accept the generic data: {exc}")
    return value


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


# --- the registry itself -----------------------------------------------------------------------


def test_registry_is_populated_and_lookup_works():
    assert "mean_squared_error" in ALL and "root_mean_squared_error" in ALL and "pmap" in ALL
    assert get_metric("mean_absolute_error").name == "mean_absolute_error"
    unknown = r"unknown metric 'no_such_metric'; available: .*mean_absolute_error"
    with pytest.raises(ValueError, match=unknown):
        get_metric("no_such_metric")
    with pytest.raises(ValueError, match="family must be one of"):
        available_metrics("nonsense")
    assert set(available_metrics("residual")) >= {
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
        "median_absolute_error",
    }
    assert set(POINT) | set(INTERVAL) == set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_spec_is_complete(name):
    spec = get_metric(name)
    assert re.fullmatch(r"[a-z][a-z0-9_]*", name), "registry names are lower_snake"
    assert spec.direction in DIRECTIONS
    expected = {"higher": True, "lower": False}.get(spec.direction)
    assert spec.higher_is_better is expected, "higher_is_better is derived from the direction"
    assert (spec.target is not None) == (spec.direction == "target")
    if spec.direction == "target":
        target = spec.target_value(alpha=ALPHA)
        assert isinstance(target, float) and math.isfinite(target)
    assert spec.family in FAMILIES
    assert spec.inputs in ("point", "interval")
    assert isinstance(spec.order_dependent, bool)
    assert spec.description.strip(), "a one-line description for tables and the report"
    params = inspect.signature(spec.func).parameters
    assert spec.supports_sample_weight == ("sample_weight" in params)
    if spec.supports_sample_weight:
        assert params["sample_weight"].kind is inspect.Parameter.KEYWORD_ONLY
        assert params["sample_weight"].default is None
    if spec.inputs == "interval":
        assert list(params)[:3] == ["y_true", "lower", "upper"]
        assert params["alpha"].kind is inspect.Parameter.KEYWORD_ONLY
    else:
        assert list(params)[:2] == ["y_true", "y_pred"]
    assert getattr(ranklens, spec.func.__name__, None) is spec.func, "importable from ranklens"


@pytest.mark.parametrize("name", ALL)
def test_every_measure_speaks_readers_language(name):
    # the report writes the plain name in its sentences and the meaning under each row
    spec = get_metric(name)
    assert spec.plain_name.strip() and spec.plain_name != name, "a plain name, not the identifier"
    assert "_" not in spec.plain_name, "no identifier syntax in the plain name"
    assert spec.meaning.strip(), "a one-line meaning"
    assert "``" not in spec.meaning and ":func:" not in spec.meaning


def test_plain_name_and_meaning_default_from_the_registration():
    from ranklens._foundation.registry import REGISTRY, register_metric

    def made_up_measure(y_true, y_pred, *, sample_weight=None):
        """Made up for the test: ``mean`` of :func:`numpy.abs` of the residuals."""
        return 0.0

    try:
        register_metric("made_up_measure", direction="lower", family="residual")(made_up_measure)
        spec = REGISTRY["made_up_measure"]
        assert spec.plain_name == "made up measure"
        assert spec.meaning == "Made up for the test: mean of numpy.abs of the residuals."
        register_metric(
            "made_up_measure",
            direction="lower",
            family="residual",
            plain_name="an invented error",
            meaning="Nothing at all.",
        )(made_up_measure)
        assert REGISTRY["made_up_measure"].plain_name == "an invented error"
        assert REGISTRY["made_up_measure"].meaning == "Nothing at all."
    finally:
        REGISTRY.pop("made_up_measure", None)


@pytest.mark.parametrize("name", ALL)
def test_name_suffix_agrees_with_direction_or_the_docstring_says_why(name):
    """``*_score`` is higher-is-better and ``*_error``/``*_loss`` lower, unless documented."""
    spec = get_metric(name)
    doc = (inspect.getdoc(spec.func) or "").lower()
    if name.endswith("_score") and not spec.higher_is_better:
        assert "lower is better" in doc, f"{name} is a *_score but lower-is-better: say so"
    if name.endswith(("_error", "_loss")) and spec.higher_is_better:
        assert "higher is better" in doc, f"{name} is a *_error/*_loss but higher-is-better"


# --- point measures --------------------------------------------------------------------------


@pytest.mark.parametrize("name", POINT)
def test_point_measure_returns_a_float_and_prefers_the_perfect_prediction(name):
    spec = get_metric(name)
    y, p, lo, hi = _data()
    value = _value_or_skip(spec, y, p, lo, hi)
    assert isinstance(value, float) and math.isfinite(value)
    perfect = _value_or_skip(spec, y, y.copy(), lo, hi)
    if spec.higher_is_better:
        assert perfect >= value - 1e-12
    else:
        assert perfect <= value + 1e-12


@pytest.mark.parametrize("name", ALL)
def test_invariant_to_row_permutation(name):
    spec = get_metric(name)
    if spec.order_dependent:
        pytest.skip(ORDER_DEPENDENT_REASON)
    y, p, lo, hi = _data(1)
    value = _value_or_skip(spec, y, p, lo, hi)
    perm = np.random.default_rng(5).permutation(y.shape[0])
    assert _close(_call(spec, y[perm], p[perm], lo[perm], hi[perm]), value)


WEIGHTED = [name for name in ALL if get_metric(name).supports_sample_weight]


@pytest.mark.parametrize("name", WEIGHTED)
def test_unit_weights_equal_no_weights(name):
    spec = get_metric(name)
    y, p, lo, hi = _data(2)
    value = _value_or_skip(spec, y, p, lo, hi)
    assert _close(_call(spec, y, p, lo, hi, sample_weight=np.ones(y.shape[0])), value)


@pytest.mark.parametrize("name", WEIGHTED)
def test_integer_weights_equal_repeated_rows(name):
    spec = get_metric(name)
    if spec.order_dependent:
        pytest.skip(ORDER_DEPENDENT_REASON)
    y, p, lo, hi = _data(3)
    w = np.random.default_rng(7).integers(1, 4, size=y.shape[0])
    repeated = _value_or_skip(
        spec, np.repeat(y, w), np.repeat(p, w), np.repeat(lo, w), np.repeat(hi, w)
    )
    assert _close(_call(spec, y, p, lo, hi, sample_weight=w), repeated)


@pytest.mark.parametrize("name", WEIGHTED)
def test_zero_weight_equals_removing_the_row(name):
    spec = get_metric(name)
    if spec.order_dependent:
        pytest.skip(ORDER_DEPENDENT_REASON)
    y, p, lo, hi = _data(4)
    keep = np.ones(y.shape[0], dtype=bool)
    keep[[0, 11, 25]] = False
    removed = _value_or_skip(spec, y[keep], p[keep], lo[keep], hi[keep])
    w = keep.astype(float)
    assert _close(_call(spec, y, p, lo, hi, sample_weight=w), removed)


@pytest.mark.parametrize("name", WEIGHTED)
def test_negative_weights_are_rejected(name):
    spec = get_metric(name)
    y, p, lo, hi = _data(9)
    _value_or_skip(spec, y, p, lo, hi)
    w = np.ones(y.shape[0])
    w[2] = -1.0
    with pytest.raises(ValueError, match="sample_weight"):
        _call(spec, y, p, lo, hi, sample_weight=w)


# --- names: the function's name is the registry key ------------------------------------------


def test_registry_keys_are_function_names():
    for name in ALL:
        assert get_metric(name).func.__name__ == name


@pytest.mark.parametrize("short", ["mse", "rmse", "mae", "ndcg"])
def test_only_the_function_names_are_keys(short):
    # one name for one measure: the short names are neither registry keys nor functions
    assert short not in ALL
    with pytest.raises(ValueError, match="unknown metric"):
        get_metric(short)
    assert not hasattr(ranklens, short)


def test_a_direction_is_required_and_checked():
    with pytest.raises(TypeError, match="direction"):
        MetricSpec("x", abs, family="residual")
    with pytest.raises(ValueError, match="direction must be one of"):
        MetricSpec("x", abs, family="residual", direction="up")
    with pytest.raises(ValueError, match="target"):
        MetricSpec("x", abs, family="residual", direction="target")
    spec = MetricSpec("x", abs, False, "residual")  # the earlier positional form
    assert spec.direction == "lower" and spec.higher_is_better is False


def test_coverage_is_best_closest_to_the_nominal_level():
    from ranklens._foundation.registry import best_positions

    spec = get_metric("interval_coverage")
    assert spec.target_value(alpha=0.2) == pytest.approx(0.8)
    good = spec.goodness([0.995, 0.81], alpha=0.2)
    assert good[1] > good[0]
    info = {"direction": "target", "target": 0.8, "higher_is_better": None}
    assert best_positions([0.995, 0.81], info) == {1}
    assert best_positions([0.995, 0.81], {"direction": "neutral"}) == set()
